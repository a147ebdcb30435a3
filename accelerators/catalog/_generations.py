"""A consumer GPU generation written as a series: ``RTX 30xx``, ``RTX 20 series``,
``NVIDIA 10xx series``, ``GeForce RTX 40``, ``Radeon RX 7000 series``, ``GTX 9XX``.

>>> from accelerators.catalog._names import resolve_name
>>> found = resolve_name("RTX 20 series")
>>> [a.model for a in (found.accelerator, *found.family)][:3], found.source
(['RTX-2080-TI', 'RTX-2080-SUPER', 'RTX-2060'], 'generation')

Software tables and marketplaces name a whole generation of GeForce or Radeon cards at once
(Unsloth's ``RTX 30xx``, bitsandbytes' ``RTX 20 series``, InvokeAI's ``NVIDIA 10xx series``).
Such a name reads as the catalog's desktop cards of that generation, in catalog order, as a
family: it says which cards fit and claims no one of them. A product line (``RTX``, ``GTX``,
``RX``) or a series mark (``xx``, AMD's ``000``, ``series``) must say that the number is a
generation: a bare ``30`` or ``40x`` is refused, and so is NVIDIA's ``RTX 4000`` (a Quadro
board, not the GeForce 40 series) and a generation with no such card (``GTX 30xx``: GeForce 30
cards are RTX). Laptop GPUs are left out: their tables name them apart.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from accelerators.catalog._reading import TokenReading
from accelerators.catalog._spellings import NameMatch
from accelerators.catalog._vgpu import consumer_card

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.catalog._spellings import Index

__all__ = ["generation_tokens", "read_generation"]

_SEP = r"[\s_\-]*"
#: ``[vendor] [line] <generation><mark> [series]``: NVIDIA's two-digit generations (``30xx``,
#: ``30``), AMD's one-digit ones with three zeros (``7000``).
_NAME = re.compile(
    rf"(?P<vendor>nvidia|amd){_SEP}"
    rf"|(?P<line>geforce{_SEP}rtx|geforce{_SEP}gtx|radeon{_SEP}rx|geforce|radeon|rtx|gtx|rx){_SEP}"
    r"|(?P<gen>[0-9](?=000)|[0-9]{1,2})(?P<mark>xxx|xx|x|000|00)?(?![0-9a-z])"
    rf"|{_SEP}(?P<series>series)\Z",
    re.IGNORECASE,
)
#: The vendor each product line is of.
_LINE_VENDOR = {"geforce": "nvidia", "rtx": "nvidia", "gtx": "nvidia", "rx": "amd", "radeon": "amd"}
#: A catalog model of a desktop card: its line and its four-digit number.
_MODEL = re.compile(r"(RTX|GTX|RX)-([0-9]{3,4})(?:-|\Z)")


def read_generation(index: Index, text: str) -> NameMatch | None:
    """The family of cards a generation name names, or None when ``text`` is none."""
    parts = _parts(text)
    if parts is None:
        return None
    vendor, line, gen, mark, series = parts
    if not (line or mark in ("xx", "xxx", "000") or (series and vendor)):
        return None  # a bare "30" or "40x" is no generation
    amd = vendor == "amd" or _LINE_VENDOR.get(line) == "amd"
    # NVIDIA's generations are two digits (its "RTX 4000" and "RTX 5000" are boards), or one
    # digit with a mark for each further digit of the cards' numbers (Fooocus's "RTX 4XXX",
    # "GTX 9XX"); AMD's one, with three zeros ("RX 7000")
    wildcard = not amd and len(gen) == 1 and mark in ("xx", "xxx")
    if wildcard:
        digits = len(gen) + len(mark)
    elif len(gen) != (1 if amd else 2) or (amd and mark != "000") or (not amd and "0" in mark):
        return None
    else:
        digits = 4
    members = _members(index, vendor or _LINE_VENDOR.get(line, ""), line, gen, digits)
    if not members:
        return None
    return NameMatch(members[0], False, None, None, "generation", family=tuple(members[1:]))


def generation_tokens(text: str, match: NameMatch) -> tuple[TokenReading, ...]:
    """The reading of a generation name, token by token (``accelerators parse --explain``)."""
    models = ", ".join(a.model for a in (match.accelerator, *match.family))
    tokens = []
    for found in _NAME.finditer(text):
        kind = _kind(found)
        word = found[kind]
        start = found.start(kind)
        if kind == "vendor":
            tokens.append(TokenReading(word, start, start + len(word), "vendor", word.upper()))
        elif kind == "line":
            tokens.append(TokenReading(word, start, start + len(word), "product line", word))
        elif kind == "gen":
            end = found.end()
            tokens.append(TokenReading(text[start:end], start, end, "generation", models))
        elif kind == "series":
            tokens.append(TokenReading(word, start, start + len(word), "series", models))
    return tuple(tokens)


def _parts(text: str) -> tuple[str, str, str, str, bool] | None:
    """(vendor, line, generation, mark, series) of a generation name; None when the name has
    anything else, or one of them twice."""
    vendor = line = gen = mark = ""
    series = False
    pos = 0
    for found in _NAME.finditer(text):
        if found.start() != pos:
            return None
        pos = found.end()
        kind = _kind(found)
        if kind == "vendor" and not (vendor or line or gen):
            vendor = found["vendor"].lower()
        elif kind == "line" and not (line or gen):
            words = re.sub(r"[\s_\-]+", "", found["line"].lower())
            line = words.removeprefix("geforce").removeprefix("radeon") or words
        elif kind == "gen" and not gen:
            gen, mark = found["gen"], (found["mark"] or "").lower()
        elif kind == "series" and gen and not series:
            series = True
        else:
            return None
    if pos != len(text) or not gen:
        return None
    if vendor and line and _LINE_VENDOR.get(line) not in (None, vendor):
        return None
    return vendor, line, gen, mark, series


def _kind(found: re.Match[str]) -> str:
    """Which part of a generation name ``found`` is (its ``mark`` goes with ``gen``)."""
    return next(k for k in ("vendor", "line", "gen", "series") if found[k] is not None)


def _members(index: Index, vendor: str, line: str, gen: str, digits: int) -> list[Accelerator]:
    """The desktop cards of ``vendor`` (and ``line``) whose number of ``digits`` digits
    starts ``gen``, one per model, in catalog order."""
    seen: dict[str, Accelerator] = {}
    for acc in index.entries:
        found = _MODEL.match(acc.model)
        if (
            found is None
            or acc.model in seen
            or acc.vendor != vendor
            or not found[2].startswith(gen)
            or len(found[2]) != digits
            or not consumer_card(acc)
            or "laptop" in acc.form_factor.casefold()
            or (line in ("rtx", "gtx", "rx") and found[1].lower() != line)
        ):
            continue
        seen[acc.model] = acc
    return list(seen.values())
