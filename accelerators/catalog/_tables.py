"""Lookups in the spelling tables, for :mod:`._names`: a tier's tables in order, a constant's
identifier only as written, and a vendor or architecture word that contradicts the entry a
looser tier found."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from accelerators._vendors import CLOUD_VENDORS, VENDORS
from accelerators.catalog._modelwords import CARD_VARIANTS, words_of
from accelerators.catalog._open_names import read_open
from accelerators.catalog._spelling_match import match_spellings
from accelerators.catalog._words import vocabulary

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.catalog._spellings import Index, NameMatch, Spelling, Table

__all__ = ["as_written", "contradicts", "in_tables"]


def as_written(spellings: list[Spelling] | None, text: str) -> list[Spelling] | None:
    """``spellings`` less a constant's identifier that ``text`` does not write as such: the
    constant ``A100_PCIE`` is the 40 GB card, while the words ``A100 PCIe`` leave the size
    open (the A100 PCIe card is sold with 40 and 80 GB)."""
    if not spellings:
        return spellings
    return [s for s in spellings if s.source != "constant" or s.text == text]


#: Vendor and product-line words (``nvidia``, ``tesla``, ``radeon``) -> the vendor they name;
#: not the vendors that are clouds too, whose names prefix other vendors' boards (Friendli's
#: ``aws-v100``, a V100 on AWS; a Huawei Cloud or Google Cloud GPU).
_VENDOR_OF = {
    word: v.name for v in VENDORS if v.name not in CLOUD_VENDORS for word in (v.name, *v.words)
}


def contradicts(text: str, acc: Accelerator) -> bool:
    """Whether ``text`` names a vendor, an architecture or a variant other than ``acc``'s:
    the looser tiers drop vendor words and bracketed qualifiers to match a spelling, and must
    not drop one that says another card (``AMD H100``; ``GTX Titan X (Pascal)``, where the
    catalog's GTX TITAN X is the Maxwell one; ``RTX 2080 (Super)``)."""
    words = re.split(r"[^a-z0-9]+", text.casefold())
    if {_VENDOR_OF.get(w) for w in words} - {None, acc.vendor}:
        return True
    own = {w for name in (acc.name, *acc.aliases) for w in words_of(name)}
    if (set(words) & CARD_VARIANTS) - own:  # "RTX 2080 (Super)": the SUPER, not the RTX 2080
        return True
    vocab, arch = vocabulary(), acc.architecture.casefold()
    said = [vocab.get(w) for w in words]
    return any(m is not None and m[0] == "architecture" and not arch.startswith(m[1]) for m in said)


def in_tables(
    index: Index, text: str, *tiers: tuple[tuple[Table, Table], str], first: int = 0
) -> NameMatch | None:
    """The first tier whose identity (then other systems') table has the key (``first``: the
    number of the first tier given, 0 the exact one)."""
    for number, (tables, key) in enumerate(tiers, first):
        for table in tables:
            spellings = table.get(key) if key else None
            spellings = as_written(spellings, text)
            if spellings and number:  # a count a system glues to its own spelling ("a100x4",
                # Hugging Face's 4 A100 80GB) belongs to that spelling: never a looser match
                spellings = [s for s in spellings if s.units is None or _is_tpu(s)]
            if spellings:
                return read_open(index, spellings, match_spellings(spellings, text))
    return None


def _is_tpu(spelling: Spelling) -> bool:
    return spelling.accelerator.device_class == "tpu"
