"""The marks that say what a number of a name is, for :mod:`._numbers`: its neighbours, a host
figure beside it, a device word after it, a PCIe link's width, an NVIDIA vGPU profile's size,
an operating system's release, an ML model's size."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from accelerators.catalog._narrow import Read, Token
from accelerators.catalog._vgpu import consumer_card, no_nvidia_vgpu

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = [
    "BEFORE_MODEL",
    "PCIE_VERSIONS",
    "after",
    "after_letters",
    "compute_profile",
    "counted_by_plural",
    "gpu_cores",
    "is_host",
    "last_but_host",
    "machine_vcpus",
    "marks_count",
    "model_ahead",
    "model_size",
    "next_to_number",
    "next_token",
    "os_release",
    "pcie_lanes",
    "prev_token",
    "profile_or_cores",
    "size_ahead",
    "vgpu_profile",
    "x64_architecture",
]


def next_token(state: Read, token: Token) -> Token | None:
    i = state.tokens.index(token)
    return state.tokens[i + 1] if i + 1 < len(state.tokens) else None


def after(state: Read, token: Token) -> list[Token]:
    return state.tokens[state.tokens.index(token) + 1 :]


def last_but_host(state: Read, token: Token) -> bool:
    """Whether only form factors, or host figures with their numbers, follow ``token``: it
    ends the device's part of the name (FlagPerf's ``A100_40_SXM``; ModelZ's
    ``nvidia-ada-l4-2-24c-96g``: 2 L4s, then 24 vCPUs and 96 GB of RAM)."""
    later = after(state, token)
    ram = [
        i for i, t in enumerate(later) if t.piece.kind == "memory" and i and is_host(later[i - 1])
    ]
    if any(t.piece.kind != "form" for t in later) and not ram:
        return False  # "l4-1-8c": 8 cores, or the L4-8C vGPU profile? (a RAM size says cores)
    return all(t.piece.kind in ("form", "vcpu") or i in ram for i, t in enumerate(later))


def model_ahead(state: Read, token: Token) -> bool:
    """Whether the model comes next after ``token``, past vendor, line and architecture words."""
    for later in state.tokens[state.tokens.index(token) + 1 :]:
        if later.role not in BEFORE_MODEL:
            return later.role == "model"
    return False


def prev_token(state: Read, token: Token) -> Token | None:
    i = state.tokens.index(token)
    return state.tokens[i - 1] if i > 0 else None


#: PCIe's versions, as a board's option name writes them after "PCIe" ("PCIe 4.0 x16").
PCIE_VERSIONS = frozenset(("1.0", "2.0", "3.0", "4.0", "5.0", "6.0"))


def pcie_lanes(prev: Token | None, width: float) -> bool:
    """Whether an ``xN`` after ``prev`` is a PCIe link's width: any after PCIe's version
    (``PCIe 4.0 x8``, ``Gen4 x16``, ``PCIe5 x8``), and ``x16`` right after ``PCIe``: a card's
    slot. A bare ``PCIe x8`` may count eight PCIe cards, and stays a count."""
    if prev is None:
        return False
    piece = prev.piece
    if piece.kind == "interconnect" and piece.value.startswith("gen"):
        return True
    if piece.kind == "decimal" and prev.role == "interconnect":  # "4.0", read as PCIe's version
        return True
    if (piece.kind, piece.value) != ("form", "pcie"):
        return False
    return width == 16 or piece.text[-1:].isdigit()  # "PCIe5": the version, glued


def x64_architecture(prev: Token | None, token: Token) -> bool:
    """Whether an ``x64`` is the CPU architecture, not 64 devices: right after an operating
    system's word, as CI runner labels write it (``[self-hosted, Linux, X64, gpu, b200]``,
    ``windows-x64``). Elsewhere (``H100 x64``) it stays a count."""
    if token.piece.text.casefold() != "x64" or prev is None:
        return False
    return (prev.piece.kind, prev.piece.value) == ("noise", "os")


def gpu_cores(state: Read, nxt: Token) -> bool:
    """Whether a number before ``nxt`` counts a chip's GPU cores: ``48 GPU Core(s)``."""
    if nxt.piece.kind != "device":
        return False
    after = next_token(state, nxt)
    return after is not None and after.piece.text.casefold() in ("core", "cores")


