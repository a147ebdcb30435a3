"""Chip words the segmenter keeps whole and the reader places beside a model
(:mod:`accelerators.catalog._chips`): AMD's chip code names and LLVM's AMDGPU processors."""

from __future__ import annotations

import re

__all__ = ["AMD_CHIP", "LLVM_TARGET"]

#: An AMD GPU chip's code name with its number (Wine's ``CARD_AMD_RADEON_RX_VEGA_10``, ``Navi
#: 21``, ``Polaris 10``), kept whole and unplaced: a chip several boards carry, and its number
#: no count ("Vega 56" and "Vega 64" are boards, "Vega 8" an APU's graphics: not these).
AMD_CHIP = re.compile(
    r"(?<![0-9a-z])(?:vega[\s_\-]?(?:10|12|20)|navi[\s_\-]?(?:1[0-4]|2[1-4]|3[1-3]|4[48])"
    r"|polaris[\s_\-]?(?:1[0-2]|2[0-2]|30))(?![0-9a-z])",
    re.I,
)
#: An LLVM AMDGPU processor (``gfx942``, ``gfx90a``, ``gfx1100``): the instruction set a ROCm
#: build targets, which several boards share (gfx942: the MI300X, MI300A and MI325X), kept
#: whole; its digits are no count or size.
LLVM_TARGET = re.compile(r"(?<![0-9a-z])gfx[0-9]{2,3}[0-9a-f](?![0-9a-z])", re.I)
