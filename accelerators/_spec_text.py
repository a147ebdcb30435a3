"""A spec as text: its canonical form, and how a text reads (``AcceleratorSpec.explain``).

>>> from accelerators import AcceleratorSpec
>>> str(AcceleratorSpec(accelerator="A100-40GB-PCIE", exact=True, partition="1g.5gb", count=2))
'A100-40GB-PCIE!@1g.5gb:2'

Both work on what a spec holds (:class:`~accelerators._spec_rules.SpecFields`) and on what
the grammar read (:class:`~accelerators._parser.ParsedSpec`), so this module sits below
:mod:`accelerators.spec` and never imports it; the spec hands :func:`explain_text` the
function that builds it from parsed text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from accelerators import catalog
from accelerators._parser import ParsedSpec, parse_spec
from accelerators._text import format_number
from accelerators.catalog._open_names import memory_to_name_one_model
from accelerators.errors import AcceleratorError, InvalidSpecError

if TYPE_CHECKING:
    from accelerators._spec_rules import SpecFields
    from accelerators.catalog._reading import SpecExplanation

__all__ = ["alternative_text", "explain_text"]


def alternative_text(spec: SpecFields) -> str:
    """The canonical text of one alternative (``spec`` without its fallbacks)."""
    acc = spec.accelerator
    parts: list[str] = []
    if acc is None:
        head = ":".join(p for p in (spec.vendor, str(spec.memory) if spec.memory else None) if p)
        parts.append(head)
    else:
        # A memory request next to a name is not printed: it was checked against the
        # accelerator and says nothing more (all SKUs of a model share their memory), so
        # "A100:80GB" and "A100-80GB" are the same spec. The vendor is left out likewise.
        parts.append(f"{acc.name}!" if spec.exact else acc.model)
        if spec.partition is not None:
            parts[-1] += f"@{spec.partition}"
        elif spec.unpartitioned:
            parts[-1] += "@whole"
        elif spec.shared:
            parts[-1] += "@shared"
        parts[-1] += memory_to_name_one_model(acc.name if spec.exact else acc.model, acc)
    text = ":".join(parts)
    if spec.count_range is not None:
        low, high = spec.count_range
        text += f":{low}..{'' if high is None else high}"
    elif spec.count != 1:
        text += f":{format_number(spec.count)}"
    return text


def explain_text(text: str, build: Callable[[ParsedSpec], object]) -> SpecExplanation:
    """How ``text`` reads, name by name and token by token (``AcceleratorSpec.explain``).

    ``text`` is parsed once; ``build`` turns what was read into the spec, whose canonical
    text the explanation shows. Never raises for a string.
    """
    from accelerators.catalog._explain import explain_name
    from accelerators.catalog._reading import NameReading, SpecExplanation

    if not isinstance(text, str):
        raise InvalidSpecError(
            f"Expected an accelerator spec string to explain, got {type(text).__name__}"
        )
    names: list[str] = []
    canonical: str | None = None
    error: str | None = None
    try:
        parsed = parse_spec(text)
        names = [name for name, _ in parsed.names]
        canonical = str(build(parsed))
    except AcceleratorError as exc:
        error = str(exc).splitlines()[0]
        name = getattr(exc, "name", None)
        if not names and isinstance(name, str) and name:
            names.append(name)
    readings: list[NameReading] = []
    for name in dict.fromkeys(names):
        group = catalog._store.group_members(name)
        if group is not None:
            members = " | ".join(acc.model for acc in group)
            readings.append(NameReading(name, "group name", (), members))
        else:
            readings.append(explain_name(name))
    return SpecExplanation(text, canonical, error, tuple(readings))
