"""The token reader's numbers: counts, memory sizes, host figures and the numbers around them.

A number is read only when something marks what it is (see :mod:`._reader`'s docstring); what
follows are the marks. One shape is read as a whole: three bare numbers right after the model,
``gpu-l4-1-12-48`` or ``gpu-h100-8-252-1440``, are the count, the host's vCPUs and its RAM when
the first is a device count (1, 2, 4 or 8) and they rise (each host figure larger than the one
before): an instance shape written GPUs-vCPUs-GiB. Any other bare run stays unplaced.

>>> from accelerators.catalog._names import resolve_name
>>> found = resolve_name("gpu-h100-8-252-1440")
>>> [a.model for a in (found.accelerator, *found.family)], found.count
(['H100-SXM', 'H100-PCIE', 'H100-NVL'], 8)
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from accelerators._text import format_number, quote
from accelerators.catalog._count_scope import unsized_pod
from accelerators.catalog._narrow import UNITS, Read, Token, refuse
from accelerators.catalog._number_marks import (
    PCIE_VERSIONS,
    after_letters,
    compute_profile,
    counted_by_plural,
    gpu_cores,
    is_host,
    last_but_host,
    machine_vcpus,
    marks_count,
    model_ahead,
    model_size,
    next_to_number,
    next_token,
    os_release,
    pcie_lanes,
    prev_token,
    profile_or_cores,
    size_ahead,
    vgpu_profile,
    x64_architecture,
)
from accelerators.catalog._system_words import device_names, host_word
from accelerators.catalog._vgpu import MOST_B_SERIES_GB, no_nvidia_vgpu

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = ["read_numbers"]

#: The largest count a bare number may be where only its place marks it (before the model,
#: ``8-h100``, or ending an instance name); a larger one is a model number or a size.
_MAX_LAST_COUNT = 16
_MAX_BARE_COUNT = 64
#: The device counts the first number of a GPUs-vCPUs-RAM shape may be.
_SHAPE_COUNTS = frozenset({1.0, 2.0, 4.0, 8.0})


def _read_shape(state: Read, tpu: bool) -> None:
    """Three bare, separated numbers right after the model, a count then rising host figures."""
    tokens = state.tokens
    for i, token in enumerate(tokens[:-3]):
        run = tokens[i + 1 : i + 4]
        if tpu or token.role != "model" or len(tokens) > i + 4:
            continue
        if any(t.piece.kind != "number" or t.piece.glued for t in run):
            continue
        values = [float(t.piece.value) for t in run]
        if values[0] not in _SHAPE_COUNTS or not values[0] < values[1] < values[2]:
            continue
        first, vcpus, ram = run
        first.role, first.number = "count", values[0]
        first.meaning = f"{first.piece.value} devices (an instance shape: GPUs, vCPUs, RAM)"
        state.counts.append((values[0], first))
        vcpus.role, vcpus.meaning = "host figure", f"{vcpus.piece.value} vCPUs"
        ram.role, ram.meaning = "host figure", f"{ram.piece.value} GB of RAM"


def _unified_ram(nxt: Token | None, candidates: list[Accelerator]) -> bool:
    """Whether a size before a RAM word is the device's own memory: every candidate shares its
    memory with the CPU (a Jetson module, an Apple chip, a GH200), so the RAM is the device's."""
    if nxt is None or (nxt.piece.kind, nxt.piece.value) != ("host", "ram") or not candidates:
        return False
    if all("unified" in (a.memory_type or "") for a in candidates):
        nxt.role, nxt.meaning = "memory", "RAM the device shares with its CPU"
        return True
    return False


