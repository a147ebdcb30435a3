"""Cut an accelerator name into pieces: the token reader's first step.

>>> from accelerators.catalog._segment import segment
>>> [(p.text, p.kind) for p in segment("8x_nvidia_h100_80gb_sxm", {"h100": 1})]
[('8x', 'count_x'), ('nvidia', 'vendor'), ('h100', 'model'), ('80gb', 'memory'), ('sxm', 'form')]

A name is lowered, split at separators into *chunks* (runs of letters and digits; a MIG
profile such as ``1g.10gb`` is one chunk), and the chunks are squashed into one string. The
pieces are the cheapest cover of that string by: catalog model words (which may run over
separators: ``RTX PRO 6000`` is the model word ``rtxpro6000``), vocabulary words
(:mod:`._words`, inside a chunk), token patterns (memory sizes, counts, host figures...) and,
at a high price, *unknown* runs, which the reader will have to account for or refuse. Cutting
inside a run of digits costs extra (``h10080gb`` is ``h100`` + ``80gb`` only because nothing
cheaper reads it), so is cutting inside a run of letters without a case change: camel-case
and letter/digit boundaries are free (``NvidiaTeslaT4``, ``1H100``).

The segmenter knows no accelerator facts: the model words come from the caller.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from accelerators.catalog._chip_words import AMD_CHIP, LLVM_TARGET
from accelerators.catalog._words import MIG_PROFILE, PATTERNS, vocabulary

__all__ = ["Piece", "segment"]

#: Same-length rewrites before cutting: ``Max-Q`` is one word; Google's "lite" TPUs are the
#: "e" ones (``TPU v5 lite`` is ``v5e``); ``PCle`` is PCIe.
_MAXQ = re.compile(r"max[\s_\-]q(?![a-z])", re.I)
_LITE = re.compile(r"(?<![a-z0-9])(v[0-9]+)([\s_\-]+)lite(?![a-z])", re.I)
#: A MIG profile written with another separator (LLM-PQ's ``A100-SXM4-40GB_1g_5gb``):
#: ``1g_5gb`` is ``1g.5gb``. A shape no candidate has as a profile is refused, never read.
_MIG_SEPARATED = re.compile(r"(?<![0-9a-z])([1-7])g[_\-]([0-9]+gb)(?![0-9a-z])", re.I)
#: "PCle", a lower-case L for the I of PCIe, as pages and spreadsheets often write it.
_PCLE = re.compile(r"(?<![a-z])pcle(?![a-z])", re.I)
#: A decimal number standing alone (``0.5x``), kept whole; ``100.80`` inside ``1H100.80S``
#: is not one (a letter or a dot comes before it).
_DECIMAL = re.compile(r"(?<![0-9a-z.])[0-9]+\.[0-9]+(?![0-9.])", re.I)
_TRUNCATED = re.compile(r"(?:\.\.\.|\u2026)\s*\Z")
#: The x86-64 architecture written with a separator (``amdgpu-mi300-x86-64``, a build
#: target), kept whole: its ``x86`` is no count, its ``64`` no figure.
_X86_64 = re.compile(r"(?<![0-9a-z])x86[_\-]64(?![0-9a-z])", re.I)
#: A software stack's version glued to its name (``cuda12.4``, ``rocm720``, ``trt7.1``,
#: ``py310``, ``torch2.1``, ``cann8.0``), as image tags, wheels and CI runners write the build
#: they carry, kept whole: its numbers are the software's, no count or size of the device.
_SOFTWARE_VERSION = re.compile(
    r"(?<![0-9a-z])(?:cuda|rocm|trt|tensorrt|cudnn|nccl|rccl|torch|py|python|cann|musa|neuware)"
    r"[0-9]+(?:\.[0-9]+)*(?![0-9a-z.])",
    re.I,
)
#: The board's ECC setting (BabelStream's ``nvidia-k40c-ecc-on``, ``-ecc-off``): a setting of
#: the memory, no word of the model.
_ECC_SETTING = re.compile(r"(?<![0-9a-z])ecc[_\-\s]?(?:on|off)(?![0-9a-z])", re.I)
#: A DGX system's model number (``NVIDIA DGX-1``, ``DGX-2H``), kept whole: no count of its GPUs.
_DGX_MODEL = re.compile(r"(?<![0-9a-z])dgx[\s_\-]?[12]h?(?![0-9a-z])", re.I)
#: A cloud's region or zone (GCP's ``us-central2-b``, ``europe-west4``; AWS's ``us-east-1``,
#: ``ap-northeast-1a``), kept whole: where the machine runs, no count or model.
_CLOUD_REGION = re.compile(
    r"(?<![0-9a-z])(?:"
    r"(?:us|europe|asia|me|northamerica|southamerica|australia|africa)-"
    r"(?:central|east|west|north|south|northeast|southeast|northwest|southwest)[1-9][0-9]?"
    r"(?:-[a-f])?"
    r"|(?:us|eu|ap|sa|ca|me|af|il|mx)-"
    r"(?:east|west|north|south|central|northeast|southeast|northwest|southwest)-[1-9][a-f]?"
    r")(?![0-9a-z])",
    re.I,
)
#: A date (``2023-10-12``, ``20260605``, a results folder's month ``052019``), kept whole: when
#: the name was made, no count or size.
_DATE = re.compile(
    r"(?<![0-9a-z])(?:(?:19|20)[0-9]{2}(?P<s>[-_.]?)(?:0[1-9]|1[0-2])(?P=s)(?:0[1-9]|[12][0-9]|3[01])"
    r"|(?:0[1-9]|1[0-2])(?:19|20)[0-9]{2})(?![0-9a-z])"
)
#: A board's or chip's revision (pci.ids' ``RTX 2080 Rev. A``, vgpu_unlock's ``RTX 2080 Ti
#: Rev. A``: the binned TU10x-A chip of the same card), kept whole: no model word, no count.
_REVISION = re.compile(r"(?<![0-9a-z])rev\.?\s?[a-z](?![0-9a-z])", re.I)
#: A partition written as cores and memory (FuriosaAI's ``rngd-2core.12gb``), kept whole: no
#: host's cores and RAM, and a profile the catalog does not carry, so the name is refused.
_CORE_PROFILE = re.compile(r"(?<![0-9a-z.])[0-9]+cores?\.[0-9]+gb?(?![0-9a-z])", re.I)

#: A TPU generation glued to "tpu" without its v (``TPU4``), read only when glued.
_GLUED_TPU = re.compile(r"tpu[0-9]")
_UNKNOWN = 10.0  # the price of a run nothing reads
#: Patterns that read less surely than a word: a number could be many things.
_PATTERN_COST = {
    "number": 1.2,
    "vgpu": 1.5,
    "chip": 1.1,
    "version": 1.1,
    "topology": 1.3,
    "plural": 1.5,  # dearer than any model word that ends in s ("l40s", "v100s")
}
#: What an open name's word costs more than a catalog model word: ``mi300x8`` reads as the
#: MI300X's word and 8 (0.88 + 1.2), not as MI300 and ``x8`` (0.9 + 1.0 + this).
_OPENED_COST = 0.3
#: Runs nothing else reads: letters, digits, or both.
_RUNS = tuple(re.compile(run) for run in (r"[a-z]+", r"[0-9]+", r"[a-z0-9]+"))


@dataclass(frozen=True, slots=True)
class Piece:
    """One piece of a name."""

    #: As written in the name.
    text: str
    start: int
    end: int
    #: "model", a vocabulary class ("vendor", "form"...), a pattern ("memory", "x_count"...),
    #: "mig" (a MIG profile), "decimal" or "unknown".
    kind: str
    #: The model word, the word's class value, or the squashed text.
    value: str
    #: The pattern's groups (numbers as text).
    groups: tuple[str, ...] = ()
    #: No separator between this piece and the one before.
    glued: bool = False
    #: Glued, but a case change sets it apart: it starts a camel-case word (``LambdaLabs``).
    camel: bool = False
    #: Inside ``[...]`` (pci.ids writes the board there) or ``(...)`` (a qualifier).
    bracket: bool = False
    paren: bool = False
    #: The name was cut short right after this piece (``NVIDIA RTX 6000 Ada Gene...``).
    truncated: bool = False


@dataclass
class _Chunk:
    start: int  # in the squashed string
    end: int
    bracket: bool
    paren: bool
    #: "mig", "decimal", "unknown" or "noise:<group>": the chunk is one piece of that kind
    fixed: str | None = None
    #: A '/' stands between this chunk and the one before (a path, or a choice).
    slash: bool = False


@functools.cache
def _os_version() -> re.Pattern[str]:
    """An operating system's name with its version (``Win2022``, ``ubuntu2204``, ``rhel8``),
    as CI pools and images name the machine: no count or size of the device. The names are
    the vocabulary's ``os`` group (``data/name_words.toml``), built once, on first use."""
    names = sorted(
        (w for w, (kind, group) in vocabulary().words.items() if (kind, group) == ("noise", "os")),
        key=len,
        reverse=True,
    )
    return re.compile(
        rf"(?<![0-9a-z])(?:{'|'.join(names)})[0-9]{{1,4}}(?:\.[0-9]+)?(?![0-9a-z.])", re.I
    )


