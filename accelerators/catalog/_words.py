"""The token reader's vocabulary: word classes from ``data/name_words.toml``, token patterns.

A word class says what a word tells about an accelerator (a vendor, a form factor, a host
figure, nothing at all...). The patterns below cover the tokens that are not words: memory
sizes, counts, host figures, MIG profiles, TPU topologies. Which *model* a token names comes
from the catalog's spellings (:mod:`accelerators.catalog._segment` builds that table); nothing
here is a per-accelerator fact.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from accelerators._datafiles import load_toml
from accelerators.errors import CatalogDataError

__all__ = [
    "PATTERNS",
    "Vocabulary",
    "vocabulary",
]

_FILE = "name_words.toml"
#: Classes whose table maps a word to a value (a vendor, an architecture, a form word...).
_MAPPED = ("vendor", "line", "architecture", "form", "edition", "host", "count_word")
#: Classes whose words say nothing about the device.
_SAY_NOTHING = ("noise", "neutral")
#: Classes whose table lists words under ``words`` (or, for noise, under any key).
_LISTED = (
    "neutral",
    "interconnect",
    "memory_type",
    "device",
    "cpu",
    "count_key",
    "sharing",
    "partition",
    "noise",
)


@dataclass(frozen=True)
class Vocabulary:
    """Every word the reader knows, with its class and (for mapped classes) its value."""

    #: word -> (class, value): value is the vendor, architecture, form word... or the word.
    words: dict[str, tuple[str, str]]
    longest: int
    #: Unknown words never set aside as a system's own (``[not_system]``: variants, "dual").
    not_system: frozenset[str] = frozenset()

    def get(self, word: str) -> tuple[str, str] | None:
        return self.words.get(word)

    @functools.cached_property
    def telling(self) -> frozenset[str]:
        """The words that say something about the device: every class but noise and neutral
        words (a typo of one of those is harmless; of these, it may name another device)."""
        return frozenset(w for w, (kind, _) in self.words.items() if kind not in _SAY_NOTHING)

    def starting_with(self, prefix: str) -> list[str]:
        """Known words that begin with ``prefix`` (for a name cut short: ``Gene...``)."""
        return sorted(w for w in self.words if w.startswith(prefix) and w != prefix)


@functools.lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    """The vocabulary of ``data/name_words.toml`` (read once per process)."""
    try:
        data = load_toml("accelerators.data", _FILE)
    except ValueError as exc:  # not TOML
        raise CatalogDataError(f"{_FILE} is not valid TOML: {exc}") from exc
    words: dict[str, tuple[str, str]] = {}

    def add(word: object, kind: str, value: object) -> None:
        if not isinstance(word, str) or not re.fullmatch(r"[a-z0-9]+", word):
            raise CatalogDataError(
                f"{_FILE}: {kind} word {word!r} is not lower-case letters/digits"
            )
        if word in words and words[word][0] != kind:
            raise CatalogDataError(f"{_FILE}: {word!r} is both {words[word][0]} and {kind}")
        words[word] = (kind, str(value))

    for kind in _MAPPED:
        table = data.get(kind)
        if not isinstance(table, dict):
            raise CatalogDataError(f"{_FILE}: [{kind}] is missing")
        for word, value in table.items():
            add(word, kind, value)
    for kind in _LISTED:
        table = data.get(kind)
        if not isinstance(table, dict):
            raise CatalogDataError(f"{_FILE}: [{kind}] is missing")
        for group, listed in table.items():
            if not isinstance(listed, list):
                raise CatalogDataError(f"{_FILE}: [{kind}] holds lists of words")
            for word in listed:  # a noise word's value is its group ("frameworks"...)
                add(word, kind, group if kind == "noise" else word)
    return Vocabulary(words, max(map(len, words)), _not_system(data, words))


def _not_system(data: dict[str, object], known: dict[str, tuple[str, str]]) -> frozenset[str]:
    """The words of ``[not_system]``: words the vocabulary does not know (a known word is
    never an unknown one to set aside)."""
    table = data.get("not_system")
    if not isinstance(table, dict) or not all(isinstance(v, list) for v in table.values()):
        raise CatalogDataError(f"{_FILE}: [not_system] holds lists of words")
    listed = [word for words in table.values() for word in words]
    bad = [w for w in listed if not isinstance(w, str) or not re.fullmatch(r"[a-z]+", w)]
    if bad:
        raise CatalogDataError(f"{_FILE}: [not_system] word {bad[0]!r} is not lower-case letters")
    twice = [w for w in listed if w in known]
    if twice:
        raise CatalogDataError(
            f"{_FILE}: [not_system] word {twice[0]!r} is a {known[twice[0]][0]} word"
        )
    return frozenset(listed)


#: Token patterns, tried inside one chunk of a name (a run of letters and digits between
#: separators), each anchored at the start of what is left of the chunk. Order matters only
#: for documentation: the segmenter weighs every match.
PATTERNS: dict[str, re.Pattern[str]] = {
    # 80gb, 141g, 24gib, 80gi, 1.5tb, 16000mb, 80vram (Vultr: GPU memory)
    "memory": re.compile(r"([0-9]+(?:\.[0-9]+)?)(gib|gbvram|gb|gi|g|tb|mb|vram)"),
    # Verda's 80S: 80 GB, SXM
    "memory_sxm": re.compile(r"([0-9]{2,3})s"),
    # x8, x16 (a count after the name); after a digit, not a card's four-digit number
    # ("3x3090" is 3 RTX 3090s, not 3090 of something)
    "x_count": re.compile(r"(?<![0-9])x([0-9]{1,4})(?![0-9])|x([0-9]{1,3})(?![0-9])"),
    # 8x, 16x (a count before the name); 3x3090: before a card's four-digit number, glued
    "count_x": re.compile(r"([0-9]{1,4}(?:\.[0-9]+)?)x(?:(?=[0-9]{4}(?![0-9]))|(?![0-9]))"),
    # 30v, 128vcpu, 16c, 8cpu, 32cores: host CPU figures
    "vcpu": re.compile(r"([0-9]{1,4})(vcpus?|v|c|cpus?|cores?)(?![a-z])"),
    # 4q, 2b, 1a: an NVIDIA vGPU profile's framebuffer (Q virtual workstation, B PC, A apps)
    "vgpu": re.compile(r"([0-9]{1,3})([qab])(?![a-z])"),
    # tp4, pp2: tensor- and pipeline-parallel degrees of an inference profile (NIM's
    # "...-h100-bf16-tp4-pp1-throughput"): together they count the devices (tp x pp)
    "parallel": re.compile(r"(tp|pp)([0-9]{1,3})(?![0-9])"),
    # 24cu, 76CU: the GPU's compute units (FluidX3D's "M1 Max GPU 24CU 32GB"), a configuration
    # of the chip, not a count
    "compute_units": re.compile(r"([0-9]{1,3})cus?(?![a-z0-9])"),
    # 150w, 350W: a board's power, in the option names of server makers (Dell's "NVIDIA Ampere
    # A10, PCIe, 150W, 24GB")
    "watts": re.compile(r"([0-9]{2,4})w(?![a-z0-9])"),
    # cu121, cu118: the CUDA version a runner or a wheel is built for (not the device)
    "cuda_version": re.compile(r"cu(1[0-9][0-9]?|[2-9][0-9])(?![0-9])"),
    # 2x4, 2x2x1: a TPU slice topology
    "topology": re.compile(r"([0-9]{1,3})x([0-9]{1,3})(?:x([0-9]{1,3}))?(?![0-9])"),
    # nvl72, nvl36, nvl4: an NVLink domain (a GB200 NVL72 rack, a GB200 NVL4 board), not the
    # NVL card
    "rack": re.compile(r"nvl([0-9]{1,3})(?![0-9])"),
    # xlarge, 2xlarge, 12xlarge, 1xlarge: instance sizes
    "size": re.compile(r"[0-9]{0,2}x{1,2}large(?![a-z])"),
    # v2, v3: a version (or, alone, a TPU generation)
    "version": re.compile(r"v([0-9]{1,2})(?![0-9a-z])"),
    # sm75, sm_86, SM6, sm100: an NVIDIA compute capability (7.5, 8.6, 6.x, 10.0), as GPU
    # simulators' and kernel builds' names write it (Accel-Sim's "SM75_RTX2060")
    "compute_capability": re.compile(r"sm_?([0-9]{1,3})(?![0-9a-z])"),
    # GH100, AD102GL, TU104, GB202GL: NVIDIA chip code names
    "chip": re.compile(r"(?:g[kmpvabh]|tu|ad|gb)[0-9]{3}(?:gl|bgl|b|l)?(?![0-9a-z])"),
    # T4s, A100s: a plural ending glued to a model word (read only beside a count)
    "plural": re.compile(r"(?<=[0-9x])s(?![a-z0-9])"),
    # 8, 0.5
    "number": re.compile(r"[0-9]+(?:\.[0-9]+)?(?![0-9])"),
}

#: A MIG profile, kept whole before the name is cut into chunks (``1g.10gb``, ``1g.10gb+me``).
MIG_PROFILE = re.compile(r"(?<![0-9a-z])[1-7]g\.[0-9]+gb(?:[+\-](?:me|gfx))?(?![0-9a-z])", re.I)
