"""Stream phase: the bandwidth kernels on one device, checked and compared with the peak.

GPUs run all five kernels. A CPU runs its profile's subset (quick: copy and triad, what its
verdict reads); the thread count is chosen on the first kernel, in interleaved windows
(:mod:`accelerators.bench.runner._thread_phase`), and those windows' calls at the chosen count are
that kernel's figure. The phase has a hard deadline (:func:`stream_span` of planned time).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from accelerators.bench.device._context import (
    Context,
    DeviceState,
    band_of,
    cut_short_reason,
    record,
)
from accelerators.bench.expect._peaks import device_memory_peak
from accelerators.bench.measure._backend import ELEMENT_BYTES, StreamCase
from accelerators.bench.measure._profiles import Profile
from accelerators.bench.measure._stream import (
    KERNELS,
    StreamKernel,
    StreamOutcome,
    expected_values,
    run_stream,
    stream_elements,
)
from accelerators.bench.measure._threads import WINDOW_S
from accelerators.bench.measure._timing import Measurement, Timer, bench
from accelerators.bench.report._models import (
    MemoryResult,
)
from accelerators.bench.runner._rerun import Windows
from accelerators.bench.runner._thread_phase import ROUNDS, start_threads, windowed_choice

__all__ = ["RERUNNABLE", "measure_stream", "stream_kernels", "stream_span"]

#: Seconds planned for allocating and filling the stream arrays.
_SETUP_S = 0.5

#: Kernels that can run again after the whole sequence without changing what the arrays
#: hold (triad rewrites ``a`` from unchanged ``b`` and ``c``; dot only reads), so their
#: analytic check still holds after a rerun.
RERUNNABLE = ("triad", "dot")


def stream_kernels(profile: Profile, is_cpu: bool) -> tuple[str, ...]:
    """The kernels the stream phase runs: a CPU's profile subset, every kernel on a GPU."""
    return profile.cpu_stream_kernels if is_cpu else tuple(k.name for k in KERNELS)


def stream_span(profile: Profile, is_cpu: bool, thread_counts: int = 0) -> float:
    """Seconds the stream phase is planned to take: each kernel's budget and warm-up, the
    thread windows on the first kernel when there are counts to compare, array setup."""
    kernels = len(stream_kernels(profile, is_cpu))
    if thread_counts > 1:
        first = _windows_s(profile, thread_counts)
        return (kernels - 1) * profile.stream_budget_s * 1.25 + first + _SETUP_S
    return kernels * profile.stream_budget_s * 1.25 + _SETUP_S


def _windows_s(profile: Profile, thread_counts: int) -> float:
    """Seconds of the first kernel's thread windows (its own calls included)."""
    return max(ROUNDS * thread_counts * WINDOW_S, profile.stream_budget_s * 1.5)


def measure_stream(ctx: Context, state: DeviceState) -> None:
    props = state.props
    start = ctx.clock()
    options = ctx.backend.thread_options(props) if ctx.is_cpu else ()
    end = ctx.phase_end("stream", start, stream_span(ctx.profile, ctx.is_cpu, len(options)))
    dtype = ctx.backend.stream_dtype(props)
    kernels = stream_kernels(ctx.profile, ctx.is_cpu)
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
    cut_windows = False
    try:
        timer = ctx.backend.timer(props)
        if len(options) > 1:
            threads = start_threads(ctx, props.name, "stream", options)
        done = [0]

        def on_kernel(_name: str) -> None:
            done[0] += 1
            ctx.progress.update("stream", done[0] / len(kernels))

        def timing(kernel: StreamKernel, fn: Callable[[], None]) -> Measurement | None:
            """The first kernel on a CPU: its calls, then the thread windows on it."""
            nonlocal threads, cut_windows
            if threads is None or kernel.name != kernels[0]:
                return None
            # The kernels after this one keep their planned time.
            later = (len(kernels) - 1) * ctx.profile.stream_budget_s * 1.25
            windows_end = min(end - later, ctx.clock() + _windows_s(ctx.profile, len(options)))
            first = bench(
                fn,
                timer,
                rep_s=0.0,
                warmup_s=0.0,
                min_reps=3,
                max_reps=3,
                deadline=windows_end,
                clock=ctx.clock,
            )
            work = kernel.bytes_per_call(case.elements, ELEMENT_BYTES[dtype]) * 1e-9
            chosen = windowed_choice(
                ctx,
                state,
                "stream",
                fn,
                work=work,
                ran_at=threads,
                earlier_s=first.samples_s,
                deadline=windows_end,
            )
            state.threads.append(record("stream", chosen.choice))
            threads = chosen.choice.threads
            cut_windows = chosen.choice.cut
            return Measurement(chosen.samples[threads] or first.samples_s, chosen.choice.cut)

        outcomes = run_stream(
            ctx.backend,
            props,
            case,
            timer,
            budget_s=ctx.profile.stream_budget_s,
            min_reps=ctx.profile.stream_min_reps,
            max_reps=ctx.profile.stream_max_reps,
            on_kernel=on_kernel,
            kernels=kernels,
            deadline=end,
            clock=ctx.clock,
            timing=timing,
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
                added = _rerun_kernel(ctx, case, timer, outcome, windows, kernels)
                if added:
                    outcomes[position] = _rechecked(case, outcome, windows.judged, kernels)
                reruns[outcome.kernel.name] = (windows, added)
    finally:
        case.close()
    if cut_windows or any(o.measurement.cut for o in outcomes):
        what = "the thread windows ended early" if cut_windows else "a kernel got fewer calls"
        state.reasons.append(cut_short_reason(props.index, "memory", end - start, what))
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
                peak_note=peak.note if peak is not None else None,
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
    ctx: Context,
    case: StreamCase,
    timer: Timer,
    outcome: StreamOutcome,
    windows: Windows,
    kernels: tuple[str, ...],
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
            deadline=ctx.run_deadline,
            clock=ctx.clock,
        )

    # Triad leaves dot's share of the rerun budget, where dot runs after it.
    later = RERUNNABLE[RERUNNABLE.index(outcome.kernel.name) + 1 :]
    keep = ctx.profile.stream_budget_s * sum(k in kernels for k in later)
    return windows.rerun(ctx, measure, ctx.profile.stream_budget_s, keep_s=keep)


def _rechecked(
    case: StreamCase, outcome: StreamOutcome, judged: Measurement, kernels: tuple[str, ...]
) -> StreamOutcome:
    """``outcome`` with the judged window, its check made again after the reruns."""
    want = expected_values(case.elements, kernels)[outcome.kernel.name]
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
