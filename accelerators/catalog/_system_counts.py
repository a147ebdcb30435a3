"""Names whose device count is their system's to say: the spec must state it.

An instance size (``gpua5000.medium`` is 2 RTX A5000s on Exoscale, ``gpu-a40-large`` 1 A40 on
Replicate), a scheduler queue's word (an HPC site's ``gpu_v100_long``, ``gpu_p100_debug``) or
a node or pool word (OpenPAI's ``K80-NODE`` is a node of 4 K80s, its ``K80-NODE-POOL`` 16, its
``DGX1-V100-CPU-SOCKET`` the 4 V100s of one CPU socket; a CI runner label such as
``amd-mi350-runner``) stands for as many devices as the system gives it; reading one device
would be silently wrong where it has more. Such a name reads (its
model, memory and form are its own), but the count is left to the spec:
``gpua5000.medium:2``. A count the name states as devices (``x8``, ``8x``, ``8-gpu``) is the
count; a bare number next to a node word (``3-K80-NODE``) may count nodes, so it does not
settle it; beside a queue's word any count does (``gpuA100x4-interactive``).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from accelerators._text import quote
from accelerators.catalog._azure_sizes import azure_family
from accelerators.catalog._dgx import dgx_size
from accelerators.catalog._system_words import host_word

if TYPE_CHECKING:
    from collections.abc import Iterable

    from accelerators.catalog._narrow import Read, Token
    from accelerators.catalog._schema import Accelerator
    from accelerators.catalog._spellings import NameMatch

__all__ = ["left_to_system", "machine_count", "per_machine", "system_word"]

#: Instance sizes that may set the device count.
_COUNT_SIZES = frozenset(
    ("nano", "micro", "tiny", "small", "medium", "large", "xlarge", "xxlarge", "xl", "xxl")
)
#: A whole or half machine, as the last word of a flavour (BMRC's OpenStack "v100-full", a
#: node of 3 V100s); elsewhere prose ("Full Height", "half precision").
_PART_SIZES = frozenset(("full", "half"))
#: Words for a machine or a group of machines: how many devices it has is the system's.
_NODE_WORDS = frozenset(
    # a DGX system or an HGX baseboard holds as many GPUs as its model (DGX A100: 8)
    (
        "node",
        "nodes",
        "pool",
        "nodepool",
        "runner",
        "runners",
        "dgx",
        "hgx",
        "dgx1",
        "dgx2",
        "dgx2h",
    )
)
#: Words that say a chip word is Apple's: the vendor, its machines, the chip's tiers.
_APPLE_WORDS = frozenset(("apple", "mac", "macos", "macbook", "imac", "pro", "max", "ultra"))
_LETTERS = re.compile(r"[a-z]+")
#: A CPU socket's part of a node (OpenPAI's ``DGX1-V100-CPU-SOCKET``: the 4 V100s of a socket).
_SOCKET_WORDS = frozenset(("socket", "sockets"))


def left_to_system(state: Read) -> str:
    """Why the spec must give the count (the word that leaves it to the system), or ''."""
    nodes = [t for t in state.tokens if system_word(t)] + _compute_node(state)
    if nodes and not _device_count(state):
        return _needs(state, nodes[0], "a node or pool")
    queues = [t for t in state.tokens if _is_queue(t)]
    if queues and not state.counts:  # "gpuA100x4-interactive": the partition's nodes hold 4
        return _needs(state, queues[0], "a scheduler queue's word")
    lead = _host_prefix(state)
    if lead is not None:  # "gpu_h200": Yale's partition of 8-GPU nodes, in a list of kinds
        return _needs(
            state, lead, "a word hosts' and partitions' names start with (names may be nodes)"
        )
    family = azure_family(state.tokens)
    if family is not None and not state.counts:  # Azure Local's "Standard_NC32_A30": 2 A30s
        return _needs(state, family, "an Azure size's family and vCPUs")
    if state.counts:
        return ""
    for token in state.tokens:
        # a pci.ids chip's "GL-XL" is no instance size, nor is a size glued to the model
        if _is_size(token) and token.role != "chip":
            return _needs(state, token, "an instance size")
    last = state.tokens[-1]
    if _is_word(last, "sizes", _PART_SIZES) and len(state.tokens) > 1:
        return _needs(state, last, "an instance size")
    return ""


def _host_prefix(state: Read) -> Token | None:
    """The processor word a name starts with, set apart right before its model (``gpu-l40``,
    ``gpu_h200``), where names may be nodes and the name states no count and no host figure:
    clusters name partitions and hosts so, as clouds and schedulers name one device's type (a
    list of several kinds says neither). Glued (Exoscale's ``gpua5000``) or beside the host's
    figures (``gpu-t4-16g-12cpu-128g``, a cloud's flavour) it is an instance type's."""
    tokens = state.tokens
    first, model = tokens[0], tokens[1] if len(tokens) > 1 else None
    if state.counts or model is None or model.role != "model":
        return None
    if model.piece.glued or any(t.role == "host figure" for t in tokens):
        return None
    return first if host_word(first) else None


def per_machine(candidates: Iterable[Accelerator], text: str) -> int | None:
    """How many of the device a machine holds where every candidate's product fixes it alike
    (an Apple chip, a Jetson module: one), so the node's name ``text`` need not state it; else
    None. An Apple chip counts so only where the name says it is Apple's (a vendor, Mac or tier
    word: ``APPLE M2``, ``m1_max``, ``macos-m1``): in a list of machines a bare ``M-2`` is as
    likely a size code (a cloud's memory-optimised ``M-2``, ``M-4``)."""
    accs = list(candidates)
    fixed = {acc.per_machine for acc in accs}
    if len(fixed) != 1:
        return None
    if all(acc.vendor == "apple" for acc in accs):
        words = set(_LETTERS.findall(text.casefold()))
        if not words & _APPLE_WORDS:
            return None
    return fixed.pop()


def machine_count(
    state: Read, candidates: list[Accelerator], match: NameMatch, needs: str
) -> NameMatch:
    """The match of a name whose count is its system's (``needs``, from :func:`left_to_system`):
    where its machine word fixes the count and the name states none, that count (``GB10/DGX
    Spark``: a DGX Spark has one GB10; ``GB200 NVL72``: the rack's 72; ``DGX H100``: 8); else
    no count, and the spec must give it (``3-K80-NODE``: 3 nodes?)."""
    machines = [t for t in state.tokens if system_word(t)]  # not a size: a slice of a machine
    fixed = (
        per_machine(candidates, state.text)
        or _rack_size(machines, candidates)
        or dgx_size(state, machines, candidates)
    )
    if machines and not state.counts and fixed:
        for token in machines:
            token.role = "noise"
            token.meaning = f"a machine, which holds {fixed} of this device"
        return replace(match, count=fixed)
    ec2 = None if machines or state.counts else _ec2_type(state, candidates)
    if ec2 is not None:
        return replace(match, count=ec2)
    return replace(match, needs_count=needs, count=None)


def _ec2_type(state: Read, candidates: list[Accelerator]) -> int | float | None:
    """The devices of an EC2 instance type that the model word and the instance size right
    after it make, where the instance table carries it with one of the candidates (TorchX's
    ``aws_trn1.2xlarge``, an MLPerf harness's ``INF1_6XLARGE``: the Trainium and Inferentia
    families are named for their chips); any other size stays the system's to count."""
    from accelerators.catalog._instances import get_instance

    for before, token in itertools.pairwise(state.tokens):
        if token.piece.kind != "size" or before.role != "model":
            continue
        row = get_instance(f"{before.piece.text}.{token.piece.text}".casefold())
        if row is None or row.cloud != "aws" or row.unit != "machine":
            continue
        if not any(row.accelerator in (acc.name, acc.model) for acc in candidates):
            continue
        token.role = "noise"
        token.meaning = f"with {before.piece.text!r}, EC2's {row.name}: {row.count:g} devices"
        return row.count
    return None


#: The smallest NVLink domain NVIDIA sells as a rack (GB200 NVL36); a smaller one names a GPU
#: or a board (DCGM's ``H20 NVL16`` is one GPU, ``HGX B300 NVL16`` a board of 8, and an
#: ``H200 NVL`` card is bridged 2- or 4-way), except beside a Grace superchip's GPU.
_SMALLEST_RACK = 36


def _rack_size(machines: list[Token], candidates: list[Accelerator]) -> int | None:
    """The GPUs of an NVLink domain where it is the name's one machine word and no count is
    stated: a rack's (``GB200 NVL72``: 72 GPUs), or any domain of a Grace superchip's GPUs,
    which NVIDIA names by its GPUs (the GB200 NVL4 board: 2 Grace CPUs and 4 Blackwell GPUs,
    NVIDIA's SC24 announcement; the GH200 NVL2: 2 GH200 superchips). Counted racks (``39x
    NVIDIA GB200 NVL72``) and other machine words leave the count to the spec."""
    sizes = {int(t.piece.groups[0]) for t in machines if t.piece.kind == "rack"}
    if len(sizes) != 1 or len(machines) != 1:
        return None
    size = sizes.pop()
    superchips = bool(candidates) and all(
        "superchip" in acc.form_factor.casefold() for acc in candidates
    )
    return size if size >= _SMALLEST_RACK or (superchips and size > 0) else None


def _is_size(token: Token) -> bool:
    """An instance size: ``large``, or a numbered one (Saturn Cloud's ``V100-8XLarge`` is 4
    V100s, its ``V100-16XLarge`` 8: the number sizes the machine, it counts no devices)."""
    piece = token.piece
    if piece.kind == "size":
        return not piece.glued and not piece.bracket
    return _is_word(token, "sizes", _COUNT_SIZES)


def _is_word(token: Token, group: str, words: frozenset[str]) -> bool:
    piece = token.piece
    return (
        piece.kind == "noise"
        and piece.value == group
        and not piece.glued
        and not piece.bracket  # pci.ids' "GB100 [HGX GB200]": the board's name
        and "".join(ch for ch in piece.text.casefold() if ch.isalnum()) in words
    )


def system_word(token: Token) -> bool:
    """A node, pool, runner, DGX or HGX word, a CPU socket, or a rack's NVLink domain
    (``GB300 NVL72`` is a rack of that many GPUs): a part of a system whose count is its own."""
    piece = token.piece
    if piece.kind == "rack":
        return True
    socket = piece.kind == "cpu" and piece.text.casefold() in _SOCKET_WORDS and not piece.glued
    return socket or _is_word(token, "platforms", _NODE_WORDS)


def _compute_node(state: Read) -> list[Token]:
    """A leading ``compute`` right before the model: a compute node's or flavour's name
    (NREC's OpenStack ``compute-l40s``, nodes of 4 L40S), where after the model it is the
    card's mode (``Tesla T4 compute``, ``A40 (compute mode)``)."""
    from accelerators.catalog._number_marks import model_ahead  # the reader's: loaded with it

    first = state.tokens[0]
    piece = first.piece
    plain = not piece.glued and not piece.bracket and piece.text.casefold() == "compute"
    return [first] if plain and model_ahead(state, first) else []


def _is_queue(token: Token) -> bool:
    """A scheduler queue's or partition's word (``gpu_v100_long``): a partition, whose nodes
    hold as many devices as the system gives them, unless the name states a count."""
    return token.piece.kind == "noise" and token.piece.value == "queues" and not token.piece.bracket


def _device_count(state: Read) -> bool:
    """Whether the name states a count of devices: ``x8``, ``8x``, or a number before a
    device word (``8-gpu``). A count before a system word counts systems (``8x DGX A100``,
    ``1024x NVIDIA HGX H100``: a vendor between them), and one before the model of a rack's
    NVLink domain counts racks (``39x NVIDIA GB200 NVL72``)."""
    tokens = state.tokens
    models = [i for i, t in enumerate(tokens) if t.role == "model"]
    racks = any(t.piece.kind == "rack" for t in tokens)
    for _, token in state.counts:
        following = tokens.index(token) + 1
        while following < len(tokens) and tokens[following].piece.kind in ("vendor", "line"):
            following += 1
        nxt = tokens[following] if following < len(tokens) else None
        if nxt is not None and system_word(nxt):
            continue  # "8x DGX A100": 8 systems, not 8 GPUs
        if racks and models and tokens.index(token) < models[0]:
            continue  # "39x NVIDIA GB200 NVL72": 39 racks of 72, not 39 GPUs
        if token.piece.kind in ("x_count", "count_x"):
            return True
        if nxt is not None and nxt.role == "count marker":
            return True
    return False


def _needs(state: Read, token: Token, what: str) -> str:
    token.role = "instance size"
    token.meaning = f"{what}: its device count is the system's, the spec must give it (:N)"
    return (
        f"{quote(token.piece.text)} in {quote(state.text)} is {what}, and how many devices it "
        f"has is the system's to say: give the count ({quote(state.text + ':N')})"
    )
