"""Accelerator name resolution, driven purely by catalog data.

>>> from accelerators.catalog._names import resolve_name
>>> resolve_name("nvidia-tesla-a100").accelerator.name
'A100-40GB-SXM'

Every catalog entry contributes *spellings*: its SKU ``name``, its ``model``, its
``constant``, its ``aliases`` and every value under ``names.*`` (nvidia-smi, GPU Feature
Discovery, GKE, Karpenter, EKS, Flyte, Ray, SkyPilot, Modal, Hugging Face, ROCm, other).
:func:`resolve_name` matches a string against them in tiers, stopping at the first tier
that matches:

1. **exact**: case-insensitive, with runs of spaces, ``_`` and ``-`` treated alike;
2. **loose**: vendor words (``nvidia``, ``tesla``, ``amd``, ``instinct``…) and parenthesised
   qualifiers dropped, ``80G`` read as ``80GB``, ``SXM4`` as ``SXM``, then compared with
   all separators squashed (``NVIDIA A100 80GB`` matches ``A100-80GB``);
3. **words**: the same words in any order (``A100 SXM4 40GB`` matches ``A100-40GB-SXM``);
4. **memory**: a trailing memory size that no spelling carries picks the model of that
   family with that memory (``H100 94GB`` is the 94 GB H100).

Within each tier the catalog's own names (SKU, model, constant, alias) are tried before
other systems' names. A model-level match of tiers 2-4 whose words leave the model open
(``nvidia_a100``, ``H100 80GB``) reads as the family the token reader finds
(``A100-40GB | A100-80GB``); the catalog's own model names (``H100-SXM``) and the platforms'
labels (``nvidia-h100``) are exact, and keep their one meaning. A bare name that systems give
to different models of one family (catalog ``[[open_names]]``: ``A100``, ``V100``, ``GH200``,
``H100``, ``H200``) reads as the family in every tier.

If no tier matches, decorated forms are tried: a count prefix or suffix (``8x H100``,
``H100 x8``, ``l40sx4``), a MIG suffix (GFD's ``NVIDIA-A100-SXM4-40GB-MIG-1g.5gb``) and a
TPU slice size (SkyPilot's ``tpu-v5litepod-8``).
Nothing is passed through: a string that matches nothing raises
:class:`~accelerators.errors.UnknownAcceleratorError` with close matches, and a string that
matches SKUs of two different models raises it listing both.

**Pinned or model-level.** A model (``A100-40GB``) can have several SKUs (SXM, PCIe). A
spelling is *model-level* (``pinned`` false: any SKU of the model will do) when it

* is the model name, or the model has a single SKU;
* is carried by two or more SKUs of the model (GKE's ``nvidia-tesla-a100``); or
* is an alias, constant or scheduler-side name (GKE, Karpenter, EKS, Flyte, Ray, SkyPilot,
  Modal, Hugging Face, other) of the model's default SKU and does not name that SKU's form
  factor (``A100``, ``A100-40GB``, ``nvidia-h100-80gb``).

Every other spelling is *SKU-level* (``pinned`` true): a SKU name that differs from its
model (``A100-40GB-PCIE``, ``H100-SXM``), a name the device itself reports (nvidia-smi,
GFD, ROCm: ``NVIDIA A100-SXM4-40GB``), a spelling only non-default SKUs carry, and a
default-SKU spelling that names its form factor. The form-factor words of a SKU come from
the data: the words of its name that its model name lacks, plus its ``form_factor``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from fractions import Fraction

from accelerators._text import MIG_PROFILE_PATTERN, implausible_count, plain_typography, quote
from accelerators.catalog._azure_sizes import azure_size
from accelerators.catalog._choices import choice_of_entries, same_entry_choice
from accelerators.catalog._memory_select import named_with_memory, select_by_memory
from accelerators.catalog._open_names import read_open
from accelerators.catalog._partitions import check_partition
from accelerators.catalog._reported import as_device_wrote, device_reported
from accelerators.catalog._spelling_match import match_spellings, unknown_name
from accelerators.catalog._spellings import (
    MEMORY_WORD,
    Index,
    NameMatch,
    cache_clear,
    current_index,
    exact_key,
    folded,
    is_vendor_word,
    known_spellings,
    loose_key,
    split_size,
    tpu_slice,
    words,
    words_key,
)
from accelerators.catalog._system_words import device_names, mixed_names
from accelerators.catalog._tables import as_written, contradicts, in_tables
from accelerators.errors import UnknownAcceleratorError

__all__ = [
    "NameMatch",
    "cache_clear",
    "is_vendor_word",
    "known_spellings",
    "loose_key",
    "resolve_name",
    "select_by_memory",
    "words",
]

# Decorations read off a name (the name is what is left). Suffixes are searched for at the
# end; their look-behinds keep the searches linear on long runs of blanks or separators.
_COUNT_PREFIX = re.compile(
    r"([0-9]{1,9}(?:\.[0-9]{1,9}|/[1-9][0-9]{0,2})?)\s*[x*]\s*(?=\S)", re.IGNORECASE
)
#: (``x86`` after a space is the CPU architecture, no count of 86: ``A2 x86``.)
_SPACED_COUNT_SUFFIX = re.compile(r"(?<=\S)(?:\s+x(?!86\Z)|\s*\*)\s*([0-9]{1,9})\Z", re.IGNORECASE)
#: ``l40sx4``, ``h100x8``: a count glued after the name, but not the ``x4`` of a topology that
#: stands as a part of its own (``tpu-v5e-2x4``: a 2x4 slice, not 4 slices of 2).
_COUNT_SUFFIX = re.compile(
    r"(?<=\S)(?<![-_ ][0-9])(?<![-_ ][0-9]{2})x([0-9]{1,9})\Z", re.IGNORECASE
)
#: What a spaced ``x16`` follows when it is a PCIe link's width, not a count (``PCIe x16``,
#: ``PCIe 4.0 x8``, ``PCIe Gen4 x16``, ``PCIe5 x16``; see :func:`._number_marks.pcie_lanes`).
_PCIE_LINK = re.compile(
    r"pci[\s_\-]?e(?:[\s_\-]*(?:gen[\s_\-]?[0-9]|[0-9](?:\.0)?)[\s_\-]+x[0-9]+|[\s_\-]+x16)\Z",
    re.IGNORECASE,
)
#: A '/' between a model's number and a suffix of letters: a choice ("V100/S" is a V100 or
#: a V100S), never one word of a spelling, as the loose keys would read it.
_SLASHED = re.compile(r"[0-9]\s*/\s*[A-Za-z]{1,5}\b(?![^()]*\))")
_MIG_SUFFIX = re.compile(
    rf"(?<=[^\s_\-])[\s_\-]+mig[\s_\-]+({MIG_PROFILE_PATTERN})\Z", re.IGNORECASE
)
#: A bare number in brackets right before a count suffix: Furiosa's "warboy(1)*2" (2 of one core).
_BARE_BRACKET = re.compile(r"\(\s*[0-9]+\s*\)\s*\Z")
_RESULT_MEMO_SIZE = 4096


# -- resolution ------------------------------------------------------------------------------
def resolve_name(text: str) -> NameMatch:
    """Resolve any accelerator name to its catalog entry; see the module docstring.

    Raises :class:`~accelerators.errors.UnknownAcceleratorError` for a name that matches
    nothing (with close matches) or SKUs of more than one model (with the candidates).
    """
    if not isinstance(text, str):
        raise UnknownAcceleratorError(
            f"Expected an accelerator name (str), got {type(text).__name__}: {text!r}",
            name=repr(text),
        )
    text = plain_typography(text)  # "AMD Instinct\u2122 MI300X": a sign, not a word
    if not text.isascii():
        # Look-alike characters (a Kelvin sign for K, a Cyrillic A) are not names; the spec
        # grammar refuses them too, so the catalog must not quietly fold them.
        odd = next(ch for ch in text if not ch.isascii())
        raise UnknownAcceleratorError(
            f"Unknown accelerator {quote(text)}: it contains the non-ASCII character "
            f"{odd!r} (U+{ord(odd):04X}); accelerator names are ASCII",
            name=text,
        )
    index = current_index(complete=False)
    key = (device_names(), mixed_names(), text)  # a reading may differ by what names denote
    found = index.results.get(key)
    if found is None:
        found = _catalog_name(index, text)
        if found is None:
            found = _resolve(current_index(), text)
            if found.count is not None and found.source != "instance":
                found = _case_of_a_shared_name(index, text.strip(), found)
        if len(index.results) < _RESULT_MEMO_SIZE and len(text) <= 200:
            index.results[key] = found
    return found


def _case_of_a_shared_name(index: Index, text: str, found: NameMatch) -> NameMatch:
    """A name that carries a count in one system and names an instance in another.

    Hugging Face's flavor ``a100x8`` is 8 A100 80GB; Paperspace's machine type ``A100x8`` 8 A100
    40GB. Each system writes its names in one case, so the exact spelling decides; another
    casing names neither and is refused. Only count-carrying spellings written in another case
    than the catalog's get here, so the instance table is not read for ordinary names.
    """
    if text in index.displays:
        return found
    from accelerators.catalog._instances import instances_named

    rows = [row for row in instances_named(text) if _lookup(index, row.accelerator) is not None]
    same = found.accelerator.model, found.count
    if all((_lookup(index, r.accelerator).accelerator.model, r.count) == same for r in rows):  # type: ignore[union-attr]
        return found  # every system means the same by it
    exact = [row for row in rows if row.name == text]
    if len(exact) == 1:
        base = _lookup(index, exact[0].accelerator)
        if base is not None:
            row = exact[0]
            return NameMatch(base.accelerator, base.pinned, row.count, row.partition, "instance")
    meanings = [f"{row.cloud}'s {row.name} is {row.spec_text}" for row in rows]
    spelled = [s for s in index.displays if s.casefold() == text.casefold()]
    said = f"{found.accelerator.model}:{found.count:g}"
    meanings += [f"the catalog spelling {s!r} is {said}" for s in spelled]
    raise UnknownAcceleratorError(
        f"Accelerator name {quote(text)} is ambiguous: {'; '.join(meanings)}. Write it as its "
        "system does (case matters here), or the spec itself",
        name=text,
        suggestions=tuple(dict.fromkeys([*(row.name for row in rows), *spelled])),
    )


def _catalog_name(index: Index, text: str) -> NameMatch | None:
    """The catalog's own name of a model or SKU (``H100``, ``A100-80GB``), or None.

    What :func:`_resolve` would find, from the identity tables alone: with no count to read
    off, the exact tier is tried first and within it the identity table, which the first
    step of the index holds in full. Anything else (None) needs the whole index.
    """
    stripped = text.strip()
    if _COUNT_PREFIX.match(stripped) or _SPACED_COUNT_SUFFIX.search(stripped):
        return None
    spellings = as_written(index.exact[0].get(exact_key(stripped)), stripped)
    return read_open(index, spellings, match_spellings(spellings, stripped)) if spellings else None


def _resolve(index: Index, text: str) -> NameMatch:
    stripped = text.strip()
    if not stripped:
        raise UnknownAcceleratorError(
            f"Expected an accelerator name such as 'H100' or 'A100-80GB', got {text!r}",
            name=text,
        )
    # A count written apart from the name ("8x H100", "H100 x8") is read before the name,
    # so "A100 x8" is 8 A100s and not Hugging Face's "a100x8" flavor (8 A100 80GB).
    found = _with_count(index, stripped, _COUNT_PREFIX.match(stripped))
    if not _PCIE_LINK.search(stripped):
        found = found or _with_count(index, stripped, _SPACED_COUNT_SUFFIX.search(stripped))
    found = found or _resolve_decorated(index, stripped)
    found = found or _with_count(index, stripped, _COUNT_SUFFIX.search(stripped))
    found = found or _instance_type(index, stripped)
    found = found or same_entry_choice(stripped, lambda name: _lookup(index, name))
    found = found or choice_of_entries(stripped, functools.partial(_whole_board, index))
    if not found and "-" in stripped:  # an NVIDIA vGPU type (A100D-16C, GRID T4-1Q)?
        from accelerators.catalog._vgpu import read_vgpu_type

        found = read_vgpu_type(stripped, lambda name: _lookup(index, name))
    if not found:
        # The structured reader, the last tier, is imported only for a name the tiers above
        # do not know (~2 ms of regular expressions a plain name never needs).
        from accelerators.catalog._generations import read_generation
        from accelerators.catalog._reader import read

        # a generation of cards ("RTX 30xx") is a whole name of its own form, before the
        # reader, which would refuse its "30xx"
        found = read_generation(index, stripped) or read(
            index, stripped, reported=lambda name: device_reported(index, name)
        )
    if found is None:
        raise unknown_name(index, text, lambda name: _lookup(index, name))
    return found


def _instance_type(index: Index, text: str) -> NameMatch | None:
    """A cloud instance type (``p5.48xlarge`` is 8 H100s), tried after every accelerator name."""
    from accelerators.catalog._instances import get_instance, service_instance

    row = get_instance(text) or service_instance(text)
    if row is None:
        return azure_size(text, lambda name: _lookup(index, name))
    base = _lookup(index, row.accelerator)
    if base is None:
        raise UnknownAcceleratorError(
            f"{row.cloud} instance type {quote(text)} carries {row.accelerator}, which the "
            "catalog does not list yet",
            name=text,
        )
    return NameMatch(base.accelerator, base.pinned, row.count, row.partition, "instance")


def _without(text: str, decoration: re.Match[str]) -> str:
    """``text`` less the prefix or suffix ``decoration`` matched."""
    return text[decoration.end() :] if decoration.start() == 0 else text[: decoration.start()]


def _with_count(index: Index, text: str, decoration: re.Match[str] | None) -> NameMatch | None:
    """``8x H100`` / ``H100 x8`` / ``l40sx4``: the name with the count it was written with."""
    if decoration is None:
        return None
    count = float(Fraction(decoration[1]))  # "1/2*T4": half a T4 (Tencent's TKE)
    if implausible_count(count):  # "3970X-RadeonProVII": a CPU's model; the reader says so
        return None
    named = _without(text, decoration)
    if decoration.start() > 0 and _BARE_BRACKET.search(named):  # a count of what: refused
        return None
    rest = (
        _resolve_decorated(index, named)
        # "4x H100/H200": four of either
        or choice_of_entries(named, functools.partial(_whole_board, index))
        or _read(index, named)
    )
    if rest is not None and rest.count is not None and _nested_count(decoration, named):
        count, rest = count * rest.count, replace(rest, count=None)  # "16x8xH800": 16 nodes of 8
    if count <= 0 or rest is None or rest.count is not None or rest.needs_count:
        return None
    rest = as_device_wrote(index, text, rest, named)
    return NameMatch(
        rest.accelerator,
        rest.pinned,
        _as_count(count),
        rest.partition,
        rest.source,
        family=rest.family,
    )


def _nested_count(decoration: re.Match[str], named: str) -> bool:
    """Whether a whole count written before the name is followed by another (``16x8xH800``,
    ``2*8*H100``: 16 machines of 8, the devices' count their product); not a count after the
    name (``8x H100 x2``), nor a fraction (``1/2*T4``), which state the count twice."""
    inner = _COUNT_PREFIX.match(named)
    return (
        decoration.start() == 0
        and inner is not None
        and decoration[1].isdigit()
        and inner[1].isdigit()
        and 1 < int(decoration[1]) * int(inner[1]) <= 100_000  # a cluster, not a typo
    )


def _whole_board(index: Index, name: str) -> NameMatch | None:
    """One alternative of a ``/`` choice, as an exact spelling or as the token reader reads it."""
    return _lookup(index, name) or _read(index, name)


def _read(index: Index, text: str) -> NameMatch | None:
    """The token reader's reading of the name a count was written apart from (``4090 24GB``
    of ``4090 24GB * 4``), or None where it refuses it: the whole text is then read, and its
    refusal is the one given."""
    from accelerators.catalog._reader import read

    try:
        return read(index, text, reported=lambda name: device_reported(index, name))
    except UnknownAcceleratorError:
        return None


def _resolve_decorated(index: Index, text: str) -> NameMatch | None:
    """A plain name, or one with a GFD MIG suffix or a TPU slice size."""
    found = _lookup(index, text)
    if found is not None:
        return found
    mig = _MIG_SUFFIX.search(text)
    if mig is not None:
        base = _lookup(index, _without(text, mig))
        if base is not None and base.partition is None:
            partition = mig[1].lower()
            # the profile picks among the models a name leaves open, as '@' does: an
            # "A100 MIG 3g.40gb" is the 80 GB card; "H100 MIG 1g.10gb" keeps SXM and PCIe open
            members = (base.accelerator, *base.family)
            fitting = [a for a in members if partition in a.partitions]
            if not fitting:
                check_partition(base.accelerator, partition)
            first, *rest = fitting or [base.accelerator]
            return NameMatch(
                first, base.pinned, base.count, partition, base.source, family=tuple(rest)
            )
    sized = split_size(text)
    if sized is not None:
        base = _lookup(index, sized[0])
        if base is not None and base.count is None and base.accelerator.device_class == "tpu":
            return tpu_slice(base, sized[1], text)
    return None


def _lookup(index: Index, text: str) -> NameMatch | None:
    """Tiers 1-4 of the module docstring."""
    found = in_tables(index, text, (index.exact, exact_key(text)))
    if found is not None:
        return _left_open(index, text, found) if folded(index, text, found) else found
    if _SLASHED.search(text):
        return None  # "V100/S", "GTX 1070/Ti": a choice, which the loose keys would run together
    found = in_tables(
        index, text, (index.loose, loose_key(text)), (index.words, words_key(text)), first=1
    )
    found = found if found is not None else _lookup_with_memory(index, text)
    if found is not None and contradicts(text, found.accelerator):
        return None  # "AMD H100", "Titan X (Pascal)": the token reader reads or refuses it
    return found if found is None else _left_open(index, text, found)


def _left_open(index: Index, text: str, found: NameMatch) -> NameMatch:
    """A looser match whose words leave the model open reads as the family
    (:func:`~accelerators.catalog._reader.read_left_open`)."""
    if found.count is not None or found.partition is not None:
        return found
    if found.pinned:
        return as_device_wrote(index, text, found, text)
    from accelerators.catalog._reader import read_left_open

    return read_left_open(index, text, found, lambda name: device_reported(index, name))


def _lookup_with_memory(index: Index, text: str) -> NameMatch | None:
    """``H100 94GB``: the name without its memory word, then the family member with it."""
    parts = words(text)
    sizes = [w for w in parts if MEMORY_WORD.fullmatch(w)]
    if len(sizes) != 1 or len(parts) < 2 or float(sizes[0][:-2]) <= 0:
        return None
    rest = [w for w in parts if w != sizes[0]]
    base = in_tables(
        index, text, (index.loose, "".join(rest)), (index.words, " ".join(sorted(rest)))
    )
    if base is None or base.count is not None:
        return None
    return named_with_memory(base, float(sizes[0][:-2]), rest)


def _as_count(value: float) -> float:
    return int(value) if float(value).is_integer() else value
