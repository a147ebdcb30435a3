"""A fake :class:`accelerators.detect.Detected` for :mod:`accelerators.bench.testing`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["fake_detected"]

_GIB = 1 << 30
_MIB = 1 << 20


def fake_detected(
    accelerator: str | None = "H100-SXM",
    *,
    count: int = 1,
    mig_profile: str | None = None,
    throttle_reasons: Sequence[str] = (),
    clocks_mhz: Mapping[str, float] | None = None,
    ecc_errors: int | None = None,
    raw_name: str | None = None,
    per_device: Sequence[Mapping[str, object]] = (),
    uuids: Sequence[str] = (),
) -> object:
    """A :class:`accelerators.detect.Detected` as :func:`accelerators.current` would return it.

    :param accelerator: a catalog name for every device; ``None`` for a CPU-only host.
    :param count: how many devices.
    :param mig_profile: make every device a MIG slice of this profile.
    :param throttle_reasons: clock-event reason names on every device.
    :param clocks_mhz: clocks on every device (``sm``, ``sm_max``...).
    :param ecc_errors: uncorrected ECC errors on every device.
    :param raw_name: the reported name (the catalog's first NVML name by default).
    :param per_device: field overrides per device index (``{"throttle_reasons": (...)}``).
    :param uuids: the UUIDs NVML reports (``GPU-...``), one per device from the first.
    """
    from accelerators import catalog
    from accelerators.detect import CpuInfo, Detected, DeviceInfo

    cpu = CpuInfo(
        model_name="AMD EPYC",
        vendor="amd",
        logical_cpus=2,
        physical_cores=2,
        flags=frozenset({"avx", "avx2", "fma", "sse4_2"}),
        l1d_bytes=32 * 1024,
        l2_bytes=512 * 1024,
        l3_bytes=32 * _MIB,
        max_mhz=2250.0,
        family=25,
        model=1,
    )
    if accelerator is None:
        host = DeviceInfo(
            index=0,
            kind="cpu",
            vendor="amd",
            raw_name="AMD EPYC",
            accelerator=None,
            memory_bytes=23 * _GIB,
        )
        return Detected(
            kind="cpu",
            accelerator=None,
            devices=(host,),
            source="cpu",
            cpu=cpu,
            reason="no accelerator found (fake)",
        )
    acc = catalog.get(accelerator)
    name = raw_name or (acc.names.nvml[0] if acc.names.nvml else acc.name)
    memory = int(acc.memory_gb * 1e9)
    if mig_profile is not None:
        profile = acc.mig_profile(mig_profile)
        name = f"{name} MIG {mig_profile}"
        memory = int((profile.memory_gb if profile else 10) * 1e9)
    devices = []
    for index in range(count):
        fields: dict[str, Any] = {
            "index": index,
            "kind": "gpu" if acc.device_class == "gpu" else acc.device_class,
            "vendor": acc.vendor,
            "raw_name": name,
            "accelerator": acc,
            "memory_bytes": memory,
            "is_mig": mig_profile is not None,
            "mig_profile": mig_profile,
            "clocks_mhz": dict(clocks_mhz or {}),
            "throttle_reasons": tuple(throttle_reasons),
            "ecc_errors": ecc_errors,
        }
        if index < len(uuids):
            fields["extra"] = {"uuid": uuids[index], "nvml_index": str(index)}
        if index < len(per_device):
            fields.update(per_device[index])
        devices.append(DeviceInfo(**fields))
    kind = "gpu" if acc.device_class == "gpu" else acc.device_class
    return Detected(kind=kind, accelerator=acc, devices=tuple(devices), source="fake", cpu=cpu)
