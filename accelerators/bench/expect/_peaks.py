"""Datasheet peaks per device: catalog figures scaled to what one torch device is.

* **GPUs.** ``tflops.<dtype>`` and ``bandwidth_tbps`` from the catalog entry, divided by the
  devices per package (an MI250X GCD is half the package; a K80 GPU half the board). A MIG
  slice's compute peak is scaled by the SMs the slice reports (torch's ``multi_processor_count``)
  over the whole GPU's SMs (``sm_count`` in the bands file); where either is unknown, by the
  catalog profile's nominal ``sm_fraction`` (g/7), and the note says so. Bandwidth is scaled by
  ``memory_slices`` over the GPU's total memory slices, from the catalog. An MI300-series
  compute partition (DPX, QPX, CPX: each a device with 1/2, 1/4, 1/8 of the XCDs) is scaled
  likewise by the CUs torch reports over the whole GPU's (``compute_partition`` in the bands
  file); its bandwidth is not judged (one XCD's share of HBM bandwidth is not published).
  Where the GEMM runs on matrix units and the catalog's figure is the vector rate (FP64 on
  A100/H100/MI300), the bands file's ``matrix_peak`` replaces it.
* **CPUs.** FLOPs per cycle per core (the first matching ``cpu_peak`` rule of the bands file,
  from the ISA flags and x86 family) x physical cores x the maximum clock
  :func:`accelerators.current` reports. On a VM without cpufreq that clock is the nominal one
  (turbo may be higher), so CPU peaks are never better than ``derived``. Without a known clock
  or a matching rule there is no peak, and the report says the figures are measured only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from accelerators.bench.expect._bands import (
    bands,
    compute_partition,
    devices_per_package,
    full_gpu_sms,
    matrix_peak,
)
from accelerators.bench.expect._cpu_peak import CpuClock, cpu_clock, isa_of

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.detect import CpuInfo, DeviceInfo

__all__ = [
    "Peak",
    "cpu_gemm_peak",
    "device_gemm_peak",
    "device_memory_peak",
    "partition_mode",
]

_RANK = {"source": 0, "derived": 1, "unconfirmed": 2}


@dataclass(frozen=True)
class Peak:
    """A peak figure (TFLOPS or GB/s) with where it comes from.

    :param value: TFLOPS for GEMM peaks, GB/s for bandwidth peaks.
    :param source: a catalog or bands-file source key.
    :param confidence: ``source``, ``derived`` or ``unconfirmed``.
    :param note: how it was scaled or derived.
    """

    value: float
    source: str
    confidence: str
    note: str | None = None


def _weaker(a: str, b: str) -> str:
    return a if _RANK.get(a, 2) >= _RANK.get(b, 2) else b


def _mig_fractions(acc: Accelerator, profile: str | None) -> tuple[float, float] | None:
    """(compute fraction, memory fraction) of a MIG profile, ``None`` when unknown."""
    if profile is None:
        return None
    found = acc.mig_profile(profile)
    if found is None:
        return None
    total_slices = max((m.memory_slices for m in acc.mig), default=found.memory_slices)
    return found.sm_fraction, found.memory_slices / total_slices


def _slice_compute(acc: Accelerator, profile: str | None, sms: int | None) -> tuple[float, str]:
    """Compute fraction of a MIG slice and how it was found: reported SMs, else nominal."""
    full = full_gpu_sms(acc.name)
    if sms is not None and full is not None and 0 < sms <= full.sms:
        return sms / full.sms, f"x {sms}/{full.sms} SMs (slice reported / whole GPU: {full.source})"
    fractions = _mig_fractions(acc, profile)
    fraction = fractions[0] if fractions is not None else 1.0
    why = "SM count not reported" if sms is None else f"{sms} SMs reported"
    if full is None:
        why += f", {acc.name}'s full SM count unknown"
    return fraction, f"x MIG {profile} nominal SM fraction {fraction:.3f} ({why})"


_PARTITION_MODES = {1: "SPX", 2: "DPX", 3: "TPX", 4: "QPX", 6: "CPX", 8: "CPX"}


def partition_mode(accelerator: str, compute_units: int | None) -> tuple[str, int, int] | None:
    """``(mode, XCDs of this device, XCDs of the GPU)`` of an MI300-series compute partition.

    ``None`` for a whole GPU (SPX), for GPUs the bands file lists no partitions for, and for a
    CU count that is not a whole number of XCDs (a GPU with CUs disabled: judged as a whole).

    >>> partition_mode("MI300X", 38)
    ('CPX', 1, 8)
    """
    whole = compute_partition(accelerator)
    if whole is None or compute_units is None or compute_units >= whole.compute_units:
        return None
    per_xcd = whole.cus_per_xcd
    if compute_units <= 0 or compute_units % per_xcd:
        return None
    xcds = compute_units // per_xcd
    if whole.xcds % xcds:
        return None
    parts = whole.xcds // xcds
    mode = "CPX" if xcds == 1 else _PARTITION_MODES.get(parts, f"{parts} partitions")
    return mode, xcds, whole.xcds


def _scale(
    acc: Accelerator, device: DeviceInfo, compute: bool, sms: int | None = None
) -> tuple[float, str, str] | None:
    """Multiplier, confidence floor and note turning a package figure into this device's."""
    factor, confidence, notes = 1.0, "source", []
    partition = partition_mode(acc.name, sms) if not device.is_mig else None
    if partition is not None:
        if not compute:
            return None  # one partition's share of HBM bandwidth is not published
        mode, xcds, total = partition
        factor *= xcds / total
        confidence = "derived"
        notes.append(
            f"x {xcds}/{total} XCDs ({mode} compute partition: {sms} of "
            f"{total * (sms or 0) // xcds} CUs reported)"
        )
    per_package = devices_per_package(acc.name)
    if per_package > 1:
        factor /= per_package
        confidence = "derived"
        notes.append(f"1/{per_package} of the {acc.name} package figure")
    if device.is_mig:
        fractions = _mig_fractions(acc, device.mig_profile)
        if fractions is None:
            return None
        confidence = "derived"
        if compute:
            fraction, note = _slice_compute(acc, device.mig_profile, sms)
            factor *= fraction
            notes.append(note)
        else:
            factor *= fractions[1]
            notes.append(f"scaled by MIG {device.mig_profile} memory slices")
    return factor, confidence, "; ".join(notes)


