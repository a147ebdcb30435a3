"""Which model a name with a memory constraint means: ``A100:80GB`` is the 80 GB A100."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from accelerators._text import format_number
from accelerators.catalog import _store as catalog
from accelerators.catalog._memory import MemoryRequest
from accelerators.catalog._spellings import NameMatch
from accelerators.errors import AcceleratorError, InvalidSpecError

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = ["named_with_memory", "select_by_memory"]


def _family_defaults(acc: Accelerator, keep: Callable[[Accelerator], bool]) -> list[Accelerator]:
    """Default SKUs of the models in ``acc``'s family that ``keep`` accepts."""
    return [
        other
        for other in catalog.all()
        if other.family == acc.family
        and other.vendor == acc.vendor
        and other.default_for_model
        and keep(other)
    ]


def select_by_memory(match: NameMatch, memory: MemoryRequest) -> Accelerator:
    """The accelerator a name with a memory constraint means (``A100:80GB``).

    The matched entry itself if its memory fits. Otherwise, for a model-level name, the one
    model of the same family whose memory fits (``A100:80GB`` is the 80 GB A100); a pinned
    name, no fitting model or several fitting models raise :class:`InvalidSpecError`.
    """
    acc = match.accelerator
    if memory.matches(acc):
        return acc
    family = _family_defaults(acc, lambda other: True)
    variants = ", ".join(
        f"{other.model} ({format_number(other.device_memory_gb)} GB)" for other in family
    )
    if match.pinned:
        raise InvalidSpecError(
            f"{acc.name} has {format_number(acc.device_memory_gb)} GB, which does not satisfy the "
            f"memory request {memory}; {acc.family} models: {variants}"
        )
    found = _family_defaults(acc, memory.matches)
    if len(found) == 1:
        return found[0]
    if not found:
        raise InvalidSpecError(
            f"No {acc.family} model has {memory} of memory; {acc.family} models: {variants}"
        )
    choices = " or ".join(repr(other.model) for other in found)
    raise InvalidSpecError(
        f"The memory request {memory} fits several {acc.family} models: {choices}; "
        "name the one you mean"
    )


def named_with_memory(base: NameMatch, gb: float, rest: list[str]) -> NameMatch | None:
    """The model a name's one memory word picks from what the rest of the name read as
    (``base``; ``rest`` its words): ``H100 94GB`` is the 94 GB H100, ``RTX6000 24GB`` the open
    name's 24 GB card; None where no model has it, or it has another form factor than the
    name states."""
    request = MemoryRequest(gb=gb)
    if base.family:  # an open name ("RTX6000 24GB"): the size picks among its models
        fitting = [a for a in (base.accelerator, *base.family) if request.matches(a)]
        if not fitting:
            return None
        return NameMatch(fitting[0], False, None, None, base.source, family=tuple(fitting[1:]))
    try:
        acc = select_by_memory(base, request)
    except AcceleratorError:  # a pinned name of another size, or no single model of that size
        return None
    if acc is not base.accelerator and _other_form_factor(acc, rest):
        return None  # "H100-SXM5-94GB": the 94 GB H100 is the NVL card, not an SXM one
    return base if acc is base.accelerator else NameMatch(acc, False, None, None, base.source)


#: Words that state a form factor (``words`` of :mod:`._spellings` writes ``SXM5`` as ``sxm``).
_FORM_FACTOR_WORDS = frozenset({"sxm", "pcie", "nvl", "oam"})


def _other_form_factor(acc: Accelerator, parts: list[str]) -> bool:
    """Whether ``parts`` state a form factor that ``acc`` (the model a memory word picked) does
    not have: a memory size never overrides a form factor the name states."""
    own = f"{acc.name} {acc.form_factor or ''}".casefold()
    return any(w in _FORM_FACTOR_WORDS and w not in own for w in parts)
