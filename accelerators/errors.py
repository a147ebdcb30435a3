"""The documented error types of ``accelerators``.

Every error the core raises for bad input is an :class:`AcceleratorError`, which is a
:class:`ValueError`, so callers can catch either. Messages always name the offending input,
what was expected and, where there are any, the close matches.

This module imports nothing beyond the standard library.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "AcceleratorError",
    "CatalogDataError",
    "PlacementError",
    "SpecSyntaxError",
    "UnknownAcceleratorError",
    "UnknownPartitionError",
    "close_matches",
    "with_caret",
]


class AcceleratorError(ValueError):
    """Base class of every error ``accelerators`` raises for bad input."""


class SpecSyntaxError(AcceleratorError):
    """A spec string that does not follow the grammar.

    ``str()`` renders the source with a caret line under the failing span::

        Expected a count after ':' in accelerator spec
            H100:x
                 ^
    """

    def __init__(self, message: str, *, source: str, span: tuple[int, int]) -> None:
        self.message = message
        self.source = source
        self.span = span
        super().__init__(self._render())

    #: Characters of the source shown around the failing span (long inputs are cut).
    WINDOW = 40

    def _render(self) -> str:
        source = self.source
        start, end = self.span
        start = max(0, min(start, len(source)))
        end = max(start + 1, min(end, len(source) + 1))
        # Show at most WINDOW characters either side of the span, and at most 2*WINDOW of
        # the span itself, so a megabyte of input gives a message of one line.
        end = min(end, start + 2 * self.WINDOW)
        left = max(0, start - self.WINDOW)
        right = min(len(source), end + self.WINDOW)
        head = "..." if left > 0 else ""
        tail = "..." if right < len(source) else ""
        # Characters a terminal would act on (ESC, NUL, a tab, a bidi override) are shown
        # escaped, as repr() writes them, and the caret counts them at that width.
        shown = head + "".join(map(_visible, source[left:right])) + tail
        offset = len(head) + sum(len(_visible(ch)) for ch in source[left:start])
        width = sum(len(_visible(ch)) for ch in source[start:end]) + max(0, end - len(source))
        marker = " " * offset + "~" * (max(width, 1) - 1) + "^"
        return f"{self.message}\n    {shown}\n    {marker}"


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
    """A valid spec that a given platform cannot place (e.g. a MIG partition on AMD)."""


class CatalogDataError(AcceleratorError):
    """The catalog data file failed validation."""


def close_matches(
    word: str, candidates: Iterable[str], n: int = 3, cutoff: float = 0.6
) -> list[str]:
    """Return up to ``n`` candidates close to ``word``, compared case-insensitively.

    The returned strings keep the candidates' own spelling. Letters typed for look-alike
    digits count as those digits ("O" for zero, "I" or "l" for one), and a candidate that
    matches exactly that way comes first: ``H1OO`` finds ``H100``, ``MI3OOX`` ``MI300X``.
    """
    by_folded: dict[str, str] = {}
    for candidate in candidates:
        by_folded.setdefault(candidate.casefold(), candidate)
    folded = word.casefold()
    found: list[str] = []
    if _has_digit_lookalike(folded):
        wanted = folded.translate(_DIGIT_LOOKALIKES)
        found = [key for key in by_folded if key.translate(_DIGIT_LOOKALIKES) == wanted][:n]
    import difflib  # only when a name is wrong: not on the path of every lookup

    for key in difflib.get_close_matches(folded, list(by_folded), n=n, cutoff=cutoff):
        if key not in found and len(found) < n:
            found.append(key)
    return [by_folded[f] for f in found]


#: Letters typed for digits they look like (after casefolding): o -> 0, i and l -> 1.
_DIGIT_LOOKALIKES = str.maketrans({"o": "0", "i": "1", "l": "1"})


def _has_digit_lookalike(folded: str) -> bool:
    """Whether ``folded`` has a look-alike letter next to a digit (``h1oo``, ``a1oo``)."""
    return any(
        ch in "oil" and any(c.isdigit() for c in folded[max(0, i - 1) : i + 2])
        for i, ch in enumerate(folded)
    )


def with_caret(exc: AcceleratorError, source: str, span: tuple[int, int]) -> AcceleratorError:
    """``exc`` again (same type), its message followed by ``source`` and a caret at ``span``."""
    if isinstance(exc, SpecSyntaxError):
        return exc
    rendered = str(SpecSyntaxError(str(exc), source=source, span=span))
    if isinstance(exc, UnknownPartitionError):
        return UnknownPartitionError(
            rendered, accelerator=exc.accelerator, partition=exc.partition, valid=exc.valid
        )
    if isinstance(exc, UnknownAcceleratorError):
        return UnknownAcceleratorError(rendered, name=exc.name, suggestions=exc.suggestions)
    return SpecSyntaxError(str(exc), source=source, span=span)
