"""Huawei's Atlas server series by their short names, for the token reader.

Huawei sells its Ascend NPUs in Atlas servers named by series: the A2 series (Atlas 800T A2,
Atlas 900 A2 PoD) carries the Ascend 910B, the A3 series (Atlas 800T A3, Atlas 900 A3
SuperPoD) the Ascend 910C. CI runners and test marks of the Ascend ports of vLLM, SGLang,
LLaMA-Factory and MindSpore name their machines so (``linux-aarch64-a3-8``, ``npu-a3``,
``A2 arm``). Alone, ``A2`` is NVIDIA's A2 and ``A3`` nothing (Azure's ``Standard_A3`` is a
CPU machine, GCP's ``a3-highgpu-8g`` an H100 one), so the series word reads as the NPU only
beside a word of Huawei's setting: an Arm (Kunpeng) host, an NPU, Ascend, CANN or openEuler.
An ``A2`` glued to other letters beside such a word is left unplaced: either vendor's.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accelerators.catalog._narrow import Read

__all__ = ["read_atlas_series"]

#: Words of Huawei's Atlas setting, as names write them (case aside).
_SETTING = frozenset(
    ("aarch64", "arm", "arm64", "npu", "npus", "ascend", "huawei", "openeuler", "euleros")
)
#: The series word -> the model word of the NPUs its servers carry (the 910B's word names
#: both of its memory bins, as a name of the series leaves them open).
_SERIES = {"a2": "910b", "a3": "910c"}


def read_atlas_series(state: Read) -> None:
    """Read an Atlas series word as its NPU's model word where a word of Huawei's setting
    stands beside it, and no other model word does (see the module docstring)."""
    said = {t.piece.text.casefold() for t in state.tokens}
    cann = any(t.startswith("cann") for t in said)  # "cann9": CANN, Ascend's software stack
    if not (said & _SETTING or cann):
        return
    others = [
        t
        for t in state.tokens
        if t.piece.kind == "model" and t.piece.text.casefold() not in _SERIES
    ]
    if others:
        return
    for token in state.tokens:
        piece = token.piece
        key = _SERIES.get(piece.text.casefold())
        if key is None or piece.kind not in ("model", "unknown") or key not in state.words.words:
            continue
        if piece.glued:
            token.piece = replace(piece, kind="unknown")
            token.refusal = "beside an Arm or NPU word may be Huawei's Atlas series or NVIDIA's"
            continue
        token.piece = replace(piece, kind="model", value=key)
        token.meaning = f"Huawei's Atlas {piece.text.upper()} series: its servers' NPUs"
