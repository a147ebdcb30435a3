"""Checks and verdict: a device's report from its results, the slowest device, a busy node."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import accelerators
from accelerators.bench.device._contention import busy_reasons
from accelerators.bench.device._context import (
    Context,
    DeviceState,
)
from accelerators.bench.device._gpu_processes import Occupancy, occupancy_reasons
from accelerators.bench.expect._bands import ContentionPolicy, bands
from accelerators.bench.expect._cpu_peak import CpuClock, cpu_clock, peak_reasons
from accelerators.bench.history._baseline import with_fleet_baseline
from accelerators.bench.judge._verdict import (
    correctness_reasons,
    performance_reasons,
    telemetry_reasons,
    verdict_of,
)
from accelerators.bench.measure._backend import Backend
from accelerators.bench.report._models import (
    DeviceReport,
    DeviceSummary,
    GemmResult,
    MemoryResult,
    Reason,
    ReasonCode,
)

if TYPE_CHECKING:
    from accelerators.detect import Detected

__all__ = [
    "cpu_clocks",
    "device_report",
    "figures",
    "history_sku",
    "judge_busy",
    "slowest",
    "summary",
    "versions_of",
]


def history_sku(state: DeviceState) -> str:
    """The name a device's figures are kept under in the bench history: its catalog name,
    else the runtime's; a MIG slice's profile appended (``A100-SXM4-40GB@1g.5gb``)."""
    identity = state.identity
    if identity.accelerator is not None:
        sku = identity.accelerator.name
    else:
        sku = identity.raw_name or state.props.name
    if identity.is_mig and identity.mig_profile:
        sku += f"@{identity.mig_profile}"
    return sku


def device_report(ctx: Context, state: DeviceState) -> DeviceReport:
    data = bands()
    seen = state.load or state.identity
    reasons = list(state.reasons)
    if not ctx.is_cpu:
        reasons += telemetry_reasons(
            seen,
            thresholds=data.thresholds,
            policy=data.throttle,
            under_load=state.load is not None,
        )
    results: list[GemmResult | MemoryResult] = [*state.gemm, *state.memory]
    # Datasheet peaks are boost-clock ceilings; a CPU's is one only with cpufreq's maximum.
    clock = ctx.cpu_clock or cpu_clock(ctx.detected.cpu)
    ceiling = clock.ceiling if ctx.is_cpu else True
    if ctx.fleet or ctx.own:
        sku = history_sku(state)
        # Where no cpufreq maximum stands behind a CPU's peak (a VM: the TSC's clock, or the
        # one the add chain measured), its band (85 % of the peak, unconfirmed) says less of
        # what the vCPUs sustain than the node's own passing runs: those replace it once
        # there are enough. With cpufreq's maximum the peak-derived band stays.
        measured = ctx.is_cpu and clock.kind == "measured" and clock.reported_kind != "max_boost"
        results = with_fleet_baseline(
            results, sku, ctx.fleet, ctx.own, peak_is_floor=measured or not ceiling
        )
        state.gemm = [r for r in results if isinstance(r, GemmResult)]
        state.memory = [r for r in results if isinstance(r, MemoryResult)]
    reasons += correctness_reasons(results)
    reasons += peak_reasons(results, ceiling=ceiling)
    reasons += performance_reasons(results, data.thresholds)
    identity = state.identity
    return DeviceReport(
        index=state.props.index,
        kind=identity.kind,
        backend=ctx.backend.kind,
        name=identity.raw_name or state.props.name,
        accelerator=identity.accelerator.name if identity.accelerator is not None else None,
        vendor=identity.vendor,
        is_mig=identity.is_mig,
        mig_profile=identity.mig_profile,
        compute_units=state.props.compute_units,
        memory_bytes=identity.memory_bytes or state.props.memory_bytes,
        clocks_mhz={**seen.clocks_mhz, **cpu_clocks(clock)}
        if ctx.is_cpu
        else dict(seen.clocks_mhz),
        throttle_reasons=tuple(seen.throttle_reasons),
        temperature_c=seen.temperature_c,
        power_w=seen.power_w,
        power_limit_w=seen.power_limit_w,
        ecc_errors=seen.ecc_errors,
        telemetry_samples=len(state.samples),
        threads=tuple(state.threads),
        gemm=tuple(state.gemm),
        memory=tuple(state.memory),
        verdict=verdict_of(reasons),
        reasons=tuple(reasons),
        config=state.config,
        sustained=state.sustained,
    )


def cpu_clocks(clock: CpuClock) -> dict[str, float]:
    """A CPU's clocks for the report: ``peak`` (what its peaks use), ``measured`` (the cores'
    sustained clock, when measured) and ``reported`` (what the host says)."""
    out: dict[str, float] = {}
    if clock.mhz is not None:
        out["peak"] = round(clock.mhz, 1)
    if clock.estimate is not None and clock.estimate.mhz is not None:
        out["measured"] = round(clock.estimate.mhz, 1)
    reported = clock.reported_mhz if clock.kind == "measured" else clock.mhz
    if reported is not None:
        out["reported"] = round(reported, 1)
    return out


def judge_busy(
    device: DeviceReport,
    found: dict[str, float],
    policy: ContentionPolicy,
    occupancy: dict[str, Occupancy] | str | None = None,
    record: Mapping[str, str] | None = None,
) -> DeviceReport:
    """``device`` with its slow figures made inconclusive where the node was busy (``found``,
    for a CPU: host contention slows what the host computes, not a GPU's kernels) or another
    process ran on the GPU (``occupancy``, matched through its driver ``record``'s UUID)."""
    extra: list[Reason] = []
    if device.kind == "cpu":
        occupancy = None
    else:
        found = {}
    if occupancy is not None:
        extra = occupancy_reasons(device.index, record or {}, occupancy, severity=policy.severity)
    shared = [r for r in extra if r.code is ReasonCode.OTHER_PROCESS and r.severity != "info"]
    cause = shared[0].message.split(": ", 1)[-1] if shared else None
    reasons = busy_reasons(
        [*device.reasons, *extra], found, [*device.gemm, *device.memory], policy, cause=cause
    )
    return device.model_copy(update={"reasons": tuple(reasons), "verdict": verdict_of(reasons)})


def summary(
    detected: Detected, reports: Sequence[DeviceReport], backend: Backend | None
) -> DeviceSummary:
    if reports:
        first = reports[0]
        return DeviceSummary(
            kind=first.kind,
            backend=backend.kind if backend is not None else None,
            name=first.name,
            accelerator=first.accelerator,
            count=len(reports),
            is_mig=first.is_mig,
            mig_profile=first.mig_profile,
        )
    return DeviceSummary(
        kind=detected.kind,
        backend=None,
        name=detected.raw_name,
        accelerator=detected.accelerator.name if detected.accelerator is not None else None,
        count=detected.count if detected.kind not in ("cpu", "unknown") else 0,
        is_mig=detected.is_mig,
        mig_profile=detected.mig_profile,
    )


def slowest(
    reports: Sequence[DeviceReport],
) -> tuple[tuple[GemmResult, ...], tuple[MemoryResult, ...], int | None]:
    """Per dtype and kernel, the slowest device's result; and the slowest device overall."""
    gemm: dict[str, GemmResult] = {}
    memory: dict[str, MemoryResult] = {}
    for report in reports:
        for g in report.gemm:
            held = gemm.get(g.dtype)
            if held is None or (g.tflops is not None and (held.tflops or math.inf) > g.tflops):
                gemm[g.dtype] = g
        for m in report.memory:
            held_m = memory.get(m.kernel)
            if held_m is None or (m.gbps is not None and (held_m.gbps or math.inf) > m.gbps):
                memory[m.kernel] = m
    slowest: int | None = reports[0].index if reports else None
    if len(reports) > 1:
        # Geometric mean of each device's figures relative to the best device per metric.
        best: dict[str, float] = {}
        for report in reports:
            for key, value in figures(report):
                best[key] = max(best.get(key, 0.0), value)
        scores = []
        for report in reports:
            logs = [math.log(value / best[key]) for key, value in figures(report)]
            scores.append((sum(logs) / len(logs) if logs else 0.0, report.index))
        slowest = min(scores)[1]
    return tuple(gemm.values()), tuple(memory.values()), slowest


def figures(report: DeviceReport) -> Iterator[tuple[str, float]]:
    for g in report.gemm:
        if g.tflops:
            yield f"gemm.{g.dtype}", g.tflops
    for m in report.memory:
        if m.gbps:
            yield f"memory.{m.kernel}", m.gbps


def versions_of(backend: Backend | None) -> dict[str, str]:
    """The versions a report names: this package, the catalog, the backend's libraries."""
    versions = {"accelerators": accelerators.__version__}
    with contextlib.suppress(Exception):
        from accelerators import catalog

        versions["catalog"] = catalog.catalog_version()
    if backend is not None:
        versions.update(backend.describe())
    return versions
