"""The structured name reader: the last tier of name resolution.

>>> from accelerators.catalog._names import resolve_name
>>> found = resolve_name("HGX-H100_H100-SXM-80GBx16_TRT")
>>> found.accelerator.model, found.count, found.source
('H100', 16, 'reader')

What drivers, clouds, schedulers and benchmarks print is composed from a few kinds of parts:
vendor and product-line words (``NVIDIA``, ``Tesla``, ``AMD Instinct``), a model (``H100``,
``RTX 6000 Ada``, ``MI300X``), memory (``80GB``, ``141G``) and its type (``HBM3e``), form
factors (``SXM5``, ``PCIe``, ``NVL``, ``OAM``), edition and generation words (``Blackwell
Server Edition``, ``Ada Generation``), a count (``x8``, ``8x``), a MIG profile, and words
that say nothing about the device (chip code names in pci.ids, server and framework names in
benchmark names). :func:`read` splits a name into those parts and matches them against the
catalog's own fields; it never compares strings by distance.

* **Models** are the catalog's spellings with memory, form-factor and vendor words taken out,
  squashed (``A100-80GB-PCIE`` teaches ``a100``; ``RTX 6000 Ada`` teaches ``rtx6000ada``). A
  model must start a word of the input (or follow a count glued to it, ``8xMI300X``) and end
  one, or be followed by parts glued to it (``B200SXMx8``, ``H200NVL``, ``MI300XHF``). The
  longest model wins; two different models in one name is ambiguous.
* **The block** is what follows the model, up to its count. Memory, memory type, form factor
  and edition words choose among the models and SKUs that share the model's spelling
  (``H100`` + ``NVL`` is the H100 NVL; ``H20`` + ``HBM3e`` the 141 GB H20). A word the
  catalog has no reading for right after the model is a variant it does not carry (``RTX 5090
  D``, ``RTX 4060 Ti``, ``H800 NVL``): refused, never read as the base model. So is a
  size, form factor or architecture that no entry of that spelling has.
* **Counts** are read only next to the model: ``x8`` in its block, or ``8x`` right before it.
  A count before a CPU word (``2xEPYC``) is the CPU's; it is never the accelerator's.

A name that matches nothing returns None (the caller raises the usual error with close
matches); a name that matches but cannot be read exactly raises
:class:`~accelerators.errors.UnknownAcceleratorError` saying why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from accelerators._text import format_number, quote
from accelerators.catalog._spellings import NameMatch, is_vendor_word
from accelerators.errors import UnknownAcceleratorError

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.catalog._spellings import Index

__all__ = ["read"]

# -- vocabulary: word classes, no per-accelerator facts --------------------------------------
_SPLIT = re.compile(r"[\s_\-/,()\[\]:;|*]+")
_BRACKETED = re.compile(r"\[[^\[\]]*\]|\([^()]*\)")
_MEMORY = re.compile(r"([0-9]+(?:\.[0-9]+)?)(?:gb|g|gib)")
_COUNT_SUFFIX = re.compile(r"x([0-9]{1,4})")
_COUNT_PREFIX = re.compile(r"([0-9]{1,4})x")
_MIG = re.compile(r"[1-7]g\.[0-9]+gb(?:[+\-][a-z.]+)?")
_FORM = re.compile(r"(sxm|oam)[0-9]?|pcie|nvl|sff|fhhl|mezzanine")
_MEMORY_TYPES = frozenset(
    {"hbm", "hbm2", "hbm2e", "hbm3", "hbm3e", "gddr5", "gddr5x", "gddr6", "gddr6x", "gddr7"}
)
_ARCHITECTURES = frozenset(
    {
        "kepler",
        "maxwell",
        "pascal",
        "volta",
        "turing",
        "ampere",
        "ada",
        "lovelace",
        "hopper",
        "blackwell",
        "cdna",
        "cdna2",
        "cdna3",
        "cdna4",
    }
)
#: Words that pick a SKU of a model (matched against the SKU's own words).
_EDITIONS = frozenset({"workstation", "server", "maxq", "sff"})
#: Words that describe the same device (a virtual function, a variant of the package).
_NEUTRAL = frozenset({"vf", "hf", "mxgpu", "ac", "lc", "active", "passive", "nvlink"})
#: Words that say nothing about the device: product prose, chip and system words.
_NOISE = frozenset(
    {
        "generation",
        "edition",
        "grace",
        "superchip",
        "accelerator",
        "gpu",
        "graphics",
        "card",
        "ai",
        "training",
        "inference",
        "data",
        "center",
        "datacenter",
        "module",
        "board",
        "processor",
        "tensor",
        "core",
        "tm",
        "r",
        "hgx",
        "dgx",
        "mig",
        "trt",
        "tensorrt",
        "vllm",
        "sglang",
        "dynamo",
        "triton",
        "reference",
        "pytorch",
        "onnxruntime",
        "aarch64",
        "x86",
        "arm64",
        "quadro",
    }
)
#: CPU words: a count glued before one (``2xEPYC``) counts CPUs.
_CPUS = frozenset({"epyc", "xeon", "grace", "cpu", "cpus", "sockets"})
#: One part glued to a model or another part: ``x8``, ``80gb``, ``sxm5``, ``nvl``, ``hf``...
_GLUED_PART = re.compile(
    r"x[0-9]{1,4}|[0-9]+(?:\.[0-9]+)?(?:gib|gb|g)|(?:sxm|oam)[0-9]?|pcie|nvl|sff|fhhl|"
    + "|".join(sorted(_NEUTRAL | _MEMORY_TYPES | _EDITIONS | {"ada"}, key=len, reverse=True))
)
#: Word endings that name a variant the base model is not (``4090D``, ``V100S``, ``H100L``).
_VARIANT_TAIL = re.compile(r"[a-z]{1,3}|[0-9]+")


def _normalise(text: str) -> str:
    """Lower case; ``Max-Q`` as one word; Google's 'lite' TPUs are the 'e' ones (``v5 lite``)."""
    low = text.casefold().replace("max-q", "maxq").replace("max q", "maxq")
    return re.sub(r"\b(v[0-9]+)[\s_\-]+lite\b", r"\1e", low)


