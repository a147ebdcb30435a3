"""The tokens a name's reading could not place, and the refusal that names each of them.

After the numbers and the unknown words are read, a token with no role (or a ``variant`` the
catalog does not carry) is the reason the name is refused: ``'1' follows the model``, ``'4c'
follows the model: host cores, or a profile of the board?``; an unknown word gets its close
matches from the vocabulary. A series word after the model is no refusal: it reads the series
(:func:`read_series`).
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from accelerators._text import quote
from accelerators.catalog._modelwords import CARD_VARIANTS, VARIANT_WORDS, words_of
from accelerators.catalog._narrow import Read, refuse
from accelerators.catalog._number_marks import model_ahead
from accelerators.catalog._system_words import mixed_names
from accelerators.catalog._words import vocabulary
from accelerators.errors import close_matches

if TYPE_CHECKING:
    from accelerators.catalog._narrow import Token
    from accelerators.catalog._schema import Accelerator

__all__ = [
    "read_series",
    "refuse_apple_chip_alone",
    "refuse_cpu_run",
    "refuse_unplaced",
]


#: Words that, right after a model, name the model's series rather than the one card
#: (InvokeAI's "GTX 1660 series" is the 1660, 1660 SUPER and 1660 Ti).
_SERIES_WORDS = frozenset(("series", "family"))
#: What a model word of the series adds to the series' own word: a variant of the card
#: (``gtx1660`` -> ``gtx1660super``, ``gtx1660ti``; ``rtx4090`` -> ``rtx4090d``).
_VARIANT = re.compile(rf"(?:{VARIANT_WORDS})(?:[0-9]+gb?)?")


#: A model word whose number is in round thousands (``rtx5000``): with a series word, people's
#: name for a generation (GeForce's "RTX 3000 series", AMD's "Radeon RX 7000 series").
_THOUSANDS = re.compile(r"(?<![0-9])[1-9]000$")


def read_series(state: Read, candidates: list[Accelerator]) -> list[Accelerator]:
    """A series word right after the model reads the name as the series: the models the
    model word names (``MI300 series``: the MI300 open name's four) or, when it names one
    card, that card and its variants (``GTX 1660 series``: the 1660, 1660 SUPER and 1660 Ti).
    A series of one card is that card. A variant word that restates what the model word
    already says (UserBenchmark's ``RTX 2080S (Super)``: the S is the SUPER) says nothing
    more."""
    _restated_variant(state, candidates)
    for before, token in itertools.pairwise(state.tokens):
        if before.role != "model" or token.piece.text.casefold() not in _SERIES_WORDS:
            continue
        key = before.piece.value
        if _THOUSANDS.search(key):
            # "RTX 5000 series": GeForce's RTX 50 generation as people write it, not the
            # RTX 5000 boards
            token.role = ""
            token.refusal = "after a number in thousands may name a generation of cards"
            return candidates
        vendors = {a.vendor for a in candidates}
        wider = [
            acc
            for word, bucket in state.words.words.items()
            if word.startswith(key) and _VARIANT.fullmatch(word[len(key) :])
            for acc in bucket
            if acc.vendor in vendors
        ]
        candidates = list(dict.fromkeys([*candidates, *wider]))
        models = list(dict.fromkeys(a.model for a in candidates))
        token.role = "series"
        token.meaning = f"the series: {', '.join(models)}"
    return candidates


def _restated_variant(state: Read, candidates: list[Accelerator]) -> None:
    """Set aside an unplaced ``Super`` or ``Ti`` after the model where every candidate's name
    already has it."""
    seen_model = False
    for token in state.tokens:
        seen_model = seen_model or token.role == "model"
        word = token.piece.text.casefold()
        if not seen_model or token.role or word not in CARD_VARIANTS or not candidates:
            continue
        if all(word in words_of(a.name) for a in candidates):  # "2080S": the 2080 SUPER
            token.role, token.meaning = "noise", f"restates the model's {word.upper()}"


#: An Apple chip word with no tier (``m1``..``m9``): other systems use the same two characters
#: for machines and parts (AWS's CPU instance families ``m4.xlarge``, an ``M.2`` SSD).
_APPLE_CHIP = re.compile(r"m[1-9]")
#: Pieces that say a bare chip word is a machine or a part, not Apple's chip.
_MACHINE_KINDS = frozenset({"size", "host", "cpu", "vcpu"})


def refuse_apple_chip_alone(
    state: Read, models: list[Token], candidates: list[Accelerator]
) -> None:
    """A bare Apple chip word (``M4``, no Pro, Max or Ultra) reads as the chip, but not
    written ``M.2`` or beside an instance size or a host figure (``m4.xlarge``, ``m2-ssd``)."""
    if not all(a.vendor == "apple" for a in candidates):
        return
    bare = [t for t in models if _APPLE_CHIP.fullmatch(t.piece.value)]
    if not bare or any(t.piece.kind == "vendor" for t in state.tokens):
        return  # "Apple M1 (GPU - 8 cores)" says whose chip it is
    dotted = any("." in t.piece.text for t in bare)
    tokens = state.tokens
    machine = any(
        (t.piece.kind in _MACHINE_KINDS and not _gpu_cores(tokens, i))
        or (t.piece.kind, t.piece.value) == ("noise", "sizes")
        for i, t in enumerate(tokens)
    )
    if dotted or machine:
        raise refuse(
            state,
            f"{quote(bare[0].piece.text)} beside a machine's words, or written with a dot, is not "
            "Apple's chip (AWS's m4.xlarge is a CPU instance, M.2 a drive): write 'Apple "
            f"{bare[0].piece.text.replace('.', '').upper()}'",
        )


def refuse_cpu_run(state: Read) -> None:
    """Leave a bare ``cpu`` right before the model unplaced: a benchmark's or a profile's run
    on the CPU of that card's machine (HW-GPT-Bench's ``profile_latency_cpu_a6000.sh``), not
    the card. A CPU figure (``8 CPUs``, ``128vcpu``) stays the host's."""
    for i, token in enumerate(state.tokens):
        piece = token.piece
        counted = i > 0 and state.tokens[i - 1].piece.kind in ("number", "decimal")
        bare = piece.kind == "host" and piece.text.casefold() == "cpu" and not counted
        if bare and model_ahead(state, token):
            token.role = ""
            token.refusal = "before the model may name a run on the machine's CPU"


def _gpu_cores(tokens: list[Token], i: int) -> bool:
    """Whether ``tokens[i]`` is the ``core`` of Apple's ``10-Core GPU``: the GPU's own cores,
    a configuration of the chip (llama.cpp's and LocalScore's tables), not a host's."""
    word = tokens[i].piece
    after = tokens[i + 1].piece if i + 1 < len(tokens) else None
    return (
        word.kind == "host"
        and word.text.casefold() in ("core", "cores")
        and after is not None
        and (after.kind, after.value) == ("device", "gpu")
    )


def refuse_unplaced(state: Read) -> None:
    """Refuse the name when a token is left unplaced, saying why for each one, with close
    matches from the vocabulary for a word it does not know."""
    bad = [t for t in state.tokens if t.role in ("", "variant")]
    if not bad:
        return
    for token in bad:
        token.role = token.role or "unplaced"
        token.meaning = token.meaning or "not placed"
    lexicon = [*vocabulary().words, *state.words.words]
    parts, hints = [], []
    models = [i for i, t in enumerate(state.tokens) if t.role == "model"]
    after = models[0] if models else len(state.tokens)  # a guard: no rule unplaces the model
    said = ""  # the last rule's refusal, said once for the words it holds for
    for token in bad:
        text = quote(token.piece.value)
        if token.role == "variant" and token.piece.kind in ("number", "decimal"):
            host = ", a host's number" if mixed_names() else ""  # "gpu-a40-1": host 1 of ten
            parts.append(
                f"{text} follows the model: a count, a size, a host figure{host} or a variant?"
            )
        elif token.role == "variant":
            parts.append(f"{text} follows the model, and the catalog has no variant by that name")
        elif token.piece.kind in ("number", "decimal"):
            where = " follows the model:" if state.tokens.index(token) > after else ""
            parts.append(f"{text}{where} could be a count, a size or a host figure")
        elif token.piece.kind == "topology":
            parts.append(f"{text} is no TPU topology here: it could be host figures")
        elif token.refusal and token.refusal == said:  # the last word's reason: said once
            parts[-1] += f"; nor {quote(token.piece.text)}"
            continue
        elif token.refusal:  # a rule left it unplaced on purpose ("mi210-4c")
            parts.append(f"{quote(token.piece.text)} {token.refusal}")
            said = token.refusal
            continue
        elif token.piece.kind == "count_word":
            parts.append(
                f"{quote(token.piece.text)} is a count only right before the model ('two A100s')"
            )
        else:
            parts.append(f"{text} is not a word it can place")
            hints += close_matches(token.piece.value, lexicon)[:2]
        said = ""
    hint = f" (did you mean {' or '.join(repr(h) for h in hints[:3])}?)" if hints else ""
    raise refuse(state, "; ".join(parts) + hint, tuple(hints[:3]))