def _normalise(text: str) -> str:
    text = _MAXQ.sub(lambda m: "maxq" + " " * (len(m[0]) - 4), text)
    text = _MIG_SEPARATED.sub(r"\1g.\2", text)
    text = _PCLE.sub("pcie", text)
    return _LITE.sub(lambda m: m[1] + "e" + " " * (len(m[2]) + 3), text)


def _chunks(text: str) -> tuple[str, list[int], list[_Chunk], list[bool]]:
    """The squashed string, each of its characters' place in ``text``, the chunks, and for
    each character whether the original had a case change (lower to upper) before it."""
    fixed = {}
    fixed_kinds = (
        (MIG_PROFILE, "mig"),
        (_DECIMAL, "decimal"),
        (_X86_64, "noise:cpu_architectures"),
        (_SOFTWARE_VERSION, "noise:software_versions"),
        (_os_version(), "noise:os"),
        (_ECC_SETTING, "noise:settings"),
        (_DGX_MODEL, "noise:platforms"),
        (_CLOUD_REGION, "noise:regions"),
        (_REVISION, "noise:revisions"),
        (_DATE, "noise:dates"),
        (AMD_CHIP, "unknown"),
        (LLVM_TARGET, "unknown"),
        (_CORE_PROFILE, "unknown"),
    )
    for pattern, kind in fixed_kinds:
        for m in pattern.finditer(text):
            fixed[m.start()] = (m.end(), kind)
    squashed: list[str] = []
    where: list[int] = []
    camel: list[bool] = []
    chunks: list[_Chunk] = []
    bracket = paren = 0
    in_chunk = slash = False
    i = 0
    while i < len(text):
        if i in fixed:
            end, kind = fixed[i]
            chunks.append(
                _Chunk(len(squashed), len(squashed) + end - i, bracket > 0, paren > 0, kind)
            )
            for j in range(i, end):
                squashed.append(text[j].lower())
                where.append(j)
                camel.append(False)
            in_chunk = False
            i = end
            continue
        ch = text[i]
        if ch.isascii() and ch.isalnum():
            if not in_chunk:
                chunk = _Chunk(len(squashed), len(squashed), bracket > 0, paren > 0)
                chunk.slash = slash
                chunks.append(chunk)
                in_chunk = True
                slash = False
            camel.append(i > 0 and ch.isupper() and _camel_start(text, i))
            squashed.append(ch.lower())
            where.append(i)
            chunks[-1].end = len(squashed)
        else:
            in_chunk = False
            slash = slash or ch == "/"
            bracket += ch == "["
            bracket -= ch == "]" and bracket > 0
            paren += ch == "("
            paren -= ch == ")" and paren > 0
        i += 1
    return "".join(squashed), where, chunks, camel