def _words(text: str) -> list[str]:
    return [w for w in _SPLIT.split(_normalise(text)) if w]


def _is_explained(word: str) -> bool:
    return (
        is_vendor_word(word)
        or word in _NOISE
        or word in _NEUTRAL
        or word in _EDITIONS
        or word in _ARCHITECTURES
        or word in _MEMORY_TYPES
        or bool(_FORM.fullmatch(word) or _MEMORY.fullmatch(word) or _MIG.fullmatch(word))
    )


def _form(word: str) -> str:
    """``SXM5`` -> ``sxm``: form factors compare without their generation digit."""
    return re.sub(r"^(sxm|oam)[0-9]$", r"\1", word)


# -- the model table, built once per index ----------------------------------------------------
@dataclass
class _Table:
    #: squashed model words -> the catalog entries a spelling with those words names
    keys: dict[str, list[Accelerator]] = field(default_factory=dict)
    #: squashed model words -> models one of whose own names is exactly those words
    primary: dict[str, set[str]] = field(default_factory=dict)
    longest: int = 0


def _core(text: str) -> str:
    """The model words of a catalog spelling, squashed: ``NVIDIA A100-SXM4-80GB`` -> ``a100``."""
    kept = [
        w
        for w in _words(text)
        if not (is_vendor_word(w) or _MEMORY.fullmatch(w) or _FORM.fullmatch(w))
        and w not in _EDITIONS
        and w not in _NOISE - {"quadro"}
        and w not in _NEUTRAL
        and w not in _MEMORY_TYPES
    ]
    return "".join(kept)


def _table(index: Index) -> _Table:
    table: _Table | None = getattr(index, "reader_table", None)
    if table is not None:
        return table
    table = _Table()
    from accelerators.catalog._schema import Names

    for acc in index.entries:
        own = [acc.name, acc.model, *acc.aliases] + ([acc.constant] if acc.constant else [])
        others: list[str] = []
        for system in Names.model_fields:
            value = getattr(acc.names, system)
            others += [value] if isinstance(value, str) else list(value or ())
        for text in own + others:
            key = _core(text)
            if (
                len(key) < (2 if text in own else 3)
                or key.isdigit()
                or key in _ARCHITECTURES
                or _COUNT_SUFFIX.search(key[-4:])  # a spelling with a count (HF "l40sx4")
                or (acc.device_class == "tpu" and key[-1].isdigit())  # a TPU slice size
            ):
                continue  # not a model word to look for in free text
            bucket = table.keys.setdefault(key, [])
            if acc not in bucket:
                bucket.append(acc)
            if text in own and "".join(_words(text)) == key:
                table.primary.setdefault(key, set()).add(acc.model)
    table.longest = max(map(len, table.keys), default=0)
    index.reader_table = table  # type: ignore[attr-defined]
    return table


