"""GEMM phase: the shape search per dtype on one device, its check, peak and band."""

from __future__ import annotations

import statistics
from typing import Literal

from accelerators.bench.device._context import (
    CPU_PROBE,
    CPU_TRIAL_REPS,
    GPU_TRIAL_REPS,
    Context,
    DeviceState,
    band_of,
    cut_short_reason,
    gemm_session,
    record,
)
from accelerators.bench.expect._peaks import Peak, cpu_gemm_peak, device_gemm_peak
from accelerators.bench.measure._backend import GemmSession
from accelerators.bench.measure._backend import Shape as _Shape
from accelerators.bench.measure._correctness import gemm_check_passes
from accelerators.bench.measure._gemm import SearchSettings, ShapeSearch
from accelerators.bench.report._models import (
    GemmResult,
    Reason,
    ReasonCode,
    Severity,
)
from accelerators.bench.runner._thread_phase import Chosen, start_threads, windowed_choice

__all__ = [
    "CHECK_RESERVE",
    "catalog_gate",
    "cpu_setup",
    "gemm_peak",
    "measure_gemm",
    "no_peak_note",
]

#: Share of a dtype's budget kept after the search for the winner's correctness check.
CHECK_RESERVE = 0.04


def measure_gemm(ctx: Context, state: DeviceState, dtype: str) -> None:
    props = state.props
    start = ctx.clock()
    why = catalog_gate(ctx, state, dtype) or ctx.backend.unsupported(props, dtype)
    if why is not None:
        state.gemm.append(
            GemmResult(dtype=dtype, device_index=props.index, status="unsupported", note=why)
        )
        state.reasons.append(
            Reason(
                code=ReasonCode.DTYPE_UNSUPPORTED,
                severity=Severity.INFO,
                device_index=props.index,
                metric=f"gemm.{dtype}",
                message=f"device {props.index}: {dtype} not measured: {why}",
            )
        )
        return
    phase = f"GEMM {dtype}"
    budget = ctx.profile.cpu_gemm_budget_s if ctx.is_cpu else ctx.profile.gpu_gemm_budget_s
    end = ctx.phase_end(phase, start, budget)
    # The search and the thread windows end early enough for the winner's check.
    search_end = end - CHECK_RESERVE * budget
    options = ctx.backend.thread_options(props) if ctx.is_cpu else ()
    windowed = len(options) > 1
    session = gemm_session(ctx, state, dtype)
    chosen: Chosen | None = None
    try:
        timer = ctx.backend.timer(props)
        search = ShapeSearch(
            ctx.backend,
            props,
            session,
            timer,
            SearchSettings(
                budget_s=max(search_end - start, 1e-3),
                final_fraction=ctx.profile.final_fraction,
                min_reps=3 if ctx.is_cpu else 5,
                trial_reps=CPU_TRIAL_REPS if ctx.is_cpu else GPU_TRIAL_REPS,
                # On a CPU the final share goes to the thread windows on the winner.
                remeasure=not windowed,
            ),
            clock=ctx.clock,
            on_progress=lambda f: ctx.progress.update(phase, f),
            start=start,
            hard_deadline=search_end,
        )
        candidates = None
        threads: int | None = None
        if ctx.is_cpu:
            candidates, threads = cpu_setup(ctx, state, dtype, session, search, options)
        result = search.run(candidates)
        best = result.best
        if windowed and threads is not None:
            chosen = windowed_choice(
                ctx,
                state,
                f"gemm.{dtype}",
                result.case.run,
                work=best.shape.flops * 1e-12,
                ran_at=threads,
                earlier_s=best.measurement.samples_s,
                deadline=search_end,
                before=result.case.before,
            )
            state.threads.append(record(f"gemm.{dtype}", chosen.choice))
            threads = chosen.choice.threads
        try:
            check = result.case.check(
                blocks=ctx.profile.check_blocks,
                block=ctx.profile.check_block,
                seed=1000 * props.index + len(state.gemm),
            )
        finally:
            result.case.close()
    finally:
        session.close()
    passes, tolerance = gemm_check_passes(check, dtype)
    flops = best.shape.flops
    samples = chosen.samples[threads] if chosen is not None and threads is not None else ()
    samples = samples or best.measurement.samples_s
    per_count = {
        count: flops / statistics.median(s) / 1e12
        for count, s in (chosen.samples.items() if chosen is not None else ())
        if s
    }
    judged_on: Literal["all-core", "per-core"] | None = None
    if ctx.is_cpu:
        one_core = windowed and threads is not None and threads < max(options) and ctx.busy()
        judged_on = "per-core" if one_core else "all-core"
    peak, band_metric = gemm_peak(ctx, state, dtype, one_core=judged_on == "per-core")
    band = band_of(ctx, state, band_metric)
    expected = peak.value * band.fraction if peak is not None and band is not None else None
    note = None
    if peak is None:
        note = no_peak_note(ctx, state, dtype)
    cut = result.cut or (chosen is not None and chosen.choice.cut)
    state.gemm.append(
        GemmResult(
            dtype=dtype,
            device_index=props.index,
            m=best.shape.m,
            n=best.shape.n,
            k=best.shape.k,
            tflops=flops / min(samples) / 1e12,
            median_tflops=flops / statistics.median(samples) / 1e12,
            samples_s=tuple(samples),
            shapes_tried=len(result.trials),
            search_s=ctx.clock() - start,
            search_stopped="deadline" if cut else result.stopped,
            threads=threads,
            all_core_tflops=per_count.get(max(options)) if windowed else None,
            per_core_tflops=per_count.get(min(options)) if windowed else None,
            judged_on=judged_on,
            correct=passes,
            max_error=check.max_error,
            calls_checked=check.calls_checked or None,
            checksum_failures=check.calls_failed if check.calls_checked else None,
            outlier_score=check.outlier_score if check.calls_checked else None,
            scale_error=check.scale_error if check.calls_checked else None,
            tolerance=tolerance,
            peak_tflops=peak.value if peak is not None else None,
            peak_source=peak.source if peak is not None else None,
            peak_confidence=peak.confidence if peak is not None else None,
            peak_note=peak.note if peak is not None else None,
            expected_tflops=expected,
            band_fraction=band.fraction if band is not None and peak is not None else None,
            band_source=band.source if band is not None and peak is not None else None,
            band_confidence=band.confidence if band is not None and peak is not None else None,
            note=note,
        )
    )
    if note is not None:
        code = ReasonCode.EMULATED_DTYPE if "emulat" in note else ReasonCode.NO_PEAK
        state.reasons.append(
            Reason(
                code=code,
                severity=Severity.INFO,
                device_index=props.index,
                metric=f"gemm.{dtype}",
                message=f"device {props.index}: {note}",
            )
        )
    if cut:
        what = "the thread windows" if chosen is not None and chosen.choice.cut else "a trial"
        state.reasons.append(
            cut_short_reason(props.index, f"gemm.{dtype}", end - start, f"{what} ended early")
        )
    ctx.progress.update(phase, 1.0)


