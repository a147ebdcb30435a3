"""Device-memory estimates for inference, full fine-tuning, LoRA and QLoRA; every rule sourced.

>>> from accelerators.sizing import ModelShape, estimate_memory
>>> round(estimate_memory(ModelShape.from_params(7e9), dtype="bf16").weights_gb, 1)
14.0

Units are decimal GB (10**9 bytes), as in the catalog. The rules, with their sources, are in
``docs/sizing.md``:

* weights: parameters x bytes per dtype (EleutherAI, "Transformer Math 101");
* KV cache: 2 (K and V) x layers x KV heads x head dim x bytes, per token of every sequence
  (Kwon et al. 2023, "Efficient Memory Management for LLM Serving with PagedAttention", §3);
* inference overhead: 20 % of the weights for activations, CUDA context and fragmentation
  (Transformer Math 101: "total inference memory ≈ 1.2 x model memory");
* training: gradients in the weights' dtype; AdamW keeps 12 bytes/param in mixed precision
  (fp32 copy, momentum, variance), 8-bit AdamW 6 (Transformer Math 101);
* activations: ``s·b·h·(34 + 5·a·s/h)`` bytes per layer at 16 bit, ``2·s·b·h`` per layer with
  full recomputation (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
  Transformer Models", §4); FlashAttention drops the ``5·a·s/h`` score term (Dao et al. 2022);
* LoRA: ``r·(d_in + d_out)`` trainable parameters per adapted matrix (Hu et al. 2021), on
  W_q and W_v by default; QLoRA: 4-bit NF4 weights with double-quantised constants,
  4 + 0.127 bits per parameter, adapters on every linear layer (Dettmers et al. 2023, §3-4).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from accelerators.errors import close_matches
from accelerators.sizing._model import ModelShape, SizingError

__all__ = [
    "DTYPE_BYTES",
    "MemoryEstimate",
    "activation_bytes",
    "estimate_memory",
    "kv_cache_bytes_per_token",
    "lora_params",
]

GB = 1e9
#: Bytes per parameter or value.
DTYPE_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "tf32": 4.0,
    "fp16": 2.0,
    "bf16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
}
Method = Literal["inference", "full", "lora", "qlora"]
METHODS: tuple[str, ...] = ("inference", "full", "lora", "qlora")
OPTIMIZERS: tuple[str, ...] = ("adamw", "adamw-8bit", "sgd")
LoraTargets = Literal["qv", "attention", "all-linear"]

#: Transformer Math 101: extra memory at inference, as a fraction of the weights.
INFERENCE_OVERHEAD = 0.2
#: QLoRA §3: NF4 weights (4 bits) plus double-quantised block constants (0.127 bits/param);
#: without double quantisation the fp32 constants of 64-weight blocks cost 32/64 = 0.5 bits.
QLORA_BITS = 4 + 8 / 64 + 32 / (64 * 256)
QLORA_BITS_SINGLE_QUANT = 4 + 32 / 64


@dataclass(frozen=True, slots=True)
class MemoryEstimate:
    """Memory a workload needs, by component, in GB; ``total_gb`` is their sum."""

    method: str
    dtype: str
    params: int
    weights_gb: float
    kv_cache_gb: float = 0.0
    gradients_gb: float = 0.0
    optimizer_gb: float = 0.0
    activations_gb: float = 0.0
    overhead_gb: float = 0.0
    trainable_params: int = 0
    notes: tuple[str, ...] = field(default=())
    """Which rule produced each component, and what was left out."""

    @property
    def total_gb(self) -> float:
        return (
            self.weights_gb
            + self.kv_cache_gb
            + self.gradients_gb
            + self.optimizer_gb
            + self.activations_gb
            + self.overhead_gb
        )

    def components(self) -> tuple[tuple[str, float], ...]:
        """Non-zero components in display order."""
        rows = (
            ("weights", self.weights_gb),
            ("kv cache", self.kv_cache_gb),
            ("gradients", self.gradients_gb),
            ("optimizer", self.optimizer_gb),
            ("activations", self.activations_gb),
            ("overhead", self.overhead_gb),
        )
        return tuple((name, gb) for name, gb in rows if gb > 0)


def kv_cache_bytes_per_token(shape: ModelShape, dtype: str = "bf16") -> float:
    """K and V of one token over all layers: ``2 x layers x kv_heads x head_dim x bytes``."""
    layers, kv_heads, head_dim = _attention(shape, "the KV cache")
    return 2 * layers * kv_heads * head_dim * _bytes(dtype)


def activation_bytes(
    shape: ModelShape,
    *,
    seq_len: int,
    batch: int,
    checkpointing: bool,
    flash_attention: bool,
    dtype: str = "bf16",
) -> float:
    """Activations kept for the backward pass (Korthikanti et al. 2022, no tensor parallelism).

    Without recomputation each layer keeps ``s·b·h·(34 + 5·a·s/h)`` bytes at 16 bit; with full
    recomputation only its input (``2·s·b·h``) is kept, plus one layer's activations while it
    is recomputed. Other dtypes scale by their size relative to 16 bit.
    """
    layers, _, _ = _attention(shape, "activations")
    hidden, heads = shape.hidden or 0, shape.heads or 0
    s, b = _positive(seq_len, "seq_len"), _positive(batch, "batch")
    score_term = 0.0 if flash_attention else 5 * heads * s / hidden
    per_layer = s * b * hidden * (34 + score_term)
    scale = _bytes(dtype) / 2
    if checkpointing:
        return (layers * 2 * s * b * hidden + per_layer) * scale
    return layers * per_layer * scale


def lora_params(shape: ModelShape, *, rank: int, targets: LoraTargets) -> int:
    """Trainable LoRA parameters: ``r·(d_in + d_out)`` per adapted matrix, every layer."""
    layers, kv_heads, head_dim = _attention(shape, "LoRA")
    hidden, heads = shape.hidden or 0, shape.heads or 0
    r = _positive(rank, "lora_rank")
    q_out, kv_out = heads * head_dim, kv_heads * head_dim
    matrices = {
        "q": (hidden, q_out),
        "k": (hidden, kv_out),
        "v": (hidden, kv_out),
        "o": (q_out, hidden),
    }
    names = {
        "qv": ("q", "v"),
        "attention": ("q", "k", "v", "o"),
        "all-linear": ("q", "k", "v", "o"),
    }
    if targets not in names:
        raise SizingError(f"Unknown LoRA targets {targets!r}: expected one of {tuple(names)}")
    per_layer = sum(r * (matrices[n][0] + matrices[n][1]) for n in names[targets])
    if targets == "all-linear":
        inter = shape.intermediate or 4 * hidden
        per_layer += 3 * r * (hidden + inter)  # gate, up, down of a gated MLP
    return layers * per_layer


def estimate_memory(
    model: ModelShape,
    *,
    method: str = "inference",
    dtype: str = "bf16",
    seq_len: int = 4096,
    batch: int = 1,
    kv_dtype: str | None = None,
    optimizer: str = "adamw",
    checkpointing: bool = True,
    flash_attention: bool = True,
    lora_rank: int = 16,
    lora_targets: LoraTargets | None = None,
    double_quant: bool = True,
) -> MemoryEstimate:
    """Estimate the device memory of ``method`` (inference, full, lora, qlora) on ``model``.

    ``dtype`` is the weights' (and, for training, the compute) dtype; for ``qlora`` the base
    weights are 4-bit NF4 and ``dtype`` is the adapters'. ``seq_len`` and ``batch`` size the KV
    cache (inference) or the activations (training). A bare parameter count
    (``ModelShape.from_params(7e9)``) gets the nearest Llama 2 shape (:meth:`ModelShape.like`,
    named in the notes), as ``plan`` and the CLI's ``--params`` do, so the KV cache and the
    activations are always counted. Bad values raise :class:`SizingError`.
    """
    if not isinstance(model, ModelShape):
        raise SizingError(f"Expected a ModelShape, got {type(model).__name__}: {model!r}")
    if method not in METHODS:
        hint = close_matches(str(method), METHODS)
        extra = f"; did you mean {hint[0]!r}?" if hint else ""
        raise SizingError(f"Unknown method {method!r}: expected one of {METHODS}{extra}")
    weight_bytes = _bytes(dtype)
    notes: list[str] = []
    if not model.has_attention_shape:
        model = model.with_shape()
        notes.append(f"shape: {model.name}, for a bare parameter count (ModelShape.like)")
    if method == "inference":
        return _inference(model, dtype, seq_len, batch, kv_dtype or dtype, notes)
    if optimizer not in OPTIMIZERS:
        raise SizingError(f"Unknown optimizer {optimizer!r}: expected one of {OPTIMIZERS}")
    if dtype in ("int8", "int4", "fp8") and method != "qlora":
        raise SizingError(
            f"Training in {dtype} is not modelled: train in bf16/fp16/fp32, or use method='qlora'"
        )
    per_param_optimizer = _optimizer_bytes(optimizer, mixed=dtype != "fp32")
    activations = activation_bytes(
        model,
        seq_len=seq_len,
        batch=batch,
        checkpointing=checkpointing,
        flash_attention=flash_attention,
        dtype=dtype,
    )
    notes.append(
        "activations: Korthikanti et al. 2022 "
        + ("with full recomputation" if checkpointing else "without recomputation")
        + (", FlashAttention" if flash_attention else "")
    )
    if method == "full":
        trainable = model.params
        weights = model.params * weight_bytes
        notes.append(
            f"full: weights and gradients {dtype}, {optimizer} {per_param_optimizer:g} B/param"
        )
    else:
        targets: LoraTargets = lora_targets or ("all-linear" if method == "qlora" else "qv")
        trainable = lora_params(model, rank=lora_rank, targets=targets)
        if method == "qlora":
            bits = QLORA_BITS if double_quant else QLORA_BITS_SINGLE_QUANT
            base = model.params * bits / 8
            notes.append(f"qlora: base weights NF4 at {bits:.3f} bits/param (Dettmers et al. 2023)")
        else:
            base = model.params * weight_bytes
        weights = base + trainable * weight_bytes
        notes.append(f"{method}: rank {lora_rank} on {targets}, {trainable:,} trainable params")
    return MemoryEstimate(
        method=method,
        dtype=dtype,
        params=model.params,
        weights_gb=weights / GB,
        gradients_gb=trainable * weight_bytes / GB,
        optimizer_gb=trainable * per_param_optimizer / GB,
        activations_gb=activations / GB,
        trainable_params=trainable,
        notes=tuple(notes),
    )


def _inference(
    model: ModelShape, dtype: str, seq_len: int, batch: int, kv_dtype: str, notes: list[str]
) -> MemoryEstimate:
    weights = model.params * _bytes(dtype)
    tokens = _positive(seq_len, "seq_len") * _positive(batch, "batch")
    kv = kv_cache_bytes_per_token(model, kv_dtype) * tokens
    notes.append(
        f"kv cache: {tokens:,} tokens ({batch} x {seq_len}) in {kv_dtype} (PagedAttention §3)"
    )
    notes.append(f"overhead: {INFERENCE_OVERHEAD:.0%} of the weights (Transformer Math 101)")
    return MemoryEstimate(
        method="inference",
        dtype=dtype,
        params=model.params,
        weights_gb=weights / GB,
        kv_cache_gb=kv / GB,
        overhead_gb=INFERENCE_OVERHEAD * weights / GB,
        notes=tuple(notes),
    )


def _optimizer_bytes(optimizer: str, *, mixed: bool) -> float:
    """Bytes of optimizer state per trainable parameter (Transformer Math 101).

    Mixed precision keeps an fp32 master copy (4 B) besides the states: AdamW momentum and
    variance 8 B, 8-bit AdamW 2 B, SGD with momentum 4 B.
    """
    states = {"adamw": 8.0, "adamw-8bit": 2.0, "sgd": 4.0}[optimizer]
    return states + (4.0 if mixed else 0.0)


def _bytes(dtype: object) -> float:
    if not isinstance(dtype, str) or dtype.lower() not in DTYPE_BYTES:
        raise SizingError(f"Unknown dtype {dtype!r}: expected one of {tuple(DTYPE_BYTES)}")
    return DTYPE_BYTES[dtype.lower()]


def _positive(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise SizingError(f"Expected a positive integer for {name}, got {value!r}")
    return value


def _attention(shape: ModelShape, what: str) -> tuple[int, int, int]:
    if shape.layers is None or shape.hidden is None or shape.heads is None:
        raise SizingError(
            f"Estimating {what} needs the model shape (layers, hidden, heads): pass a config.json "
            "to ModelShape.from_hf_config or give them to ModelShape.from_params"
        )
    kv_heads = shape.kv_heads or shape.heads
    head_dim = shape.head_dim or shape.hidden // shape.heads
    return shape.layers, kv_heads, head_dim