# -- reading -----------------------------------------------------------------------------------
@dataclass
class _Found:
    key: str
    word: int  # index of the word the model ends in
    tail: list[str]  # parts glued after the model in that word
    count: int | None  # a count glued before it (8xMI300X) or in the word before (8x H100)


def _glued(rest: str) -> list[str] | None:
    """Split what is glued after a model (``sxmx8``) into parts, or None if it is not parts."""
    parts: list[str] = []
    while rest:
        part = _GLUED_PART.match(rest)
        if part is None:
            return None
        parts.append(part[0])
        rest = rest[part.end() :]
    return parts


def _find(words: list[str], table: _Table) -> list[_Found]:
    """Every model occurrence, longest first at each start, left to right."""
    found: list[_Found] = []
    i = 0
    while i < len(words):
        count: int | None = None
        lead = _COUNT_PREFIX.match(words[i])
        starts: list[tuple[str, int | None]] = [(words[i], None)]
        if lead and lead.end() < len(words[i]):
            starts.append((words[i][lead.end() :], int(lead[1])))
        hit: _Found | None = None
        for first, glued_count in starts:
            text = first
            for j in range(i, len(words)):
                if j > i:
                    text += words[j]
                if len(text) > table.longest + 12:
                    break
                for end in range(min(len(text), table.longest), 1, -1):
                    key = text[:end]
                    if key not in table.keys or (j > i and end <= len(text) - len(words[j])):
                        continue
                    rest = text[end:]
                    if key[-1].isdigit() and rest[:1].isdigit():
                        continue  # the number runs on: "l4" is not in "l40g"
                    tail = _glued(rest)
                    if tail is None:
                        continue
                    if hit is None or len(key) > len(hit.key):
                        count = glued_count
                        if count is None and i > 0 and re.fullmatch(r"[0-9]{1,4}x", words[i - 1]):
                            count = int(words[i - 1][:-1])
                        hit = _Found(key, j, tail, count)
                    break
        if hit is not None:
            found.append(hit)
            i = hit.word + 1
        else:
            i += 1
    return found


def read(index: Index, text: str) -> NameMatch | None:
    """Read ``text`` by its parts; None when it names no model the catalog knows."""
    table = _table(index)
    groups = _BRACKETED.findall(text) or [text]
    words = _words(text)
    found = _find(words, table)
    if not found:
        return None
    keys = list(dict.fromkeys(h.key for h in found))
    if len({frozenset(_models_of(key, table)) for key in keys}) > 1:
        raise _refuse(text, "it names more than one accelerator", _suggest(table, keys))
    last = found[-1]
    if any("/" in g and last.key in "".join(_words(g)) for g in groups):
        raise _refuse(text, "it names a choice of boards ('/')", _suggest(table, keys))
    if last.count is not None and last.count <= 0:
        raise _refuse(text, f"it asks for {last.count} devices")
    block, count = _block(text, words, last)
    acc, pinned = _choose(text, table, last.key, block)
    partition = block.get("mig")
    if partition:
        from accelerators.catalog._partitions import check_partition

        check_partition(acc, partition)
    return NameMatch(acc, pinned, count, partition, "reader")


def _models_of(key: str, table: _Table) -> set[str]:
    return {acc.model for acc in table.keys[key]}


def _block(text: str, words: list[str], found: _Found) -> tuple[dict[str, str], int | float | None]:
    """The parts that follow the model, up to its count; refuses a variant it cannot read."""
    block: dict[str, str] = {}
    count = found.count
    parts = list(found.tail) + words[found.word + 1 :]
    for position, word in enumerate(parts):
        suffix = _COUNT_SUFFIX.fullmatch(word)
        if suffix:
            count = _set_count(text, count, int(suffix[1]))
            break
        mem = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(?:gb|g|gib)x([0-9]{1,4})", word)
        if mem:
            block.setdefault("memory", mem[1])
            count = _set_count(text, count, int(mem[2]))
            break
        arch = re.fullmatch(r"(aarch64|x86|arm64)x([0-9]{1,4})", word)
        if arch:
            count = _set_count(text, count, int(arch[2]))
            break
        if word == "mig" and position + 1 < len(parts) and _MIG.fullmatch(parts[position + 1]):
            block["mig"] = parts[position + 1]
            continue
        if _MIG.fullmatch(word) and block.get("mig") == word:
            continue
        glued = None if _is_explained(word) else _glued(word)
        if glued and len(glued) > 1:
            parts[position + 1 : position + 1] = glued[1:]
            word = glued[0]
        if not _is_explained(word):
            if count is None and (position == 0 or _VARIANT_TAIL.fullmatch(word)):
                raise _refuse(
                    text,
                    f"{quote(word)} follows the model, and the catalog has no variant of it "
                    "by that name",
                )
            break  # a system, framework or CPU word: the accelerator's part has ended
        _classify(word, block)
    return block, count


