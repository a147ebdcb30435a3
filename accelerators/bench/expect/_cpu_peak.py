"""Where a CPU peak's clock comes from, which vector ISA it assumes, and when a rate beats it.

:func:`accelerators.current` reports one clock per CPU (``CpuInfo.max_mhz``), read in this
order: the maximum the kernel's cpufreq driver reports (``cpuinfo_max_freq``: the boost
clock, a true ceiling), the nominal clock in the model name (``@ 2.45GHz``: boost may be
higher), else the current clock ``/proc/cpuinfo`` shows (on a VM without cpufreq, the TSC
rate: boost unknown). :func:`cpu_clock` says which of the three it is, reading the same
files, so the peak's note and the verdict can tell a ceiling from a floor.

A benchmark run on a real CPU also **measures** the clock its cores sustain with every core
busy (:mod:`accelerators.bench.expect._cpu_clock`, about 50 ms), and :func:`sustained_clock` makes
that the peak's clock: kept between the reported clock as a floor where that is nominal or
the TSC's (cores below it are throttled, and the peak must not excuse them) and cpufreq's
maximum as a ceiling. The reported clock stays in the note, with why it is only a floor.

:func:`isa_of` names the widest FMA the flags show (AMX, AVX-512, AVX2+FMA, AVX); the
FLOPs-per-cycle rows that turn it into a peak live in ``bench_bands.toml [[cpu_peak]]``
(family-aware: Zen 4 runs AVX-512 on a 256-bit datapath).

:func:`peak_reasons` flags a rate above :data:`ABOVE_PEAK` x its peak as ``peak_unreliable``:
``warn`` when the peak rests on a ceiling (a datasheet's boost figure, or cpufreq's maximum),
since the peak or the identification is then wrong; ``info`` when the clock was nominal or
current, since boost explains it: the peak is a floor and the band says little. Either way
the report says it, instead of a silent "118 % of peak".
"""

from __future__ import annotations

import glob
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from accelerators._text import flops_unit
from accelerators.bench.measure._stable import bounded_best
from accelerators.bench.report._models import GemmResult, MemoryResult, Reason, ReasonCode, Severity

if TYPE_CHECKING:
    from accelerators.bench.expect._cpu_clock import ClockEstimate
    from accelerators.detect import CpuInfo

__all__ = [
    "ABOVE_PEAK",
    "CpuClock",
    "cpu_clock",
    "cpu_peak_clock",
    "isa_of",
    "peak_reasons",
    "sustained_clock",
]

#: A rate above this share of its peak means the peak is wrong (timing noise stays below).
ABOVE_PEAK = 1.05
#: Where the kernel's cpufreq driver lists each CPU's maximum clock (kHz).
CPUFREQ_GLOB = "/sys/devices/system/cpu/cpu[0-9]*/cpufreq/cpuinfo_max_freq"
_GHZ_IN_NAME = re.compile(r"@\s*([0-9.]+)\s*GHz", re.IGNORECASE)

ClockKind = Literal["measured", "max_boost", "nominal", "current", "unknown"]

_KIND_TEXT: dict[str, str] = {
    "max_boost": "the maximum boost clock cpufreq reports (a ceiling)",
    "nominal": "the nominal clock in the model name: boost may run faster, so the peak is a floor",
    "current": "the current clock /proc/cpuinfo shows (no cpufreq: on a VM the TSC rate): "
    "boost is unknown, so the peak is a floor",
    "unknown": "no clock reported",
}


@dataclass(frozen=True)
class CpuClock:
    """The clock a CPU peak is computed from.

    :param mhz: the clock, or ``None`` when none is known.
    :param kind: ``measured`` (the sustained clock of busy cores, :func:`sustained_clock`),
        ``max_boost`` (cpufreq's maximum), ``nominal`` (the model name's), ``current``
        (``/proc/cpuinfo``'s ``cpu MHz``: the TSC rate on most VMs) or ``unknown``.
    :param reported_mhz: measured clocks: what the host reports (``CpuInfo.max_mhz``).
    :param reported_kind: measured clocks: the kind of the reported clock.
    :param estimate: measured clocks: the measurement.
    """

    mhz: float | None
    kind: ClockKind
    reported_mhz: float | None = None
    reported_kind: ClockKind | None = None
    estimate: ClockEstimate | None = None

    @property
    def ceiling(self) -> bool:
        """Whether no core runs faster than this clock: cpufreq's maximum, or the clock the
        cores were measured to sustain."""
        return self.kind in ("max_boost", "measured")

    def describe(self) -> str:
        if self.kind != "measured" or self.estimate is None:
            text = _KIND_TEXT[self.kind]
            if self.estimate is not None and self.estimate.mhz is None:
                text += f"; {self.estimate.describe()}"
            return text
        measured = self.estimate.mhz or 0.0
        text = f"{self.estimate.describe()}: {measured:.0f} MHz"
        reported = self.reported_mhz
        if reported is None or self.reported_kind is None:
            return text
        if self.reported_kind == "max_boost":
            return text + f" (cpufreq's maximum, {reported:.0f} MHz, is the ceiling)"
        if self.mhz is not None and measured < self.mhz:
            return text + (
                f", below the {reported:.0f} MHz the host reports ({self.reported_kind}): the "
                "cores are held below it (power or thermal limits), and the peak uses it as "
                "its floor"
            )
        why = "the TSC rate on this VM" if self.reported_kind == "current" else "the base clock"
        return text + f"; the {reported:.0f} MHz the host reports ({why}) is only a floor"


