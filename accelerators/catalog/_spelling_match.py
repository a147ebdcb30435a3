"""How the spellings one key of the name index matched become a match: one model (the SKU a
spelling pins, or the model's default), with the count and slice a spelling carries; and the
errors for a key that names two models and for a name nothing reads, with close matches
(:mod:`accelerators.catalog._names` looks the keys up).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from accelerators._text import quote
from accelerators.catalog import _store as catalog
from accelerators.catalog._chip_words import LLVM_TARGET
from accelerators.catalog._spellings import (
    DEVICE_REPORTED,
    Index,
    NameMatch,
    Spelling,
    exact_key,
    loose_key,
    tpu_slice,
    words,
)
from accelerators.errors import UnknownAcceleratorError, close_matches

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = ["ambiguous", "match_spellings", "unknown_name"]

#: How each naming system is called in messages (unlisted systems use their field name).
_SYSTEM_LABELS = {
    "nvml": "nvidia-smi",
    "gfd": "GPU Feature Discovery",
    "gke": "GKE",
    "karpenter": "Karpenter",
    "eks": "EKS",
    "flyte": "Flyte",
    "flyte2": "Flyte 2",
    "ray": "Ray",
    "skypilot": "SkyPilot",
    "modal": "Modal",
    "hf": "Hugging Face",
    "rocm": "ROCm",
    "intel": "Intel GPU plugin",
}


def match_spellings(spellings: list[Spelling], text: str) -> NameMatch:
    """Turn the spellings one key matched into a match, or raise if they disagree on model."""
    models = list(dict.fromkeys(s.accelerator.model for s in spellings))
    if len(models) > 1:
        raise ambiguous(
            text, [catalog.by_model(model)[0] for model in models], [s.text for s in spellings]
        )
    skus = list(dict.fromkeys(s.accelerator for s in spellings))
    siblings = catalog.by_model(models[0])
    model_level = len(siblings) == 1 or len(skus) > 1 or any(_is_model_level(s) for s in spellings)
    acc = siblings[0] if model_level else skus[0]
    first = spellings[0]
    unit_counts = {s.units for s in spellings}
    units = unit_counts.pop() if len(unit_counts) == 1 else None
    match = NameMatch(acc, not model_level, None, None, first.source)
    if units is None:
        return match
    if first.topology is not None:  # the name says the slice itself (HF "v5e-2x4")
        return NameMatch(acc, match.pinned, units, first.topology, first.source)
    if acc.device_class == "tpu":
        return tpu_slice(match, units, text)
    return NameMatch(acc, match.pinned, units, None, first.source)


def _is_model_level(spelling: Spelling) -> bool:
    acc = spelling.accelerator
    if spelling.source == "model":
        return True
    if spelling.source == "name":
        return exact_key(acc.name) == exact_key(acc.model)
    if not acc.default_for_model or spelling.source in DEVICE_REPORTED:
        return False
    return not (set(words(spelling.text)) & _form_factor_words(acc))


def _form_factor_words(acc: Accelerator) -> set[str]:
    """Words that tell this SKU from its model: ``sxm`` for ``A100-40GB-SXM``."""
    return (set(words(acc.name)) - set(words(acc.model))) | set(words(acc.form_factor))


def ambiguous(
    text: str, accelerators: Iterable[Accelerator], spellings: Iterable[str] = ()
) -> UnknownAcceleratorError:
    candidates = list(dict.fromkeys(accelerators))
    models = tuple(dict.fromkeys(acc.model for acc in candidates))
    described = ", ".join(f"{acc.model} ({acc.name})" for acc in candidates)
    matched = list(dict.fromkeys(spellings))
    via = f" (it matches {', '.join(repr(s) for s in matched)})" if matched else ""
    return UnknownAcceleratorError(
        f"Accelerator name {quote(text)} is ambiguous{via}: it could be {described}. "
        f"Write the one you mean: {' or '.join(repr(m) for m in models)}",
        name=text,
        suggestions=models,
    )


def unknown_name(
    index: Index, text: str, lookup: Callable[[str], NameMatch | None]
) -> UnknownAcceleratorError:
    """The error for a name no tier reads, with close matches (one per model) and the systems
    whose names the catalog knows."""
    from accelerators.catalog._schema import Names

    if LLVM_TARGET.fullmatch(text.strip()):
        return _llvm_target_alone(text)
    hints = close_matches(text.strip(), index.displays)
    loose = loose_key(text)
    if loose:
        hints += [index.loose_display[k] for k in close_matches(loose, index.loose_display)]
    by_model: dict[str, str] = {}  # one suggestion per model, the closest spelling
    for hint in hints:
        model = lookup(hint)
        if model is not None:
            by_model.setdefault(model.accelerator.model, hint)
    suggestions = tuple(by_model.values())[:3]
    did_you_mean = " or ".join(repr(h) for h in suggestions)
    systems = ", ".join(_SYSTEM_LABELS.get(name, name) for name in Names.model_fields)
    return UnknownAcceleratorError(
        f"Unknown accelerator {quote(text)}"
        + (f"; did you mean {did_you_mean}?" if suggestions else ".")
        + " Expected the name of a catalog model or SKU (accelerators.catalog.models() "
        f"lists the {len(catalog.models())} models), an alias, or a name one of these "
        f"systems uses: {systems}",
        name=text,
        suggestions=suggestions,
    )


def _llvm_target_alone(text: str) -> UnknownAcceleratorError:
    """An LLVM AMDGPU processor alone (``gfx942``) names an instruction set, which several
    boards may share: the error names the catalog's boards of it."""
    target = text.strip().casefold()
    models = tuple(dict.fromkeys(a.model for a in catalog.all() if a.llvm_target == target))
    given = ", ".join(models) if models else "no device"
    example = (
        f", with the processor if you like ({quote(models[0] + ' ' + target)})" if models else ""
    )
    return UnknownAcceleratorError(
        f"{quote(text)} is an LLVM AMDGPU processor, an instruction set rather than one device "
        f"(the catalog gives it to {given}). Name the device{example}",
        name=text,
        suggestions=models[:3],
    )
