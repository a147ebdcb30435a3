"""Other processes on a GPU, through NVML: a reason to distrust a figure, named as such.

Before the benchmark touches a GPU, :func:`gpu_occupancy` asks NVML for every GPU's compute
and graphics processes (``nvmlDeviceGetComputeRunningProcesses``,
``nvmlDeviceGetGraphicsRunningProcesses``) and its utilisation
(``nvmlDeviceGetUtilizationRates``), keyed by UUID. This process's own PID is left out. (In a
container NVML reports host PIDs, which never equal ours: reading before the benchmark starts
its CUDA context keeps our own process out of the list; a caller that already holds a CUDA
context in this process shows up as another process.)

:func:`occupancy_reasons` turns that into ``other_process`` reasons on the device it names
(matched by UUID, a MIG slice by its parent GPU's): ``warn`` (the contention policy's
severity) when another process runs there, naming its PID, name and memory, and ``info``
when NVML cannot tell, with the error. A slow figure on such a device then reads
"inconclusive: node busy" through :func:`accelerators.bench.device._contention.busy_reasons`.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from accelerators.bench.report._models import Reason, ReasonCode, Severity

__all__ = ["GpuProcess", "Occupancy", "gpu_occupancy", "occupancy_reasons"]


@dataclass(frozen=True)
class GpuProcess:
    """One process NVML lists on a GPU."""

    pid: int
    name: str
    memory_bytes: int | None
    kind: str
    """``compute`` or ``graphics``."""

    def describe(self) -> str:
        memory = (
            f"{self.memory_bytes / 2**30:.1f} GiB"
            if self.memory_bytes is not None
            else "memory unknown"
        )
        return f"pid {self.pid} {self.name or '(name unknown)'}, {memory}"


@dataclass(frozen=True)
class Occupancy:
    """What NVML said about one GPU before the benchmark started."""

    uuid: str
    processes: tuple[GpuProcess, ...] = ()
    utilization_pct: float | None = None
    problem: str | None = None
    """Why the processes could not be listed (``None`` when they were)."""


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _name(nvml: Any, pid: int) -> str:
    with contextlib.suppress(Exception):
        return _text(nvml.nvmlSystemGetProcessName(pid)).rsplit("/", 1)[-1]
    with contextlib.suppress(OSError), open(f"/proc/{pid}/comm", encoding="utf-8") as handle:
        return handle.read().strip()
    return ""


def _processes(nvml: Any, handle: Any, own: int) -> tuple[tuple[GpuProcess, ...], str | None]:
    found: dict[int, GpuProcess] = {}
    problems = []
    for kind, call in (
        ("compute", "nvmlDeviceGetComputeRunningProcesses"),
        ("graphics", "nvmlDeviceGetGraphicsRunningProcesses"),
    ):
        try:
            listed = getattr(nvml, call)(handle)
        except Exception as exc:  # NVMLError_NotSupported, _NoPermission...
            problems.append(f"{call}: {type(exc).__name__}: {exc}")
            continue
        for item in listed or ():
            pid = int(item.pid)
            if pid == own or pid in found:
                continue
            used = getattr(item, "usedGpuMemory", None)
            memory = int(used) if isinstance(used, int) and used >= 0 else None
            found[pid] = GpuProcess(pid, _name(nvml, pid), memory, kind)
    problem = "; ".join(problems) if len(problems) == 2 else None
    return tuple(sorted(found.values(), key=lambda p: p.pid)), problem


def gpu_occupancy(*, nvml: Any = None, own_pid: int | None = None) -> dict[str, Occupancy] | str:
    """Every GPU's other processes and utilisation by UUID, or why NVML cannot tell.

    :param nvml: a ``pynvml``-compatible module; ``import pynvml`` when ``None``.
    :param own_pid: the PID to leave out; this process's by default.
    """
    own = os.getpid() if own_pid is None else own_pid
    if nvml is None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                nvml = importlib.import_module("pynvml")
        except ImportError:
            return "pynvml (nvidia-ml-py) is not installed"
    try:
        nvml.nvmlInit()
    except Exception as exc:
        return f"NVML could not start: {type(exc).__name__}: {exc}"
    try:
        out: dict[str, Occupancy] = {}
        for index in range(int(nvml.nvmlDeviceGetCount())):
            handle = nvml.nvmlDeviceGetHandleByIndex(index)
            uuid = _text(nvml.nvmlDeviceGetUUID(handle))
            processes, problem = _processes(nvml, handle, own)
            utilization = None
            with contextlib.suppress(Exception):
                utilization = float(nvml.nvmlDeviceGetUtilizationRates(handle).gpu)
            out[uuid] = Occupancy(uuid, processes, utilization, problem)
        return out
    except Exception as exc:
        return f"NVML could not list the GPUs: {type(exc).__name__}: {exc}"
    finally:
        with contextlib.suppress(Exception):
            nvml.nvmlShutdown()


def _key(uuid: str | None) -> str:
    text = (uuid or "").strip().lower()
    for prefix in ("gpu-", "mig-"):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


def occupancy_reasons(
    index: int,
    extra: Mapping[str, str],
    occupancy: dict[str, Occupancy] | str,
    *,
    severity: str,
) -> list[Reason]:
    """``other_process`` reasons for the device ``index`` whose driver record is ``extra``.

    :param index: the benchmarked device's index.
    :param extra: its driver record's extras (``uuid``, ``parent_uuid`` for a MIG slice).
    :param occupancy: what :func:`gpu_occupancy` returned.
    :param severity: the contention policy's severity for another process on the device.
    """
    if isinstance(occupancy, str):
        return [_unchecked(index, occupancy)]
    by_uuid = {_key(u): o for u, o in occupancy.items()}
    found = by_uuid.get(_key(extra.get("parent_uuid") or extra.get("uuid")))
    if found is None:
        return [_unchecked(index, "no NVML GPU with its UUID")]
    if found.problem is not None and not found.processes:
        return [_unchecked(index, found.problem)]
    if not found.processes:
        return []
    busy = (
        f", {found.utilization_pct:.0f} % utilised before the run"
        if (found.utilization_pct is not None)
        else ""
    )
    listed = "; ".join(p.describe() for p in found.processes)
    return [
        Reason(
            code=ReasonCode.OTHER_PROCESS,
            severity=Severity(severity),
            device_index=index,
            value=float(len(found.processes)),
            unit="count",
            message=f"device {index}: other process on the device ({listed}){busy}: "
            "its figures are shared with them",
        )
    ]


def _unchecked(index: int, why: str) -> Reason:
    """The informational reason for a device whose other processes could not be listed."""
    return Reason(
        code=ReasonCode.OTHER_PROCESS,
        severity=Severity.INFO,
        device_index=index,
        message=f"device {index}: could not check for other processes on the device ({why})",
    )
