"""Commas that qualify one board rather than list boards.

A spec's ``,`` joins alternatives (dstack's ``A10,A10G:2``). Server makers' option names use it
to describe one board: Dell's ``NVIDIA Ampere A30, PCIe, 165W, 24GB Passive, Double Wide, Full
Height GPU``. Such a name is read as one name when the first part names a model and every later
part only qualifies it: a form factor, a power, a memory size, how the board is built, a device
word or a revision (``V2``). A later part that names a model, states a count or holds a word
nothing reads keeps the comma a separator, and the spec reads (or refuses) as before; so do
later parts that are each an alternative of their own (``A100, 80GB``: an A100 or any 80 GB
device; ``H100, amd``).

>>> descriptive_commas("NVIDIA A30, PCIe, 165W, 24GB Passive")
'NVIDIA A30  PCIe  165W  24GB Passive'
>>> descriptive_commas("A10,A10G:2")
'A10,A10G:2'
>>> descriptive_commas("A100, 80GB")
'A100, 80GB'
"""

from __future__ import annotations

import re

from accelerators.catalog._modelwords import model_words
from accelerators.catalog._segment import Piece, segment
from accelerators.catalog._spellings import current_index

__all__ = ["descriptive_commas"]

#: Piece kinds that qualify a board without naming or counting one.
_QUALIFIERS = frozenset(
    {
        "form",
        "watts",
        "memory",
        "memory_type",
        "device",
        "neutral",
        "noise",
        "interconnect",
        "edition",
        "architecture",
        "vendor",
    }
)
#: Characters that make the text a spec rather than a description.
_SPEC_SIGNS = re.compile(r"[|:@!=]")


def _figure(pieces: list[Piece], i: int) -> bool:
    """Whether ``pieces[i]`` is part of a figure: a host's (``16GB RAM``, ``4 CPUs``, ``8
    vCPU``) or a size written apart from its unit (``16 GB``), which the token reader places."""
    from accelerators.catalog._narrow import UNITS  # the token reader's: only past a comma

    piece = pieces[i]
    if piece.kind in ("host", "vcpu"):
        return True
    nxt = pieces[i + 1] if i + 1 < len(pieces) else None
    if piece.kind == "unknown" and piece.value in UNITS:  # the unit of "16 GB"
        return i > 0 and pieces[i - 1].kind in ("number", "decimal")
    return (
        piece.kind in ("number", "decimal")
        and nxt is not None
        and (nxt.kind in ("host", "vcpu") or (nxt.kind == "unknown" and nxt.value in UNITS))
    )


def descriptive_commas(text: str) -> str:
    """``text`` with its commas made spaces when they only qualify one board (same length,
    so positions in messages stay those given); else ``text`` unchanged."""
    if "," not in text or _SPEC_SIGNS.search(text):
        return text
    table = model_words(current_index())
    first, *rest = text.split(",")
    if not any(p.kind == "model" for p in segment(first, table.words, table.longest)):
        return text
    alone = True  # every later part is a spec's alternative on its own ("A100, 80GB")
    for part in rest:
        pieces = segment(part, table.words, table.longest)
        if not pieces:
            return text
        for i, piece in enumerate(pieces):
            revision = piece.kind == "model" and piece.value in table.weak and len(pieces) == 1
            if piece.kind not in _QUALIFIERS and not revision and not _figure(pieces, i):
                return text
        alone = alone and len(pieces) == 1 and pieces[0].kind in ("memory", "vendor")
    return text if alone else text.replace(",", " ")
