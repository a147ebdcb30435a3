"""The token reader: the last tier of name resolution. It reads a name only when it can
account for every token; otherwise it refuses, naming the tokens it could not place.

>>> from accelerators.catalog._names import resolve_name
>>> found = resolve_name("8x_nvidia_b200_180gb_sxm")
>>> found.accelerator.model, found.count, found.source
('B200', 8, 'reader')

:mod:`._segment` cuts the name into pieces (model words, vocabulary words, memory sizes,
counts, host figures, MIG profiles...). Each piece then gets a *role* (:data:`._reading.ROLES`)
from its kind and its neighbours:

* a number is a **count** when something marks it as one: ``x8``, ``8x``, ``num=2``, a device
  word after it (``1-gpu``, ``8gpu``), the model right after it (``1H100``, ``8 H100``), the
  model and then a plural device word (prose's ``384 A100 40GB GPUs``, however large), or
  glued to a model word that ends in ``x`` (DigitalOcean's ``mi300x8``); after a TPU
  generation it is a slice size; before a CPU word it counts CPUs (``2xEPYC``). Any other
  number is **unplaced**: it could be a count, a size or a host figure, and a guess would be
  silently wrong;
* a memory size is **memory** per device when a candidate has it, **total memory** when the
  count times a candidate's memory makes it (``gpu-h100x8-640gb``), a **host figure** next to
  a host word (``1600gb ram``), and unplaced otherwise: a size the name gives is never dropped;
* ``30V``, ``128vcpu``, ``16c`` are **host figures**; ``4Q`` right after a model a **vGPU
  profile** (that share of its memory);
* a word the vocabulary does not know is a **variant** right after the model (``RTX 5090 D``:
  refused); outside the brackets of a pci.ids name (``GH100 [H100 SXM5 80GB]``) it is the
  **chip**, as is an AMD chip the catalog gives the model (:mod:`._chips`); elsewhere a
  **system word** (a server model in an MLPerf name) when the name states its count, since an
  unknown word could hide one (``NC48-A100`` is 2 A100s), or where the source's names are one
  device each and the word could name no other device (:mod:`._system_words`).

The name's model words (one model word, perhaps repeated) give the candidates; vendor, product
line, architecture, memory, memory type, form factor, edition and chip words narrow them (each
must leave one, or the name is refused saying why). When several *models* remain (the name did
not say the A100's memory or the H100's form factor), the name reads as that **family**: the
models as alternatives, in catalog order (``gpu-a100-large`` is ``A100-40GB | A100-80GB``).
A name whose placed words are exactly a name a device reports (nvidia-smi's ``NVIDIA H200``,
LSF's ``NVIDIAH200``) is that SKU.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from accelerators.catalog._atlas import read_atlas_series
from accelerators.catalog._azure_sizes import mark_azure_family
from accelerators.catalog._chips import read_chips
from accelerators.catalog._dgx import dgx_form
from accelerators.catalog._modelwords import model_words
from accelerators.catalog._narrow import (
    Read,
    Token,
    narrow,
    refuse,
    result,
    without_model,
)
from accelerators.catalog._number_marks import model_ahead
from accelerators.catalog._numbers import read_numbers
from accelerators.catalog._reading import TokenReading
from accelerators.catalog._segment import segment
from accelerators.catalog._spellings import NameMatch
from accelerators.catalog._system_counts import left_to_system, machine_count, system_word
from accelerators.catalog._system_words import MAY_NAME_A_MACHINE, device_names, system_own_word
from accelerators.catalog._token_meanings import KIND_ROLE, first_meaning
from accelerators.catalog._tpu_words import after_tpu, only_tpu_words
from accelerators.catalog._unplaced import (
    read_series,
    refuse_apple_chip_alone,
    refuse_cpu_run,
    refuse_unplaced,
)
from accelerators.catalog._vgpu import consumer_card
from accelerators.catalog._words import vocabulary
from accelerators.errors import UnknownAcceleratorError

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.catalog._spellings import Index

__all__ = ["read", "read_left_open"]


def read(
    index: Index,
    text: str,
    *,
    reported: Callable[[str], NameMatch | None] | None = None,
    trace: list[TokenReading] | None = None,
) -> NameMatch | None:
    """Read ``text`` token by token; None when it names no catalog model.

    :param reported: looks a text up among the names devices report (nvidia-smi, GFD, ROCm).
    :param trace: filled with the tokens and their roles, read or refused.
    :raises UnknownAcceleratorError: the name names a model but cannot be read exactly.
    """
    words = model_words(index)
    pieces = segment(text, words.words, words.longest, words.opened)
    state = Read(text, [Token(p) for p in pieces], words)
    try:
        return _run(state, reported)
    finally:
        if trace is not None:
            trace.extend(state.trace())


def read_left_open(
    index: Index, text: str, found: NameMatch, reported: Callable[[str], NameMatch | None]
) -> NameMatch:
    """``found`` (a looser tier's model-level match of ``text``), or the family the reader
    finds when the words leave the model open.

    The catalog's own model names have their defaults (``H100-SXM`` is that model's SXM5
    board; ``A100``, ``V100`` and ``H100``, open names, are families anyway), but a foreign
    spelling that
    only matched them once its vendor words or its one memory size were set aside
    (``nvidia_a100``, ``H100 80GB``, ``H200 141GB``) says no more than the family: what one
    system rents as ``nvidia_a100`` is 80 GB. When the reader reads ``text`` as a family that
    holds ``found``'s model, that family is the answer.
    """
    acc = found.accelerator
    if len({a.model for a in index.entries if a.family == acc.family}) < 2:
        return found
    try:
        read_as = read(index, text, reported=reported)
    except UnknownAcceleratorError:
        return found
    if read_as is None or not read_as.family or read_as.count not in (None, 1):
        return found
    models = {read_as.accelerator.model, *(a.model for a in read_as.family)}
    return read_as if acc.model in models else found


def _run(state: Read, reported: Callable[[str], NameMatch | None] | None) -> NameMatch | None:
    tokens = state.tokens
    for token in tokens:
        token.role = KIND_ROLE.get(token.piece.kind, "")
        token.meaning = first_meaning(token)
    _unglue_noise(tokens)
    _unplace_glued_vendors(tokens)
    mark_azure_family(tokens)  # Azure Local's "Standard_NC16_L4_1": 16 vCPUs, a machine's
    models = _model_tokens(state) or _model_number(state)
    if not models:
        return without_model(state)
    if "+" in state.text:  # Modal's "B200+": that model or a newer one
        raise refuse(state, "'+' is no separator: it may mean 'or newer' (Modal's 'B200+')")
    candidates = _candidates(state, models)
    refuse_apple_chip_alone(state, models, candidates)
    read_numbers(state, candidates)
    needs_count = left_to_system(state)
    read_chips(state, candidates)  # "SIFT_CHIPID_NAVI21_W6800": the W6800's chip
    _read_unknown(state, models)
    candidates = read_series(state, candidates)
    refuse_cpu_run(state)
    refuse_unplaced(state)
    candidates = dgx_form(state, narrow(state, candidates))  # "DGX H100": its SXM part
    found = _reported(state, reported) if reported is not None else None
    if found is not None and found.accelerator in candidates:
        candidates = [found.accelerator]
    match = result(state, candidates, pinned_by_report=found is not None)
    if not needs_count:
        return match
    return machine_count(state, candidates, match, needs_count)


def _unplace_glued_vendors(tokens: list[Token]) -> None:
    """A vendor word read only standing apart (:data:`_APART`) is left unplaced glued to other
    letters: ``NV_A100`` is NVIDIA's, ``V100NV`` an NVLinked V100, Tencent's ``GNV4v`` a VM."""
    for token in tokens:
        piece = token.piece
        if piece.kind == "vendor" and piece.glued and piece.text.casefold() in _APART:
            token.role = ""
            token.refusal = "names a vendor only standing apart: glued, it may be other letters"


def _unglue_noise(tokens: list[Token]) -> None:
    """Two noise words run together (TensorRT-LLM's ``b200-trtllm``) are one unknown word, not
    two known ones: it may hide a count. A case change (``DataCenter``) separates them."""
    i = 1
    while i < len(tokens):
        a, b = tokens[i - 1].piece, tokens[i].piece
        if (
            a.kind == b.kind == "noise"
            and b.glued
            and a.text[-1:].isalpha()
            and b.text[:1].isalpha()
            and not (a.text[-1].islower() and b.text[0].isupper())
        ):
            text = a.text + b.text
            whole = replace(a, text=text, end=b.end, kind="unknown", value=text.lower())
            tokens[i - 1].piece, tokens[i - 1].role, tokens[i - 1].meaning = whole, "", ""
            del tokens[i]
        else:
            i += 1


def _model_tokens(state: Read) -> list[Token]:
    read_atlas_series(state)  # "linux-aarch64-a3-8": Huawei's Atlas A3, the 910C's servers
    models = [t for t in state.tokens if t.piece.kind == "model"]
    strong = [t for t in models if t.piece.value not in state.words.weak]
    if not strong and models and all(after_tpu(state, t) for t in models):
        strong = models  # "CHIP_TYPE_TPU_V2": the generation of the TPU word before it
    if strong or (models and not only_tpu_words(state, models)):
        # a weak TPU word ("v3") is a version beside another model, or in a name that says
        # more than a TPU name does (Yandex's "gpu-standard-v3" is no TPU v3)
        for token in models:
            if token not in strong:
                token.role, token.meaning = "noise", "a version"
        models = strong
    inside = [t for t in models if t.piece.bracket]
    if inside:  # pci.ids: the chip, then the board in brackets
        for token in state.tokens:
            if not token.piece.bracket:
                token.role = "chip"
                token.meaning = "the chip (pci.ids names the board in brackets)"
        models = inside
    for token in models:
        token.role = "model"
    return models


def _model_number(state: Read) -> list[Token]:
    """A bare model number, in a name with no model word: after a vendor word
    (``nvidia_3090``, ``nvidia3080``), the model whose number it is when the vendor makes one;
    with no vendor word (a runner's ``linux-4090``, a mining tool's ``6600XT``, ``3080 12G``),
    the consumer card whose number it is when one vendor's model has that number (the index
    keeps only numbers that name one model and its variants: ``6000`` names several boards
    and is no model number). A number that is the whole name is refused: lists write it as a
    pattern (HAMi's ``1080`` avoids the GTX 1080 Ti too, ComfyUI's ``1660`` matches the SUPER
    and the Ti)."""
    numbers = [t for t in state.tokens if t.piece.kind == "number"]
    vendors = {t.piece.value for t in state.tokens if t.piece.kind == "vendor"}
    tokens = state.tokens
    glued = [  # a number glued to the vendor or line word ("nvidia3080", Brown's
        # "geforce3090") or to a count before it (Lambda's "3x3090") is the model number
        t
        for t in numbers
        if t.piece.glued
        and tokens.index(t) > 0
        and tokens[tokens.index(t) - 1].piece.kind in ("vendor", "line", "count_x")
    ]
    if len(vendors) > 1 or not (len(glued) == 1 or len(numbers) == 1):
        return []
    token = glued[0] if glued else numbers[0]
    if token.piece.glued and not glued:
        return []
    entries = state.words.numbers.get(token.piece.value, [])
    makers = {a.vendor for a in entries}
    if not entries or len(makers) != 1 or (vendors and makers != vendors):
        return []
    if not vendors and (
        len(state.tokens) == 1  # the number alone: in a list it is a pattern ("1080" is
        # HAMi's "any 1080", GTX 1080 Ti included), not one card
        or not all(consumer_card(a) for a in entries)
    ):
        return []  # "8000 XT" is no Quadro RTX 8000: only a consumer card's number
    token.piece = replace(token.piece, kind="model")
    token.role = "model"
    return [token]


def _candidates(state: Read, models: list[Token]) -> list[Accelerator]:
    keys = list(dict.fromkeys(t.piece.value for t in models))
    entries = [state.words.words.get(k) or state.words.numbers[k] for k in keys]
    # Two words for one accelerator ("GH200 Grace Hopper") share an entry: either's entries,
    # narrowed later. Words with no entry in common name two accelerators.
    if any(not set(e) & set(entries[0]) for e in entries[1:]):
        named = list(dict.fromkeys(a.model for e in entries for a in e))
        raise refuse(state, f"it names more than one accelerator ({' and '.join(named)})", named)
    common = list(dict.fromkeys(a for e in entries for a in e))
    if _a_choice(state, models):
        named = list(dict.fromkeys(a.model for a in common))
        raise refuse(state, "it names a choice of boards ('/')", named)
    state.word = models[0].piece.text.upper()
    for token in models:
        token.meaning = " / ".join(dict.fromkeys(a.model for a in common))
    return common


def _a_choice(state: Read, models: list[Token]) -> bool:
    """Whether a '/' offers a choice in the part of the name the model is in: a model or a
    number on each side of it (``Quadro RTX 6000/8000``, ``A100/H100``), or a memory size on
    each side (``GH200 96GB / 144GB``). A '/' between other
    words is a path (Nomad's ``nvidia/gpu/1080ti``, a Kubernetes resource's
    ``huawei.com/Ascend910B4``); the chip part of pci.ids' ``Aldebaran/MI200 [...]`` is none."""
    inside = models[0].piece.bracket
    parts = [t.piece for t in state.tokens if t.piece.bracket == inside]
    start, end = parts[0].start, parts[-1].end
    for slash in (i for i in range(start, end) if state.text[i] == "/"):
        before = [p for p in parts if p.end <= slash]
        after = [p for p in parts if p.start > slash]
        kinds = {before[-1].kind, after[0].kind} if before and after else set()
        if len(after) > 1 and after[0].kind == "number" and after[1].kind in _HOST_KINDS:
            continue  # "1xL40S / 16 vCPU / 232GiB RAM": the machine's figures, no other board
        if kinds and (kinds <= {"model", "number"} or kinds <= {"memory"}):
            return True
    return False


