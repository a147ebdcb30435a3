"""What accelerator this process sees.

>>> import accelerators
>>> found = accelerators.current()
>>> found.kind in ("gpu", "tpu", "neuron", "hpu", "cpu", "unknown")
True
>>> found.cpu.logical_cpus >= 1
True

One small probe per vendor (NVML, torch.cuda, ROCm, Habana, TPU environment, Neuron sysfs)
runs in that order (the vendor registry's, :mod:`accelerators._vendors`); the first that
finds devices answers. A probe never raises: a failure is recorded and the next probe runs.
With no accelerator the answer is ``kind="cpu"``, with ``reason`` saying what each probe
found; when a probe *failed* and none answered, the answer is ``kind="unknown"``. A device
whose name is not in the catalog keeps its kind, with ``accelerator=None`` and a ``reason``.

Importing this module is cheap: no torch, no vendor SDK, no pydantic; the catalog is loaded
only to match a device name. :func:`current` caches its answer per process.

Public names: :class:`CpuInfo`, :class:`Detected`, :class:`DeviceInfo`, :class:`Probe`,
:func:`cpu_info`, :func:`current`, :func:`default_probes`. ``current_accelerator``, the same
function under a second name, is deprecated (it warns; removed in 0.2.0).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from accelerators._deprecated import renamed
from accelerators.detect._base import DeviceInfo, Probe
from accelerators.detect._cpu import CpuInfo, cpu_info, memory_bytes

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.spec import AcceleratorSpec

__all__ = [
    "CpuInfo",
    "Detected",
    "DeviceInfo",
    "Probe",
    "cpu_info",
    "current",
    "default_probes",
]

Kind = Literal["gpu", "tpu", "neuron", "hpu", "npu", "cpu", "unknown"]


@dataclass(frozen=True)
class Detected:
    """The answer of :func:`current`: the devices one probe found, and the host CPU.

    For ``kind="cpu"`` ``devices`` holds one ``kind="cpu"`` record for the host (its
    ``memory_bytes`` is the host RAM); for ``"unknown"`` it is empty.
    """

    kind: Kind
    accelerator: Accelerator | None
    """Catalog entry of device 0; ``None`` for cpu/unknown or a device not in the catalog."""
    devices: tuple[DeviceInfo, ...]
    source: str
    """The probe that answered: ``"nvml"``, ``"torch.cuda"``, ``"rocm"``, ``"tpu-env"``,
    ``"neuron-sysfs"``/``"neuron-ls"``, ``"habana"``, ``"cpu"``; for ``"unknown"``, the probe
    that failed."""
    cpu: CpuInfo
    reason: str | None = None
    """Why the result is cpu/unknown or why device 0 has no catalog entry."""

    @property
    def count(self) -> int:
        """Number of devices (MIG devices count one each)."""
        return len(self.devices)

    @property
    def is_mig(self) -> bool:
        """Whether device 0 is a MIG device."""
        return bool(self.devices) and self.devices[0].is_mig

    @property
    def mig_profile(self) -> str | None:
        """MIG profile of device 0 (``"1g.10gb"``), if it is a MIG device."""
        return self.devices[0].mig_profile if self.devices else None

    @property
    def raw_name(self) -> str:
        """Name device 0 reports (the CPU model when there is no device)."""
        return self.devices[0].raw_name if self.devices else self.cpu.model_name

    @property
    def memory_gb(self) -> float | None:
        """Memory of device 0 in GiB as reported, else the catalog figure, else ``None``."""
        if self.devices and self.devices[0].memory_bytes:
            return self.devices[0].memory_bytes / 2**30
        return self.accelerator.device_memory_gb if self.accelerator is not None else None

    def to_spec(self) -> AcceleratorSpec | None:
        """The :class:`~accelerators.spec.AcceleratorSpec` of what this process holds.

        Counts the devices identical to device 0 (same entry and MIG profile) and carries the
        MIG profile as the partition; for a TPU, the count is the chips of this host and the
        partition the slice topology (``TPU_TOPOLOGY``) when the catalog lists it, as in a GKE
        pod spec. ``None`` for cpu/unknown, for a device not in the catalog, and for a MIG
        profile the catalog does not list for that accelerator.
        """
        acc = self.accelerator
        if acc is None or self.kind in ("cpu", "unknown") or not self.devices:
            return None
        first = self.devices[0]
        partition = first.mig_profile if first.is_mig else None
        if first.is_mig and (partition is None or acc.mig_profile(partition) is None):
            return None
        topology = first.extra.get("topology") if first.kind == "tpu" else None
        if topology and acc.tpu_topology(topology) is not None:
            partition = topology
        same = sum(
            1 for d in self.devices if d.accelerator == acc and d.mig_profile == first.mig_profile
        )
        from accelerators.spec import AcceleratorSpec

        return AcceleratorSpec(accelerator=acc, count=same, partition=partition)


@functools.cache
def _probe_types() -> tuple[type[Probe], ...]:
    """Every vendor's probes (``VendorRecord.probes``), in the vendor registry's order; a
    vendor's probe module is imported here, on first use."""
    import importlib

    from accelerators._vendors import VENDORS

    found: list[type[Probe]] = []
    for vendor in VENDORS:
        for path in vendor.probes:
            module, _, name = path.partition(":")
            cls = getattr(importlib.import_module(module), name)
            if not (isinstance(cls, type) and issubclass(cls, Probe)):
                raise TypeError(f"vendor {vendor.name!r}: probe {path!r} is not a Probe subclass")
            found.append(cls)
    return tuple(found)


