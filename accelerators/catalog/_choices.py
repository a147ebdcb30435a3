"""Names that offer a choice of boards: one catalog entry, or a choice of entries.

pci.ids writes one PCI device id that ships in several boards as a choice: ``GH100 [GH200
120GB / 480GB]`` (10de:2342) is the GH200 with 120 GB or with 480 GB of CPU memory, the same
96 GB HBM3 GPU. Each alternative is spelled out (the words before the slash with the last of
them replaced by each later part: ``GH200 120GB``, ``GH200 480GB``) and looked up by the exact
tiers. When every alternative names the same entry, the name is that entry.

A choice of several entries (torchtune's ``RTX 3090/4090``: either card runs the recipe; or
``V100/S`` and ``GTX 1070/Ti``, whose later part is a suffix of the first) reads as those
entries, each a fallback of the one before, as dstack's ``A10,A10G`` does: when every
alternative reads alone as a whole device (no count, no slice) and they name different
entries. Anything else stays a choice the reader refuses with the candidates.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from accelerators.catalog._spellings import NameMatch

__all__ = ["choice_of_entries", "same_entry_choice"]

_GROUP = re.compile(r"\[([^\[\]]*/[^\[\]]*)\]")


def _alternatives(group: str) -> list[str] | None:
    first, *others = (part.split() for part in group.split("/"))
    if not first or not others or any(not o or len(o) > len(first) for o in others):
        return None
    return [" ".join(first)] + [" ".join(first[: -len(o)] + o) for o in others]


def _suffixed(group: str) -> list[str]:
    """Each later part of a ``/`` choice that is a suffix of letters (``S``, ``Ti``, ``XT``)
    appended to the first part (``V100/S``: ``V100 S``); ``""`` for any other part, which
    names nothing."""
    first, *others = (part.strip() for part in group.split("/"))
    return [f"{first} {o}" if _SUFFIX.fullmatch(o) else "" for o in others]


_SUFFIX = re.compile(r"[A-Za-z]{1,5}")


def same_entry_choice(text: str, lookup: Callable[[str], NameMatch | None]) -> NameMatch | None:
    """The entry every alternative of a ``/`` choice names, or None."""
    groups = _GROUP.findall(text) or ([text] if "/" in text else [])
    if len(groups) != 1:
        return None
    names = _alternatives(groups[0])
    if names is None:
        return None
    found = [lookup(name) for name in names]
    matches = [f for f in found if f is not None and f.count is None and f.partition is None]
    entries = {f.accelerator for f in matches}
    if len(matches) != len(names) or len(entries) != 1:
        return None
    pinned = all(f.pinned for f in matches)
    return NameMatch(matches[0].accelerator, pinned, None, None, "reader")


def choice_of_entries(text: str, lookup: Callable[[str], NameMatch | None]) -> NameMatch | None:
    """The entries a ``/`` choice of whole boards names, in its order, or None."""
    if "/" not in text or "[" in text or "(" in text:
        return None
    names = _alternatives(text)
    if names is None:
        return None
    found = [lookup(name) for name in names]
    suffixed = _suffixed(text)
    for i, name in enumerate(suffixed):  # "V100/S", "GTX 1070/Ti": the later part a suffix
        if name and found[i + 1] is None:
            found[i + 1] = lookup(name)
    matches = [f for f in found if f is not None and f.count is None and f.partition is None]
    if len(matches) != len(names) or any(f.needs_count for f in matches):
        return None
    entries = list(dict.fromkeys(a for f in matches for a in (f.accelerator, *f.family)))
    if len({f.accelerator for f in matches}) != len(matches):
        return None  # two alternatives for one entry: same_entry_choice's or none
    return NameMatch(entries[0], False, None, None, "reader", family=tuple(entries[1:]))
