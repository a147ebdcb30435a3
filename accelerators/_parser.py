"""Recursive-descent parser for the accelerator spec grammar.

>>> from accelerators._parser import parse_spec
>>> [alt.fields["count"] for alt in parse_spec("h100:8 | a100-80gb:4").alternatives]
[8, 4]

The grammar, with its decisions and examples, is in ``docs/grammar.md``; each ``_parse_*``
method below carries its EBNF rule. Lexing is context-sensitive (:mod:`._tokenizer`): the
parser asks for the token kinds it can accept next. Names are resolved as soon as they are
read (:mod:`accelerators.catalog._names`), so a later error (a MIG profile the model lacks)
can name the valid choices for that accelerator.

Every failure raises an :class:`~accelerators.errors.AcceleratorError` whose message shows
the input with a caret under the failing span: :class:`SpecSyntaxError` for the grammar and
for specs that are well-formed but inconsistent, :class:`UnknownAcceleratorError` for a
name the catalog does not know (or knows for two models), and
:class:`UnknownPartitionError` for a MIG profile or topology the accelerator lacks.

The parser returns plain parsed data (:class:`ParsedSpec`: per alternative, the fields of a
spec and the span they came from), as ``packaging``'s parser does; ``AcceleratorSpec.parse``
builds itself from it. So the grammar sits below the spec model and never imports it.
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple, cast

from accelerators._text import format_number, quote, shorten
from accelerators._tokenizer import DESCRIPTIONS as _SAY
from accelerators._tokenizer import HINTS as _HINTS
from accelerators._tokenizer import Token, Tokenizer
from accelerators.catalog._memory import MemoryRequest
from accelerators.catalog._names import NameMatch, resolve_name, select_by_memory
from accelerators.catalog._partitions import check_partition
from accelerators.catalog._store import group_members
from accelerators.errors import AcceleratorError, close_matches, with_caret

__all__ = ["MAX_COUNT", "MAX_LENGTH", "ParsedAlternative", "ParsedSpec", "parse_spec"]

#: The longest spec text read: a fallback chain of a dozen long names fits many times over,
#: and a megabyte of input is refused at once instead of parsed (2 MB took 5 s and 370 MB).
MAX_LENGTH = 1000

#: The largest device count a spec accepts (2**53: every integer up to it is exact as a
#: float, so counts survive JSON and the Kubernetes quantity text unchanged).
MAX_COUNT = 2**53
#: GB per memory unit (decimal units, as datasheets and ``nvidia-smi`` quote them).
_UNITS = {"mb": 0.001, "g": 1.0, "gb": 1.0, "tb": 1000.0}

#: Shapes a partition can take (the catalog schema checks the same shapes).
_MIG_PROFILE = re.compile(r"[1-7]g\.[0-9]+gb(?:[+\-][a-z.]+)?")
_TOPOLOGY = re.compile(r"[0-9]+x[0-9]+(?:x[0-9]+)?")
#: Words after ``@`` that ask for a whole, unpartitioned device; the first is canonical.
_WHOLE = ("whole", "unpartitioned")
#: ``@shared`` (or Flyte 2's trailing word, ``T4 shared``): a shared slot of a GPU.
_SHARED = "shared"
_EXAMPLES = "such as 'H100:8', 'A100@1g.5gb' or '80GB+'"


class ParsedAlternative(NamedTuple):
    """One alternative: the keyword arguments of a spec and where in the source it stands."""

    fields: dict[str, Any]
    span: tuple[int, int]


class ParsedSpec(NamedTuple):
    """What :func:`parse_spec` read: the source and its alternatives, preferred first, and
    the accelerator names in it with their spans (what ``AcceleratorSpec.explain`` reads)."""

    source: str
    alternatives: tuple[ParsedAlternative, ...]
    names: tuple[tuple[str, tuple[int, int]], ...] = ()

    def error_at(self, exc: AcceleratorError, span: tuple[int, int]) -> AcceleratorError:
        """The same error, its message followed by the source and a caret under ``span``."""
        return with_caret(exc, self.source, span)


def parse_spec(text: str) -> ParsedSpec:
    """Parse spec text (``"H100:8 | A100-80GB:8"``) into plain fields per alternative.

    >>> parsed = parse_spec("NVIDIA A100-SXM4-80GB@1g.10gb:2")
    >>> fields = parsed.alternatives[0].fields
    >>> fields["accelerator"].name, fields["partition"], fields["count"], fields["exact"]
    ('A100-80GB-SXM', '1g.10gb', 2, True)
    """
    if not isinstance(text, str):
        raise AcceleratorError(
            f"Expected an accelerator spec string {_EXAMPLES}, got {type(text).__name__}: "
            f"{shorten(repr(text), 200)}"
        )
    if len(text) > MAX_LENGTH:
        raise AcceleratorError(
            f"Expected an accelerator spec of at most {MAX_LENGTH:,} characters {_EXAMPLES}, "
            f"got {len(text):,}: {quote(text, 60)}"
        )
    return _Parser(text).parse()


class _VendorThenName(Exception):
    """A vendor followed by a name (``nvidia:B200``): parsed as a named request."""


class _Alternative:
    """One parsed alternative: the spec's fields, its span and what could still follow it."""

    __slots__ = ("count_span", "end", "fields", "follow", "group", "memory_span", "start")

    def __init__(
        self, fields: dict[str, Any], start: int, *, follow: list[str] | None = None
    ) -> None:
        self.fields = fields
        self.start = start
        self.end = 0
        self.follow: list[str] = [] if follow is None else follow
        self.memory_span: tuple[int, int] | None = None
        self.count_span: tuple[int, int] | None = None
        #: Further models a group name means (Modal's ``B200+`` is B200, then B300; ``any``).
        self.group: tuple[Any, ...] = ()


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens = Tokenizer(source)
        self.names: list[tuple[str, tuple[int, int]]] = []

    def parse(self) -> ParsedSpec:
        if "=" in self.source:  # the grammar has no '=': LSF's "num=2:gmodel=NVIDIAH200"?
            from accelerators._lsf import looks_like_request

            if looks_like_request(self.source):
                return self._parse_lsf()
        return self._parse_spec()

    def _parse_lsf(self) -> ParsedSpec:
        """An LSF ``bsub -gpu`` request (:mod:`accelerators._lsf`): its gmodel, its num."""
        from accelerators._lsf import read_request

        request = read_request(self.source)
        found = cast("re.Match[str]", re.compile(r"[^:]*").match(self.source, request.name_start))
        name = Token("NAME", request.name, request.name_start, found)
        self.names.append((name.text, name.span))
        match = self._resolve(name)
        if request.vendor is not None and match.accelerator.vendor != request.vendor:
            self.tokens.raise_syntax_error(
                f"{match.accelerator.name} is made by {match.accelerator.vendor}, not "
                f"{request.vendor} (gvendor=)",
                span=name.span,
            )
        alternative = _Alternative({} if request.num is None else {"count": request.num}, 0)
        alternative.group = match.family
        self._complete_named(alternative, match, name, exact=False, partition=None)
        alternative.end = len(self.source)
        return ParsedSpec(self.source, tuple(self._build(alternative)), tuple(self.names))

    # -- grammar -------------------------------------------------------------------------
    def _parse_spec(self) -> ParsedSpec:
        """spec = alternative { ( "|" | "," ) alternative } END ;"""
        tokens = self.tokens
        tokens.skip_ws()
        if tokens.at_end():
            tokens.raise_syntax_error(
                f"Expected an accelerator spec {_EXAMPLES}, got an empty string"
            )
        last = self._parse_alternative(after=None)
        run = [last]  # alternatives joined by ',' since the last '|'
        alternatives: list[ParsedAlternative] = []
        while True:
            tokens.skip_ws()
            separator = tokens.consume("PIPE") or tokens.consume("COMMA")
            if separator is None or separator.text == "|":
                for alternative in _share_count(run):
                    alternatives.extend(self._build(alternative))
                run = []
            if separator is None:
                break
            tokens.skip_ws()
            last = self._parse_alternative(after=separator.text)
            run.append(last)
        if not tokens.at_end():
            self._unexpected(last)
        return ParsedSpec(self.source, tuple(alternatives), tuple(self.names))

    def _parse_alternative(self, *, after: str | None) -> _Alternative:
        """alternative = memory_request | vendor_request | named_request ;"""
        tokens = self.tokens
        if tokens.check("MEMORY", peek=True):
            alternative = self._parse_memory_request()
        elif tokens.check("VENDOR", peek=True):
            alternative = self._parse_vendor_request()
        elif tokens.check("NAME", peek=True):
            alternative = self._parse_named_request()
        else:
            where = f"after {after!r}" if after else "at the start of the spec"
            hint = _HINTS.get(self.source[tokens.position : tokens.position + 1], "")
            tokens.raise_syntax_error(
                "Expected an accelerator name (such as 'H100'), a memory size (such as "
                f"'80GB+') or a vendor (such as 'nvidia') {where}, got {tokens.found()}{hint}"
            )
        alternative.end = tokens.last_end
        return alternative

    def _parse_memory_request(self) -> _Alternative:
        """memory_request = memory [ ":" count ] ;"""
        alternative = _Alternative({}, self.tokens.position)
        memory = alternative.fields["memory"] = self._parse_memory()
        alternative.follow = [_SAY["COLON"]] if memory.at_least else [_SAY["PLUS"], _SAY["COLON"]]
        self._parse_colon_tail(alternative, memory_allowed=False)
        return alternative

    def _parse_vendor_request(self) -> _Alternative:
        """vendor_request = VENDOR [ ":" ( named_request | memory [ ":" count ] | count ) ] ;

        A vendor before a name (dstack's ``nvidia:B200:8``) must be the name's vendor.
        """
        token = self.tokens.expect("VENDOR", expected="a vendor")
        vendor = token.text.lower()
        alternative = _Alternative({"vendor": vendor}, token.position, follow=[_SAY["COLON"]])
        try:
            self._parse_colon_tail(alternative, memory_allowed=True, after_vendor=True)
        except _VendorThenName:
            named = self._parse_named_request()
            acc = named.fields["accelerator"]
            if acc.vendor != vendor:
                self.tokens.raise_syntax_error(
                    f"{acc.name} is made by {acc.vendor}, not {vendor}; write "
                    f"'{acc.vendor}:{acc.model}' or the name alone",
                    span=(token.position, named.start + len(acc.model)),
                )
            named.start = token.position
            return named
        return alternative

    def _parse_named_request(self) -> _Alternative:
        """named_request = NAME [ "!" ] [ "@" partition ] [ ":" memory ] [ ":" count ] ;"""
        tokens = self.tokens
        name = tokens.expect("NAME", expected="an accelerator name")
        start = name.position
        if name.text.casefold() == "gpu" and tokens.check("COLON", peek=True):
            # Slurm's GRES form "gpu:TYPE:COUNT" (--gres=gpu:a100:8).
            tokens.consume("COLON")
            tokens.skip_ws()
            name = tokens.expect("NAME", expected="a GPU type after 'gpu:' (Slurm GRES)")
        head = name.text[:-6].rstrip(" \t")  # Flyte 2's "T4 shared": the name, then the word
        shared_word = name.text[-6:].casefold() == _SHARED and len(head) < len(name.text) - 6
        if shared_word:
            name = Token(name.name, head, name.position, name.match)
        self.names.append((name.text, name.span))
        group = group_members(name.text)  # a name for a choice of models: "B200+", "any"
        if name.text.endswith("+") and group is None and not _names_an_instance(name.text):
            tokens.raise_syntax_error(
                f"Unexpected '+' after {quote(name.text[:-1])}; " + _HINTS["+"].strip(" ()"),
                span=(name.span[1] - 1, name.span[1]),
            )
        match = NameMatch(group[0], False, source="group") if group else self._resolve(name)
        alternative = _Alternative({}, start)
        # A group name's further models, or those of a name that leaves its model open (the
        # token reader's "gpu-a100-large" is A100-40GB or A100-80GB): fallbacks, in order.
        alternative.group = group[1:] if group else match.family
        alternative.follow = [_SAY["BANG"], _SAY["AT"], _SAY["COLON"]]
        tokens.skip_ws()
        bang = tokens.consume("BANG")
        if bang is not None:
            alternative.follow = [_SAY["AT"], _SAY["COLON"]]
            tokens.skip_ws()
        partition: Token | None = None
        if tokens.consume("AT"):
            tokens.skip_ws()
            partition = self._parse_partition(match)
            alternative.follow = [_SAY["COLON"]]
        self._parse_colon_tail(alternative, memory_allowed=True)
        if shared_word:
            alternative.fields["shared"] = True
        self._complete_named(alternative, match, name, exact=bang is not None, partition=partition)
        return alternative

    def _parse_colon_tail(
        self, alternative: _Alternative, *, memory_allowed: bool, after_vendor: bool = False
    ) -> None:
        """colon_tail = [ ":" memory ] [ ":" count ] ;  (memory only where allowed)"""
        tokens = self.tokens
        tokens.skip_ws()
        if not tokens.consume("COLON"):
            return
        tokens.skip_ws()
        if (
            after_vendor
            and not tokens.check("MEMORY", peek=True)
            and not tokens.check("COUNT", peek=True)
            and not tokens.check("COUNT_RANGE", peek=True)
            and tokens.check("NAME", peek=True)
        ):
            raise _VendorThenName()
        if memory_allowed and tokens.check("MEMORY", peek=True):
            memory_start = tokens.position
            memory = alternative.fields["memory"] = self._parse_memory()
            alternative.memory_span = (memory_start, tokens.last_end)
            alternative.follow = (
                [_SAY["COLON"]] if memory.at_least else [_SAY["PLUS"], _SAY["COLON"]]
            )
            tokens.skip_ws()
            if not tokens.consume("COLON"):
                return
            tokens.skip_ws()
            memory_allowed = False
        if tokens.check("COUNT_RANGE"):
            self._parse_count_range(alternative)
            return
        count = self._parse_count(memory_allowed=memory_allowed)
        alternative.fields["count"] = _count_value(count.text)
        alternative.count_span = count.span
        alternative.follow = []

    def _parse_count_range(self, alternative: _Alternative) -> None:
        """count_range = [ digits ] ".." [ digits ] ;   (dstack: 1..2, 4.., ..8)"""
        token = self.tokens.read()
        low = int(token.match["low"] or 1)
        high = int(token.match["high"]) if token.match["high"] else None
        if (token.match["low"] is None and high is None) or not 0 < low <= MAX_COUNT:
            zero = "; a spec asks for at least one device (dstack's 0.. also allows none)"
            self.tokens.raise_syntax_error(
                f"Expected a count range such as 1..2 or 4.. after ':', got {quote(token.text)}"
                + (zero if low == 0 else ""),
                span=token.span,
            )
        if high is not None and not low <= high <= MAX_COUNT:
            self.tokens.raise_syntax_error(
                f"Expected a count range from low to high (such as 1..2), got {quote(token.text)}",
                span=token.span,
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
                tokens.raise_syntax_error(
                    f"Expected a memory range from low to high, got {format_number(gb)}GB.."
                    f"{format_number(high)}GB",
                    span=(token.position, tokens.last_end),
                )
            return MemoryRequest(gb=gb, at_least=True, at_most=high)
        at_least = tokens.consume("PLUS") is not None
        return MemoryRequest(gb=gb, at_least=at_least)

    def _gigabytes(self, token: Token) -> float:
        gb = float(token.match["gb"]) * _UNITS[token.match["unit"].lower()]
        if not (math.isfinite(gb) and gb > 0):
            self.tokens.raise_syntax_error(
                f"Expected a positive memory size such as '80GB', got {quote(token.text)}",
                span=token.span,
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
        value = _count_value(token.text)
        if math.isnan(value):
            tokens.raise_syntax_error(
                f"Expected a count a float holds exactly (a whole number, or a fraction such "
                f"as 0.5) after ':', got {quote(token.text)}, which would round to "
                f"{float(token.text):.0f}",
                span=token.span,
            )
        if not (math.isfinite(value) and 0 < value <= MAX_COUNT):
            tokens.raise_syntax_error(
                f"Expected a positive count of at most 2**53 ({MAX_COUNT}) after ':', got "
                f"{quote(token.text)}",
                span=token.span,
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
        if not (text in (*_WHOLE, _SHARED) or any(shapes)):
            hints = close_matches(text, (*acc.partitions, *_WHOLE, _SHARED))
            hint = f"; did you mean {' or '.join(repr(h) for h in hints)}?" if hints else ""
            tokens.raise_syntax_error(
                "Expected a MIG profile (such as 1g.5gb) or TPU topology (such as 2x4) "
                f"after '@', got {quote(token.text)}{hint} ({acc.name} offers: {offered})",
                span=token.span,
            )
        return token

    # -- semantics -------------------------------------------------------------------------
    def _resolve(self, name: Token) -> NameMatch:
        try:
            return resolve_name(name.text)
        except AcceleratorError as exc:
            raise self._with_caret(exc, name.span) from None

    def _complete_named(
        self,
        alternative: _Alternative,
        match: NameMatch,
        name: Token,
        *,
        exact: bool,
        partition: Token | None,
    ) -> None:
        """Fold what the name implies (SKU, count, partition) into the explicit fields."""
        fields = alternative.fields
        acc = match.accelerator
        memory: MemoryRequest | None = fields.get("memory")
        if memory is not None and alternative.group and match.source != "group":
            # A size picks among the models a name left open ("gpu-a100-large:80GB").
            fitting = [a for a in (acc, *alternative.group) if memory.matches(a)]
            if fitting:
                match = NameMatch(fitting[0], False, match.count, match.partition, match.source)
                acc, alternative.group = fitting[0], ()
        if memory is not None:
            try:
                acc = select_by_memory(match, memory)
            except AcceleratorError as exc:
                span = (name.position, (alternative.memory_span or name.span)[1])
                raise self._with_caret(exc, span) from None
        fields["accelerator"] = acc
        fields["exact"] = exact or match.pinned
        if match.count is not None:
            count = fields.setdefault("count", match.count)
            if count != match.count:
                self.tokens.raise_syntax_error(
                    f"{quote(name.text)} already means a count of {match.count}, but the spec "
                    f"asks for {count}; give the count once",
                    span=alternative.count_span or name.span,
                )
        chosen: str | None = None
        if partition is not None:
            chosen = partition.text.lower()
            if match.partition is not None and chosen != match.partition:
                self.tokens.raise_syntax_error(
                    f"{quote(name.text)} already names the partition {match.partition!r}, but the "
                    f"spec asks for {partition.text!r}; give the partition once",
                    span=partition.span,
                )
        elif match.partition is not None:
            chosen = match.partition
        if chosen is not None and fields.get("shared"):
            self.tokens.raise_syntax_error(
                f"{quote(name.text + ' shared')} already asks for a shared slot, so '@{chosen}' "
                "cannot follow it; write 'shared' or '@shared' once, without a partition",
                span=partition.span if partition is not None else name.span,
            )
        if chosen == _SHARED:
            fields["shared"] = True
        elif chosen in _WHOLE:
            fields["unpartitioned"] = True
            if not acc.partitions:
                self.tokens.raise_syntax_error(
                    f"{acc.name} cannot be partitioned, so '@{chosen}' means nothing for it",
                    span=partition.span if partition is not None else name.span,
                )
        elif chosen is not None:
            try:
                check_partition(acc, chosen)
            except AcceleratorError as exc:
                span = partition.span if partition is not None else name.span
                raise self._with_caret(exc, span) from None
            fields["partition"] = chosen

    @staticmethod
    def _build(alternative: _Alternative) -> list[ParsedAlternative]:
        span = (alternative.start, alternative.end)
        built = [ParsedAlternative(alternative.fields, span)]
        for member in alternative.group:  # a group name: its other models, as fallbacks
            built.append(ParsedAlternative({**alternative.fields, "accelerator": member}, span))
        return built

    def _with_caret(self, exc: AcceleratorError, span: tuple[int, int]) -> AcceleratorError:
        return with_caret(exc, self.source, span)

    def _unexpected(self, alternative: _Alternative) -> None:
        """Raise for whatever stands after a complete alternative."""
        tokens = self.tokens
        text = self.source[alternative.start : alternative.end].strip()
        expected = [*alternative.follow, _SAY["PIPE"], _SAY["END"]]
        listed = ", ".join(expected[:-1]) + " or " + expected[-1]
        hint = _HINTS.get(self.source[tokens.position], "")
        tokens.raise_syntax_error(
            f"Unexpected {tokens.found()} after {quote(text)}; expected {listed}{hint}"
        )


def _names_an_instance(text: str) -> bool:
    """Whether a name ending in '+' is an instance type (Paperspace's ``GPU+``)."""
    from accelerators.catalog._instances import get_instance

    return get_instance(text) is not None


def _share_count(run: list[_Alternative]) -> list[_Alternative]:
    """dstack's ``A10,A10G:2``: names listed with ',' before the one that carries a count
    share it (any of them, that many). Only bare names share; ``H100:8, A100`` keeps each."""
    *head, last = run
    if "count" not in last.fields or not head:
        return run
    if any(set(alt.fields) - {"accelerator", "exact"} or alt.group for alt in head):
        return run
    keys = ("count", "count_range")
    shared: dict[str, Any] = {k: last.fields[k] for k in keys if k in last.fields}
    for alt in head:
        alt.fields.update(shared)
    return run


def _count_value(text: str) -> int | float:
    """``8`` -> 8 (an exact int, however long), ``0.5`` -> 0.5; beyond 2**53 -> inf; a
    fraction a float cannot hold apart from a whole number (``9007199254740992.5``) -> nan,
    never the whole number it rounds to."""
    if "." not in text:
        return int(text) if len(text) <= 20 else math.inf
    value = float(text)
    fraction = text.partition(".")[2]
    if value.is_integer() and fraction.strip("0"):
        return math.nan
    return int(value) if value.is_integer() and value <= MAX_COUNT else value
