"""The shape of a transformer: parameters, layers, heads, read from numbers or a config.json.

>>> shape = ModelShape.from_hf_config({
...     "model_type": "llama", "vocab_size": 32000, "hidden_size": 4096,
...     "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32})
>>> shape.params
6738415616

A Hugging Face ``config.json`` is read from a local file or a dict, never downloaded.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelerators.errors import AcceleratorError

__all__ = ["ModelShape", "SizingError"]


class SizingError(AcceleratorError):
    """Bad input to :mod:`accelerators.sizing` (a config missing a field, a negative size)."""


#: config.json keys for each shape field, first match wins (GPT-2 and Falcon spell them apart).
_KEYS: dict[str, tuple[str, ...]] = {
    "hidden": ("hidden_size", "n_embd", "d_model"),
    "layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "heads": ("num_attention_heads", "n_head", "num_heads"),
    "kv_heads": ("num_key_value_heads", "num_kv_heads", "n_head_kv"),
    "intermediate": ("intermediate_size", "n_inner", "ffn_dim"),
    "vocab": ("vocab_size",),
}
#: Activation functions of gated MLPs (three matrices: gate, up, down) rather than two.
_GATED = frozenset({"silu", "swiglu", "geglu", "gelu_pytorch_tanh_gated"})
_GATED_MODEL_TYPES = frozenset({"llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2"})


_SHAPE_FIELDS = ("layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate", "vocab")

#: Published Llama 2 shapes (meta-llama/Llama-2-*-hf config.json): params, layers, hidden,
#: heads, KV heads, MLP width, vocabulary.
_REFERENCE_SHAPES: dict[str, tuple[int, int, int, int, int, int, int]] = {
    "Llama-2-7B": (6_738_415_616, 32, 4096, 32, 32, 11008, 32000),
    "Llama-2-13B": (13_015_864_320, 40, 5120, 40, 40, 13824, 32000),
    "Llama-2-70B": (68_976_648_192, 80, 8192, 64, 8, 28672, 32000),
}


@dataclass(frozen=True, slots=True)
class ModelShape:
    """A decoder-only transformer: total parameters plus what the KV cache and activations need.

    ``params`` is the total parameter count. The other fields may be ``None`` when only the
    count is known; estimates that need them (KV cache, activations) then say so.
    """

    params: int
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    intermediate: int | None = None
    vocab: int | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        params: object = self.params
        if isinstance(params, bool) or not isinstance(params, int) or params <= 0:
            raise SizingError(f"Expected a positive parameter count, got {self.params!r}")
        for field in _SHAPE_FIELDS:
            value = getattr(self, field)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value <= 0
            ):
                raise SizingError(f"Expected a positive integer for {field}, got {value!r}")

    @classmethod
    def from_params(cls, params: object, **shape: Any) -> ModelShape:
        """A shape from a parameter count such as ``7e9`` (plus any known shape fields)."""
        if (
            isinstance(params, bool)
            or not isinstance(params, int | float)
            or not math.isfinite(params)
        ):
            raise SizingError(f"Expected a parameter count such as 7e9, got {params!r}")
        return cls(params=round(params), **shape)

    @classmethod
    def from_hf_config(cls, config: Mapping[str, Any] | str | os.PathLike[str]) -> ModelShape:
        """Read a Hugging Face ``config.json`` (a path to the file, or its parsed dict).

        The parameter count is computed from the shape (embeddings, attention with grouped
        KV heads, gated or plain MLP, norms; untied output head unless
        ``tie_word_embeddings``) when the config does not state ``num_parameters``.
        """
        if isinstance(config, str | os.PathLike):
            path = Path(config)
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise SizingError(
                    f"Cannot read a Hugging Face config.json from {str(path)!r}: {exc}"
                ) from None
        else:
            data = config
        if not isinstance(data, Mapping):
            raise SizingError(f"Expected a config.json object (dict), got {type(data).__name__}")
        if isinstance(data.get("text_config"), Mapping):  # multimodal wrappers keep the LM inside
            data = {
                **data["text_config"],
                **{k: v for k, v in data.items() if k == "_name_or_path"},
            }
        fields = {name: _first(data, keys) for name, keys in _KEYS.items()}
        hidden, layers, heads = fields["hidden"], fields["layers"], fields["heads"]
        if hidden is None or layers is None or heads is None:
            missing = [_KEYS[n][0] for n in ("hidden", "layers", "heads") if fields[n] is None]
            raise SizingError(
                f"config.json lacks {', '.join(missing)}; expected a decoder-only transformer "
                "config (hidden_size, num_hidden_layers, num_attention_heads, ...)"
            )
        kv_heads = fields["kv_heads"] or heads
        head_dim = _int(data.get("head_dim")) or hidden // heads
        intermediate = fields["intermediate"] or 4 * hidden
        vocab = fields["vocab"]
        stated = _int(data.get("num_parameters"))
        if stated is None:
            if vocab is None:
                raise SizingError("config.json lacks vocab_size (needed to count parameters)")
            gated = (
                str(data.get("hidden_act", "")).lower() in _GATED
                or data.get("model_type") in _GATED_MODEL_TYPES
            )
            tied = bool(data.get("tie_word_embeddings", data.get("model_type") in ("gpt2",)))
            stated = count_params(
                hidden=hidden,
                layers=layers,
                heads=heads,
                kv_heads=kv_heads,
                head_dim=head_dim,
                intermediate=intermediate,
                vocab=vocab,
                gated_mlp=gated,
                tied_embeddings=tied,
            )
        return cls(
            params=stated,
            layers=layers,
            hidden=hidden,
            heads=heads,
            kv_heads=kv_heads,
            head_dim=head_dim,
            intermediate=intermediate,
            vocab=vocab,
            name=str(data.get("_name_or_path") or data.get("model_type") or "") or None,
        )

    @classmethod
    def like(cls, params: object) -> ModelShape:
        """``params`` with the layer shape of the nearest published Llama 2 model (7B, 13B, 70B).

        For estimates that need a shape (KV cache, activations, LoRA) when only a parameter
        count is known; ``name`` says which shape was assumed. Pass a config.json for yours.
        """
        count = cls.from_params(params).params
        name, shape = min(
            _REFERENCE_SHAPES.items(), key=lambda item: abs(math.log(count / item[1][0]))
        )
        _, layers, hidden, heads, kv_heads, intermediate, vocab = shape
        return cls(
            params=count,
            layers=layers,
            hidden=hidden,
            heads=heads,
            kv_heads=kv_heads,
            head_dim=hidden // heads,
            intermediate=intermediate,
            vocab=vocab,
            name=f"{name} shape (assumed)",
        )

    @property
    def has_attention_shape(self) -> bool:
        return None not in (self.layers, self.hidden, self.heads)

    def with_shape(self) -> ModelShape:
        """This shape when it has one; for a bare parameter count, :meth:`like`'s assumed shape.

        What an estimate needs beyond the count (the KV cache, activations, attention FLOPs,
        LoRA) then has numbers, the same ones ``plan(7e9, ...)`` and the CLI's ``--params``
        use, and ``name`` says which shape was assumed.

        :raises SizingError: some shape fields are given but not layers, hidden and heads (a
            partial shape cannot be mixed with an assumed one).
        """
        if self.has_attention_shape:
            return self
        given = [f for f in _SHAPE_FIELDS if getattr(self, f) is not None]
        if given:
            missing = [f for f in ("layers", "hidden", "heads") if getattr(self, f) is None]
            raise SizingError(
                f"The model shape has {', '.join(given)} but not {', '.join(missing)}: give "
                "layers, hidden and heads (or a config.json to ModelShape.from_hf_config), or "
                "only the parameter count, for which a Llama 2 shape is assumed"
            )
        return ModelShape.like(self.params)


def count_params(
    *,
    hidden: int,
    layers: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    intermediate: int,
    vocab: int,
    gated_mlp: bool,
    tied_embeddings: bool,
) -> int:
    """Weights of a decoder-only transformer without biases (Llama/Mistral layout).

    Per layer: Q and O projections ``hidden x heads*head_dim``, K and V
    ``hidden x kv_heads*head_dim``, MLP 2 or 3 matrices ``hidden x intermediate``, two norms;
    plus the token embedding, the output head (unless tied) and the final norm.
    """
    attention = 2 * hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim
    mlp = (3 if gated_mlp else 2) * hidden * intermediate
    per_layer = attention + mlp + 2 * hidden
    embeddings = vocab * hidden * (1 if tied_embeddings else 2)
    return layers * per_layer + embeddings + hidden


def _int(value: Any) -> int | None:
    """A positive, finite number as an int; anything else (text, NaN, inf, 0) as None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not math.isfinite(value) or value < 1:
        return None
    return int(value)


def _first(data: Mapping[str, Any], keys: tuple[str, ...]) -> int | None:
    for key in keys:
        value = _int(data.get(key))
        if value is not None:
            return value
    return None
