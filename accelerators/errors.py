"""The documented error types of ``accelerators``.

Every error the core raises for bad input is an :class:`AcceleratorError`, which is a
:class:`ValueError`, so callers can catch either. Messages always name the offending input,
what was expected and, where there are any, the close matches.

One mistake raises one type, whatever the entry point (``AcceleratorSpec.parse``,
``AcceleratorSpec.coerce``, the constructor, a factory, a placement function):

* :class:`SpecSyntaxError`: spec text that does not follow the grammar;
* :class:`InvalidSpecError` (the base of :class:`SpecSyntaxError`): a spec whose parts
  cannot hold, grammatical text or constructor fields alike (``T4@whole``: a T4 has no
  MIG; a count of 0; a name and a memory size that disagree), or a value that is no spec;
* :class:`UnknownAcceleratorError`, :class:`UnknownPartitionError`: a name or a MIG
  profile / TPU topology the catalog does not have;
* :class:`PlacementError`: a spec a platform cannot place, an unknown platform, or an
  option the platform does not take or cannot read;
* :class:`CatalogDataError`: a catalog data file that fails validation.

An error about spec text shows the text with a caret under the failing span and keeps it
in ``.source`` and ``.span`` (``None`` otherwise).

This module imports nothing beyond the standard library.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TypeVar

__all__ = [
    "AcceleratorError",
    "CatalogDataError",
    "CountNotStatedError",
    "InvalidSpecError",
    "PlacementError",
    "SpecSyntaxError",
    "UnknownAcceleratorError",
    "UnknownPartitionError",
    "close_matches",
    "with_caret",
]


class AcceleratorError(ValueError):
    """Base class of every error ``accelerators`` raises for bad input."""

    #: The spec text the error is about and the span its caret points at (set by
    #: :func:`with_caret` and :class:`SpecSyntaxError`); ``None`` for other errors.
    source: str | None = None
    span: tuple[int, int] | None = None
    #: The accelerator name the error is about, where it is about one (an unknown name, or a
    #: name a spec cannot use as written); ``None`` otherwise.
    name: str | None = None


class InvalidSpecError(AcceleratorError):
    """A spec that cannot be: its parts do not hold together, or a value is no spec at all.

    Raised the same way for spec text that follows the grammar (with a caret) and for the
    constructor's fields: a partition of a device that has none (``T4@whole``), a name and a
    memory size or vendor that disagree (``A100-40GB-PCIE:80GB``), a count stated twice
    (``8x H100:4``) or out of range (``H100:0``), a share stated twice (``T4@shared:0.5``),
    and a value that is neither text, a spec, a constant nor a list of those.
    :class:`SpecSyntaxError`, for text that breaks the grammar, is a subclass.
    """


class CountNotStatedError(InvalidSpecError):
    """A name whose device count is its system's to say, in a spec that does not say it.

    A name for a node or an instance size (``gpu-a100`` read with ``denotes="node"``,
    Exoscale's ``gpua5000.medium``, an HGX board) holds as many devices as its system says,
    and a product of several devices in a list of several kinds (``MI250`` read with
    ``denotes="mixed"``) is one of them or the board; the reader refuses to guess. Give the
    count in the spec (``gpu-a100:4``). ``name`` is the name.
    """


class SpecSyntaxError(InvalidSpecError):
    """Spec text that does not follow the grammar (``docs/grammar.md``).

    Only text raises it: a character or word the grammar has no place for, an empty spec, a
    missing count after ``:``. ``str()`` renders the source with a caret line under the
    failing span::

        Expected a count after ':' in accelerator spec
            H100:x
                 ^
    """

    source: str
    span: tuple[int, int]

    def __init__(self, message: str, *, source: str, span: tuple[int, int]) -> None:
        self.message = message
        self.source = source
        self.span = span
        super().__init__(_caret_message(message, source, span))


#: Characters of the source shown around the failing span (long inputs are cut).
_CARET_WINDOW = 40


def _caret_message(message: str, source: str, span: tuple[int, int]) -> str:
    """``message``, then ``source`` and a caret line under ``span`` (indented 4 spaces)."""
    start, end = span
    start = max(0, min(start, len(source)))
    end = max(start + 1, min(end, len(source) + 1))
    # Show at most _CARET_WINDOW characters either side of the span, and at most twice that
    # of the span itself, so a megabyte of input gives a message of one line.
    end = min(end, start + 2 * _CARET_WINDOW)
    left = max(0, start - _CARET_WINDOW)
    right = min(len(source), end + _CARET_WINDOW)
    head = "..." if left > 0 else ""
    tail = "..." if right < len(source) else ""
    # Characters a terminal would act on (ESC, NUL, a tab, a bidi override) are shown
    # escaped, as repr() writes them, and the caret counts them at that width.
    shown = head + "".join(map(_visible, source[left:right])) + tail
    offset = len(head) + sum(len(_visible(ch)) for ch in source[left:start])
    width = sum(len(_visible(ch)) for ch in source[start:end]) + max(0, end - len(source))
    marker = " " * offset + "~" * (max(width, 1) - 1) + "^"
    return f"{message}\n    {shown}\n    {marker}"


def _visible(ch: str) -> str:
    """``ch``, or its escape (``\\x1b``) when a terminal would not just print it."""
    return ch if ch.isprintable() else ascii(ch)[1:-1]


class UnknownAcceleratorError(AcceleratorError, LookupError):
    """A name that resolves to no catalog entry."""

    def __init__(self, message: str, *, name: str, suggestions: tuple[str, ...] = ()) -> None:
        self.name = name
        self.suggestions = suggestions
        super().__init__(message)


class UnknownPartitionError(AcceleratorError, LookupError):
    """A MIG profile or TPU topology that the accelerator does not offer."""

    def __init__(
        self, message: str, *, accelerator: str, partition: str, valid: tuple[str, ...] = ()
    ) -> None:
        self.accelerator = accelerator
        self.partition = partition
        self.valid = valid
        super().__init__(message)


class PlacementError(AcceleratorError):
    """A valid spec that a given platform cannot place (e.g. a MIG partition on AMD), or a
    platform that cannot place anything as asked: a platform name that is not registered,
    an option it does not take, or an option value it cannot read."""


class CatalogDataError(AcceleratorError):
    """The catalog data file failed validation."""


def close_matches(
    word: str, candidates: Iterable[str], n: int = 3, cutoff: float = 0.6
) -> list[str]:
    """Return up to ``n`` candidates close to ``word``, compared case-insensitively.

    The returned strings keep the candidates' own spelling. Letters typed for look-alike
    digits count as those digits ("O" for zero, "I" or "l" for one), and a candidate that
    matches exactly that way comes first: ``H1OO`` finds ``H100``, ``MI3OOX`` ``MI300X``.
    The rest are :func:`difflib.get_close_matches`'s, found faster (:func:`_closest`).
    """
    prepared = _prepared(tuple(candidates))
    by_folded, keys = prepared.by_folded, prepared.keys
    folded = word.casefold()
    found: list[str] = []
    if _has_digit_lookalike(folded):
        wanted = folded.translate(_DIGIT_LOOKALIKES)
        found = [key for key in keys if key.translate(_DIGIT_LOOKALIKES) == wanted][:n]
    for key in _closest(folded, prepared, n, cutoff):
        if key not in found and len(found) < n:
            found.append(key)
    return [by_folded[f] for f in found]


class _Prepared:
    """Candidates made ready for :func:`_closest`, once per list (a catalog's spellings are
    asked about again and again): each casefolded text with the first spelling that gave it,
    and each text's characters as a bit mask with one bit per (character, how many times it
    came before): ``"a100"`` sets the bits of ``a`` 0, ``1`` 0, ``0`` 0 and ``0`` 1. Two masks
    share as many bits as their texts share characters, counted with repeats, which is what
    :meth:`difflib.SequenceMatcher.quick_ratio` counts, here in one ``&``."""

    def __init__(self, candidates: tuple[str, ...]) -> None:
        self.by_folded: dict[str, str] = {}
        for candidate in candidates:
            self.by_folded.setdefault(candidate.casefold(), candidate)
        self.keys = list(self.by_folded)
        self.bits: dict[tuple[str, int], int] = {}
        self.masks = [self.mask(key, grow=True) for key in self.keys]
        self.lengths = [len(key) for key in self.keys]

    def mask(self, text: str, *, grow: bool = False) -> int:
        """``text``'s bit mask; a (character, count) no candidate has sets no bit (``grow``:
        give it one, while the candidates' masks are made)."""
        seen: dict[str, int] = {}
        out = 0
        for ch in text:
            k = seen.get(ch, 0)
            seen[ch] = k + 1
            bit = self.bits.get((ch, k))
            if bit is None and grow:
                bit = self.bits[ch, k] = len(self.bits)
            if bit is not None:
                out |= 1 << bit
        return out


