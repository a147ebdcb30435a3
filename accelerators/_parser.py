"""Recursive-descent parser for the accelerator spec grammar.

>>> from accelerators._parser import parse_spec
>>> [alt.fields["count"] for alt in parse_spec("h100-sxm:8 | a100-80gb:4").alternatives]
[8, 4]

The grammar, with its decisions and examples, is in ``docs/grammar.md``; each ``_parse_*``
method (here and in :mod:`._parser_terms`, the terminals) carries its EBNF rule. Lexing is
context-sensitive (:mod:`._tokenizer`): the parser asks for the token kinds it can accept next.
Names are resolved as soon as they are read (:mod:`accelerators.catalog._names`), so a later
error (a MIG profile the model lacks) can name the valid choices for that accelerator.

Every failure raises an :class:`~accelerators.errors.AcceleratorError` whose message shows
the input with a caret under the failing span: :class:`SpecSyntaxError` for text that breaks
the grammar, :class:`InvalidSpecError` for a spec that follows it but cannot hold (``T4@whole``,
``H100:0``), :class:`UnknownAcceleratorError` for a name the catalog does not know (or knows
for two models), and :class:`UnknownPartitionError` for what stands after ``@`` when the
accelerator does not offer it; the spec's constructor raises the same types for the same
mistakes. What a name means, and what cannot hold, is decided in
:mod:`accelerators._parser_fields`.

The parser returns plain parsed data (:class:`ParsedSpec`: per alternative, the fields of a
spec and the span they came from), as ``packaging``'s parser does; ``AcceleratorSpec.parse``
builds itself from it. So the grammar sits below the spec model and never imports it.
"""

from __future__ import annotations

import re
from typing import NamedTuple, cast

from accelerators._devicetree import device_tree
from accelerators._gce import gce_machine
from accelerators._parser_fields import (
    MAX_COUNT,
    SHARED,
    Alternative,
    ParsedAlternative,
    build,
    complete_named,
    count_value,
    node_count,
    refuse,
    resolve,
    share_count,
)
from accelerators._parser_terms import Terms
from accelerators._slurm import slurm_option
from accelerators._text import plain_typography, quote, shorten
from accelerators._tokenizer import DESCRIPTIONS as _SAY
from accelerators._tokenizer import HINTS as _HINTS
from accelerators._tokenizer import Token, Tokenizer
from accelerators.catalog._commas import descriptive_commas
from accelerators.catalog._names import NameMatch
from accelerators.catalog._store import group_members
from accelerators.errors import (
    AcceleratorError,
    InvalidSpecError,
    with_caret,
)

__all__ = ["MAX_COUNT", "MAX_LENGTH", "ParsedAlternative", "ParsedSpec", "parse_spec"]

#: The longest spec text read: a fallback chain of a dozen long names fits many times over,
#: and a megabyte of input is refused at once instead of parsed (2 MB took 5 s and 370 MB).
MAX_LENGTH = 1000
_EXAMPLES = "such as 'H100:8', 'A100@1g.5gb' or '80GB+'"


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
        raise InvalidSpecError(
            f"Expected an accelerator spec string {_EXAMPLES}, got {type(text).__name__}: "
            f"{shorten(repr(text), 200)}"
        )
    if len(text) > MAX_LENGTH:
        raise InvalidSpecError(
            f"Expected an accelerator spec of at most {MAX_LENGTH:,} characters {_EXAMPLES}, "
            f"got {len(text):,}: {quote(text, 60)}"
        )
    text = device_tree(gce_machine(slurm_option(plain_typography(text))))
    return _Parser(descriptive_commas(text)).parse()


class _VendorThenName(Exception):
    """A vendor followed by a name (``nvidia:B200``): parsed as a named request."""