def read_numbers(state: Read, candidates: list[Accelerator]) -> None:
    """Counts, memory sizes and the numbers around them (see the module docstring)."""
    tpu = all(a.device_class == "tpu" for a in candidates)
    _read_shape(state, tpu)
    for token in state.tokens:
        piece, prev, nxt = token.piece, prev_token(state, token), next_token(state, token)
        kind = piece.kind
        if kind == "x_count" and pcie_lanes(prev, token.number):
            token.role = "interconnect"  # "PCIe x16", "PCIe 4.0 x16": a link of 16 lanes
            token.meaning = f"a PCIe link of {format_number(token.number)} lanes, no count"
        elif kind == "x_count" and x64_architecture(prev, token):
            token.role, token.meaning = "noise", "the x64 CPU architecture (after the OS), no count"
        elif kind == "x_count":
            state.counts.append((token.number, token))
        elif kind == "count_x":
            value = float(piece.groups[0])
            if nxt is not None and nxt.piece.kind == "cpu":
                token.role, token.meaning = "host figure", f"{piece.groups[0]} CPUs"
            elif nxt is not None and nxt.piece.kind == "host" and nxt.piece.value == "vcpu":
                # UpCloud's "GPU-12xCPU-128GB-1xL4": 12 vCPUs, not 12 devices
                token.role, token.meaning = "host figure", f"{piece.groups[0]} vCPUs"
                nxt.number = value  # the CPU word of a figure: a size beside it is the host's
            else:
                token.role, token.meaning, token.number = (
                    "count",
                    f"{piece.groups[0]} devices",
                    value,
                )
                state.counts.append((value, token))
        elif kind in ("number", "decimal") and not token.role:
            _read_number(state, token, prev, nxt, tpu, candidates)
        elif kind == "count_word" and not piece.glued and model_ahead(state, token):
            token.role, token.number = "count", float(piece.value)
            token.meaning = f"{piece.value} devices (a number word before the model)"
            state.counts.append((token.number, token))
        elif kind == "plural" and piece.glued and prev is not None and prev.role == "model":
            token.role = "count marker"
            token.meaning = f"the plural of {prev.piece.text!r}: the count says how many"
        elif kind == "memory" or kind == "memory_sxm":
            if kind == "memory":
                token.number = float(piece.groups[0]) * UNITS[piece.groups[1]]
            unified = _unified_ram(nxt, candidates)  # a Jetson's "(8 GB ram)": its memory
            if (is_host(prev) or is_host(nxt)) and not piece.value.endswith("vram") and not unified:
                token.role, token.meaning = (
                    "host figure",
                    f"{format_number(token.number)} GB of RAM",
                )
            else:
                token.role = "memory"
                state.memory.append(token)
        elif kind == "vcpu" and compute_profile(token, prev, nxt, candidates):
            vgpu_profile(token)  # NVIDIA's C-series (compute) vGPU: "A30-6C", "H100-40C"
        elif kind == "vcpu" and profile_or_cores(token, prev, nxt, candidates):
            token.role = ""  # refused: cores, or a profile of another vendor's board?
            token.meaning = "host cores, or a profile of the board?"
            token.refusal = f"follows the model: {token.meaning}"
        elif kind == "vgpu" and prev is not None and model_size(prev, piece.groups[1]):
            token.role, token.meaning = "noise", f"the size of {prev.piece.text}"
        elif kind == "vgpu":
            # a GeForce card, or another vendor's, has no NVIDIA vGPU profiles, and NVIDIA's
            # B-series (virtual PC) ones are small: "b200_26b" is a 26B model
            none = not candidates or any(no_nvidia_vgpu(a) for a in candidates)
            none = none or (
                piece.groups[1].lower() == "b" and float(piece.groups[0]) > MOST_B_SERIES_GB
            )
            if prev is not None and prev.role == "model" and not piece.glued and not none:
                vgpu_profile(token)
        elif kind == "topology":
            if tpu:
                token.role, token.meaning = "topology", f"a {piece.value} slice"
        elif kind == "unknown" and piece.value in UNITS and prev is not None:
            if prev.piece.kind == "number" and not piece.glued:  # "80 GB"
                first = prev.piece
                prev.piece = replace(
                    first,
                    end=piece.end,
                    kind="memory",
                    groups=(first.value, piece.value),
                    glued=False,
                    paren=False,
                    truncated=False,
                )
                token.role, token.meaning = "memory", "the unit of the size before it"
                prev.number = float(prev.piece.groups[0]) * UNITS[piece.value]
                if is_host(nxt) and not _unified_ram(nxt, candidates):  # "400 GB RAM": the host's
                    prev.role = token.role = "host figure"
                    prev.meaning = f"{format_number(prev.number)} GB of RAM"
                else:
                    prev.role = "memory"
                    state.memory.append(prev)
        elif kind == "unknown" and piece.value == "x" and next_to_number(prev, nxt):
            token.role, token.meaning = "count marker", "the x of a count"
    _read_parallel(state)
    if not tpu:
        _host_shapes(state)
    plural = _plural_without_count(state)
    if plural is not None:
        raise refuse(state, f"{quote(plural.piece.text)} ends a plural, but no count says how many")
    both = _plural_or_model(state)
    if both is not None:
        raise refuse(
            state,
            f"{quote(both.piece.text)} after a count could be the {both.piece.text.upper()} or "
            f"{both.piece.text[:-1].upper()}s (a plural)",
        )
    sized = state.counts or state.slice_size or any(t.role == "topology" for t in state.tokens)
    if not sized and (why := unsized_pod([t.piece for t in state.tokens], device_names())):
        raise refuse(state, why)  # "TPU v5e pod": 256 chips, never one
    for value, token in state.counts:
        if value <= 0:
            raise refuse(
                state, f"it asks for {format_number(value)} devices ({quote(token.piece.text)})"
            )