def _camel_start(text: str, i: int) -> bool:
    """Whether the capital at ``text[i]`` starts a camel-case word: after a small letter
    (``NvidiaTesla``), or the last capital of a run that a small letter follows (the ``T`` of
    ``GPUType``, as in ``XMLHttp``)."""
    before = text[i - 1]
    if before.islower():
        return True
    after = text[i + 1] if i + 1 < len(text) else ""
    return before.isupper() and after.islower()


def segment(
    text: str,
    models: Mapping[str, object],
    longest: int | None = None,
    opened: Collection[str] = (),
) -> list[Piece]:
    """The pieces of ``text``, left to right (see the module docstring).

    :param models: the model words to look for (squashed, lower case).
    :param longest: the longest model word (computed when not given).
    :param opened: model words only an open name teaches: dearer than the others.
    """
    truncated = bool(_TRUNCATED.search(text))
    if truncated:
        text = _TRUNCATED.sub("", text)
    text = _normalise(text)
    s, where, chunks, camel = _chunks(text)
    n = len(s)
    if n == 0:
        return []
    vocab = vocabulary()
    if longest is None:
        longest = max(map(len, models), default=0)
    chunk_of = [0] * n
    for c, chunk in enumerate(chunks):
        for k in range(chunk.start, chunk.end):
            chunk_of[k] = c
    starts = {chunk.start for chunk in chunks}
    # where an unknown run from each position must stop: the next camel-case word's start, or
    # its chunk's end ("ClusterGPUTypeL40Pcie" is no one unknown word that swallows its model)
    stops = [0] * n
    for k in range(n - 1, -1, -1):
        end = chunks[chunk_of[k]].end
        if k + 1 >= end:
            stops[k] = end
        else:
            stops[k] = k + 1 if camel[k + 1] else stops[k + 1]

    best = [float("inf")] * (n + 1)
    back: list[tuple[int, str, str, tuple[str, ...]] | None] = [None] * (n + 1)
    best[0] = 0.0
    for i in range(n):
        if best[i] == float("inf"):
            continue
        chunk = chunks[chunk_of[i]]
        if i in starts:
            penalty = 0.0
        elif s[i - 1].isdigit() and s[i].isdigit():
            penalty = 4.0
        elif s[i - 1].isalpha() and s[i].isalpha() and not camel[i]:
            penalty = 0.5
        else:
            penalty = 0.0
        options: list[tuple[int, str, str, tuple[str, ...], float]] = []
        if chunk.fixed:
            if i == chunk.start:
                # a fixed noise piece is named by its group ("noise:platforms")
                kind, _, group = chunk.fixed.partition(":")
                value = group or s[i : chunk.end]
                options.append((chunk.end, kind, value, (), 1.0))
        else:
            _model_options(s, i, chunks, chunk_of, models, longest, options, opened)
            for length in range(min(vocab.longest, chunk.end - i), 0, -1):
                found = vocab.get(s[i : i + length])
                if length == 1 and (i != chunk.start or chunk.end != i + 1):
                    continue  # a one-letter word only stands alone ("Intel(R)")
                if found is not None:
                    options.append((i + length, found[0], found[1], (), 1.0))
            for kind, pattern in PATTERNS.items():
                m = pattern.match(s, i, chunk.end)
                if m is not None and m.end() > i:
                    groups = tuple(g for g in m.groups() if g is not None)
                    options.append((m.end(), kind, m[0], groups, _PATTERN_COST.get(kind, 1.0)))
            for run in _RUNS:
                m = run.match(s, i, stops[i])
                if m is not None:
                    options.append((m.end(), "unknown", m[0], (), _UNKNOWN + 0.1 * len(m[0])))
        for end, kind, value, groups, cost in options:
            total = best[i] + cost + penalty
            if total < best[end] - 1e-9:
                best[end] = total
                back[end] = (i, kind, value, groups)
    cuts: list[tuple[int, int, str, str, tuple[str, ...]]] = []
    j = n
    while j > 0:
        step = back[j]
        if step is None:  # every position ends some piece (the unknown runs): cannot happen
            raise RuntimeError(f"segment: no piece ends at {j} in {text!r}")
        i, kind, value, groups = step
        cuts.append((i, j, kind, value, groups))
        j = i
    cuts.reverse()
    pieces = []
    for number, (i, j, kind, value, groups) in enumerate(cuts):
        chunk = chunks[chunk_of[i]]
        start, end = where[i], where[j - 1] + 1
        pieces.append(
            Piece(
                text[start:end],
                start,
                end,
                kind,
                value,
                groups,
                glued=i not in starts,
                camel=i not in starts and camel[i],
                bracket=chunk.bracket,
                paren=chunk.paren,
                truncated=truncated and number == len(cuts) - 1,
            )
        )
    return pieces