class _Parser(Terms):
    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens = Tokenizer(source)
        self.names: list[tuple[str, tuple[int, int]]] = []

    def parse(self) -> ParsedSpec:
        # the grammar has no '=': PBS's select=? a node selector? LSF's -gpu request?
        if "=" in self.source:
            from accelerators._labels import looks_like_selector, read_selector
            from accelerators._lsf import looks_like_request, read_request
            from accelerators._pbs import looks_like_select, read_select

            if looks_like_select(self.source):  # accelerators._pbs
                chunks = read_select(self.source)
                return self._parse_named(chunks.name, chunks.name_start, chunks.devices, None)
            if looks_like_selector(self.source):  # accelerators._labels
                found = read_selector(self.source)
                return self._parse_named(found.name, found.name_start, found.devices, None)
            if looks_like_request(self.source):  # accelerators._lsf
                asked = read_request(self.source)
                return self._parse_named(asked.name, asked.name_start, asked.num, asked.vendor)
        if self.source.lstrip().startswith("["):  # a CI runner's label list?
            from accelerators._labels import looks_like_label_list, read_label_list

            if looks_like_label_list(self.source):
                joined, start = read_label_list(self.source)
                return self._parse_named(joined, start, None, None)
        return self._parse_spec()

    def _parse_named(
        self, text: str, start: int, count: int | None, vendor: str | None
    ) -> ParsedSpec:
        """One name read out of ``key=value`` text, with the count and vendor given beside it."""
        found = cast("re.Match[str]", re.compile(r"[^:,]*").match(self.source, start))
        name = Token("NAME", text, start, found)
        self.names.append((name.text, name.span))
        match = resolve(self.source, name)
        if vendor is not None and match.accelerator.vendor != vendor:
            refuse(
                f"{match.accelerator.name} is made by {match.accelerator.vendor}, not "
                f"{vendor} (gvendor=)",
                self.source,
                name.span,
            )
        alternative = Alternative({} if count is None else {"count": count}, 0)
        alternative.group = match.family
        complete_named(self.source, alternative, match, name, exact=False, partition=None)
        alternative.end = len(self.source)
        return ParsedSpec(self.source, tuple(build(alternative)), tuple(self.names))

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
                for alternative in share_count(run):
                    alternatives.extend(build(alternative))
                run = []
            if separator is None:
                break
            tokens.skip_ws()
            last = self._parse_alternative(after=separator.text)
            run.append(last)
        if not tokens.at_end():
            self._unexpected(last)
        return ParsedSpec(self.source, tuple(alternatives), tuple(self.names))

    def _parse_alternative(self, *, after: str | None) -> Alternative:
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

    def _parse_memory_request(self) -> Alternative:
        """memory_request = memory [ ":" count ] ;"""
        alternative = Alternative({}, self.tokens.position)
        memory = alternative.fields["memory"] = self._parse_memory()
        said = (alternative.start, self.tokens.position)
        alternative.follow = [_SAY["COLON"]] if memory.at_least else [_SAY["PLUS"], _SAY["COLON"]]
        self._parse_colon_tail(alternative, memory_allowed=False)
        node_count(self.source, alternative, said)
        return alternative

    def _parse_vendor_request(self) -> Alternative:
        """vendor_request = VENDOR [ ":" ( named_request | memory [ ":" count ] | count ) ] ;

        A vendor before a name (dstack's ``nvidia:B200:8``) must be the name's vendor.
        """
        token = self.tokens.expect("VENDOR", expected="a vendor")
        vendor = token.text.lower()
        alternative = Alternative({"vendor": vendor}, token.position, follow=[_SAY["COLON"]])
        try:
            self._parse_colon_tail(alternative, memory_allowed=True, after_vendor=True)
        except _VendorThenName:
            named = self._parse_named_request()
            acc = named.fields["accelerator"]
            if acc.vendor != vendor:
                refuse(
                    f"{acc.name} is made by {acc.vendor}, not {vendor}; write "
                    f"'{acc.vendor}:{acc.model}' or the name alone",
                    self.source,
                    (token.position, named.start + len(acc.model)),
                )
            named.start = token.position
            return named
        node_count(self.source, alternative, token.span)  # "nvidia" alone: a node of how many?
        return alternative

    def _parse_named_request(self) -> Alternative:
        """named_request = NAME [ "!" ] [ "@" partition ] [ ":" memory ] [ ":" count ] ;"""
        tokens = self.tokens
        name = tokens.expect("NAME", expected="an accelerator name")
        start = name.position
        key = re.sub(r"[\s_\-]", "", name.text.casefold())
        if key in _GPU_KEYS and tokens.check("COLON", peek=True):
            # Slurm's GRES form "gpu:TYPE:COUNT" (--gres=gpu:a100:8), or a feature that names
            # the GPU as key:value (Sherlock's "GPU_SKU:A100_SXM4", Yale's "gpumodel:a5000")
            tokens.consume("COLON")
            tokens.skip_ws()
            after = "'gpu:' (Slurm GRES)" if key == "gpu" else f"'{name.text}:'"
            name = tokens.expect("NAME", expected=f"a GPU type after {after}")
        head = name.text[:-6].rstrip(" \t")  # Flyte 2's "T4 shared": the name, then the word
        shared_word = name.text[-6:].casefold() == SHARED and len(head) < len(name.text) - 6
        if shared_word:
            name = Token(name.name, head, name.position, name.match)
        self.names.append((name.text, name.span))
        group = group_members(name.text)  # a name for a choice of models: "B200+", "any"
        if name.text.endswith("+") and group is None and not _names_an_instance(name.text):
            tokens.raise_syntax_error(
                f"Unexpected '+' after {quote(name.text[:-1])}; " + _HINTS["+"].strip(" ()"),
                span=(name.span[1] - 1, name.span[1]),
            )
        match = NameMatch(group[0], False, source="group") if group else resolve(self.source, name)
        alternative = Alternative({}, start)
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
        complete_named(
            self.source, alternative, match, name, exact=bang is not None, partition=partition
        )
        return alternative

    def _parse_colon_tail(
        self, alternative: Alternative, *, memory_allowed: bool, after_vendor: bool = False
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
        alternative.fields["count"] = count_value(count.text)
        alternative.count_span = count.span
        alternative.follow = []

    def _unexpected(self, alternative: Alternative) -> None:
        """Raise for whatever stands after a complete alternative."""
        tokens = self.tokens
        text = self.source[alternative.start : alternative.end].strip()
        expected = [*alternative.follow, _SAY["PIPE"], _SAY["END"]]
        listed = ", ".join(expected[:-1]) + " or " + expected[-1]
        hint = _HINTS.get(self.source[tokens.position], "")
        tokens.raise_syntax_error(
            f"Unexpected {tokens.found()} after {quote(text)}; expected {listed}{hint}"
        )


#: Keys a name may be written after as ``key:name`` (separators and case aside): Slurm's GRES
#: ``gpu`` and the GPU-model keys of node features and labels.
_GPU_KEYS = frozenset({"gpu", "gpusku", "gpumodel", "gputype", "gpuname"})


def _names_an_instance(text: str) -> bool:
    """Whether a name ending in '+' is an instance type (Paperspace's ``GPU+``)."""
    from accelerators.catalog._instances import get_instance

    return get_instance(text) is not None