def _host_shapes(state: Read) -> None:
    """``8x32`` beside a stated count of another accelerator (GreenNode's
    ``g1-standard-8x32-2rtx2080ti``: 8 vCPUs and 32 GB for 2 RTX 2080 Ti) is the machine's
    shape. Where its first number is the count, it could say the devices again: left unplaced."""
    counts = {value for value, _ in state.counts}
    for token in state.tokens:
        if token.piece.kind != "topology" or token.role or not counts:
            continue
        first, *rest = token.piece.value.split("x")
        if len(rest) == 1 and float(first) not in counts and float(rest[0]) >= float(first):
            token.role = "host figure"
            token.meaning = f"the machine's shape: {first} vCPUs x {rest[0]} GB"


def _read_parallel(state: Read) -> None:
    """``tp4-pp2``: an inference profile's tensor- and pipeline-parallel degrees, read as one
    count, their product (4 x 2 = 8 devices). Each degree may be given once."""
    degrees = [t for t in state.tokens if t.piece.kind == "parallel"]
    if not degrees:
        return
    kinds = [t.piece.groups[0] for t in degrees]
    if len(set(kinds)) != len(kinds):
        raise refuse(
            state,
            "it gives a parallel degree twice ("
            + ", ".join(quote(t.piece.text) for t in degrees)
            + ")",
        )
    total = 1.0
    for token in degrees:
        what, value = token.piece.groups
        total *= float(value)
        token.role = "count"
        token.number = float(value)
        token.meaning = f"{'tensor' if what == 'tp' else 'pipeline'}-parallel degree {value}"
    degrees[0].meaning += f" (devices: {' x '.join(t.piece.groups[1] for t in degrees)})"
    state.counts.append((total, degrees[0]))


def _read_number(
    state: Read,
    token: Token,
    prev: Token | None,
    nxt: Token | None,
    tpu: bool,
    candidates: list[Accelerator],
) -> None:
    piece = token.piece
    value = float(piece.value)

    def count(why: str) -> None:
        token.role, token.number = "count", value
        token.meaning = f"{piece.value} devices ({why})"
        state.counts.append((value, token))

    if prev is not None and prev.piece.kind == "count_key":
        count(f"after {prev.piece.text!r}")
    elif machine_vcpus(state, token):  # GCE's "n1-standard-4-t4-1": 4 vCPUs, one T4
        token.role, token.meaning = "host figure", f"{piece.value} vCPUs (the machine type's)"
    elif prev is not None and os_release(prev, piece.value):  # "ubuntu-22.04", "ubuntu-2204"
        token.role, token.meaning = "noise", f"a release of {prev.piece.text}"
    elif nxt is not None and gpu_cores(state, nxt):  # Apple's "(48 GPU Core)": the chip's
        token.role, token.meaning = "host figure", f"{piece.value} GPU cores, no count"
        nxt.role = "device word"
    elif (
        piece.kind == "decimal"
        and prev is not None
        and (prev.piece.kind, prev.piece.value) == ("form", "pcie")
        and piece.value in PCIE_VERSIONS
    ):
        token.role, token.meaning = "interconnect", f"PCIe {piece.value}"
    elif (
        nxt is not None and nxt.piece.kind == "device" and marks_count(nxt.piece.value, candidates)
    ):
        count(f"before {nxt.piece.text!r}")
        nxt.role = "count marker"
    elif nxt is not None and nxt.piece.value == "x" and nxt.piece.kind == "unknown":
        count("before an x")
    elif prev is not None and prev.piece.value == "x" and prev.piece.kind == "unknown":
        count("after an x")
    elif prev is not None and prev.role == "model" and piece.glued and _x_suffix(prev.piece.value):
        count(f"the x of {prev.piece.text!r} marks it")
    elif (
        model_ahead(state, token)
        and piece.kind == "number"
        and not after_letters(state, token)
        and value <= _MAX_BARE_COUNT  # "nvidia-4000-a4000" is no 4000 A4000s
        and not size_ahead(value, candidates)
    ):
        count("right before the model")
    elif not after_letters(state, token) and counted_by_plural(state, token):
        count("before the model, which a plural device word follows")
    elif prev is not None and prev.role == "model" and tpu and not piece.glued:
        token.role, token.meaning = "count", f"a slice of {piece.value} (in the generation's units)"
        state.slice_size = int(value)
    elif prev is not None and prev.piece.kind == "cpu":
        token.role, token.meaning = "host figure", "a CPU model number"
    elif prev is not None and prev.piece.kind == "noise" and prev.piece.value == "frameworks":
        token.role, token.meaning = "noise", f"a version of {prev.piece.text}"
    elif nxt is not None and nxt.piece.kind == "host":
        token.role, token.meaning = "host figure", f"{piece.value} {nxt.piece.value}"
    elif nxt is not None and (nxt.piece.kind, nxt.piece.value) == ("noise", "performance"):
        token.role, token.meaning = "noise", f"{piece.value} {nxt.piece.text}: the device's rate"
    elif not tpu and last_but_host(state, token):
        # the last number, or one form factors or host figures follow ("A100_40_SXM")
        _read_last_number(state, token, prev, candidates)


