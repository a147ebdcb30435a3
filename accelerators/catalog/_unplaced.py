"""The tokens a name's reading could not place, and the refusal that names each of them.

After the numbers and the unknown words are read, a token with no role (or a ``variant`` the
catalog does not carry) is the reason the name is refused: ``'1' follows the model``, ``'4c'
follows the model: host cores, or a profile of the board?``, ``'series' after the model names a
series of cards``; an unknown word gets its close matches from the vocabulary.
"""

from __future__ import annotations

import itertools

from accelerators._text import quote
from accelerators.catalog._narrow import Read, refuse
from accelerators.catalog._words import vocabulary
from accelerators.errors import close_matches

__all__ = ["refuse_unplaced", "series_after_model"]


#: Words that, right after a model, name the model's series rather than the one card
#: (InvokeAI's "GTX 1660 series" is the 1660, 1660 SUPER and 1660 Ti).
_SERIES_WORDS = frozenset(("series", "family"))


def series_after_model(state: Read) -> None:
    """A series word right after the model leaves it unplaced: the name is refused."""
    for before, token in itertools.pairwise(state.tokens):
        if before.role == "model" and token.piece.text.casefold() in _SERIES_WORDS:
            token.role, token.meaning = "", "a series of cards, not one"
            token.refusal = "after the model names a series of cards, not one card"


def refuse_unplaced(state: Read) -> None:
    """Refuse the name when a token is left unplaced, saying why for each one, with close
    matches from the vocabulary for a word it does not know."""
    bad = [t for t in state.tokens if t.role in ("", "variant")]
    if not bad:
        return
    for token in bad:
        token.role = token.role or "unplaced"
    lexicon = [*vocabulary().words, *state.words.words]
    parts, hints = [], []
    after = state.tokens.index(next(t for t in state.tokens if t.role == "model"))
    for token in bad:
        text = quote(token.piece.value)
        if token.role == "variant" and token.piece.kind in ("number", "decimal"):
            parts.append(f"{text} follows the model: a count, a size, a host figure or a variant?")
        elif token.role == "variant":
            parts.append(f"{text} follows the model, and the catalog has no variant by that name")
        elif token.piece.kind in ("number", "decimal"):
            where = " follows the model:" if state.tokens.index(token) > after else ""
            parts.append(f"{text}{where} could be a count, a size or a host figure")
        elif token.piece.kind == "topology":
            parts.append(f"{text} is no TPU topology here: it could be host figures")
        elif token.refusal:  # a rule left it unplaced on purpose ("series", "mi210-4c")
            parts.append(f"{quote(token.piece.text)} {token.refusal}")
        elif token.piece.kind == "count_word":
            parts.append(
                f"{quote(token.piece.text)} is a count only right before the model ('two A100s')"
            )
        else:
            parts.append(f"{text} is not a word it can place")
            hints += close_matches(token.piece.value, lexicon)[:2]
        token.meaning = token.meaning or "not placed"
    hint = f" (did you mean {' or '.join(repr(h) for h in hints[:3])}?)" if hints else ""
    raise refuse(state, "; ".join(parts) + hint, tuple(hints[:3]))
