"""Every spelling of every catalog entry, normalised and indexed three ways.

Part of the name resolution of :mod:`accelerators.catalog._names`: the vocabulary and
normalisation (:func:`words`, :func:`loose_key`) and the index of spellings (built once per
loaded catalog, under a lock). See that module's docstring for the tiers that use it.
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from accelerators._text import format_number, quote
from accelerators._vendors import VENDORS
from accelerators.catalog import _store as catalog
from accelerators.catalog._tpu_units import UNCLEAR, units_unclear
from accelerators.errors import UnknownAcceleratorError

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = [
    "DEVICE_REPORTED",
    "IDENTITY",
    "MEMORY_WORD",
    "Index",
    "NameMatch",
    "Spelling",
    "Table",
    "cache_clear",
    "current_index",
    "exact_key",
    "folded",
    "is_vendor_word",
    "known_spellings",
    "loose_key",
    "split_size",
    "tpu_slice",
    "words",
    "words_key",
]

# -- generic vocabulary (no per-accelerator facts here) ----------------------------------
#: Words that name a vendor or a product line rather than the accelerator itself.
_VENDOR_WORDS = frozenset(word for v in VENDORS for word in (v.name, *v.words))
#: Catalog sources that are the catalog's own identity spellings, tried first in each tier.
IDENTITY = ("name", "model", "constant", "alias")
#: ``names.*`` systems whose values the device itself reports: they name the exact board.
DEVICE_REPORTED = frozenset({"nvml", "gfd", "rocm"})
_SEPARATORS = re.compile(r"[\s_\-]+")
_WORD_SPLIT = re.compile(r"[\s_\-/,]+")
_PARENTHESISED = re.compile(r"\([^()]*\)")
#: Words in brackets that name another device than the one before them: a laptop part.
_ANOTHER_DEVICE = re.compile(r"\b(?:mobile|laptop|notebook|max-?q)\b", re.IGNORECASE)
#: A bracketed count of devices (FluidX3D's "1x Tesla K80 (2 GPUs)", "(8 GCD)", NVIDIA's "NVIDIA
#: A100 (8x A100 80GB)", an inference calculator's "NVIDIA HGX B200 (8-GPU)"): never set aside.
_BRACKETED_COUNT = re.compile(
    r"\b[0-9]+[\s_\-]*(?:gpus?|gcds?|devices?|dies|x)\b|\bx\s*[0-9]+\b", re.IGNORECASE
)
_BRACKETED_SIZE = re.compile(r"\(\s*([0-9]+(?:\.[0-9]+)?)\s*(gb|g|gib)\s*\)")
_BRACKETED_RAM = re.compile(r"[0-9]+(?:\.[0-9]+)?\s*(?:gb|g|gib)\s+(?:of\s+)?ram\b", re.I)
MEMORY_WORD = re.compile(r"([0-9]+(?:\.[0-9]+)?)(?:g|gb|gib)")
_FORM_FACTOR_GENERATION = re.compile(r"(sxm|oam)[0-9]")
_HF_COUNT = re.compile(r"x([0-9]{1,6})\Z", re.IGNORECASE)
_HF_TOPOLOGY = re.compile(r"-([0-9]{1,3}x[0-9]{1,3}(?:x[0-9]{1,3})?)\Z", re.IGNORECASE)
_SIZE_SUFFIX = re.compile(r"(?<![\s_\-])[\s_\-]+([0-9]{1,6})\Z")
_LETTER = re.compile(r"[A-Za-z]")


@dataclass(frozen=True, slots=True)
class NameMatch:
    """What a name resolved to.

    ``accelerator`` is the catalog entry: the SKU the name pins, or the model's default SKU
    when the name is model-level (``pinned`` false). ``count`` and ``partition`` are set when
    the name itself implies them (``a10g-largex2`` is 2 devices; ``tpu-v5litepod-8`` is 8
    chips in a ``2x4`` slice; GFD's ``…-MIG-1g.5gb`` is a ``1g.5gb`` slice). ``source`` says
    which kind of spelling matched: ``name``, ``model``, ``constant``, ``alias`` or a
    ``names.*`` system (``nvml``, ``gke``, ``hf``…), ``instance`` or ``reader``.
    ``family`` holds the further models of a name that leaves its model open (the token
    reader's ``gpu-a100-large`` is ``A100-40GB`` or ``A100-80GB``): the default SKU of each,
    in catalog order, after ``accelerator``. ``needs_count`` says why a spec must state the
    count itself (an instance size such as ``medium``), when it must.
    """

    accelerator: Accelerator
    pinned: bool
    count: float | None = None
    partition: str | None = None
    source: str = "name"
    family: tuple[Accelerator, ...] = ()
    #: Why a spec must give the count itself: the name has an instance size whose device count
    #: is its system's to say (Exoscale's ``gpua5000.medium`` is 2 GPUs); empty otherwise.
    needs_count: str = ""
    #: ``count`` counts devices, not boards: a multi-GPU board's memory (``A16 64GB``), a
    #: bracketed ``(2 GPUs)``, a count of GPUs (``2 GPUs``); a board never multiplies it.
    devices: bool = False


class Spelling(NamedTuple):
    text: str
    accelerator: Accelerator
    source: str
    #: Devices the spelling itself counts (HF ``x2``, TPU ``-8`` in the system's units).
    units: int | None = None
    #: A TPU topology the spelling itself names (Hugging Face's ``v5e-2x4``).
    topology: str | None = None


Table = dict[str, list[Spelling]]


class Index:
    """Every spelling of every entry, keyed three ways, identity spellings apart.

    Built in two steps. First the exact table of the catalog's own spellings (SKU names,
    models, constants, aliases: ``exact[0]``), all a process needs that resolves only such
    names; then, when :attr:`complete` is first needed (see :func:`current_index`), their
    loose and words tables and other systems' names (the ``[1]`` tables). Each table ends up
    with the same spellings in the same order either way.
    """

    def __init__(self, entries: tuple[Accelerator, ...]) -> None:
        self.entries = entries
        self.exact: tuple[Table, Table] = ({}, {})
        self.loose: tuple[Table, Table] = ({}, {})
        self.words: tuple[Table, Table] = ({}, {})
        #: Catalog spellings for "did you mean", preferred (models, SKUs) first (an ordered set).
        self.displays: dict[str, None] = {}
        #: Loose key -> the spelling to suggest for it.
        self.loose_display: dict[str, str] = {}
        #: Names read, by whether names stand for one device each and whether they are a list of
        #: several kinds (see :mod:`._system_words`).
        self.results: dict[tuple[bool, bool, str], NameMatch] = {}
        #: Exact key of a bare name systems give to different models of one family (catalog
        #: ``[[open_names]]``: ``a100``) -> the default SKU of each member, in order.
        self.open: dict[str, tuple[Accelerator, ...]] = {}
        #: Whether every table is built (``exact[0]`` always is).
        self.complete = False
        self._identity: list[Spelling] = []  # in exact[0], not yet in loose[0] and words[0]

    def add(
        self,
        text: str,
        accelerator: Accelerator,
        source: str,
        units: int | None,
        topology: str | None = None,
    ) -> None:
        text = text.strip()
        if not text:
            return
        spelling = Spelling(text, accelerator, source, units, topology)
        if source in IDENTITY and not self.complete:
            _put(self.exact[0], exact_key(text), spelling)
            self.displays.setdefault(text)
            self._identity.append(spelling)
            return
        tier = 0 if source in IDENTITY else 1
        exact, loose, sorted_words = _keys(text)
        _put(self.exact[tier], exact, spelling)
        _put(self.loose[tier], loose, spelling)
        _put(self.words[tier], sorted_words, spelling)
        self.displays.setdefault(text)
        self.loose_display.setdefault(loose, text)

    def index_identity(self) -> None:
        """Put the identity spellings :meth:`add` has kept aside in the loose and words tables."""
        for spelling in self._identity:
            _, loose, sorted_words = _keys(spelling.text)
            _put(self.loose[0], loose, spelling)
            _put(self.words[0], sorted_words, spelling)
            self.loose_display.setdefault(loose, spelling.text)
        self._identity.clear()


def _put(table: Table, key: str, spelling: Spelling) -> None:
    if key:
        bucket = table.setdefault(key, [])
        if spelling not in bucket:
            bucket.append(spelling)


# -- normalisation -------------------------------------------------------------------------
def exact_key(text: str) -> str:
    return _SEPARATORS.sub("-", text.casefold()).strip("-")


def _bracketed(found: re.Match[str]) -> str:
    """A bracketed qualifier is set aside (``A40 (compute mode)``), but not a memory size:
    ``MI50 (16GB)`` is the 16 GB card, and a size the name gives is never dropped; nor a word
    that makes it another device (``RTX 2080 (Mobile)`` is the laptop GPU, not the card), nor
    a count of devices (``1x Tesla K80 (2 GPUs)``), which the reader reads or refuses."""
    size = _BRACKETED_SIZE.fullmatch(found.group(0))
    if size:
        return f" {size[1]}{size[2]} "
    inside = found.group(0)[1:-1]
    kept = (
        _ANOTHER_DEVICE.search(inside)
        or _BRACKETED_COUNT.search(inside)
        or _BRACKETED_RAM.search(inside)  # a Jetson's "(8 GB ram)": its memory, or the host's
    )
    return f" {inside} " if kept else " "


def words(text: str) -> list[str]:
    """Lower-case words without vendor words and qualifiers, sizes and form factors unified."""
    found = []
    for word in _WORD_SPLIT.split(_PARENTHESISED.sub(_bracketed, text.casefold())):
        if not word or word in _VENDOR_WORDS:
            continue
        memory = MEMORY_WORD.fullmatch(word)
        if memory:
            word = f"{format_number(float(memory[1]))}gb"
        elif "sxm" in word or "oam" in word:
            word = _FORM_FACTOR_GENERATION.sub(r"\1", word)
        found.append(word)
    return found


def loose_key(text: str) -> str:
    """``NVIDIA A100 80G`` -> ``a10080gb``: the words of :func:`words`, squashed."""
    return "".join(words(text))


def is_vendor_word(word: str) -> bool:
    """Whether ``word`` names a vendor or product line (``NVIDIA``, ``Tesla``, ``Instinct``)."""
    return word.casefold() in _VENDOR_WORDS


def words_key(text: str) -> str:
    return " ".join(sorted(words(text)))


@functools.lru_cache(maxsize=4096)
def _keys(text: str) -> tuple[str, str, str]:
    """:func:`exact_key`, :func:`loose_key` and :func:`words_key` of ``text``, from one
    :func:`words` (building the index calls this ~1000 times on ~700 distinct spellings)."""
    found = words(text)
    return exact_key(text), "".join(found), " ".join(sorted(found))


# -- the index -------------------------------------------------------------------------------
_state: list[Index] = []
_state_lock = threading.Lock()


def current_index(*, complete: bool = True) -> Index:
    """The index for the catalog now loaded (rebuilt when the catalog object changes).

    :param complete: with other systems' spellings; False: the identity tables may be all
        there is (they are complete either way), which saves building the rest when the
        catalog's own name of a model or SKU is all a process resolves.
    """
    entries = catalog.all()
    index = _state[0] if _state else None
    if index is None or index.entries is not entries:
        with _state_lock:  # threads racing for the first lookup build the index once
            if not (_state and _state[0].entries is entries):
                _state[:] = [_identity_index(entries)]
            index = _state[0]
    if complete and not index.complete:
        with _state_lock:
            if not index.complete:
                index.index_identity()
                _add_systems(index)
                index.complete = True
    return index


#: The sources of an open name's reading: one of its models' spellings, or its own.
_OPEN = ("open", "open-name")


def folded(index: Index, text: str, found: NameMatch) -> bool:
    """Whether ``found`` is another system's spelling that ``text`` matched only once case and
    separators were folded: ``nvidia_h100_80gb`` (Mystic) is not GKE's ``nvidia-h100-80gb``,
    whose SXM card is GKE's own choice. Such a match says no more than the words do, as a
    looser tier's. The catalog's own spellings fold freely; what a device reports pins its
    board only as the device writes it (``_reported.as_device_wrote``)."""
    if found.source in IDENTITY or found.source in _OPEN:
        return False
    key, stripped = exact_key(text), text.strip()
    spellings = [*index.exact[0].get(key, ()), *index.exact[1].get(key, ())]
    return not any(s.text == stripped for s in spellings)


def cache_clear() -> None:
    """Forget the name index (tests that swap catalogs call this)."""
    _state.clear()


def _identity_index(entries: tuple[Accelerator, ...]) -> Index:
    """A new index with the catalog's own spellings in (:class:`Index`: the first step)."""
    index = Index(entries)
    _add_identity(index)
    for name in catalog.LOADED.file().open_names:
        members = tuple(catalog.by_model(m)[0] for m in name.members)
        for text in (name.name, *name.spellings):
            index.open[exact_key(text)] = members
    return index


def _add_identity(index: Index) -> None:
    """Add the catalog's own spellings, first: they lead the suggestions."""
    entries = index.entries
    for acc in entries:
        if acc.default_for_model:
            index.add(acc.model, acc, "model", None)
    for acc in entries:
        index.add(acc.name, acc, "name", None)
        for alias in acc.aliases:
            index.add(alias, acc, "alias", _slice_units(acc, alias))
        if acc.constant:
            index.add(acc.constant, acc, "constant", None)


def _add_systems(index: Index) -> None:
    """Add every other system's spellings (``names.*``) to ``index``."""
    from accelerators.catalog._schema import Names

    for acc in index.entries:
        for system in Names.model_fields:
            value = getattr(acc.names, system)
            for text in (value,) if isinstance(value, str) else value or ():
                units = _slice_units(acc, text)
                topology = None
                if system == "hf":
                    shape = _HF_TOPOLOGY.search(text) if acc.device_class == "tpu" else None
                    count = _HF_COUNT.search(text)
                    if shape is not None and acc.tpu_topology(shape[1].lower()) is not None:
                        topology = shape[1].lower()
                        units = acc.tpu_topology(topology).chips  # type: ignore[union-attr]
                    else:
                        units = int(count[1]) if count else None
                index.add(text, acc, system, units, topology)
                sized = split_size(text) if acc.device_class == "tpu" else None
                if sized is not None:  # "tpu-v5litepod-8" also teaches "tpu-v5litepod"
                    index.add(sized[0], acc, system, None)
    # An open name's own spellings ("Intel Data Center GPU Max Series", "PVC") name its first
    # model, which read_open widens to them all; a spelling an entry has keeps that entry.
    for name in catalog.LOADED.file().open_names:
        first = catalog.by_model(name.members[0])[0]
        for text in name.spellings:
            key = exact_key(text)
            if not index.exact[0].get(key) and not index.exact[1].get(key):
                index.add(text, first, "open-name", None)


def _slice_units(acc: Accelerator, text: str) -> int | None:
    """The size in a TPU spelling such as ``tpu-v5litepod-8`` (None for other spellings)."""
    if acc.device_class != "tpu":
        return None
    sized = split_size(text.strip())
    return sized[1] if sized else None


def split_size(text: str) -> tuple[str, int] | None:
    """``tpu-v5litepod-8`` -> ``("tpu-v5litepod", 8)``; None without a size or a letter."""
    size = _SIZE_SUFFIX.search(text)
    if size is None or not _LETTER.search(text, 0, size.start()):
        return None
    return text[: size.start()], int(size[1])


def known_spellings() -> tuple[str, ...]:
    """Every spelling the catalog knows, models and SKU names first."""
    return tuple(current_index().displays)


def tpu_slice(match: NameMatch, units: int, text: str) -> NameMatch:
    """A TPU name with a size: GCP and SkyPilot count TensorCores or chips, per generation.

    The catalog's ``tpu_cores_per_chip`` says which: v2, v3, v4 and v5p names count
    TensorCores, two per chip (``tpu-v5p-8`` is 4 chips); v5e and v6e names count chips.
    The slice topology is the catalog's topology with that many chips, if exactly one.
    """
    acc = match.accelerator
    topologies = acc.tpu_topologies
    per_chip = acc.tpu_cores_per_chip or 1
    if units <= 0 or units % per_chip:
        raise UnknownAcceleratorError(
            f"Unknown TPU slice {quote(text)}: {acc.name} slices are sized in "
            + ("TensorCores, two per chip, so the size must be even" if per_chip == 2 else "chips")
            + f", got {units}",
            name=text,
        )
    if units_unclear(text, per_chip):
        raise UnknownAcceleratorError(f"Unknown TPU slice {quote(text)}: {UNCLEAR}", name=text)
    chips = units // per_chip
    fitting = [t.topology for t in topologies if t.chips == chips]
    if topologies and not fitting:
        sizes = ", ".join(str(t.chips * per_chip) for t in topologies)
        raise UnknownAcceleratorError(
            f"Unknown TPU slice {quote(text)}: {acc.name} has no topology with {chips} chips; "
            f"sizes in this naming: {sizes}",
            name=text,
        )
    partition = fitting[0] if len(fitting) == 1 else None
    return NameMatch(acc, match.pinned, chips, partition, match.source)
