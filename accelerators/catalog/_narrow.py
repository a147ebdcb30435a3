"""The token reader's second half: the state of a reading, and how the placed tokens narrow
the candidates to one entry, or to a family of models, with its count and partition.

See :mod:`accelerators.catalog._reader` for the roles; this module turns them into a
:class:`~accelerators.catalog._spellings.NameMatch` or a refusal that says which token
conflicts with what the catalog has.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from accelerators._text import format_number, implausible_count, quote
from accelerators._vendors import CLOUD_VENDORS
from accelerators.catalog._count_scope import count_scope
from accelerators.catalog._modelwords import ModelWords, words_of
from accelerators.catalog._reading import TokenReading
from accelerators.catalog._segment import Piece
from accelerators.catalog._sku_forms import SKU_FORM, of_forms
from accelerators.catalog._spellings import NameMatch, tpu_slice
from accelerators.catalog._vgpu import consumer_card, profile_share
from accelerators.errors import UnknownAcceleratorError

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = [
    "UNITS",
    "Read",
    "Token",
    "capability",
    "count_of",
    "narrow",
    "refuse",
    "result",
    "without_model",
]


UNITS = {"gb": 1.0, "gib": 1.0, "g": 1.0, "gi": 1.0, "tb": 1000.0, "mb": 0.001, "vram": 1.0}
UNITS["gbvram"] = 1.0


#: Memory sizes within this much of a catalog figure are that figure (Together's 140gb H200).
_MEMORY_SLACK = 0.01


@dataclass
class Token:
    piece: Piece
    role: str = ""
    meaning: str = ""
    number: float = 0.0
    #: Why the token refuses the name, set where a rule leaves it unplaced on purpose
    #: ("follows the model: host cores, or a profile of the board?"); the refusal says it
    #: after the token.
    refusal: str = ""


@dataclass
class Read:
    """One reading in progress: the tokens and what they said."""

    text: str
    tokens: list[Token]
    words: ModelWords
    counts: list[tuple[float, Token]] = field(default_factory=list)
    memory: list[Token] = field(default_factory=list)
    #: The model word as written, upper case (``A100``): what messages call the candidates.
    word: str = ""
    slice_size: int | None = None

    def trace(self) -> list[TokenReading]:
        return [
            TokenReading(t.piece.text, t.piece.start, t.piece.end, t.role or "unplaced", t.meaning)
            for t in self.tokens
        ]


#: NVIDIA's architectures before Turing, whose cards no RTX name is of (the RTX brand came
#: with Turing, 2018): "RTX" beside a Pascal Quadro's model ("rtxp6000") is another card.
_BEFORE_RTX = frozenset(("Fermi", "Kepler", "Maxwell", "Pascal", "Volta"))


def narrow(state: Read, candidates: list[Accelerator]) -> list[Accelerator]:
    """Keep the candidates every vendor, architecture, memory, form and edition word fits."""
    for token in state.tokens:
        kind, value = token.piece.kind, token.piece.value
        if kind in ("vendor", "line"):
            keep = [a for a in candidates if a.vendor == value]
            if not keep and kind == "vendor" and value in CLOUD_VENDORS:
                # a cloud that also makes chips, beside another's board: where it runs
                # (DAWNBench's "1 K80 / AWS p2.xlarge", Friendli's "aws-a100")
                token.role, token.meaning = "noise", "a cloud: where the board runs"
                continue
            candidates = _fits(state, candidates, keep, f"is made by {token.meaning}")
            if token.piece.text.casefold() == "quadro":  # "QUADRO-V100": no Tesla board is one
                keep = [a for a in candidates if not a.family.startswith("Tesla ")]
                candidates = _fits(state, candidates, keep, "is a Quadro card")
            elif token.piece.text.casefold() == "rtx":  # "rtxp6000": no Pascal card is an RTX
                keep = [a for a in candidates if a.architecture not in _BEFORE_RTX]
                candidates = _fits(state, candidates, keep, "is an RTX card")
        elif kind == "architecture":
            keep = [a for a in candidates if a.architecture.casefold().startswith(value)]
            candidates = _fits(state, candidates, keep, f"is a {value.title()} part")
        elif kind == "compute_capability":
            said = capability(token.piece.groups[0])
            keep = [a for a in candidates if _has_capability(a, said)]
            candidates = _fits(state, candidates, keep, f"has compute capability {said}")
        elif kind == "memory_type":  # "HBM" alone is any HBM generation; "HBM2e" is one
            keep = [a for a in candidates if _memory_of_type(a, value)]
            candidates = _fits(state, candidates, keep, f"has {value.upper()} memory")
        elif kind == "device" and value.startswith("tpu"):
            keep = [a for a in candidates if a.device_class == "tpu"]
            candidates = _fits(state, candidates, keep, "is a TPU")
    candidates = _by_memory(state, candidates)
    wanted = {
        SKU_FORM.get(t.piece.value, t.piece.value)
        for t in state.tokens
        if t.piece.kind in ("form", "edition")
    }
    wanted |= {"sxm" for t in state.tokens if t.piece.kind == "memory_sxm"}
    wanted |= {t.piece.value for t in state.tokens if t.piece.value == "vws"}
    if wanted:
        fitting = of_forms(candidates, wanted)
        if not fitting and wanted == {"vws"}:  # a vWS licence of a GPU the catalog lists once
            return candidates
        candidates = _fits(state, candidates, fitting, f"is {' '.join(sorted(wanted))}")
    return candidates


def _memory_of_type(acc: Accelerator, said: str) -> bool:
    """Whether ``acc``'s memory is of the type a name says: "HBM" is any HBM generation, and
    a catalog that gives only "HBM" (no generation: TPU v7) accepts any the name says."""
    own = (words_of(acc.memory_type) or [""])[0]
    if own == said:
        return True
    generic = [w for w in (own, said) if w and not any(c.isdigit() for c in w)]
    return bool(generic) and (own.startswith(generic[0]) or said.startswith(generic[0]))


def capability(digits: str) -> str:
    """An ``smNN`` number as a compute capability: ``75`` is 7.5, ``100`` 10.0, ``6`` 6 (any
    minor version)."""
    if len(digits) == 1:
        return digits
    return f"{digits[:-1]}.{digits[-1]}"


def _has_capability(acc: Accelerator, said: str) -> bool:
    own = acc.compute_capability or ""
    return own == said or ("." not in said and own.startswith(said + "."))


def _fits(
    state: Read, candidates: list[Accelerator], keep: list[Accelerator], what: str
) -> list[Accelerator]:
    if not keep:
        named = state.word or " / ".join(dict.fromkeys(a.model for a in candidates))
        raise refuse(state, f"no {named} in the catalog {what}")
    return keep


def _by_memory(state: Read, candidates: list[Accelerator]) -> list[Accelerator]:
    count = count_of(state, candidates)
    for token in state.memory:
        gb = token.number
        per = [a for a in candidates if _near(a.device_memory_gb, gb)]
        if per:
            candidates, token.meaning = per, token.meaning or f"{format_number(gb)} GB per device"
            continue
        devices = count or 1.0
        total = [a for a in candidates if devices > 1 and _near(a.device_memory_gb * devices, gb)]
        if total:
            token.role = "total memory"
            each = format_number(gb / devices)
            token.meaning = f"{format_number(gb)} GB in all: {each} GB x {format_number(devices)}"
            candidates = total
            continue
        boards = [
            a
            for a in candidates
            if a.devices_per_board > 1 and _near(a.device_memory_gb * a.devices_per_board, gb)
        ]
        if boards and count is None and len({a.devices_per_board for a in boards}) == 1:
            # a multi-GPU board's memory ("mi250-128gb"): the board, and the devices it holds
            holds = boards[0].devices_per_board
            token.role = "count"
            each = format_number(gb / holds)
            token.meaning = f"{format_number(gb)} GB: a board's, {each} GB x {holds} devices"
            state.counts.append((float(holds), token))
            candidates = boards
            continue
        sizes = ", ".join(
            sorted({format_number(a.device_memory_gb) for a in candidates}, key=float)
        )
        token.role = "unplaced"
        named = state.word or candidates[0].family
        raise refuse(
            state,
            f"no {named} in the catalog has {format_number(gb)} GB (it has {sizes} GB), nor is "
            f"{quote(token.piece.text)} their total",
        )
    return candidates


def _near(figure: float, gb: float) -> bool:
    return abs(figure - gb) <= max(0.5, figure * _MEMORY_SLACK)


def count_of(state: Read, candidates: Sequence[Accelerator] = ()) -> float | None:
    """The count the name gives, once, however often it is written (``8x H100 (8 GPUs)``).

    Counts glued in a row (FlagPerf's ``A100x1x1``, ``H100x8x8``: nodes by cards?) are one
    count where all but one are 1; ``x8x8`` (64, or 8?) is refused. Two counts that differ
    are refused, but for boards and the devices they hold, in brackets: ``4x A16 (16 GPUs)``
    is the 16 GPUs of 4 four-GPU boards."""
    counts = state.counts
    tokens = state.tokens
    if counts:
        why = count_scope([t.piece for t in tokens])
        if why:
            raise refuse(state, why)
    for value, token in counts:  # Lambda's "3970X-RadeonProVII": a Threadripper 3970X
        if implausible_count(value):
            raise refuse(state, f"{quote(token.piece.text)} is likelier a CPU's model than a count")
    glued = [(v, t) for v, t in counts if t.piece.kind == "x_count"]
    for (first, a), (second, b) in itertools.pairwise(glued):
        if tokens.index(b) == tokens.index(a) + 1:
            if first != 1 and second != 1:
                raise refuse(state, f"it gives two counts in a row ({a.piece.text}{b.piece.text})")
            one = a if first == 1 else b
            counts = [(v, t) for v, t in counts if t is not one]  # x1x8, x8x1: 8 either way
    values = {value for value, _ in counts}
    per_board = {a.devices_per_board for a in candidates}
    bracketed = {t.piece.paren for _, t in counts}
    if len(values) == 1 and bracketed == {True, False} and per_board != {1}:
        # "2x MI250 (2 GCD)": two boards hold 4 dies; 2 dies, or 2 per board?
        raise refuse(state, "it gives a count of boards and, in brackets, as many devices")
    if len(values) == 2 and len(per_board) == 1:
        boards, devices = sorted(values)
        inner = [t for value, t in counts if value == devices]
        if boards * next(iter(per_board)) == devices and all(t.piece.paren for t in inner):
            for value, token in counts:  # said again on each call: the same words each time
                whose = "devices, the boards hold" if value == devices else "boards"
                token.meaning = f"{format_number(value)} {whose}"
            return devices
    if len(values) > 1:
        shown = " and ".join(format_number(v) for v in sorted(values))
        raise refuse(state, f"it gives two counts ({shown})")
    return values.pop() if values else None


def without_model(state: Read) -> NameMatch | None:
    """A name with no model word: a short MIG device name (``MIG 1g.12gb``) whose profile one
    catalog model has, or nothing (the caller says so, with close matches)."""
    profiles = [t for t in state.tokens if t.piece.kind == "mig"]
    rest = [
        t
        for t in state.tokens
        if t.piece.kind not in ("mig", "partition", "vendor", "noise", "device")
    ]
    if len(profiles) != 1 or rest:
        return None
    profile = profiles[0].piece.value
    having = [a for a in model_words_entries(state) if profile in a.partitions]
    models = list(dict.fromkeys(a.model for a in having))
    if not models:
        return None
    if len({a.family for a in having}) != 1:
        raise refuse(
            state, f"MIG profile {profile} is a slice of {' or '.join(models)}", tuple(models)
        )
    # one model, or the models of one family (H200-SXM, H200-NVL: "1g.35gb"), read as a bare
    # model name leaves its form open: the family
    firsts = [_default(state, [a for a in having if a.model == m]) for m in models]
    profiles[0].meaning = f"MIG profile {profile}: only {' or '.join(models)} has it"
    return NameMatch(firsts[0], False, None, profile, "reader", family=tuple(firsts[1:]))


def model_words_entries(state: Read) -> list[Accelerator]:
    return state.words.entries


#: Sharing words that name a vGPU, which MIG may back (NVIDIA's MIG-backed vGPU types).
_VGPU_WORDS = frozenset({"vgpu", "vgpus"})


def result(state: Read, candidates: list[Accelerator], *, pinned_by_report: bool) -> NameMatch:
    count = count_of(state, candidates)
    partition = next((t.piece.value for t in state.tokens if t.piece.kind == "mig"), None)
    said_mig = [t for t in state.tokens if (t.piece.kind, t.piece.value) == ("partition", "mig")]
    if said_mig and partition is None:
        # OpenXLA's "h100_sxm_mig": a slice, of what size? never the whole board
        raise refuse(state, f"{quote(said_mig[0].piece.text)} names a MIG slice but no profile")
    if partition is not None:
        having = [a for a in candidates if partition in a.partitions]
        candidates = _fits(state, candidates, having, f"has MIG profile {partition}")
    sharing = [t for t in state.tokens if t.piece.kind == "sharing"]
    if sharing and partition is not None:
        # a MIG-backed vGPU ("vgpu.a100.2g.20gb") is that one instance; time-slicing is not
        if any(t.piece.value not in _VGPU_WORDS for t in sharing):
            raise refuse(state, "it names both a MIG profile and a shared slot")
        for token in sharing:
            token.meaning = f"the vGPU on the MIG instance {partition}"
    elif sharing:
        if all(consumer_card(a) for a in candidates) and any(
            t.piece.value in _VGPU_WORDS for t in sharing
        ):
            # NVIDIA's vGPU runs on data-centre and professional boards, no GeForce: a "vGPU
            # (RTX 4090)" is some other card (GPU-Insights' memory-modified ones)
            raise refuse(state, "NVIDIA's vGPU runs on no consumer card")
        partition = "shared"
    models = list(dict.fromkeys(a.model for a in candidates))
    firsts = [_default(state, [a for a in candidates if a.model == m]) for m in models]
    acc = firsts[0]
    skus = [a for a in candidates if a.model == acc.model]
    said = any(t.piece.kind in ("form", "edition", "memory_sxm") for t in state.tokens)
    pinned = pinned_by_report or (
        len(models) == 1 and said and len(skus) == 1 and len(_siblings(state, acc)) > 1
    )
    if pinned and len(skus) == 1:
        acc = skus[0]
    vgpu = next((t for t in state.tokens if t.role == "vgpu profile"), None)
    if vgpu is not None:
        share = profile_share(vgpu.number, acc)  # the whole framebuffer (T4-16C) is one GPU
        if len(models) > 1 or share is None:
            raise refuse(
                state,
                f"a {format_number(vgpu.number)} GB vGPU profile is no share of one {acc.model}",
            )
        count = (count or 1) * share
    if state.slice_size is not None:
        whole = NameMatch(acc, pinned, None, None, "reader")
        return _one_slice(state, tpu_slice(whole, state.slice_size, state.text), count)
    topology = next((t.piece.value for t in state.tokens if t.role == "topology"), None)
    if topology is not None:
        shape = acc.tpu_topology(topology)
        if shape is None:
            raise refuse(state, f"{acc.name} has no {topology} topology")
        return _one_slice(state, NameMatch(acc, pinned, shape.chips, topology, "reader"), count)
    value = None if count is None else (int(count) if float(count).is_integer() else count)
    devices = count is not None and _counts_devices(state, count)
    return NameMatch(
        acc, pinned, value, partition, "reader", family=tuple(firsts[1:]), devices=devices
    )


def _one_slice(state: Read, sliced: NameMatch, count: float | None) -> NameMatch:
    """A TPU slice's match, unless the name also counts something else: beside a slice, a
    count counts slices (a TPU recipe's ``4x-v6e-256`` is four slices of 256 chips, 1024 in
    all), which one slice's spec cannot hold, so the name is refused, never read as one."""
    if count is None or count == sliced.count:
        return sliced
    said = next((t.piece.text for value, t in state.counts if value == count), None)
    raise refuse(
        state,
        f"{quote(said or format_number(count))} beside a TPU slice counts slices (a "
        "multislice), and a spec holds one slice",
    )


def _counts_devices(state: Read, count: float) -> bool:
    """Whether the name's count counts devices rather than boards: a board's memory, a
    bracketed count (``(2 GPUs)``, ``(8 GCD)``), a number before a device word."""
    for value, token in state.counts:
        if value != count:
            continue
        if token.piece.kind == "memory" or token.piece.paren:
            return True
        following = state.tokens.index(token) + 1
        if following < len(state.tokens) and state.tokens[following].piece.kind == "device":
            return True
    return False


def _siblings(state: Read, acc: Accelerator) -> list[Accelerator]:
    return state.words.by_model.get(acc.model, [])


def _default(state: Read, skus: list[Accelerator]) -> Accelerator:
    every = _siblings(state, skus[0])
    return next((a for a in every if a.default_for_model and a in skus), skus[0])


def refuse(
    state: Read, why: str, suggestions: tuple[str, ...] | list[str] = ()
) -> UnknownAcceleratorError:
    return UnknownAcceleratorError(
        f"Cannot read accelerator name {quote(state.text)} exactly: {why}. A name is read only "
        "when every part of it is accounted for (accelerators parse --explain shows the reading)",
        name=state.text,
        suggestions=tuple(suggestions),
    )