def _set_count(text: str, count: int | float | None, value: int) -> int:
    if value <= 0 or (count is not None and count != value):
        raise _refuse(text, f"it gives two counts ({format_number(count or 0)} and {value})")
    return value


def _classify(word: str, block: dict[str, str]) -> None:
    if _MEMORY.fullmatch(word):
        block.setdefault("memory", _MEMORY.fullmatch(word)[1])  # type: ignore[index]
    elif word in _MEMORY_TYPES:
        block["memory_type"] = word
    elif word in _ARCHITECTURES and word != "ada":
        block["architecture"] = word
    elif _FORM.fullmatch(word) or word in _EDITIONS:
        block["sku"] = (block.get("sku", "") + " " + _form(word)).strip()


def _sku_words(acc: Accelerator, *, strong: bool = False) -> set[str]:
    """Words that tell a SKU: of its name and aliases, and (unless ``strong``) its form factor."""
    words = set()
    for text in (acc.name, *acc.aliases, *(() if strong else (acc.form_factor,))):
        words |= {_form(w) for w in _words(text)}
    return words


def _memory_type(acc: Accelerator) -> str:
    """``HBM3e`` -> ``hbm3e``; ``GDDR6 (ECC)`` -> ``gddr6``."""
    return (_words(acc.memory_type) or [""])[0]


def _choose(text: str, table: _Table, key: str, block: dict[str, str]) -> tuple[Accelerator, bool]:
    """The catalog entry the model and its block name, and whether the name pins the SKU."""
    candidates = list(table.keys[key])
    if "memory" in block:
        gb = float(block["memory"])
        fits = [a for a in candidates if abs(a.device_memory_gb - gb) <= 0.5]
        if not fits:
            sizes = sorted({format_number(a.device_memory_gb) for a in candidates})
            raise _refuse(
                text,
                f"no {key.upper()} in the catalog has {block['memory']} GB "
                f"(it has {', '.join(sizes)} GB)",
            )
        candidates = fits
    if "memory_type" in block:
        kind = block["memory_type"]
        typed = [a for a in candidates if _memory_type(a) == kind]
        if not typed:
            raise _refuse(text, f"no {key.upper()} in the catalog has {kind.upper()} memory")
        candidates = typed or candidates
    wanted = set(block.get("sku", "").split())
    if wanted:
        fitting = [a for a in candidates if wanted <= _sku_words(a)]
        if not fitting:
            raise _refuse(text, f"no {key.upper()} in the catalog is {' '.join(sorted(wanted))}")
        named = [a for a in fitting if wanted <= _sku_words(a, strong=True)]
        candidates = named or fitting  # the SKU whose name says it, over a form-factor note
    if "architecture" in block:
        arch = block["architecture"]
        candidates = [a for a in candidates if a.architecture.casefold().startswith(arch)]
        if not candidates:
            raise _refuse(text, f"no {key.upper()} in the catalog is a {arch.title()} part")
    models = list(dict.fromkeys(a.model for a in candidates))
    if len(models) > 1:
        primary = [m for m in models if m in table.primary.get(key, set())]
        if len(primary) != 1:
            raise _refuse(text, f"it could be {' or '.join(models)}", tuple(models))
        models = primary
    skus = [a for a in candidates if a.model == models[0]]
    if wanted and len(skus) == 1:
        return skus[0], not skus[0].default_for_model or len(_all_skus(table, models[0])) > 1
    default = next((a for a in _all_skus(table, models[0]) if a.default_for_model), skus[0])
    return default, False


def _all_skus(table: _Table, model: str) -> list[Accelerator]:
    return list(
        dict.fromkeys(a for bucket in table.keys.values() for a in bucket if a.model == model)
    )


def _suggest(table: _Table, keys: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(acc.model for key in keys for acc in table.keys[key]))


def _refuse(text: str, why: str, suggestions: tuple[str, ...] = ()) -> UnknownAcceleratorError:
    hint = f"; write one of {', '.join(repr(s) for s in suggestions)}" if suggestions else ""
    return UnknownAcceleratorError(
        f"Cannot read accelerator name {quote(text)} exactly: {why}{hint}",
        name=text,
        suggestions=suggestions,
    )
