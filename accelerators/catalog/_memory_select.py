"""Which model a name with a memory constraint means: ``A100:80GB`` is the 80 GB A100."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from accelerators._text import format_number
from accelerators.catalog import _store as catalog
from accelerators.errors import InvalidSpecError

if TYPE_CHECKING:
    from accelerators.catalog._memory import MemoryRequest
    from accelerators.catalog._schema import Accelerator
    from accelerators.catalog._spellings import NameMatch

__all__ = ["select_by_memory"]


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
