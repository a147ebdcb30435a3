"""Stream phase: the five bandwidth kernels on one device, checked and compared with the peak."""

from __future__ import annotations

import dataclasses
import math

from accelerators.bench._backend import ELEMENT_BYTES, StreamCase
from accelerators.bench._context import (
    Context,
    DeviceState,
    band_of,
    record,
)
from accelerators.bench._peaks import device_memory_peak
from accelerators.bench._report import (
    MemoryResult,
)
from accelerators.bench._rerun import Windows
from accelerators.bench._stream import (
    KERNELS,
    StreamOutcome,
    expected_values,
    run_stream,
    stream_elements,
)
from accelerators.bench._threads import pick_threads
from accelerators.bench._timing import Measurement, Timer, bench

__all__ = ["RERUNNABLE", "measure_stream"]

#: Kernels that can run again after the whole sequence without changing what the arrays
#: hold (triad rewrites ``a`` from unchanged ``b`` and ``c``; dot only reads), so their
#: analytic check still holds after a rerun.
RERUNNABLE = ("triad", "dot")


def measure_stream(ctx: Context, state: DeviceState) -> None:
    props = state.props
    dtype = ctx.backend.stream_dtype(props)
    elements = stream_elements(
        props,
        dtype,
        llc_multiple=ctx.profile.stream_llc_multiple,
        min_bytes=(
            ctx.profile.cpu_stream_min_bytes if ctx.is_cpu else ctx.profile.gpu_stream_min_bytes
        ),
        memory_budget_bytes=ctx.backend.memory_budget_bytes(props),
    )
    case = ctx.backend.open_stream(props, elements=elements, dtype=dtype)
    threads: int | None = None
    try:
        timer = ctx.backend.timer(props)
        if ctx.backend.thread_options(props):
            # "add" (c = a + b) keeps the analytic sequence valid: copy rewrites c first.
            choice = pick_threads(
                ctx.backend,
                props,
                "stream",
                case.kernel("add"),
                timer,
                clock=ctx.clock,
                budget_s=ctx.profile.thread_probe_s,
                refresh=ctx.refresh_threads,
            )
            state.threads.append(record("stream", choice))
            threads = choice.threads
        done = [0]

        def on_kernel(_name: str) -> None:
            done[0] += 1
            ctx.progress.update("stream", done[0] / len(KERNELS))

        outcomes = run_stream(
            ctx.backend,
            props,
            case,
            timer,
            budget_s=ctx.profile.stream_budget_s,
            min_reps=ctx.profile.stream_min_reps,
            max_reps=ctx.profile.stream_max_reps,
            on_kernel=on_kernel,
        )
        peak = (
            None
            if ctx.is_cpu
            else device_memory_peak(state.identity, sms=state.props.compute_units)
        )
        expectations = {}
        reruns: dict[str, tuple[Windows, int]] = {}
        for outcome in outcomes:
            band = band_of(ctx, state, f"memory.{outcome.kernel.name}") if peak else None
            expected = peak.value * band.fraction if peak is not None and band else None
            expectations[outcome.kernel.name] = (band, expected)
        for position, outcome in enumerate(outcomes):
            judged = expectations[outcome.kernel.name][1] is not None or bool(ctx.fleet or ctx.own)
            # Triad is the kernel a CPU's contention is named from, judged band or not.
            if outcome.kernel.name in RERUNNABLE and (judged or outcome.kernel.name == "triad"):
                windows = Windows(
                    outcome.measurement,
                    outcome.bytes_per_call,
                    1e-9,
                    expectations[outcome.kernel.name][1],
                )
                added = _rerun_kernel(ctx, case, timer, outcome, windows)
                if added:
                    outcomes[position] = _rechecked(case, outcome, windows.judged)
                reruns[outcome.kernel.name] = (windows, added)
    finally:
        case.close()
    element_bytes = ELEMENT_BYTES[dtype]
    for outcome in outcomes:
        band, expected = expectations[outcome.kernel.name]
        windows_of, added = reruns.get(outcome.kernel.name, (None, 0))
        state.memory.append(
            MemoryResult(
                kernel=outcome.kernel.name,
                device_index=props.index,
                gbps=outcome.best_gbps,
                median_gbps=outcome.median_gbps,
                operation=outcome.kernel.operation,
                bytes_formula=outcome.kernel.formula(element_bytes),
                bytes_per_call=outcome.bytes_per_call,
                elements=outcome.elements,
                dtype=dtype,
                array_bytes=outcome.elements * element_bytes,
                samples_s=outcome.measurement.samples_s,
                threads=threads,
                correct=outcome.correct,
                max_rel_error=outcome.max_rel_error,
                tolerance=outcome.tolerance,
                peak_gbps=peak.value if peak is not None else None,
                peak_source=peak.source if peak is not None else None,
                peak_confidence=peak.confidence if peak is not None else None,
                expected_gbps=expected,
                band_fraction=band.fraction if band else None,
                band_source=band.source if band else None,
                band_confidence=band.confidence if band else None,
                note=None if peak else "no datasheet bandwidth for a CPU: measured only",
                reruns=added,
                unjudged=windows_of.why() if windows_of is not None else None,
                window_medians=windows_of.medians if windows_of is not None else (),
            )
        )


def _rerun_kernel(
    ctx: Context, case: StreamCase, timer: Timer, outcome: StreamOutcome, windows: Windows
) -> int:
    fn = case.kernel(outcome.kernel.name)

    def measure(seconds: float) -> Measurement:
        return bench(
            fn,
            timer,
            rep_s=seconds,
            warmup_s=seconds / 4,
            min_reps=ctx.profile.stream_min_reps,
            max_reps=ctx.profile.stream_max_reps,
        )

    keep = ctx.profile.stream_budget_s if outcome.kernel.name == "triad" else 0.0
    return windows.rerun(ctx, measure, ctx.profile.stream_budget_s, keep_s=keep)


def _rechecked(case: StreamCase, outcome: StreamOutcome, judged: Measurement) -> StreamOutcome:
    """``outcome`` with the judged window, its check made again after the reruns."""
    want = expected_values(case.elements)[outcome.kernel.name]
    error = outcome.max_rel_error
    if outcome.kernel.writes is not None:
        value = want[outcome.kernel.writes]
        deviation = case.deviation(outcome.kernel.writes, value)
        again = (
            math.inf if math.isnan(deviation) else deviation / abs(value) if value else deviation
        )
    else:
        got = case.dot_value()
        again = math.inf if math.isnan(got) else abs(got - want["dot"]) / abs(want["dot"])
    return dataclasses.replace(outcome, measurement=judged, max_rel_error=max(error, again))