def _model_options(
    s: str,
    i: int,
    chunks: list[_Chunk],
    chunk_of: list[int],
    models: Mapping[str, object],
    longest: int,
    options: list[tuple[int, str, str, tuple[str, ...], float]],
    opened: Collection[str] = (),
) -> None:
    """Model words starting at ``i``: they may run over separators, but not into a MIG
    profile or across a bracket."""
    first = chunks[chunk_of[i]]
    for length in range(min(longest, len(s) - i), 1, -1):
        key = s[i : i + length]
        if key not in models:
            continue
        last = chunks[chunk_of[i + length - 1]]
        inside = chunks[chunk_of[i] : chunk_of[i + length - 1] + 1]
        if any(c.fixed for c in inside) or last.bracket != first.bracket:
            continue
        if any(c.slash for c in inside[1:]):
            continue  # no model word runs over a '/': "V100/S" is a choice, not a V100S
        if _GLUED_TPU.match(key) and chunk_of[i + 2] != chunk_of[i + 3]:
            continue  # "TPU4" is a TPU v4; "tpu-4" may be four TPUs
        end = i + length
        if end < len(s) and key[-1].isdigit() and s[end].isdigit() and end != last.end:
            # The number runs on: "a10" is not in "A100X", "l4" not in "l40"; only a memory
            # size may be glued to a model's number ("NVIDIAH10080GBHBM3").
            size = PATTERNS["memory"].match(s, end, last.end)
            if size is None or float(size[1]) <= 0:
                continue
        if last is not first and end - 1 == last.start and end < last.end and s[end].isalpha():
            continue  # a variant letter set apart runs on into a word: "rtx_4090_dtype" is no D
        dearer = _OPENED_COST if key in opened else 0.0
        options.append((i + length, "model", key, (), 1.0 - 0.02 * length + dearer))
