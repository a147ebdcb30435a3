"""Stream phase: the five bandwidth kernels on one device, checked and compared with the peak."""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelerators.bench._backend import ELEMENT_BYTES
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
from accelerators.bench._stream import KERNELS, run_stream, stream_elements
from accelerators.bench._threads import pick_threads

if TYPE_CHECKING:
    pass

__all__ = ["measure_stream"]


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
    finally:
        case.close()
    peak = None if ctx.is_cpu else device_memory_peak(state.identity, sms=state.props.compute_units)
    element_bytes = ELEMENT_BYTES[dtype]
    for outcome in outcomes:
        band = band_of(ctx, state, f"memory.{outcome.kernel.name}") if peak else None
        expected = peak.value * band.fraction if peak is not None and band else None
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
            )
        )
