"""The host CPU: model, flags, caches and the logical CPUs this process may run on.

>>> from accelerators.detect import cpu_info
>>> cpu_info().logical_cpus >= 1
True

Reads ``/proc/cpuinfo`` and ``/sys/devices/system/cpu``; elsewhere (macOS, Windows) the
fields Linux alone provides are ``None`` or empty.
"""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from accelerators.detect._base import read_text

__all__ = ["CpuInfo", "cpu_info", "memory_bytes"]


@dataclass(frozen=True)
class CpuInfo:
    """What the host CPU is and how much of it this process may use.

    ``logical_cpus`` and ``physical_cores`` count only the CPUs in the process's affinity mask
    (``taskset``, cpusets); a CFS quota (``cpu.max``) is not reflected. Cache sizes are those of
    one cache instance as seen from the first allowed CPU (an L3 shared by a CCX counts once).
    ``family``/``model`` are the x86 ``cpu family``/``model``; on Arm they are the
    ``CPU architecture`` and ``CPU part`` numbers.
    """

    model_name: str
    vendor: str | None
    logical_cpus: int
    physical_cores: int | None
    flags: frozenset[str]
    l1d_bytes: int | None
    l2_bytes: int | None
    l3_bytes: int | None
    max_mhz: float | None
    family: int | None
    model: int | None


_X86_VENDORS = {"GenuineIntel": "intel", "AuthenticAMD": "amd", "HygonGenuine": "hygon"}
# Arm "CPU implementer" codes (Linux arch/arm64 cputype.h).
_ARM_IMPLEMENTERS = {
    0x41: "arm",
    0x42: "broadcom",
    0x43: "cavium",
    0x48: "hisilicon",
    0x4E: "nvidia",
    0x51: "qualcomm",
    0x61: "apple",
    0xC0: "ampere",
}
# Arm Ltd "CPU part" codes of server cores (Graviton2 = N1, Graviton3 = V1, Grace/Graviton4 = V2).
_ARM_PARTS = {
    0xD0C: "Neoverse-N1",
    0xD40: "Neoverse-V1",
    0xD49: "Neoverse-N2",
    0xD4F: "Neoverse-V2",
}
_GHZ_IN_NAME = re.compile(r"@\s*([0-9.]+)\s*GHz", re.IGNORECASE)


def cpu_info(
    *,
    proc_cpuinfo: str | None = None,
    sysfs_root: str = "/sys",
    affinity: Collection[int] | None = None,
) -> CpuInfo:
    """Describe the host CPU.

    :param proc_cpuinfo: text of ``/proc/cpuinfo``; read from the file when ``None``.
    :param sysfs_root: where sysfs is mounted (a fixture tree in tests).
    :param affinity: logical CPU ids the process may run on; ``os.sched_getaffinity(0)`` when
        ``None`` (``range(os.cpu_count())`` where that call does not exist).
    """
    if proc_cpuinfo is None:
        proc_cpuinfo = read_text("/proc/cpuinfo") or ""
    blocks = _blocks(proc_cpuinfo)
    processors = [b for b in blocks if "processor" in b and _int(b["processor"]) is not None]
    first: Mapping[str, str] = processors[0] if processors else (blocks[0] if blocks else {})
    merged: dict[str, str] = {}
    for block in reversed(blocks):
        merged.update(block)
    allowed = sorted(set(_affinity() if affinity is None else affinity))
    cpu_root = Path(sysfs_root, "devices", "system", "cpu")
    home = next((f"cpu{n}" for n in allowed if (cpu_root / f"cpu{n}" / "cache").is_dir()), "cpu0")
    caches = _caches(cpu_root / home / "cache")
    vendor, family, model = _identity(first)
    return CpuInfo(
        model_name=_model_name(first, merged),
        vendor=vendor,
        logical_cpus=max(1, len(allowed)),
        physical_cores=_physical_cores(processors, allowed, cpu_root),
        flags=frozenset((first.get("flags") or first.get("Features") or "").split()),
        l1d_bytes=caches.get((1, "data")),
        l2_bytes=caches.get((2, "unified")) or caches.get((2, "data")),
        l3_bytes=caches.get((3, "unified")) or caches.get((3, "data")),
        max_mhz=_max_mhz(first, cpu_root / home),
        family=family,
        model=model,
    )


