"""Where a weak TPU generation word (``v2``, ``v4``: see :mod:`._modelwords`) names a TPU.

A bare generation with no letter after its number is a version in most names
(``n2-A100x8-NVLink-v2``); it names a TPU where every other word is one a TPU name has
(:func:`only_tpu_words`), or right after the word TPU (:func:`after_tpu`: an enum's
``CHIP_TYPE_TPU_V2``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accelerators.catalog._narrow import Read, Token

__all__ = ["after_tpu", "only_tpu_words"]


def after_tpu(state: Read, token: Token) -> bool:
    """Whether the token right before ``token`` is the word TPU (``tpu_v4``, ``TPU-V2``)."""
    at = state.tokens.index(token)
    before = state.tokens[at - 1].piece if at > 0 else None
    return before is not None and before.kind == "device" and before.value == "tpu"


def only_tpu_words(state: Read, models: list[Token]) -> bool:
    """Whether every word of the name but its weak TPU generation word is one a TPU name
    has: ``tpu``, a slice or pod word, a topology or slice size, Google."""
    for token in state.tokens:
        piece = token.piece
        if token in models or piece.kind in ("partition", "topology", "number", "x_count"):
            continue
        if piece.kind == "device" and piece.value.startswith("tpu"):
            continue
        if piece.kind == "vendor" and piece.value == "google":
            continue
        return False
    return True