def catalog_gate(ctx: Context, state: DeviceState, dtype: str) -> str | None:
    """Why a catalog-gated dtype (fp64, int8, fp4...) is not run on this GPU, else ``None``.

    Those dtypes run only where the catalog lists a dense figure of the dtype for the device:
    without one there is nothing to judge the rate against.
    """
    if ctx.is_cpu:
        return None
    stand_in = dict(ctx.profile.gpu_stand_ins).get(dtype)
    if stand_in is not None:
        return _stand_in_gate(ctx, state, dtype, stand_in)
    if dtype not in ctx.profile.catalog_gated:
        return None
    acc = state.identity.accelerator
    if acc is None:
        return f"not run: the device is not in the catalog, so there is no dense {dtype} figure"
    if acc.figure(f"tflops.{dtype}") is None:
        return f"not run: the catalog has no dense {dtype} figure for {acc.name}"
    return None


def _stand_in_gate(ctx: Context, state: DeviceState, dtype: str, instead: str) -> str | None:
    """Why ``dtype`` is left to ``instead`` in this profile, or ``None`` to run it."""
    acc = state.identity.accelerator
    if acc is None or instead not in ctx.dtypes:
        return None
    mine, theirs = acc.figure(f"tflops.{dtype}"), acc.figure(f"tflops.{instead}")
    if mine is None or theirs is None or mine.value != theirs.value:
        return None
    if ctx.backend.unsupported(state.props, instead) is not None:
        return None
    return (
        f"not run in {ctx.profile.name}: {acc.name}'s dense {dtype} and {instead} rates are "
        f"the same ({mine.value:g} TFLOPS, the same matrix units), and {instead} is measured; "
        "the standard profile measures both"
    )


def cpu_setup(
    ctx: Context,
    state: DeviceState,
    dtype: str,
    session: GemmSession,
    search: ShapeSearch,
    options: tuple[int, ...],
) -> tuple[list[_Shape], int | None]:
    """Set the thread count the search runs at (the prior, else every core), then size the
    candidates by the rate of a first small product."""
    props = state.props
    threads = start_threads(ctx, props.name, f"gemm.{dtype}", options) if options else None
    timer = ctx.backend.timer(props)
    probe = session.case(CPU_PROBE)
    try:
        probe.run()
        first = min(timer.time(probe.run, iterations=2))
    finally:
        probe.close()
    search.flops_per_s = CPU_PROBE.flops / max(first, 1e-9)
    return search.candidates(), threads


def gemm_peak(
    ctx: Context, state: DeviceState, dtype: str, *, one_core: bool = False
) -> tuple[Peak | None, str]:
    metric = f"gemm.{dtype}"
    if ctx.is_cpu:
        cores = 1 if one_core else None
        return cpu_gemm_peak(ctx.detected.cpu, dtype, cores=cores, clock=ctx.cpu_clock), metric
    return device_gemm_peak(state.identity, dtype, sms=state.props.compute_units), metric


def no_peak_note(ctx: Context, state: DeviceState, dtype: str) -> str:
    if ctx.is_cpu:
        cpu = ctx.detected.cpu
        if dtype == "bf16" and not ({"avx512_bf16", "amx_bf16"} & cpu.flags):
            return (
                "bf16 GEMM is emulated on this CPU (no AVX512_BF16 or AMX-BF16): measured rate only"
            )
        if (ctx.cpu_clock.mhz if ctx.cpu_clock is not None else cpu.max_mhz) is None:
            return f"{dtype} peak unknown (no CPU clock reported): measured figures only"
        return f"{dtype} peak unknown for this CPU's ISA: measured figures only"
    acc = state.identity.accelerator
    if acc is None:
        return f"{dtype}: device not in the catalog, measured figures only"
    if state.identity.is_mig and acc.mig_profile(state.identity.mig_profile or "") is None:
        return f"{dtype}: MIG profile {state.identity.mig_profile} unknown to the catalog"
    return f"{dtype}: the catalog has no {dtype} figure for {acc.name}, measured only"
