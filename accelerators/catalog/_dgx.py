"""NVIDIA's DGX systems by their model (``DGX A100``, ``dgx_h100``, ``DGX-B200``), for the
token reader.

Since the DGX A100, a DGX system is named for its GPU and holds eight of them, SXM modules
on an HGX board: the DGX A100 eight A100 SXM4s (40 or 80 GB), the DGX H100 and H200 eight
SXM5s, the DGX B200 and B300 eight SXM6s (the DGX line as
https://aiwiki.ai/wiki/nvidia_dgx_b300 summarises it, read 2026-11-30: DGX-1 eight P100s or
V100s, DGX-2 sixteen V100s, DGX A100 eight A100s, DGX B300 eight B300 SXMs, "a fixed GPU
count (typically 8)"). So a plain ``dgx`` beside one of these models picks the SXM part and,
where the name states no count, counts eight. Older and other DGX products name no GPU or
hold another number, and stay the spec's to count: the DGX-1 and DGX-2 (``dgx1``, ``dgx2``
words; Microsoft's OpenPAI writes ``DGX1-V100`` for one of its GPUs), the first DGX Station's
V100s (the DGX Station A100 holds 4 A100s and the DGX Station GB300 one GB300: those
count), DGX Spark (one GB10, :func:`per_machine`), a DGX GB200 or GB300 (racks, whose compute
trays hold 4) and a DGX Cloud (``dgxc``). A ``DGX A100`` in brackets after a
GPU's own name (``A100-PCIE(DGX A100)``) is where that GPU was measured, not the system,
and a CI runner's label on a DGX (PyTorch's ``linux.dgx.b200``) a job's share of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelerators.catalog._sku_forms import of_forms

if TYPE_CHECKING:
    from accelerators.catalog._narrow import Read, Token
    from accelerators.catalog._schema import Accelerator

__all__ = ["dgx_form", "dgx_size"]

#: GPUs of a DGX system named for its GPU (DGX A100 and later).
_DGX_GPUS = 8
#: Vocabulary groups of a CI runner's label (an OS, a job, a channel): a runner on a DGX is
#: a job's share of it, as many GPUs as the runner is given.
_RUNNER_GROUPS = frozenset(("os", "jobs", "channels"))
#: Words that make a DGX another product: a desk-side station, a cloud, a desktop.
_OTHER_DGX = frozenset(("station", "spark", "cloud", "dgxc", "dgxs"))
#: GPUs of a DGX Station by its GPU's model: four A100s in the DGX Station A100, one GB300 in
#: the DGX Station GB300 (as above); the first DGX Station's V100s stay the spec's to count.
_STATION_GPUS = {"A100-40GB": 4, "A100-80GB": 4, "GB300": 1}


def _plain_dgx(state: Read) -> Token | None:
    """The name's plain ``dgx`` word (standing apart, outside brackets), where no word makes
    the DGX another product."""
    said = {t.piece.text.casefold() for t in state.tokens}
    if said & _OTHER_DGX:
        return None
    for token in state.tokens:
        piece = token.piece
        plain = not piece.glued and not piece.bracket and not piece.paren
        if plain and piece.kind == "noise" and piece.text.casefold() == "dgx":
            return token
    return None


def _sxm_gpus(candidates: list[Accelerator]) -> list[Accelerator]:
    """The NVIDIA SXM GPUs among the candidates (no superchip: a GB200's form is its own)."""
    nvidia = [a for a in candidates if a.vendor == "nvidia" and a.devices_per_board == 1]
    return of_forms(nvidia, {"sxm"}) if len(nvidia) == len(candidates) else []


def dgx_form(state: Read, candidates: list[Accelerator]) -> list[Accelerator]:
    """The candidates a plain ``dgx`` beside the model leaves: its SXM parts, where it has
    some (``DGX H100``: the H100 SXM, not the PCIe card or the NVL)."""
    if _plain_dgx(state) is None:
        return candidates
    return _sxm_gpus(candidates) or candidates


def dgx_size(state: Read, machines: list[Token], candidates: list[Accelerator]) -> int | None:
    """The GPUs of a DGX named for its GPU where ``dgx`` is the name's one machine word
    (``DGX H100``: 8), else None."""
    station = _station_size(state, machines, candidates)
    if station is not None:
        return station
    dgx = _plain_dgx(state)
    if dgx is None or machines != [dgx] or not _sxm_gpus(candidates):
        return None
    if sum(t.role == "model" for t in state.tokens) != 1:
        return None  # "H100/DGX H100": a choice, of a GPU or a DGX
    if any(t.piece.kind == "noise" and t.piece.value in _RUNNER_GROUPS for t in state.tokens):
        return None  # PyTorch's runner "linux.dgx.b200": a job's share of the machine
    return _DGX_GPUS


def _station_size(state: Read, machines: list[Token], candidates: list[Accelerator]) -> int | None:
    """The GPUs of a DGX Station named for its GPU (``DGX Station A100``: 4), where ``dgx`` is
    the name's one machine word and ``station`` follows it; else None."""
    said = [t.piece.text.casefold() for t in state.tokens]
    if len(machines) != 1 or machines[0].piece.text.casefold() != "dgx":
        return None
    sizes = {_STATION_GPUS.get(a.model) for a in candidates}
    if said[:2] != ["dgx", "station"] or len(sizes) != 1 or None in sizes:
        return None
    return sizes.pop()