#: Pieces that make the number before them a figure of the machine (``16 vCPU``).
_HOST_KINDS = frozenset({"host", "cpu"})


#: Words that make a name a laptop's GPU, a SKU of its own (the laptop SKUs the catalog carries
#: are read by their own spellings before this reader: ``RTX 4090 Laptop GPU``).
_LAPTOP_WORDS = frozenset({"mobile", "laptop", "notebook"})


#: Vendor words read only where they stand apart from the words around them.
_APART = frozenset({"nv"})
#: A number glued before a server's model (``32XE8545``: 32 XE8545 servers).
_SERVERS = re.compile(r"[0-9]+[a-z]{1,3}[0-9]{3,}")
#: A node count (``n56``) where the name's count is a DGX's or a node's own.
_NODES = re.compile(r"n[0-9]+")
#: A count of nodes as training configs write it (NeMo RL's ``..._4n_4gpu.gb300...``: 4 nodes
#: of 4 GPUs): the count the name gives is each node's.
_N_NODES = re.compile(r"[0-9]+n")


def _machine_count(state: Read, word: str) -> bool:
    """Whether an unknown word may count machines, so that the count the name gives may be
    each machine's: a number glued before a server's model (MLPerf's ``32XE8545-4xA100...``:
    32 servers of 4), a number of nodes (``4n``), or a node count beside a system word (a DGX,
    node or pool word: ``hpg.dgxb200x8.n56``)."""
    if _SERVERS.fullmatch(word) or _N_NODES.fullmatch(word):
        return True
    return _NODES.fullmatch(word) is not None and any(system_word(t) for t in state.tokens)