def memory_bytes(meminfo: str = "/proc/meminfo") -> int | None:
    """``MemTotal`` of the host in bytes, ``None`` where ``/proc/meminfo`` is missing."""
    match = re.search(r"^MemTotal:\s+(\d+)\s*kB", read_text(meminfo) or "", re.MULTILINE)
    return int(match.group(1)) * 1024 if match else None


def _affinity() -> set[int]:
    getter = getattr(os, "sched_getaffinity", None)
    if getter is not None:
        try:
            return set(getter(0))
        except OSError:
            pass
    return set(range(os.cpu_count() or 1))


def _blocks(text: str) -> list[dict[str, str]]:
    blocks: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if current:
                blocks.append(current)
                current = {}
            continue
        key, sep, value = line.partition(":")
        if sep:
            current[key.strip()] = value.strip()
    if current:
        blocks.append(current)
    return blocks


def _int(text: str | None, base: int = 10) -> int | None:
    try:
        return int(text, base) if text is not None else None
    except ValueError:
        return None


def _identity(first: Mapping[str, str]) -> tuple[str | None, int | None, int | None]:
    if "vendor_id" in first:
        raw = first["vendor_id"]
        vendor = _X86_VENDORS.get(raw, raw.lower() or None)
        return vendor, _int(first.get("cpu family")), _int(first.get("model"))
    implementer = _int(first.get("CPU implementer"), 16)
    if implementer is not None:
        vendor = _ARM_IMPLEMENTERS.get(implementer, f"0x{implementer:02x}")
        return vendor, _int(first.get("CPU architecture")), _int(first.get("CPU part"), 16)
    return None, None, None


def _model_name(first: Mapping[str, str], merged: Mapping[str, str]) -> str:
    for key in ("model name", "cpu model", "cpu", "Processor", "Hardware"):
        value = first.get(key) or merged.get(key)
        if value:
            return value
    part = _int(first.get("CPU part"), 16)
    if part is not None and _int(first.get("CPU implementer"), 16) == 0x41 and part in _ARM_PARTS:
        return _ARM_PARTS[part]
    return platform.processor() or platform.machine() or "unknown"


def _physical_cores(
    processors: list[dict[str, str]], allowed: list[int], cpu_root: Path
) -> int | None:
    allowed_set = set(allowed)
    cores: set[tuple[str, str]] = set()
    for block in processors:
        if _int(block.get("processor")) in allowed_set and "core id" in block:
            cores.add((block.get("physical id", "0"), block["core id"]))
    if cores:
        return len(cores)
    for n in allowed:
        topology = cpu_root / f"cpu{n}" / "topology"
        core = read_text(topology / "core_id")
        if core is None:
            return None
        cores.add((read_text(topology / "physical_package_id") or "0", core))
    return len(cores) or None


def _caches(cache_dir: Path) -> dict[tuple[int, str], int]:
    found: dict[tuple[int, str], int] = {}
    try:
        indexes = sorted(cache_dir.glob("index*"))
    except OSError:
        return found
    for index in indexes:
        level = _int(read_text(index / "level"))
        kind = (read_text(index / "type") or "").lower()
        size = _size(read_text(index / "size"))
        if level is not None and kind and size:
            found.setdefault((level, kind), size)
    return found


def _size(text: str | None) -> int | None:
    match = re.fullmatch(r"\s*(\d+)\s*([KMG]?)i?B?\s*", text or "", re.IGNORECASE)
    if match is None:
        return None
    scale = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[match.group(2).upper()]
    return int(match.group(1)) * scale


def _max_mhz(first: Mapping[str, str], cpu_dir: Path) -> float | None:
    khz = _int(read_text(cpu_dir / "cpufreq" / "cpuinfo_max_freq"))
    if khz:
        return khz / 1000.0
    match = _GHZ_IN_NAME.search(first.get("model name", ""))
    if match:
        return float(match.group(1)) * 1000.0
    try:  # the current clock: the best a VM without cpufreq tells
        return float(first["cpu MHz"]) or None
    except (KeyError, ValueError):
        return None
