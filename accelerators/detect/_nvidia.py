"""NVIDIA GPUs: NVML (``nvidia-ml-py``'s ``pynvml``) first, ``torch.cuda`` when NVML is missing.

NVML sees every GPU of the node; :class:`NvmlProbe` narrows that to what this process sees by
reading ``CUDA_VISIBLE_DEVICES`` (indices, ``GPU-`` and ``MIG-`` UUIDs) and reports the MIG
devices of a MIG-enabled GPU instead of the GPU itself. A MIG device's profile is read from its
name (``"NVIDIA A100-SXM4-80GB MIG 1g.10gb"`` -> ``1g.10gb``); its clocks, temperature, power and
throttle reasons are those of the parent GPU, which NVML reports only there.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelerators.detect._base import (
    DeviceInfo,
    Probe,
    as_float,
    as_int,
    load_torch,
    match_accelerator,
    to_text,
    torch_properties,
)

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = ["NvmlProbe", "TorchCudaProbe", "parse_mig_name", "throttle_reason_names"]

# nvmlClocksEventReason* bits (nvml.h; formerly nvmlClocksThrottleReason*).
_REASON_BITS = (
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
)
_BENIGN_REASONS = frozenset({"gpu_idle", "applications_clocks_setting"})
# NVML_CLOCK_GRAPHICS / _SM / _MEM; NVML_TEMPERATURE_GPU; uncorrected volatile ECC count.
_CLOCKS = (("graphics", 0), ("sm", 1), ("mem", 2))
_TEMPERATURE_GPU = 0
_ECC_UNCORRECTED, _ECC_VOLATILE = 1, 0
# "NVIDIA A100-SXM4-40GB MIG 1g.5gb", "NVIDIA H100 80GB HBM3 MIG 1c.2g.20gb", "... MIG 1g.10gb+me"
_MIG_NAME = re.compile(
    r"\s+MIG(?:\s+(?:(?P<ci>\d+)c\.)?(?P<profile>\d+g\.\d+gb(?:[+-][a-z.]+)*))?\s*$", re.IGNORECASE
)


def parse_mig_name(name: str) -> tuple[str, str | None, bool]:
    """Split a device name into ``(gpu name, MIG profile, is MIG)``.

    >>> parse_mig_name("NVIDIA A100-SXM4-80GB MIG 1g.10gb")
    ('NVIDIA A100-SXM4-80GB', '1g.10gb', True)
    >>> parse_mig_name("NVIDIA H100 80GB HBM3")
    ('NVIDIA H100 80GB HBM3', None, False)

    :param name: an NVML or CUDA device name.
    """
    match = _MIG_NAME.search(name)
    if match is None:
        return name, None, False
    profile = match.group("profile")
    return name[: match.start()].strip(), profile.lower() if profile else None, True


def throttle_reason_names(mask: int) -> tuple[str, ...]:
    """Names of the active, non-benign clock-event reasons in an NVML bitmask.

    >>> throttle_reason_names(0x1 | 0x4 | 0x40)
    ('sw_power_cap', 'hw_thermal_slowdown')

    :param mask: the value of ``nvmlDeviceGetCurrentClocksEventReasons``.
    """
    names = [name for bit, name in _REASON_BITS if mask & bit and name not in _BENIGN_REASONS]
    unknown = mask & ~sum(bit for bit, _ in _REASON_BITS)
    if unknown:
        names.append(f"unknown_0x{unknown:x}")
    return tuple(names)


@dataclass
class _Gpu:
    index: int
    handle: Any
    uuid: str
    mig_enabled: bool = False
    migs: list[tuple[Any, str, int | None]] = field(default_factory=list)  # handle, uuid, GI id


class NvmlProbe(Probe):
    """NVIDIA GPUs and MIG devices through NVML.

    :param nvml: a ``pynvml``-compatible module; ``import pynvml`` when ``None``.
    :param env: environment to read ``CUDA_VISIBLE_DEVICES`` from; ``os.environ`` when ``None``.
    :param catalog: entries to match names against instead of the packaged catalog.
    """

    name = "nvml"

    def __init__(
        self,
        *,
        nvml: Any = None,
        env: Mapping[str, str] | None = None,
        catalog: Sequence[Accelerator] | None = None,
    ) -> None:
        super().__init__()
        self._nvml = nvml
        self._env = env
        self._catalog = catalog

    def _detect(self) -> tuple[DeviceInfo, ...] | None:
        nvml = self._nvml
        if nvml is None:
            try:
                with warnings.catch_warnings():  # the old "pynvml" wrapper warns on import
                    warnings.simplefilter("ignore")
                    nvml = importlib.import_module("pynvml")
            except ImportError:
                return self._absent("pynvml (nvidia-ml-py) is not installed")
        try:
            nvml.nvmlInit()
        except Exception as exc:  # NVMLError_LibraryNotFound, _DriverNotLoaded...
            return self._absent(f"NVML could not start: {type(exc).__name__}: {exc}")
        try:
            return self._enumerate(nvml)
        finally:
            with contextlib.suppress(Exception):  # nothing to do about a failed shutdown
                nvml.nvmlShutdown()

    def _enumerate(self, nvml: Any) -> tuple[DeviceInfo, ...] | None:
        count = int(nvml.nvmlDeviceGetCount())
        if count == 0:
            return self._absent("NVML reports no GPU")
        gpus = [self._gpu(nvml, i) for i in range(count)]
        env = os.environ if self._env is None else self._env
        visible = env.get("CUDA_VISIBLE_DEVICES")
        units = _select(gpus, visible)
        if not units:
            if visible is not None:
                self.reason = (
                    f"CUDA_VISIBLE_DEVICES={visible!r} hides all {count} GPU(s) NVML reports"
                )
            else:
                self.reason = "MIG is enabled but no MIG device exists on any GPU"
            return ()
        driver = _call(nvml, "nvmlSystemGetDriverVersion")
        devices = tuple(
            self._device(nvml, i, gpu, mig, driver) for i, (gpu, mig) in enumerate(units)
        )
        self._note_unmatched(devices, "NVML")
        return devices

    @staticmethod
    def _gpu(nvml: Any, index: int) -> _Gpu:
        handle = nvml.nvmlDeviceGetHandleByIndex(index)
        gpu = _Gpu(index, handle, to_text(_call(nvml, "nvmlDeviceGetUUID", handle) or ""))
        mode = _call(nvml, "nvmlDeviceGetMigMode", handle)
        gpu.mig_enabled = bool(mode and mode[0] == 1)  # NVML_DEVICE_MIG_ENABLE
        if gpu.mig_enabled:
            for slot in range(int(_call(nvml, "nvmlDeviceGetMaxMigDeviceCount", handle) or 0)):
                mig = _call(nvml, "nvmlDeviceGetMigDeviceHandleByIndex", handle, slot)
                if mig is not None:  # NVMLError_NotFound for an empty slot
                    uuid = to_text(_call(nvml, "nvmlDeviceGetUUID", mig) or "")
                    gpu.migs.append((mig, uuid, _call(nvml, "nvmlDeviceGetGpuInstanceId", mig)))
        return gpu

    def _device(
        self, nvml: Any, index: int, gpu: _Gpu, mig: tuple[Any, str, int | None] | None, driver: Any
    ) -> DeviceInfo:
        handle = gpu.handle if mig is None else mig[0]
        raw = to_text(nvml.nvmlDeviceGetName(handle))
        stem, profile, is_mig = parse_mig_name(raw)
        candidates = [raw] if mig is None else [to_text(nvml.nvmlDeviceGetName(gpu.handle)), stem]
        extra = {"uuid": mig[1] if mig else gpu.uuid, "nvml_index": str(gpu.index)}
        if driver:
            extra["driver_version"] = to_text(driver)
        if mig is not None:
            extra["parent_uuid"] = gpu.uuid
            if mig[2] is not None:
                extra["gpu_instance_id"] = str(mig[2])
        memory = _call(nvml, "nvmlDeviceGetMemoryInfo", handle)
        attributes = _call(nvml, "nvmlDeviceGetAttributes", handle)
        capability = _call(nvml, "nvmlDeviceGetCudaComputeCapability", gpu.handle)
        mask = _call(nvml, "nvmlDeviceGetCurrentClocksEventReasons", gpu.handle)
        if mask is None:
            mask = _call(nvml, "nvmlDeviceGetCurrentClocksThrottleReasons", gpu.handle)
        return DeviceInfo(
            index=index,
            kind="gpu",
            vendor="nvidia",
            raw_name=raw,
            accelerator=match_accelerator(
                candidates, vendor="nvidia", device_class="gpu", catalog=self._catalog
            ),
            memory_bytes=int(memory.total) if memory is not None else None,
            is_mig=mig is not None or is_mig,
            mig_profile=profile,
            multiprocessors=as_int(getattr(attributes, "multiprocessorCount", None)),
            compute_capability=f"{capability[0]}.{capability[1]}" if capability else None,
            clocks_mhz=_clocks(nvml, gpu.handle),
            throttle_reasons=throttle_reason_names(int(mask)) if mask is not None else (),
            temperature_c=as_float(
                _call(nvml, "nvmlDeviceGetTemperature", gpu.handle, _TEMPERATURE_GPU)
            ),
            power_w=_milli(_call(nvml, "nvmlDeviceGetPowerUsage", gpu.handle)),
            power_limit_w=_milli(_call(nvml, "nvmlDeviceGetEnforcedPowerLimit", gpu.handle)),
            ecc_errors=as_int(
                _call(
                    nvml, "nvmlDeviceGetTotalEccErrors", gpu.handle, _ECC_UNCORRECTED, _ECC_VOLATILE
                )
            ),
            extra=extra,
        )


class TorchCudaProbe(Probe):
    """NVIDIA GPUs through ``torch.cuda`` (when NVML is not installed).

    torch is imported only if it already is, or if it is installed and an NVIDIA driver is
    loaded (``/proc/driver/nvidia`` or ``/dev/nvidiactl`` under ``root``). ROCm builds of torch
    are left to the ROCm probe.

    :param torch: a ``torch``-compatible module; found as described above when ``None``.
    :param root: filesystem root for the driver check.
    :param catalog: entries to match names against instead of the packaged catalog.
    """

    name = "torch.cuda"

    def __init__(
        self, *, torch: Any = None, root: str = "/", catalog: Sequence[Accelerator] | None = None
    ) -> None:
        super().__init__()
        self._torch = torch
        self._root = root
        self._catalog = catalog

    def _detect(self) -> tuple[DeviceInfo, ...] | None:
        driver = any(
            Path(self._root, p).exists() for p in ("proc/driver/nvidia/version", "dev/nvidiactl")
        )
        torch = self._torch if self._torch is not None else load_torch(driver_present=driver)
        if torch is None:
            return self._absent(
                "no NVIDIA driver found" if not driver else "torch is not installed"
            )
        if getattr(torch.version, "hip", None):
            return self._absent("torch is a ROCm build; the rocm probe covers it")
        if not torch.cuda.is_available():
            return self._absent("torch.cuda.is_available() is False")
        devices = []
        for index, props in enumerate(torch_properties(torch)):
            raw = to_text(props["name"] or "")
            stem, profile, is_mig = parse_mig_name(raw)
            major, minor = props["major"], props["minor"]
            devices.append(
                DeviceInfo(
                    index=index,
                    kind="gpu",
                    vendor="nvidia",
                    raw_name=raw,
                    accelerator=match_accelerator(
                        [stem], vendor="nvidia", device_class="gpu", catalog=self._catalog
                    ),
                    memory_bytes=as_int(props["total_memory"]),
                    is_mig=is_mig,
                    mig_profile=profile,
                    multiprocessors=as_int(props["multi_processor_count"]),
                    compute_capability=f"{major}.{minor}" if major is not None else None,
                    l2_cache_bytes=as_int(props["L2_cache_size"]),
                    extra={"uuid": str(props["uuid"])} if props["uuid"] is not None else {},
                )
            )
        self._note_unmatched(devices, "torch.cuda")
        return tuple(devices)


def _select(gpus: list[_Gpu], visible: str | None) -> list[tuple[_Gpu, Any]]:
    """The (gpu, mig) units CUDA enumerates, in CUDA order, for a ``CUDA_VISIBLE_DEVICES``.

    Like CUDA, parsing stops at the first empty or unknown entry (so ``""``, ``"-1"`` and
    ``"NoDevFiles"`` hide everything). Integer entries are taken as NVML (PCI bus) indices,
    which is CUDA's order under ``CUDA_DEVICE_ORDER=PCI_BUS_ID``.
    """

    def expand(gpu: _Gpu) -> list[tuple[_Gpu, Any]]:
        return [(gpu, mig) for mig in gpu.migs] if gpu.mig_enabled else [(gpu, None)]

    if visible is None:
        return [unit for gpu in gpus for unit in expand(gpu)]
    units: list[tuple[_Gpu, Any]] = []
    seen: set[tuple[int, str | None]] = set()
    for token in (t.strip() for t in visible.split(",")):
        found: list[tuple[_Gpu, Any]] = []
        if token.isdigit() and int(token) < len(gpus):
            found = expand(gpus[int(token)])
        elif token.startswith("MIG-GPU-"):  # legacy MIG-GPU-<uuid>/<gi>/<ci>
            parent, _, rest = token[4:].partition("/")
            gi = rest.partition("/")[0]
            found = [(g, m) for g in gpus if g.uuid == parent for m in g.migs if str(m[2]) == gi][
                :1
            ]
        elif token.startswith("MIG-"):
            found = [(g, m) for g in gpus for m in g.migs if m[1].startswith(token)][:1]
        elif token.startswith("GPU-"):
            found = next((expand(g) for g in gpus if g.uuid.startswith(token)), [])
        if not found:
            break
        for gpu, mig in found:
            key = (gpu.index, mig[1] if mig else None)
            if key not in seen:
                seen.add(key)
                units.append((gpu, mig))
    return units


def _call(module: Any, function: str, *args: Any) -> Any:
    """``module.function(*args)``, or ``None`` when it is missing or raises (not supported...)."""
    fn = getattr(module, function, None)
    if fn is None:
        return None
    try:
        return fn(*args)
    except Exception:
        return None


def _clocks(nvml: Any, handle: Any) -> dict[str, float]:
    clocks: dict[str, float] = {}
    for key, clock_type in _CLOCKS:
        for suffix, function in (
            ("", "nvmlDeviceGetClockInfo"),
            ("_max", "nvmlDeviceGetMaxClockInfo"),
        ):
            value = as_float(_call(nvml, function, handle, clock_type))
            if value:
                clocks[key + suffix] = value
    return clocks


def _milli(value: Any) -> float | None:
    number = as_float(value)
    return number / 1000.0 if number is not None else None