def next_to_number(prev: Token | None, nxt: Token | None) -> bool:
    return any(t is not None and t.piece.kind == "number" for t in (prev, nxt))


def after_letters(state: Read, token: Token) -> bool:
    """Whether ``token`` is glued to letters before it (``R470``: a server, not 470 GPUs)."""
    prev = prev_token(state, token)
    return token.piece.glued and prev is not None and prev.piece.text[-1:].isalpha()


def is_host(token: Token | None) -> bool:
    """A RAM or disk word, or a CPU figure: a size next to one is the machine's
    (``128vcpu-1600gb``, ``112c-2048gb``, ``1600gb ram``)."""
    if token is None:
        return False
    piece = token.piece
    if piece.kind == "host" and piece.value == "vcpu":  # "12xCPU-128GB": the CPU word of a figure
        return token.number is not None
    return (piece.kind == "host" and piece.value in ("ram", "disk")) or piece.kind == "vcpu"


def marks_count(word: str, candidates: list[Accelerator]) -> bool:
    """Whether a device word right after a number makes it a count: ``8gpu``, ``8-way``,
    ``8 GCD`` (an AMD MI250's graphics compute dies, a GPU each to the OS), and ``4 cards``
    where every candidate's board is one device (4 K80 cards are 8 GPUs)."""
    if word.startswith("gpu") or word in ("way", "gcd", "gcds"):
        return True
    single = bool(candidates) and all(a.devices_per_board == 1 for a in candidates)
    return word in ("card", "cards") and single


def vgpu_profile(token: Token) -> None:
    """``4Q``, ``6C``: an NVIDIA vGPU profile of that many GB of the board's memory."""
    size, series = token.piece.groups[0], token.piece.groups[1].upper()
    token.role, token.number = "vgpu profile", float(size)
    token.meaning = f"a {size} GB vGPU profile ({series})"


def _lone_c_after_model(token: Token, prev: Token | None, nxt: Token | None) -> bool:
    """Whether ``4c`` follows the model word across a separator with no host figure after it:
    a vGPU profile's size, or host cores (``h100-16c-64gb``: 16 cores beside 64 GB of RAM)."""
    piece = token.piece
    if piece.groups[1] != "c" or prev is None or prev.role != "model" or piece.glued:
        return False
    return nxt is None or not (is_host(nxt) or nxt.piece.kind in ("memory", "vcpu"))


def profile_or_cores(
    token: Token, prev: Token | None, nxt: Token | None, candidates: list[Accelerator]
) -> bool:
    """Whether a lone ``4c`` after a data-centre board of another vendor than NVIDIA could as
    well be a profile of the board as 4 host cores (CloudStack's AMD ``mi210-4c`` is an SR-IOV
    profile): the name is refused."""
    return (
        _lone_c_after_model(token, prev, nxt)
        and bool(candidates)
        and all(a.vendor != "nvidia" and not consumer_card(a) for a in candidates)
    )


def compute_profile(
    token: Token, prev: Token | None, nxt: Token | None, candidates: list[Accelerator]
) -> bool:
    """Whether ``6C`` right after the model is an NVIDIA C-series vGPU profile (6 GB of the
    GPU's memory, NVIDIA's ``A30-6C``), not 6 host cores: it follows the model word across a
    separator, nothing after it is a host figure, and every candidate is a board vGPU runs on
    with at least that much memory."""
    if not _lone_c_after_model(token, prev, nxt):
        return False
    size = float(token.piece.groups[0])
    # NVIDIA vGPU runs on NVIDIA's data-centre and professional boards, never a GeForce card
    # (whose "4C" is something else: UCloud's 2080Ti-4C) nor another vendor's (CloudStack's
    # AMD "mi210-4c" is an SR-IOV profile whose size its docs do not give)
    return bool(candidates) and all(
        0 < size <= a.device_memory_gb and not no_nvidia_vgpu(a) for a in candidates
    )


