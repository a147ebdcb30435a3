"""From observations to reasons, and from reasons to a verdict.

Every finding is a :class:`~accelerators.bench.report._models.Reason` with a stable code, a severity
and a message naming the device, what was expected and what was found. The verdict is the
worst severity among the reasons: any ``fail`` fails, else any ``warn`` warns, else pass.

=====================  ========  ============================================================
code                   severity  when
=====================  ========  ============================================================
no_accelerator         fail      ``expect`` names an accelerator and none is visible (info
                                 when nothing was expected and the CPU was benchmarked)
backend_unavailable    fail      a GPU is visible, torch cannot use it
not_benchmarked        warn      TPU, Neuron, Gaudi: identity checked, no benchmark backend
wrong_accelerator      fail      a visible device is not a candidate SKU of ``expect``
unidentified_device    warn      no catalog entry for the device (and nothing was expected)
mig_slice              fail      a MIG slice where a whole GPU was expected
wrong_partition        fail      another MIG profile, or a whole GPU, where one was expected
too_few_devices        fail      fewer matching devices than the spec's count
throttled              per data  ``bench_bands.toml [throttle]``: HW slowdown fails, SW
                                 thermal warns, SW power cap is informative
clocks_low             warn      SM clock under load below ``clock_warn_fraction`` x max
ecc_errors             warn      uncorrected ECC errors reported
miscompare             fail      a GEMM block or a stream array differs from its reference
gemm_slow/memory_slow  warn/fail measured / expected below ``warn_below`` / ``fail_below``;
                                 never ``fail`` when the band or the peak is unconfirmed
device_spread          warn      slowest / fastest device below ``spread_warn_below``
peak_unreliable        warn/info a rate above 105 % of its peak: warn when the peak is a
                                 ceiling (datasheet, cpufreq maximum), info when the clock
                                 behind it is nominal or the TSC's (:mod:`._cpu_peak`)
other_process          per data  another process on the GPU (NVML): the contention policy's
                                 severity; info when NVML cannot tell (:mod:`._gpu_processes`)
node_busy              per data  a slow figure on a busy node, beside another GPU process, or
                                 still too spread to judge after its reruns (:mod:`._rerun`)
=====================  ========  ============================================================

Identity checks live in :mod:`~accelerators.bench.judge._identity`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal

from accelerators._text import flops_unit
from accelerators.bench.expect._bands import Thresholds, ThrottlePolicy
from accelerators.bench.judge._identity import device_name, identity_reasons
from accelerators.bench.report._models import (
    GemmResult,
    MemoryResult,
    Reason,
    ReasonCode,
    Severity,
    Verdict,
)

if TYPE_CHECKING:
    from accelerators.detect import DeviceInfo

__all__ = [
    "correctness_reasons",
    "identity_reasons",
    "performance_reasons",
    "spread_reasons",
    "telemetry_reasons",
    "verdict_of",
]

_ORDER = {Severity.INFO: 0, Severity.WARN: 1, Severity.FAIL: 2}


def verdict_of(reasons: Iterable[Reason]) -> Verdict:
    """The worst severity among ``reasons`` as a verdict (``pass`` when there are none)."""
    worst = max((_ORDER[r.severity] for r in reasons), default=0)
    return {0: Verdict.PASS, 1: Verdict.WARN, 2: Verdict.FAIL}[worst]


# -- telemetry -----------------------------------------------------------------------------
def telemetry_reasons(
    device: DeviceInfo,
    *,
    thresholds: Thresholds,
    policy: ThrottlePolicy,
    under_load: bool,
) -> list[Reason]:
    """Throttle reasons, low clocks and ECC errors of one device.

    :param device: the device as read (ideally while a GEMM burst ran).
    :param thresholds: ``clock_warn_fraction``.
    :param policy: severity per throttle reason.
    :param under_load: whether ``device`` was read under load (clocks are only judged then).
    """
    reasons: list[Reason] = []
    for name in device.throttle_reasons:
        severity = Severity(policy.severity(name))
        what = "is active" if severity is not Severity.INFO else "is active (normal under load)"
        reasons.append(
            Reason(
                code=ReasonCode.THROTTLED,
                severity=severity,
                device_index=device.index,
                metric=f"throttle.{name}",
                message=f"{device_name(device)}: clock-event reason {name} {what}",
            )
        )
    clocks = device.clocks_mhz
    sm, sm_max = clocks.get("sm"), clocks.get("sm_max")
    if under_load and sm and sm_max and sm < thresholds.clock_warn_fraction * sm_max:
        reasons.append(
            Reason(
                code=ReasonCode.CLOCKS_LOW,
                severity=Severity.WARN,
                device_index=device.index,
                metric="clock.sm",
                value=float(sm),
                threshold=float(thresholds.clock_warn_fraction * sm_max),
                unit="mhz",
                message=f"{device_name(device)}: SM clock {sm:.0f} MHz under load is below "
                f"{thresholds.clock_warn_fraction:.0%} of its {sm_max:.0f} MHz maximum",
            )
        )
    if device.ecc_errors:
        reasons.append(
            Reason(
                code=ReasonCode.ECC_ERRORS,
                severity=Severity(policy.ecc_errors),
                device_index=device.index,
                value=float(device.ecc_errors),
                unit="count",
                message=f"{device_name(device)}: {device.ecc_errors} uncorrected ECC error(s) "
                "reported",
            )
        )
    return reasons


# -- measurements --------------------------------------------------------------------------
def correctness_reasons(results: Iterable[GemmResult | MemoryResult]) -> list[Reason]:
    """A ``miscompare`` failure for every result whose output check failed."""
    reasons = []
    for result in results:
        if result.correct is not False:
            continue
        if isinstance(result, GemmResult):
            metric = f"gemm.{result.dtype}"
            error = result.max_error
            findings = []
            tolerance = result.tolerance or 0.0
            if error is None or math.isnan(error) or error > tolerance:
                findings.append(
                    f"differs from the fp64 reference: max |error|/sqrt(k) = {error:.3g} "
                    f"(tolerance {tolerance:.3g})"
                )
            if result.checksum_failures:
                findings.append(
                    f"failed its row checksums on {result.checksum_failures} of "
                    f"{result.calls_checked} outputs (worst row {result.outlier_score:.3g}x its "
                    f"threshold, scale error {result.scale_error:.2g})"
                )
            detail = f"{result.dtype} GEMM {result.m}x{result.n}x{result.k} output " + (
                "; ".join(findings) or "failed its output check"
            )
        else:
            metric = f"memory.{result.kernel}"
            error = result.max_rel_error
            detail = (
                f"stream {result.kernel} ({result.operation}) differs from its analytic value: "
                f"relative error {error:.3g} > {result.tolerance:.3g}"
            )
        reasons.append(
            Reason(
                code=ReasonCode.MISCOMPARE,
                severity=Severity.FAIL,
                device_index=result.device_index,
                metric=metric,
                value=error,
                threshold=result.tolerance,
                unit="ratio",
                message=f"device {result.device_index}: {detail}",
            )
        )
    return reasons


def performance_reasons(
    results: Iterable[GemmResult | MemoryResult], thresholds: Thresholds
) -> list[Reason]:
    """``gemm_slow`` / ``memory_slow`` for results below their expected band.

    The judged figure is the *sustained* rate, the median of the winning shape's timed calls
    (the best call alone hides intermittent slowness); the best is quoted beside it. The
    message's "% of the peak" is the same figure as the tables' ``% peak`` column.
    """
    reasons = []
    unit: Literal["tflops", "gbps"]
    for result in results:
        if isinstance(result, GemmResult):
            best, median, expected, unit = (
                result.tflops,
                result.median_tflops,
                result.expected_tflops,
                "tflops",
            )
            peak, code = result.peak_tflops, ReasonCode.GEMM_SLOW
            metric, what, shown = f"gemm.{result.dtype}", f"{result.dtype} GEMM", "TFLOPS"
        else:
            best, median, expected, unit = (
                result.gbps,
                result.median_gbps,
                result.expected_gbps,
                "gbps",
            )
            peak, code = result.peak_gbps, ReasonCode.MEMORY_SLOW
            metric, what, shown = f"memory.{result.kernel}", f"{result.kernel} bandwidth", "GB/s"
        measured = median or best
        # A fleet median or this node's own history stands in for a band (no peak needed).
        fleet = result.band_confidence in ("fleet", "history")
        if measured is None or not expected or not (peak or fleet):
            continue
        ratio = measured / expected
        if ratio >= thresholds.warn_below:
            continue
        unconfirmed = result.band_confidence in ("unconfirmed", "history") or (
            not fleet and result.peak_confidence == "unconfirmed"
        )
        severity = Severity.WARN
        suffix = f"warns below {thresholds.warn_below:.0%} of expected"
        if ratio < thresholds.fail_below:
            if unconfirmed:
                suffix = "below the fail line, but the band or peak is unconfirmed: warning only"
            else:
                severity = Severity.FAIL
                suffix = f"fails below {thresholds.fail_below:.0%} of expected"
        # GFLOPS below 1 TFLOPS (a CPU), as the CLI's tables show them.
        scale = 1.0
        if unit == "tflops":
            scale, shown = flops_unit(peak or expected)
        best_text = f"; best call {best * scale:.4g}" if best is not None and median else ""
        basis = (
            f"the {result.band_source}"
            if fleet
            else f"a band of {result.band_fraction:.0%} of peak, source {result.band_source}"
        )
        reasons.append(
            Reason(
                code=code,
                severity=severity,
                device_index=result.device_index,
                metric=metric,
                value=measured,
                threshold=expected,
                unit=unit,
                message=f"device {result.device_index}: {what} sustains "
                f"{measured * scale:.4g} {shown} (median of the timed calls{best_text}), "
                + (
                    f"{measured / peak:.0%} of the {peak * scale:.4g} {shown} peak and "
                    if peak
                    else ""
                )
                + f"{ratio:.0%} of the expected {expected * scale:.4g} {shown} ("
                + basis
                + f"); {suffix}",
            )
        )
    return reasons


def spread_reasons(
    per_device: Sequence[Sequence[GemmResult | MemoryResult]], thresholds: Thresholds
) -> list[Reason]:
    """``device_spread`` when the slowest device trails the fastest beyond the threshold."""
    by_metric: dict[str, list[tuple[float, int]]] = {}
    for results in per_device:
        for result in results:
            if isinstance(result, GemmResult):
                metric, value = f"gemm.{result.dtype}", result.tflops
            else:
                metric, value = f"memory.{result.kernel}", result.gbps
            if value:
                by_metric.setdefault(metric, []).append((value, result.device_index))
    reasons = []
    for metric, values in by_metric.items():
        if len(values) < 2:
            continue
        slow, fast = min(values), max(values)
        ratio = slow[0] / fast[0]
        if ratio < thresholds.spread_warn_below:
            reasons.append(
                Reason(
                    code=ReasonCode.DEVICE_SPREAD,
                    severity=Severity.WARN,
                    device_index=slow[1],
                    metric=metric,
                    value=ratio,
                    threshold=thresholds.spread_warn_below,
                    unit="ratio",
                    message=f"{metric}: device {slow[1]} reaches {ratio:.0%} of device "
                    f"{fast[1]} ({slow[0]:.4g} vs {fast[0]:.4g}); warns below "
                    f"{thresholds.spread_warn_below:.0%}",
                )
            )
    return reasons
