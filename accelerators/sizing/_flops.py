"""The floating-point work of a training job: parameters x tokens x the method's factor.

>>> from accelerators.sizing import ModelShape, job_flops
>>> work = job_flops(ModelShape.from_params(7e9), method="full", tokens=1e9, checkpointing=False)
>>> f"{work.model_flops:.2e}"  # 6 N D = 4.20e+19, plus the attention scores of 4,096 tokens
'4.84e+19'

Every factor is cited in ``docs/planning.md``:

* **full**: ``6 N`` per token, 2N forward and 4N backward (Kaplan et al. 2020, "Scaling Laws
  for Neural Language Models", §2.1), plus the attention scores ``12 L H Q T`` that ``6 N``
  leaves out (Chowdhery et al. 2022, PaLM, Appendix B);
* **lora**, **qlora**: the frozen weights need no weight gradient, so the backward pass costs
  2N instead of 4N: ``4 N`` per token plus ``6`` per trainable adapter parameter (Hu et al.
  2021 measured the consequence: 25 % faster than full fine-tuning of GPT-3 175B, §4.2);
* **recomputation** (gradient checkpointing, the memory estimator's default) runs each
  forward pass twice: ``+2 N`` per token of *hardware* FLOPs (Korthikanti et al. 2022, §5;
  Narayanan et al. 2021 count 4 passes instead of 3 the same way). Model FLOPs (what MFU is
  measured on) leave it out; the time estimate uses hardware FLOPs;
* **qlora** also dequantises its NF4 weights on every pass: :data:`QLORA_SLOWDOWN` stretches
  the time, not the FLOPs (LitGPT's resource tables, Llama 2 7B on one A100).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from accelerators.errors import close_matches
from accelerators.sizing._memory import LoraTargets, lora_params
from accelerators.sizing._model import ModelShape, SizingError

__all__ = ["QLORA_SLOWDOWN", "TRAINING_METHODS", "JobFlops", "job_flops"]

TRAINING_METHODS: tuple[str, ...] = ("full", "lora", "qlora")

#: Time of a QLoRA step over a LoRA step on the same GPU: LitGPT's resource tables (commit
#: 4839345, A100-SXM4-40GB, bitsandbytes 0.41.1), Llama 2 7B, micro-batch 1, 1k iterations:
#: 3.83 min with ``bnb.nf4-dq`` against 2.36 min unquantised. The same table gives 1.51 for
#: 3B and 2.05 for 13B.
QLORA_SLOWDOWN = 3.83 / 2.36


@dataclass(frozen=True, slots=True)
class JobFlops:
    """The work of one training job, in floating-point operations.

    ``model_flops`` is what MFU is measured on; ``hardware_flops`` adds what recomputation
    runs again, and is what the devices execute. ``time_factor`` stretches the time beyond
    the FLOPs (QLoRA's dequantisation; 1 otherwise).
    """

    method: str
    params: int
    tokens: float
    """Tokens processed: dataset tokens x epochs."""
    per_token: float
    """Model FLOPs per token."""
    recompute_per_token: float
    time_factor: float
    notes: tuple[str, ...]

    @property
    def model_flops(self) -> float:
        return self.per_token * self.tokens

    @property
    def hardware_flops(self) -> float:
        return (self.per_token + self.recompute_per_token) * self.tokens

    @property
    def factor(self) -> float:
        """Model FLOPs per parameter and token: 6 for full training (plus attention)."""
        return self.per_token / self.params


def job_flops(
    model: ModelShape,
    *,
    method: str,
    tokens: float,
    epochs: float = 1,
    seq_len: int = 4096,
    checkpointing: bool = True,
    lora_rank: int = 16,
    lora_targets: LoraTargets | None = None,
) -> JobFlops:
    """FLOPs of fine-tuning ``model`` with ``method`` on ``tokens`` tokens for ``epochs``.

    ``seq_len`` sizes the attention-score term; ``checkpointing`` adds one forward pass of
    recomputation to the hardware FLOPs. A bare parameter count gets the nearest Llama 2 shape
    (:meth:`ModelShape.with_shape`), as in ``plan``. Bad input raises :class:`SizingError`.
    """
    if not isinstance(model, ModelShape):
        raise SizingError(f"Expected a ModelShape, got {type(model).__name__}: {model!r}")
    if method not in TRAINING_METHODS:
        hint = close_matches(str(method), TRAINING_METHODS)
        extra = f"; did you mean {hint[0]!r}?" if hint else " (inference is not a training job)"
        raise SizingError(
            f"Unknown training method {method!r}: expected one of {TRAINING_METHODS}{extra}"
        )
    seen = _positive(tokens, "tokens") * _positive(epochs, "epochs")
    n = float(model.params)
    notes: list[str] = []
    if not model.has_attention_shape:  # a bare count: the shape plan() and the CLI assume
        model = model.with_shape()
        notes.append(f"shape: {model.name}, for a bare parameter count (ModelShape.like)")
    heads = model.heads or 0
    head_dim = model.head_dim or (model.hidden or 0) // max(heads, 1)
    attention = 12.0 * (model.layers or 0) * heads * head_dim * seq_len
    notes.append(f"attention scores 12·L·H·Q·T = {attention:.3g} FLOPs/token (PaLM App. B)")
    # 12·L·H·Q·T is three passes of 4·L·H·Q·T. The score products multiply activations by
    # activations, so their backward pass needs both input gradients under LoRA too.
    forward = 2 * n + attention / 3
    if method == "full":
        per_token = 6 * n + attention
        notes.insert(0, "full: 6N per token, 2N forward + 4N backward (Kaplan et al. 2020)")
    else:
        targets: LoraTargets = lora_targets or ("all-linear" if method == "qlora" else "qv")
        trainable = lora_params(model, rank=lora_rank, targets=targets)
        per_token = 4 * n + attention + 6.0 * trainable
        notes.insert(
            0,
            f"{method}: 4N per token, no weight gradient for frozen weights, + 6 x "
            f"{trainable:,} adapter params (Hu et al. 2021)",
        )
    recompute = forward if checkpointing else 0.0
    if checkpointing:
        notes.append("recomputation: one more forward pass, +2N per token (Korthikanti 2022)")
    time_factor = QLORA_SLOWDOWN if method == "qlora" else 1.0
    if method == "qlora":
        notes.append(
            f"qlora: NF4 dequantisation, time x {QLORA_SLOWDOWN:.2f} (LitGPT resource tables)"
        )
    return JobFlops(
        method=method,
        params=model.params,
        tokens=seen,
        per_token=per_token,
        recompute_per_token=recompute,
        time_factor=time_factor,
        notes=tuple(notes),
    )


def _positive(value: object, name: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise SizingError(f"Expected a positive number for {name}, got {value!r}")
    return float(value)