def size_ahead(value: float, candidates: list[Accelerator]) -> bool:
    """Whether a bare number before the model may be its memory as well as its count: a
    size one of the candidates has (h2oGPT's ``24-RTX 3090`` is the card's 24 GB), or a number
    past 8 that no machine holds as many devices as (``45-RTX A6000``: its GiB rounded down;
    machines hold 8, 12 or 16: a multiple of 4, as in ``12-Inf2``, an inf2.48xlarge)."""
    if any(acc.memory_gb == value for acc in candidates):
        return True
    return value > 8 and (not value.is_integer() or value % 4 != 0)


#: Words that may stand between a count and its model: "2 Tesla T4", "8 NVIDIA A100".
BEFORE_MODEL = frozenset({"vendor", "product line", "architecture"})
#: Pieces that may stand beside the model between a prose count and its plural device word:
#: "384 NVIDIA A100 40GB SXM4 GPUs".
_QUALIFIERS = frozenset({"memory", "form", "memory_type", "interconnect", "vendor", "line"})


def counted_by_plural(state: Read, token: Token) -> bool:
    """Whether a whole number before the model counts devices because a device word in the
    plural after the model says so, as prose writes how many a run used: "384 A100 40GB GPUs",
    "4 80GB A100 GPUs", "5000 NVIDIA H100 GPUs". The plural says the number counts them, however
    large (a paper's 3072 GPUs), and however it compares with a memory size (a number of GPUs is
    no size of one); only memory, vendor and line words may stand between."""
    piece = token.piece
    value = float(piece.value)
    if piece.kind != "number" or piece.glued or not value.is_integer() or value < 1:
        return False
    seen_model = False
    for later in after(state, token):
        kind = later.piece.kind
        if later.role == "model" and not seen_model:
            seen_model = True
        elif not seen_model and (later.role in BEFORE_MODEL or kind in _QUALIFIERS):
            continue
        elif not seen_model and kind == "device" and later.piece.value.startswith("tpu"):
            continue  # "1024 TPU-V3 chips": the TPU word before its generation
        elif seen_model and kind == "device":
            return later.piece.text.lower().endswith("s") and len(later.piece.text) > 3
        elif seen_model and kind in _QUALIFIERS:
            continue
        else:
            return False
    return False


#: An Ubuntu-style release, YY.04 or YY.10 (or glued, 2204), as runner labels write it.
_RELEASE = re.compile(r"(1[4-9]|2[0-9]|30)\.?(04|10)")


def os_release(prev: Token, value: str) -> bool:
    """Whether a number right after an operating system's name is its release
    (``ubuntu-22.04``, ``ubuntu-2204``): never a count, and no model number has that form."""
    is_os = (prev.piece.kind, prev.piece.value) == ("noise", "os")
    return is_os and _RELEASE.fullmatch(value) is not None


def model_size(prev: Token, letter: str) -> bool:
    """Whether an ``8b`` is the size of the ML model named before it (``llama3_8b``,
    ``gpt_oss_120b``): billions of parameters, not an NVIDIA vGPU profile."""
    named = (prev.piece.kind, prev.piece.value) == ("noise", "ml_models")
    return named and letter.lower() == "b"


#: A machine series in Google Compute Engine's machine types (``n1``, ``n2d``, ``c2``, ``a2``).
_GCE_SERIES = re.compile(r"[a-z]{1,2}[0-9][a-z]?")
#: The machine type's word before its vCPUs (``n1-standard-4``, ``n1-highmem-8``).
_GCE_TYPES = frozenset(("standard", "highmem", "highcpu"))


def machine_vcpus(state: Read, token: Token) -> bool:
    """Whether ``token`` is the vCPU count of a Compute Engine machine type written before the
    device (Conductor's ``n1-standard-4-t4-1``: 4 vCPUs and one T4), never a count of devices."""
    prev = prev_token(state, token)
    before = prev_token(state, prev) if prev is not None else None
    return (
        before is not None
        and prev is not None
        and prev.piece.text.casefold() in _GCE_TYPES
        and _GCE_SERIES.fullmatch(before.piece.text.casefold()) is not None
    )