def _count_apart(state: Read) -> bool:
    """Whether every count the name gives follows a version that closes the name of a
    system around the model (Azure's ``ND_H200_v5 x64``: 64 VMs of the ND_H200_v5 size, not
    64 H200s), so that it may count those systems."""
    tokens = state.tokens
    places = [i for i, t in enumerate(tokens) if t.role == "model"]
    for _, token in state.counts:
        at = tokens.index(token)
        between = [tokens[k] for m in places for k in range(min(at, m) + 1, max(at, m))]
        if not any(t.piece.kind == "version" for t in between):
            return False
    return True


def _read_unknown(state: Read, models: list[Token]) -> None:
    vocab = vocabulary()
    counted = bool(state.counts)
    last = state.tokens.index(models[-1])
    for i, token in enumerate(state.tokens):
        if token.role:
            continue
        piece = token.piece
        if piece.truncated and piece.kind == "unknown":
            whole = vocab.starting_with(piece.value)
            if whole:
                kind = vocab.get(whole[0])[0]  # type: ignore[index]
                token.role = KIND_ROLE.get(kind, "noise")
                token.meaning = f"cut short: {whole[0]}"
                continue
        short = piece.glued or len(piece.value) <= 3 or piece.value.isdigit()
        if (
            i == last + 1
            and short
            and piece.kind in ("unknown", "number", "vgpu", "topology", "decimal")
        ):
            token.role = "variant"
            token.meaning = "right after the model: a variant the catalog does not carry?"
        elif piece.kind == "unknown" and piece.value in _LAPTOP_WORDS:
            # "Quadro_P2000_Mobile_tp1": a laptop's GPU of that name, never a system around it
            token.role = "variant"
            token.meaning = "a laptop's GPU: a SKU of its own, which the catalog does not carry"
        elif piece.kind == "unknown" and piece.value == "drive" and model_ahead(state, token):
            # MLPerf's "Drive-A100-PCIex1": NVIDIA DRIVE's automotive A100, another product
            token.refusal = "names NVIDIA DRIVE's automotive part, which the catalog lacks"
        elif piece.kind == "unknown" and counted and _machine_count(state, piece.value):
            # MLPerf's "32XE8545-4xA100...", "hpg.dgxb200x8.n56": 32 servers, 56 DGX nodes
            token.refusal = "could count the machines: the count given may be per machine"
        elif piece.kind == "unknown" and counted and _count_apart(state):
            # Azure's "ND_H200_v5 x64": 64 VMs of the ND_H200_v5 size, not 64 H200s
            token.refusal = (
                "is no word it can place, and the count stands apart from the model: "
                "it may count machines"
            )
        elif piece.kind == "unknown" and counted:
            token.role = "system word"
            token.meaning = "the system around the accelerators (the name states the count)"
        elif piece.kind == "unknown" and system_own_word(state, token):
            if device_names():
                token.role = "system word"
                token.meaning = "the system's own word (its names are one device each)"
            else:  # a node's or a mixed list's name: it may name the machine
                token.refusal = MAY_NAME_A_MACHINE


def _reported(state: Read, reported: Callable[[str], NameMatch | None]) -> NameMatch | None:
    plain = ("vendor", "product line", "model", "memory", "memory type", "form factor", "edition")
    if any(t.role not in plain for t in state.tokens):
        return None
    return reported(" ".join(t.piece.text for t in state.tokens))
