"""Tokenizer for the accelerator spec grammar (``docs/grammar.md``).

Modelled on ``packaging._tokenizer``: the token rules are compiled regular expressions,
and the parser asks for the token it expects at the current position (:meth:`Tokenizer.check`)
instead of cutting the whole input into tokens up front. That keeps the lexing
context-sensitive where the grammar needs it: ``80GB`` is a memory size at the start of an
alternative but part of the name in ``NVIDIA H100 80GB HBM3``, and ``2x4`` is a TPU topology
after ``@`` but would be nonsense anywhere else.

Every token records its position, so errors can point at the failing span.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple, NoReturn

from accelerators._vendors import vendor_names
from accelerators.errors import SpecSyntaxError

__all__ = ["DEFAULT_RULES", "DESCRIPTIONS", "HINTS", "Token", "Tokenizer"]

#: A non-negative decimal number without sign or exponent: ``8``, ``0.5``, ``.5``.
_NUMBER = r"(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)"
#: A number, size or word must not run on into letters, digits, ``.``, ``_`` or ``-``.
_BOUNDARY = r"(?![A-Za-z0-9_.\-])"
#: The same, but a range's ``..`` may follow (dstack's ``24GB..80GB``, ``1..2``).
_RANGE_BOUNDARY = r"(?![A-Za-z0-9_\-]|\.(?!\.))"
#: Whitespace between tokens (ASCII only: other code points are not part of the grammar).
_WS = r"[ \t\r\n]"
#: One word of an accelerator name: letters, digits and ``. _ - / #``, a ``+`` followed by a
#: letter (``MIG 1g.10gb+me``), balanced parenthesised qualifiers such as ``Intel(R)`` and
#: bracketed ones (pci.ids: ``GH100 [H100 SXM5 80GB]``), and a ``*`` of a count inside a name
#: (``4090 24GB * 4``, ``8 * V100``: that many of them).
#: A parenthesised qualifier (``(R)``, ``(compute mode)``), inside a name or before its first word.
_QUALIFIER = r"\([A-Za-z0-9_.\-/# ]*\)"
_WORD = (
    rf"(?:[A-Za-z0-9_.\-/#]|\+(?=[A-Za-z])|{_QUALIFIER}|\[[A-Za-z0-9_.\-/#() ]*\]"
    r"|\*(?=[ \t]*[A-Za-z0-9]))+"
    r"(?:\+(?=[ \t]*(?:[:|,]|\Z)))?"  # a trailing '+' (Modal's "B200+"): a group name
)

DEFAULT_RULES: Mapping[str, re.Pattern[str]] = {
    "WS": re.compile(rf"{_WS}+"),
    "PIPE": re.compile(r"\|"),
    "COMMA": re.compile(r","),
    "COLON": re.compile(r":"),
    "AT": re.compile(r"@"),
    "BANG": re.compile(r"!"),
    "PLUS": re.compile(r"\+"),
    # A memory size: ``80GB``, ``80G``, ``24 gb``, ``0.5GB``, ``16000MB``, ``1.5TB`` (decimal).
    "MEMORY": re.compile(
        rf"(?P<gb>{_NUMBER})[ \t]*(?P<unit>gb|g|mb|tb){_RANGE_BOUNDARY}", re.IGNORECASE
    ),
    # The ``..`` of a range (dstack): ``24GB..80GB``, ``1..2``, ``4..``, ``..8``.
    "RANGE": re.compile(r"\.\."),
    # A count range: ``1..2``, ``4..``, ``..8`` (dstack).
    "COUNT_RANGE": re.compile(rf"(?P<low>[0-9]+)?\.\.(?P<high>[0-9]+)?{_BOUNDARY}"),
    # A device count: ``8``, ``0.5``.
    "COUNT": re.compile(rf"{_NUMBER}{_BOUNDARY}"),
    # A vendor standing alone as a request (``nvidia``, ``amd:192GB+``), not a name's first word.
    "VENDOR": re.compile(rf"(?:{'|'.join(vendor_names())})(?={_WS}*(?:[:|,]|\Z))", re.IGNORECASE),
    # Whatever follows ``@``; the parser checks its shape and gives close matches.
    "PARTITION": re.compile(r"[A-Za-z0-9_.+\-]+"),
    # An accelerator name: words separated by blanks, so ``NVIDIA H100 80GB HBM3`` is one name.
    # It starts with a letter or digit, or with a bracketed qualifier before a word (a results
    # table's ``(runpod) RTX 4090``).
    "NAME": re.compile(
        rf"(?=[A-Za-z0-9_]|{_QUALIFIER}[ \t]*[A-Za-z0-9_]){_WORD}(?:[ \t]+{_WORD})*"
    ),
    "END": re.compile(r"\Z"),
}

#: How a token kind is described in error messages.
DESCRIPTIONS: Mapping[str, str] = {
    "PIPE": "'|'",
    "COMMA": "','",
    "COLON": "':'",
    "AT": "'@'",
    "BANG": "'!'",
    "PLUS": "'+'",
    "RANGE": "'..'",
    "END": "the end of the spec",
}

#: Extra advice for characters that commonly land in the wrong place.
HINTS: Mapping[str, str] = {
    "!": " ('!' goes right after the name, as in 'H100!:8')",
    "@": " (the partition goes right after the name or '!', as in 'A100@1g.5gb:2')",
    ":": " (the count comes last and once, as in 'H100:8')",
    "+": " ('+' follows a memory size, as in '80GB+'; for 'this or better', list "
    "fallbacks: 'H100 | H200')",
    "(": " (parentheses are not part of the grammar; separate alternatives with '|')",
    ")": " (parentheses are not part of the grammar; separate alternatives with '|')",
}

#: A stretch of input to quote as "what was found": a run of name characters, or one character.
_LEXEME = re.compile(r"[A-Za-z0-9_.\-/#+]+|.", re.DOTALL)


class Token(NamedTuple):
    """One token: its rule name, its text and where it starts in the source."""

    name: str
    text: str
    position: int
    match: re.Match[str]

    @property
    def end(self) -> int:
        return self.position + len(self.text)

    @property
    def span(self) -> tuple[int, int]:
        return (self.position, self.end)


class Tokenizer:
    """Context-sensitive tokenizer: the parser checks for the kinds it can accept next."""

    def __init__(self, source: str, *, rules: Mapping[str, re.Pattern[str]] = DEFAULT_RULES):
        self.source = source
        self.rules = rules
        self.next_token: Token | None = None
        self.position = 0
        #: Where the last token other than whitespace ended.
        self.last_end = 0

    def check(self, name: str, *, peek: bool = False) -> bool:
        """Whether the next token is of kind ``name``; unless ``peek``, remember it for read()."""
        if self.next_token is not None:
            raise RuntimeError(f"Cannot check for {name!r}: {self.next_token!r} was not read")
        match = self.rules[name].match(self.source, self.position)
        if match is None:
            return False
        if not peek:
            self.next_token = Token(name, match[0], self.position, match)
        return True

    def read(self) -> Token:
        """Consume and return the token found by the last successful :meth:`check`."""
        token = self.next_token
        if token is None:
            raise RuntimeError("read() needs a successful check() first")
        self.position += len(token.text)
        if token.name != "WS":
            self.last_end = self.position
        self.next_token = None
        return token

    def consume(self, name: str) -> Token | None:
        """Read a token of kind ``name`` if one is next."""
        return self.read() if self.check(name) else None

    def expect(self, name: str, *, expected: str) -> Token:
        """Read a token of kind ``name`` or raise "Expected <expected>, got <what is here>"."""
        if not self.check(name):
            self.raise_syntax_error(f"Expected {expected}, got {self.found()}")
        return self.read()

    def skip_ws(self) -> None:
        self.consume("WS")

    def at_end(self) -> bool:
        return self.check("END", peek=True)

    def found(self) -> str:
        """Describe what stands at the current position, for "got …" in messages."""
        if self.at_end():
            return "the end of the spec"
        lexeme = _LEXEME.match(self.source, self.position)
        text = lexeme[0] if lexeme else self.source[self.position]
        return repr(text) if len(text) <= 60 else repr(f"{text[:28]}...{text[-28:]}")

    def found_span(self) -> tuple[int, int]:
        """Span of what :meth:`found` quotes."""
        if self.at_end():
            return (self.position, self.position + 1)
        lexeme = _LEXEME.match(self.source, self.position)
        length = len(lexeme[0]) if lexeme else 1
        return (self.position, self.position + length)

    def raise_syntax_error(self, message: str, *, span: tuple[int, int] | None = None) -> NoReturn:
        """Raise :class:`SpecSyntaxError` pointing at ``span`` (default: what stands here)."""
        raise SpecSyntaxError(
            message, source=self.source, span=span if span is not None else self.found_span()
        )
