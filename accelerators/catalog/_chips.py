"""An AMD GPU chip's code name beside the model it is the chip of: ROCm's debug library's
``SIFT_CHIPID_NAVI21_W6800`` (the W6800's Navi 21), Wine's ``Navi 21`` before a board.

The segmenter keeps such a name whole (``Navi 21``, ``navi21``, ``VEGA_20``: a chip several
boards carry, its number no count). Beside a model it is read as the chip when the catalog
gives that chip for every candidate the model leaves; a chip the catalog gives none of them,
or does not give for one of them, stays unplaced and the name is refused: it may name another
board on that chip (``NAVI21_V620``, whose chip the catalog does not record).

An LLVM AMDGPU processor (``gfx942``, ``gfx90a``) is read so too, against the catalog's
``llvm_target`` (ROCm's GPU specifications): ``amdgpu_mi325_gfx942`` is the MI325X, and
``MI300X gfx90a`` is refused. Alone it names no device (gfx942 is three boards or more).

>>> from accelerators import AcceleratorSpec
>>> str(AcceleratorSpec.parse("SIFT_CHIPID_NAVI21_W6800"))
'W6800'
>>> str(AcceleratorSpec.parse("MI250X gfx90a"))
'MI250X'
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from accelerators.catalog._chip_words import AMD_CHIP, LLVM_TARGET

if TYPE_CHECKING:
    from accelerators.catalog._narrow import Read
    from accelerators.catalog._schema import Accelerator

__all__ = ["read_chips"]


def _squashed(name: str) -> str:
    """A chip as one word, case aside: ``Navi 21``, ``navi 21`` and ``NAVI_21`` are ``navi21``."""
    return re.sub(r"[\s_\-]", "", name).casefold()


def read_chips(state: Read, candidates: list[Accelerator]) -> None:
    """Give the role ``chip`` to each AMD chip code name, or LLVM AMDGPU processor, that the
    catalog gives every candidate."""
    if not candidates:
        return
    named = ", ".join(sorted({acc.model for acc in candidates}))
    first = candidates[0]
    for token in state.tokens:
        piece = token.piece
        text = piece.text.strip()
        if token.role or piece.kind != "unknown":
            continue
        if AMD_CHIP.fullmatch(text):
            own = {_squashed(acc.chip) if acc.chip else None for acc in candidates}
            said, what, meaning = _squashed(piece.value), "a chip", f"the chip ({first.chip})"
        elif LLVM_TARGET.fullmatch(text):
            own = {acc.llvm_target for acc in candidates}
            said, what = text.casefold(), "an LLVM target"
            meaning = f"the LLVM target ({first.llvm_target})"
        else:
            continue
        if own == {said}:
            token.role, token.meaning = "chip", f"{meaning} of the model"
        elif None in own:
            token.refusal = f"names {what} the catalog does not record for {named}"
        else:
            token.refusal = f"names {what} the catalog does not give {named}"
