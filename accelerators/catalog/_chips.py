"""An AMD GPU chip's code name beside the model it is the chip of: ROCm's debug library's
``SIFT_CHIPID_NAVI21_W6800`` (the W6800's Navi 21), Wine's ``Navi 21`` before a board.

The segmenter keeps such a name whole (``Navi 21``, ``navi21``, ``VEGA_20``: a chip several
boards carry, its number no count). Beside a model it is read as the chip when the catalog
gives that chip for every candidate the model leaves; a chip the catalog gives none of them,
or does not give for one of them, stays unplaced and the name is refused: it may name another
board on that chip (``NAVI21_V620``, whose chip the catalog does not record).

>>> from accelerators import AcceleratorSpec
>>> str(AcceleratorSpec.parse("SIFT_CHIPID_NAVI21_W6800"))
'W6800'
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from accelerators.catalog._segment import AMD_CHIP

if TYPE_CHECKING:
    from accelerators.catalog._narrow import Read
    from accelerators.catalog._schema import Accelerator

__all__ = ["read_chips"]


def _squashed(name: str) -> str:
    """A chip as one word, case aside: ``Navi 21``, ``navi 21`` and ``NAVI_21`` are ``navi21``."""
    return re.sub(r"[\s_\-]", "", name).casefold()


def read_chips(state: Read, candidates: list[Accelerator]) -> None:
    """Give the role ``chip`` to each AMD chip code name the catalog gives every candidate."""
    if not candidates:
        return
    chips = {_squashed(acc.chip) if acc.chip else None for acc in candidates}
    named = ", ".join(sorted({acc.model for acc in candidates}))
    for token in state.tokens:
        piece = token.piece
        if token.role or piece.kind != "unknown" or not AMD_CHIP.fullmatch(piece.text.strip()):
            continue
        if chips == {_squashed(piece.value)}:
            token.role = "chip"
            token.meaning = f"the chip ({candidates[0].chip}) of the model"
        elif None in chips:
            token.refusal = f"names a chip the catalog does not record for {named}"
        else:
            token.refusal = f"names a chip the catalog does not give {named}"