@functools.lru_cache(maxsize=16)
def _prepared(candidates: tuple[str, ...]) -> _Prepared:
    return _Prepared(candidates)


def _closest(word: str, prepared: _Prepared, n: int, cutoff: float) -> list[str]:
    """What ``difflib.get_close_matches(word, prepared.keys, n, cutoff)`` returns, the same
    list in the same order. difflib tries each key with three bounds in turn (lengths, shared
    characters, the real ratio); the second, which implies the first, is computed here for
    every key at once with bit masks, and only keys that pass it get difflib's own ratio."""
    import difflib  # only when a name is wrong: not on the path of every lookup
    import heapq

    if n <= 0 or not 0.0 <= cutoff <= 1.0:  # difflib's own checks, with its messages
        return difflib.get_close_matches(word, prepared.keys, n, cutoff)
    mine, size = prepared.mask(word), len(word)
    # 2.0 * shared / total: difflib's own expression, so a bound on the line passes alike
    passing = [
        i
        for i, (theirs, length) in enumerate(zip(prepared.masks, prepared.lengths, strict=True))
        if (total := size + length) == 0 or 2.0 * (mine & theirs).bit_count() / total >= cutoff
    ]
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    scored = []
    for i in passing:
        key = prepared.keys[i]
        matcher.set_seq1(key)
        if (ratio := matcher.ratio()) >= cutoff:
            scored.append((ratio, key))
    return [key for _, key in heapq.nlargest(n, scored)]


#: Letters typed for digits they look like (after casefolding): o -> 0, i and l -> 1.
_DIGIT_LOOKALIKES = str.maketrans({"o": "0", "i": "1", "l": "1"})


def _has_digit_lookalike(folded: str) -> bool:
    """Whether ``folded`` has a look-alike letter next to a digit (``h1oo``, ``a1oo``)."""
    return any(
        ch in "oil" and any(c.isdigit() for c in folded[max(0, i - 1) : i + 2])
        for i, ch in enumerate(folded)
    )


_E = TypeVar("_E", bound=AcceleratorError)


def with_caret(exc: _E, source: str, span: tuple[int, int]) -> _E:
    """``exc`` again, of the same type and with the same attributes, its message followed by
    ``source`` and a caret at ``span``; an error that already shows its source is returned
    as it is."""
    if exc.source is not None:
        return exc
    shown = type(exc).__new__(type(exc))
    shown.__dict__.update(vars(exc))
    shown.args = (_caret_message(str(exc), source, span),)
    shown.source, shown.span = source, span
    return shown