def _read_last_number(
    state: Read, token: Token, prev: Token | None, candidates: list[Accelerator]
) -> None:
    """A bare number that ends the name (or that only form factors and host figures follow),
    set apart right after the model: the memory size of one of the models (Beam's ``A100-40``),
    else, in a name that also states host figures or a device word, a count of 1 to 16 (Genesis
    Cloud's ``..._disk-80g_nvidia3080-4``, ModelZ's ``nvidia-ada-l4-2-24c-96g``). A number
    that could be either (``..._nvidia3060ti-8``: 8 cards, or the 3060 Ti's 8 GB?) and any other
    trailing number stay unplaced, and the name is refused: a count is never dropped."""
    piece = token.piece
    while prev is not None and prev.role == "form factor":  # Grid'5000's "a100-pcie-40"
        prev = prev_token(state, prev)
    value = float(piece.value)
    could_count = value.is_integer() and 1 <= value <= _MAX_LAST_COUNT
    if prev is not None and prev.role == "memory" and piece.kind == "number" and could_count:
        # after the model and its size the number is no size: Google's xpk and Cluster
        # Toolkit write a machine of 8 A100s "a100-40gb-8" (in brackets, another count's)
        before = prev_token(state, prev)
        if before is not None and before.role == "model" and not (piece.glued or piece.paren):
            token.role, token.number = "count", value
            token.meaning = f"{piece.value} devices (after the model and its memory size)"
            state.counts.append((value, token))
        return
    if prev is None or prev.role != "model" or piece.glued or piece.kind != "number":
        return
    if any(acc.memory_gb == value for acc in candidates):
        if not could_count:
            token.role, token.number = "memory", value
            token.meaning = f"{piece.value} GB (a size without its unit: a model has it)"
            state.memory.append(token)
        return
    # a host figure with its number ("8 CPUs", "128vcpu"), not a bare word ("cpu_a100_2": a
    # partition's index), or a device word; but in a list of several kinds, a cluster's host
    # is named as a cloud's instance is ("gpu-a40-1", the first host of ten A40s, as Ventus'
    # "GPU-L40S-1" is one L40S): there a processor's word does not make the number a count (a
    # module's does: MindCluster's "module-910b-8", a server's module of 8 NPUs)
    host = any(
        (t.role == "host figure" and t.piece.kind != "host")
        or (t.piece.kind == "device" and not host_word(t))
        for t in state.tokens
    )
    if host and could_count:
        token.role, token.number = "count", value
        token.meaning = f"{piece.value} devices (ends an instance name that states its host)"
        state.counts.append((value, token))


def _plural_without_count(state: Read) -> Token | None:
    """A model's plural ending (``A100s``) in a name that gives no count."""
    if state.counts:
        return None
    return next((t for t in state.tokens if t.piece.kind == "plural" and t.role), None)


def _plural_or_model(state: Read) -> Token | None:
    """A model word written in capitals but for a lower-case ``s`` after its number, beside a
    count written as prose (a number or a number word), where the word without the ``s`` is a
    model too: ``8 L40s`` is 8 L40S or 8 L40 cards. A name written all in lower case
    (``gpu_4x_l40s``) says nothing by its case."""
    if not any(t.piece.kind in ("count_word", "number") for _, t in state.counts):
        return None  # UpCloud's "1xL40s" is the L40S: only prose ("8 V100s") writes plurals
    for token in state.tokens:
        text, value = token.piece.text, token.piece.value
        if (
            token.role == "model"
            and len(text) > 2
            and text.endswith("s")
            and text[-2].isdigit()
            and any(c.isupper() for c in text)
            and value[:-1] in state.words.words
        ):
            return token
    return None


def _x_suffix(word: str) -> bool:
    """Whether a model word ends in an ``x`` after a digit, the x of a model number
    (DigitalOcean's ``mi300x8``: 8 MI300X), which a number glued after it counts by; the x of a
    word (Apple's ``m4max128``: the M4 Max with 128 GB) marks nothing."""
    return len(word) > 1 and word[-1] == "x" and word[-2].isdigit()