def default_probes() -> tuple[Probe, ...]:
    """Fresh instances of the built-in probes, in the order :func:`current` runs them."""
    return tuple(cls() for cls in _probe_types())


_lock = threading.Lock()
_cached: tuple[int, Detected] | None = None


def current(*, probes: Sequence[Probe] | None = None, refresh: bool = False) -> Detected:
    """Detect the accelerator this process sees.

    :param probes: probes to run, in order, instead of :func:`default_probes`; the answer is
        then not cached.
    :param refresh: run the default probes again instead of returning the cached answer.
    """
    global _cached
    if probes is not None:
        return _run(probes)
    with _lock:
        if refresh or _cached is None or _cached[0] != os.getpid():
            _cached = (os.getpid(), _run(default_probes()))
        return _cached[1]


def current_accelerator(
    *, probes: Sequence[Probe] | None = None, refresh: bool = False
) -> Detected:
    """Deprecated (removed in 0.2.0): :func:`current`, under the one name it keeps."""
    renamed("current_accelerator()", "current()")
    return current(probes=probes, refresh=refresh)


def _run(probes: Sequence[Probe]) -> Detected:
    cpu = cpu_info()
    notes: list[str] = []
    failure: tuple[str, str] | None = None
    for probe in probes:
        name = getattr(probe, "name", type(probe).__name__)
        try:
            devices = probe.detect()
            failed, reason = bool(getattr(probe, "failed", False)), getattr(probe, "reason", None)
        except Exception as exc:  # a third-party probe that ignores the contract
            devices, failed, reason = (
                None,
                True,
                f"{name} probe failed: {type(exc).__name__}: {exc}",
            )
        if devices:
            first = devices[0]
            return Detected(
                kind=first.kind,
                accelerator=first.accelerator,
                devices=tuple(devices),
                source=getattr(probe, "source", name),
                cpu=cpu,
                reason=reason if first.accelerator is None else None,
            )
        if failed and failure is None:
            failure = (name, reason or f"{name} probe failed")
        if reason:
            notes.append(f"{name}: {reason}")
    summary = "; ".join(notes) or "no probe ran"
    if failure is not None:
        return Detected(
            kind="unknown",
            accelerator=None,
            devices=(),
            source=failure[0],
            cpu=cpu,
            reason=f"a probe failed and no other found an accelerator ({summary})",
        )
    host = DeviceInfo(
        index=0,
        kind="cpu",
        vendor=cpu.vendor,
        raw_name=cpu.model_name,
        accelerator=None,
        memory_bytes=memory_bytes(),
        clocks_mhz={"max": cpu.max_mhz} if cpu.max_mhz else {},
    )
    return Detected(
        kind="cpu",
        accelerator=None,
        devices=(host,),
        source="cpu",
        cpu=cpu,
        reason=f"no accelerator found ({summary})",
    )


def __dir__() -> list[str]:
    return list(__all__)