def sustained_clock(cpu: CpuInfo, estimate: ClockEstimate) -> CpuClock:
    """The peak's clock from a measurement: ``estimate`` within the reported clock's bounds
    (a nominal or TSC clock is a floor, cpufreq's maximum a ceiling); the reported clock
    alone, with why, when nothing was measured.

    :param cpu: the host CPU from :func:`accelerators.current`.
    :param estimate: :func:`~accelerators.bench.expect._cpu_clock.measure_clock`'s result.
    """
    reported = cpu_clock(cpu)
    if estimate.mhz is None:
        return CpuClock(reported.mhz, reported.kind, estimate=estimate)
    mhz = estimate.mhz
    if reported.mhz is not None:
        if reported.kind == "max_boost":
            mhz = min(mhz, reported.mhz)
        elif reported.kind in ("nominal", "current"):
            mhz = max(mhz, reported.mhz)
    return CpuClock(mhz, "measured", reported.mhz, reported.kind, estimate)


def cpu_peak_clock(cpu: CpuInfo, *, measure: bool) -> CpuClock:
    """The clock a run's CPU peaks use: measured on the real cores when ``measure`` (about
    50 ms, one thread per physical core), else the reported one (a fake host's)."""
    if not measure:
        return cpu_clock(cpu)
    from accelerators.bench.expect._cpu_clock import measure_clock

    cores = cpu.physical_cores or cpu.logical_cpus or 1
    return sustained_clock(cpu, measure_clock(cores))


def _cpufreq_max_mhz(pattern: str) -> float | None:
    found = []
    for path in glob.glob(pattern):
        try:
            found.append(int(Path(path).read_text(encoding="ascii").strip()) / 1000.0)
        except (OSError, ValueError):
            continue
    return max(found) if found else None


def cpu_clock(cpu: CpuInfo, *, cpufreq_glob: str | None = None) -> CpuClock:
    """What ``cpu.max_mhz`` is: cpufreq's maximum, the model name's nominal clock or the
    current clock (compared with the files it came from, so a fake host stays a fake).

    :param cpu: the host CPU from :func:`accelerators.current`.
    :param cpufreq_glob: where the cpufreq maxima are; :data:`CPUFREQ_GLOB` by default.
    """
    mhz = cpu.max_mhz
    if mhz is None:
        return CpuClock(None, "unknown")
    boost = _cpufreq_max_mhz(cpufreq_glob or CPUFREQ_GLOB)
    if boost is not None and abs(boost - mhz) < 1.0:
        return CpuClock(mhz, "max_boost")
    named = _GHZ_IN_NAME.search(cpu.model_name or "")
    if named is not None and abs(float(named.group(1)) * 1000.0 - mhz) < 1.0:
        return CpuClock(mhz, "nominal")
    return CpuClock(mhz, "current")


def isa_of(flags: Iterable[str]) -> str:
    """The widest floating-point FMA the CPU flags show, in words."""
    have = set(flags)
    parts = []
    if "avx512f" in have:
        parts.append("AVX-512 (512-bit FMA)")
    elif {"avx2", "fma"} <= have:
        parts.append("AVX2 + FMA (256-bit)")
    elif "avx" in have:
        parts.append("AVX (256-bit, no FMA)")
    elif have:
        parts.append("no AVX (SSE only)")
    else:
        return "no CPU flags reported"
    if "amx_bf16" in have:
        parts.append("AMX-BF16")
    elif "avx512_bf16" in have:
        parts.append("AVX512_BF16")
    return ", ".join(parts)


def _rate_and_peak(
    result: GemmResult | MemoryResult,
) -> tuple[float | None, float | None, str, float]:
    if isinstance(result, GemmResult):
        work = 2.0 * (result.m or 0) * (result.n or 0) * (result.k or 0) / 1e12
        rate = result.median_tflops or result.tflops
        return rate, result.peak_tflops, f"gemm.{result.dtype}", work
    work = (result.bytes_per_call or 0) / 1e9
    return result.median_gbps or result.gbps, result.peak_gbps, f"memory.{result.kernel}", work


def _rate_text(value: float, metric: str) -> str:
    """``value`` (TFLOPS for a GEMM, GB/s for a stream) with its unit, as the tables show it."""
    if not metric.startswith("gemm."):
        return f"{value:.4g} GB/s"
    factor, unit = flops_unit(value)
    return f"{value * factor:.4g} {unit}"


def peak_reasons(results: Iterable[GemmResult | MemoryResult], *, ceiling: bool) -> list[Reason]:
    """``peak_unreliable`` for every result whose rate is above :data:`ABOVE_PEAK` x its peak.

    The rate is the best-of-3 within 10 % (:func:`~accelerators.bench.measure._stable.bounded_best`:
    one lucky call does not count), else the median.

    :param results: measured GEMM and stream results.
    :param ceiling: whether the peaks rest on a ceiling clock (``warn``) or may sit below the
        boost clock (``info``).
    """
    reasons = []
    for result in results:
        rate, peak, metric, work = _rate_and_peak(result)
        best_s = bounded_best(result.samples_s) if result.samples_s else None
        if best_s and work:
            rate = work / best_s
        if not rate or not peak or rate <= ABOVE_PEAK * peak:
            continue
        why = (
            "the peak or the device's identification is wrong"
            if ceiling
            else "the clock behind the peak is not a ceiling (boost runs faster): the peak is "
            "a floor, so this figure is not judged against it"
        )
        reasons.append(
            Reason(
                code=ReasonCode.PEAK_UNRELIABLE,
                severity=Severity.WARN if ceiling else Severity.INFO,
                device_index=result.device_index,
                metric=metric,
                value=rate / peak,
                threshold=ABOVE_PEAK,
                unit="ratio",
                message=f"device {result.device_index}: {metric} reaches {rate / peak:.0%} of "
                f"its {_rate_text(peak, metric)} peak (above {ABOVE_PEAK:.0%}): {why}",
            )
        )
    return reasons