def device_gemm_peak(device: DeviceInfo, dtype: str, *, sms: int | None = None) -> Peak | None:
    """Dense peak TFLOPS of ``dtype`` on one accelerator device, ``None`` when unknown.

    :param sms: the SMs (compute units) the runtime reports for the device; a MIG slice's peak
        scales by them.
    """
    acc = device.accelerator
    if acc is None:
        return None
    figure = acc.figure(f"tflops.{dtype}")
    if figure is None:
        return None
    scaled = _scale(acc, device, compute=True, sms=sms)
    if scaled is None:
        return None
    factor, confidence, note = scaled
    value, source, figure_confidence = figure.value, figure.source, figure.confidence
    matrix = matrix_peak(acc.name, dtype)
    if matrix is not None:
        note = "; ".join(
            n
            for n in (
                f"matrix-unit peak (catalog {dtype} {figure.value:g} is the vector rate)",
                note,
            )
            if n
        )
        value, source, figure_confidence = matrix.tflops, matrix.source, matrix.confidence
    return Peak(
        value=value * factor,
        source=source,
        confidence=_weaker(figure_confidence, confidence),
        note=note or None,
    )


def device_memory_peak(device: DeviceInfo, *, sms: int | None = None) -> Peak | None:
    """Datasheet memory bandwidth in GB/s of one accelerator device, ``None`` when unknown.

    :param sms: the compute units the runtime reports; an MI300 compute partition has none.
    """
    acc = device.accelerator
    if acc is None:
        return None
    scaled = _scale(acc, device, compute=False, sms=sms)
    if scaled is None:
        return None
    factor, confidence, note = scaled
    figure = acc.bandwidth
    return Peak(
        value=figure.value * 1000.0 * factor,
        source=figure.source,
        confidence=_weaker(figure.confidence, confidence),
        note=note or None,
    )


def cpu_gemm_peak(
    cpu: CpuInfo, dtype: str, *, cores: int | None = None, clock: CpuClock | None = None
) -> Peak | None:
    """Theoretical GEMM peak of the host CPU in TFLOPS, ``None`` when it cannot be derived.

    :param cpu: the host CPU from :func:`accelerators.current`.
    :param dtype: ``fp32``, ``fp64`` or ``bf16``.
    :param cores: cores to count; the CPU's physical cores by default.
    :param clock: the clock to use (a measured one, :func:`~._cpu_peak.sustained_clock`);
        the reported clock (:func:`~._cpu_peak.cpu_clock`) by default.
    """
    clock = clock or cpu_clock(cpu)
    mhz = clock.mhz
    if mhz is None:
        return None
    count = cores or cpu.physical_cores or cpu.logical_cpus
    data = bands()
    rule = next(
        (r for r in data.cpu_peak if r.matches(cpu.vendor, cpu.family, cpu.model, cpu.flags)),
        None,
    )
    if rule is None:
        return None
    per_cycle: float
    source: str = rule.source
    confidence: str = rule.confidence
    note: str = rule.note
    if dtype == "fp64":
        per_cycle = rule.fp64
    elif dtype == "fp32":
        per_cycle = rule.fp32
    elif dtype == "bf16":
        bf16 = next((r for r in data.cpu_bf16_peak if all(f in cpu.flags for f in r.flags)), None)
        if bf16 is None:
            return None
        per_cycle = (
            bf16.flops_per_cycle
            if bf16.flops_per_cycle is not None
            else rule.fp32 * (bf16.fp32_multiple or 1.0)
        )
        source, confidence, note = bf16.source, _weaker(bf16.confidence, confidence), bf16.note
    else:
        return None
    value = per_cycle * count * mhz * 1e6 / 1e12
    text = (
        f"{per_cycle:g} FLOPs/cycle/core x {count} core{'s' if count != 1 else ''} x "
        f"{mhz:.0f} MHz "
        f"({note.rstrip('.')}; ISA: {isa_of(cpu.flags)}); the clock is {clock.describe()}"
    )
    return Peak(value=value, source=source, confidence=_weaker(confidence, "derived"), note=text)
