"""The spec grammar's terminals, for :mod:`._parser`: a count, a count range, a memory size
and a partition, each read and checked where it stands, with a caret under what is wrong."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from accelerators._parser_fields import (
    MAX_COUNT,
    SHARED,
    WHOLE,
    Alternative,
    count_value,
    refuse,
)
from accelerators._text import MIG_PROFILE_PATTERN, TOPOLOGY_PATTERN, format_number, quote
from accelerators.catalog._memory import MemoryRequest
from accelerators.errors import UnknownPartitionError, close_matches, with_caret

if TYPE_CHECKING:
    from accelerators._tokenizer import Token, Tokenizer
    from accelerators.catalog._names import NameMatch

__all__ = ["Terms"]

#: GB per memory unit (decimal units, as datasheets and ``nvidia-smi`` quote them).
_UNITS = {"mb": 0.001, "g": 1.0, "gb": 1.0, "tb": 1000.0}

#: Shapes a partition can take (the catalog schema checks its records with the same two).
_MIG_PROFILE = re.compile(MIG_PROFILE_PATTERN)
_TOPOLOGY = re.compile(TOPOLOGY_PATTERN)


class Terms:
    """The terminal rules of the grammar; the parser that inherits them holds ``source`` (the
    spec text) and ``tokens`` (its tokenizer)."""

    source: str
    tokens: Tokenizer

    def _parse_count_range(self, alternative: Alternative) -> None:
        """count_range = [ digits ] ".." [ digits ] ;   (dstack: 1..2, 4.., ..8)"""
        token = self.tokens.read()
        low = int(token.match["low"] or 1)
        high = int(token.match["high"]) if token.match["high"] else None
        expected = f"Expected a count range such as 1..2 or 4.. after ':', got {quote(token.text)}"
        if token.match["low"] is None and high is None:
            self.tokens.raise_syntax_error(expected, span=token.span)
        if not 0 < low <= MAX_COUNT:
            zero = "; a spec asks for at least one device (dstack's 0.. also allows none)"
            refuse(expected + (zero if low == 0 else ""), self.source, token.span)
        if high is not None and not low <= high <= MAX_COUNT:
            refuse(
                f"Expected a count range from low to high (such as 1..2), got {quote(token.text)}",
                self.source,
                token.span,
            )
        alternative.fields["count"] = low
        alternative.fields["count_range"] = (low, high)
        alternative.count_span = token.span
        alternative.follow = []

    def _parse_memory(self) -> MemoryRequest:
        """memory = MEMORY [ "+" ] ;   MEMORY = number ( "GB" | "G" | "MB" | "TB" ) ;"""
        tokens = self.tokens
        token = tokens.expect("MEMORY", expected="a memory size such as '80GB'")
        gb = self._gigabytes(token)
        tokens.skip_ws()
        if tokens.consume("RANGE"):  # dstack's 24GB..80GB (and 24GB.., which is 24GB+)
            tokens.skip_ws()
            if not tokens.check("MEMORY"):
                return MemoryRequest(gb=gb, at_least=True)
            high = self._gigabytes(tokens.read())
            if high < gb:
                refuse(
                    f"Expected a memory range from low to high, got {format_number(gb)}GB.."
                    f"{format_number(high)}GB",
                    self.source,
                    (token.position, tokens.last_end),
                )
            return MemoryRequest(gb=gb, at_least=True, at_most=high)
        at_least = tokens.consume("PLUS") is not None
        return MemoryRequest(gb=gb, at_least=at_least)

    def _gigabytes(self, token: Token) -> float:
        gb = float(token.match["gb"]) * _UNITS[token.match["unit"].lower()]
        if not (math.isfinite(gb) and gb > 0):
            refuse(
                f"Expected a positive memory size such as '80GB', got {quote(token.text)}",
                self.source,
                token.span,
            )
        return gb

    def _parse_count(self, *, memory_allowed: bool) -> Token:
        """count = COUNT ;   COUNT = digits [ "." digits ] | "." digits ;"""
        tokens = self.tokens
        if not tokens.check("COUNT"):
            expected = "a count after ':' (a number such as 8 or 0.5)"
            if memory_allowed:
                expected += " or a memory size (such as 80GB)"
            tokens.raise_syntax_error(f"Expected {expected}, got {tokens.found()}")
        token = tokens.read()
        value = count_value(token.text)
        if math.isnan(value):
            refuse(
                f"Expected a count a float holds exactly (a whole number, or a fraction such "
                f"as 0.5) after ':', got {quote(token.text)}, which would round to "
                f"{float(token.text):.0f}",
                self.source,
                token.span,
            )
        if not (math.isfinite(value) and 0 < value <= MAX_COUNT):
            refuse(
                f"Expected a positive count of at most 2**53 ({MAX_COUNT}) after ':', got "
                f"{quote(token.text)}",
                self.source,
                token.span,
            )
        return token

    def _parse_partition(self, match: NameMatch) -> Token:
        """partition = MIG_PROFILE | TOPOLOGY | "whole" | "unpartitioned" ;"""
        tokens = self.tokens
        acc = match.accelerator
        offered = ", ".join((*acc.partitions, "whole")) if acc.partitions else "none"
        if not tokens.check("PARTITION"):
            tokens.raise_syntax_error(
                "Expected a MIG profile (such as 1g.5gb) or TPU topology (such as 2x4) "
                f"after '@', got {tokens.found()}; {acc.name} offers: {offered}"
            )
        token = tokens.read()
        text = token.text.lower()
        shapes = (_MIG_PROFILE.fullmatch(text), _TOPOLOGY.fullmatch(text))
        if not (text in (*WHOLE, SHARED) or any(shapes)):
            # What no accelerator offers, as an unknown partition of this one (the type the
            # constructor's partition="..." raises).
            hints = close_matches(text, (*acc.partitions, *WHOLE, SHARED))
            hint = f"; did you mean {' or '.join(repr(h) for h in hints)}?" if hints else ""
            unknown = UnknownPartitionError(
                "Expected a MIG profile (such as 1g.5gb) or TPU topology (such as 2x4) "
                f"after '@', got {quote(token.text)}{hint} ({acc.name} offers: {offered})",
                accelerator=acc.name,
                partition=token.text,
                valid=acc.partitions,
            )
            raise with_caret(unknown, self.source, token.span)
        return token
