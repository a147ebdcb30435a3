"""The model words the token reader looks for, built from the catalog's spellings.

A spelling's *model word* is the spelling with its vendor, product-prose, memory, form-factor,
edition and neutral words taken out, squashed: ``NVIDIA A100-SXM4-80GB`` teaches ``a100``,
``RTX 6000 Ada Generation`` teaches ``rtx6000ada``, ``Radeon Pro V710`` teaches ``prov710``.
Each word maps to the catalog entries whose spellings teach it, so ``a100`` maps to the four
A100 SKUs and the reader narrows them with the name's other tokens.

Words are added from the taught ones:

* the word without its product-line prefix (``rtx4000ada`` also teaches ``4000ada``,
  DigitalOcean's ``gpu-4000adax1``), when what is left has a letter and a digit;
* the bare *model number* left when the prefix goes and only four digits remain (``3090``
  from ``rtx3090``): read as a model only in a name that names nothing else and says its
  vendor (Mystic's ``nvidia_3090``), never as a word inside another name, and only when no
  other model's word holds the number except as a variant (``3090ti``): ``6000`` is kept
  out, since ``RTX 6000 Ada`` and ``RTX A6000`` hold it too;
* a SUPER card's word with ``s`` for ``super`` (``rtx4080s``, as marketplaces write it);
* a Jetson module's word without ``jetson`` (``xaviernx``, ``agxorin``), when six letters or
  more are left, and an Intel Arc card's without ``arc`` (``proa60``, ``b580``);
* TPU generations (``tpuv4``, ``tpu4`` and ``v4``, from ``TPU-V4``). A bare generation word with no
  letter after its number (``v2``, ``v4``) is *weak*: it names a TPU only in a name that
  names nothing else (``n2-A100x8-NVLink-v2`` is a version, not a TPU v2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from accelerators.catalog._spellings import is_vendor_word
from accelerators.catalog._words import vocabulary

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.catalog._spellings import Index

__all__ = ["CARD_VARIANTS", "VARIANT_WORDS", "ModelWords", "model_words", "words_of"]

_SPLIT = re.compile(r"[^a-z0-9]+")
_MEMORY = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:gb|g|gib)")
_FORM = re.compile(r"(?:sxm|oam)[0-9]?|pcie|nvl|sff|fhhl|mezzanine")
#: Word classes a spelling's model word never keeps.
_DROPPED = frozenset(
    {"form", "edition", "neutral", "memory_type", "noise", "device", "interconnect"}
)
#: Product-line prefixes a model word may be read without.
_LINES = ("geforce", "quadro", "tesla", "radeon", "instinct", "rtx", "gtx", "rx", "ascend")
#: The words a card's variant adds to its number (``ti``, ``super``, Radeon's ``xt``), as a
#: regular-expression alternation.
VARIANT_WORDS = "ti|super|tisuper|tis|d|s|xt|xtx|gre"
#: The variant words that, written apart, always name another card than the one without them
#: (a GeForce SUPER or Ti). Not Radeon's XT or XTX, which also name the dies of one card
#: (Dortania's "RX 6900 XT (XTX/XTXH variant)").
CARD_VARIANTS = frozenset(("super", "ti"))
#: What may follow a bare model number in another model's word: a variant of that model
#: (``3090ti``, ``4090d``, ``4070tis``, ``4060ti16gb``, Radeon's ``6600xt``, the laptop GPU
#: ``4080laptop``), which the number alone does not name.
_VARIANT = re.compile(rf" (?:{VARIANT_WORDS}|(?:ti)?(?:laptop|mobile))(?:[0-9]+gb?)?")
_COUNTED = re.compile(r"x[0-9]{1,4}")  # a spelling that carries a count (HF "l40sx4")
_RX_CARD = re.compile(r"(?:\A|radeon)rx[0-9]{3}\Z")  # a three-digit Radeon RX card
_GTX_CARD = re.compile(r"(?:\A|geforce)gtx[0-9]{3}\Z")  # a three-digit GeForce GTX card
_ARC_CARD = re.compile(r"(?:pro)?[ab][0-9]{2,3}")  # an Intel Arc card's word after "arc"
#: NVIDIA's professional cards since Turing, by catalog name: Quadro RTX 6000, RTX A6000,
#: RTX 6000 Ada, RTX PRO 6000 (and their SKUs: RTX-4000-SFF-ADA, RTX-PRO-6000-WS).
_PRO_CARD = re.compile(
    r"(?P<line>QUADRO-RTX|RTX-A|RTX-PRO|RTX)-?(?P<number>[0-9]{4})(?P<ada>(?:-SFF)?-ADA)?(?:-[A-Z0-9]+)*"
)
#: An RTX PRO card's model word: its number and what follows it (``rtxpro6000`` -> 6000).
_PRO_AFTER = re.compile(r"rtxpro([0-9]{4})([a-z]*)")
#: The words a generation of those cards is written by (catalog ``architecture`` -> words).
_GENERATION_WORDS = {
    "Turing": ("turing",),
    "Ampere": ("ampere",),
    "Ada Lovelace": ("ada", "lovelace"),
    "Blackwell": ("blackwell",),
}


@dataclass
class ModelWords:
    #: model word -> the catalog entries it names, in catalog order
    words: dict[str, list[Accelerator]] = field(default_factory=dict)
    #: words read as a model only in a name that names nothing else
    weak: set[str] = field(default_factory=set)
    #: bare model numbers (``3090``) -> the catalog entries they name, after a vendor word
    numbers: dict[str, list[Accelerator]] = field(default_factory=dict)
    #: words only an open name teaches (``mi300``): a model word that holds more of the name
    #: wins over them (``mi300x8`` is 8 MI300X, not the MI300s times ``x8``)
    opened: set[str] = field(default_factory=set)
    #: every entry some word names, in word order, and those entries by model
    entries: list[Accelerator] = field(default_factory=list)
    by_model: dict[str, list[Accelerator]] = field(default_factory=dict)
    longest: int = 0
    #: every word of every name the catalog gives a device (its own, its aliases, other
    #: systems' names, open names): product words, whether or not they make a model word
    named: set[str] = field(default_factory=set)


def _strip_line(key: str) -> str:
    for line in _LINES:
        key = key.removeprefix(line)
    return key


def words_of(text: str) -> list[str]:
    """Lower-case words of a spelling (``Max-Q`` as one word)."""
    low = text.casefold().replace("max-q", "maxq").replace("max q", "maxq")
    low = re.sub(r"\b(v[0-9]+)[\s_\-]+lite\b", r"\1e", low)
    return [w for w in _SPLIT.split(low) if w]


def _core(text: str, keep: frozenset[str] = frozenset()) -> str:
    """``text``'s model word: its words less vendor, memory, form and prose words, but for
    ``keep``, the words of the entry's own model name (Hygon's ``K100-AI`` is no ``K100``)."""
    vocab = vocabulary()
    kept = []
    for word in words_of(text):
        kind = (vocab.get(word) or ("", ""))[0]
        if is_vendor_word(word) or _MEMORY.fullmatch(word) or _FORM.fullmatch(word):
            continue
        if kind in _DROPPED and word != "quadro" and word not in keep:
            continue
        kept.append(word)
    return "".join(kept)


def model_words(index: Index) -> ModelWords:
    """The model words of the catalog behind ``index`` (built once per index)."""
    table: ModelWords | None = getattr(index, "model_words", None)
    if table is not None:
        return table
    table = ModelWords()
    from accelerators.catalog._schema import Names

    def add(key: str, acc: Accelerator) -> None:
        bucket = table.words.setdefault(key, [])
        if acc not in bucket:
            bucket.append(acc)

    for acc in index.entries:
        own = [acc.name, acc.model, *acc.aliases] + ([acc.constant] if acc.constant else [])
        others: list[str] = []
        for system in Names.model_fields:
            value = getattr(acc.names, system)
            others += [value] if isinstance(value, str) else list(value or ())
        own_words = frozenset(
            w for w in words_of(acc.model) if (vocabulary().get(w) or ("", ""))[0] == "noise"
        )
        for text in own + others:
            table.named.update(words_of(text))
            key = _core(text, own_words)
            if (
                len(key) < (2 if text in own else 3)
                or key.isdigit()
                # not "rtx4090": "4090" has no x; nor Radeon's "rx590" or GeForce's "gtx970",
                # whose x is its line's
                or (
                    _COUNTED.search(key[-4:])
                    and not _RX_CARD.search(key)
                    and not _GTX_CARD.search(key)
                )
                or (acc.device_class == "tpu" and key[-1].isdigit())  # a slice size
            ):
                continue
            add(key, acc)
        if acc.device_class == "tpu":  # TPU-V4 teaches tpuv4 and v4; TPU-V5E tpuv5e and v5e
            generation = _core(acc.model)
            add(generation, acc)
            bare = generation.removeprefix("tpu")
            add(bare, acc)
            if re.fullmatch(r"v[0-9]+", bare):
                table.weak.add(bare)
            if bare.startswith("v"):  # "TPU4", "tpu5e": the generation glued to TPU, no v
                add("tpu" + bare[1:], acc)
    from accelerators.catalog import _store

    for name in _store.LOADED.file().open_names:  # "MI300": the MI300 series' models
        for text in (name.name, *name.spellings):
            table.named.update(words_of(text))
            key = _core(text)
            # a short word with no digit ("max" of "Data Center GPU Max") is too common to be
            # a model word
            if not key.isdigit() and len(key) >= (3 if any(c.isdigit() for c in key) else 5):
                if key not in table.words:
                    table.opened.add(key)
                for acc in index.entries:
                    if acc.model in name.members:
                        add(key, acc)
                # the open name's members in its order ("RTX 6000": the Quadro, the Ada, the
                # PRO), as the spelling reads them; entries other words gave it stay after
                order = {model: i for i, model in enumerate(name.members)}
                bucket = table.words[key]
                bucket.sort(key=lambda acc: order.get(acc.model, len(order)))
    for key, bucket in list(table.words.items()):
        # an RTX PRO card with PRO after its number ("RTX 6000 PRO", "rtx6000pro", as its
        # buyers and clouds write it): the same card
        card = _PRO_AFTER.fullmatch(key)
        if card and f"rtx{card[1]}pro{card[2]}" not in table.words:
            for acc in bucket:
                add(f"rtx{card[1]}pro{card[2]}", acc)
    for key, bucket in list(table.words.items()):
        for line in _LINES:
            rest = key.removeprefix(line)
            if rest != key and len(rest) >= 4 and re.search(r"[a-z]", rest) and rest[0].isdigit():
                for acc in bucket:
                    add(rest, acc)
            elif rest != key and re.fullmatch(r"[0-9]{4}", rest):
                numbered = table.numbers.setdefault(rest, [])
                numbered += [a for a in bucket if a not in numbered]
    for key, bucket in list(table.words.items()):
        # a Jetson module without its line word ("Xavier NX", "AGX Orin", "Orin Nano"), when
        # what is left is long enough to name nothing else ("nano" and "orin" alone are not)
        rest = key.removeprefix("jetson")
        if rest != key and len(rest) >= 6 and rest not in table.words:
            for acc in bucket:
                add(rest, acc)
        # an Intel Arc card without its line word ("Arc(tm) Pro A60": the trademark sign cuts
        # "Arc" from the rest; "Pro B60", "A770")
        rest = key.removeprefix("arc")
        if rest != key and _ARC_CARD.fullmatch(rest) and rest not in table.words:
            for acc in bucket:
                add(rest, acc)
    for key, bucket in list(table.words.items()):
        short = key.removesuffix("uper")  # "rtx4080super" teaches "rtx4080s" (Akash's gpus.json)
        if key.endswith("super") and short[-2:-1].isdigit() and short not in table.words:
            for acc in bucket:
                add(short, acc)
    for number, named in list(table.numbers.items()):  # "6000": Quadro RTX, RTX 6000 Ada, A6000...
        for key, bucket in table.words.items():
            rest = _strip_line(key).replace(number, " ", 1)
            if number in key and set(bucket) - set(named) and not _VARIANT.fullmatch(rest):
                del table.numbers[number]
                break
    # a workstation card by its generation and number ("ADA6000", "blackwell6000", Cerebrium's
    # "TURING_5000"): the generation's professional card of that number, whose own names put
    # the generation after the number or leave it out (a consumer card's number is its own)
    for acc in index.entries:
        card = _PRO_CARD.fullmatch(acc.name)
        for word in _GENERATION_WORDS.get(acc.architecture or "", ()):
            if card and (card["line"] != "RTX" or card["ada"]):
                add(f"{word}{card['number']}", acc)
    table.longest = max(map(len, table.words), default=0)
    table.entries = list(dict.fromkeys(a for bucket in table.words.values() for a in bucket))
    for acc in table.entries:
        table.by_model.setdefault(acc.model, []).append(acc)
    index.model_words = table  # type: ignore[attr-defined]
    return table
