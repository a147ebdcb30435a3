"""Warm-up phase: continuous GEMMs on GPUs, then a burst queued while telemetry starts."""

from __future__ import annotations

import contextlib

from accelerators.bench.device._context import (
    BURST_S,
    WARMUP_SHAPES,
    Context,
    DeviceState,
    gemm_session,
)

__all__ = ["drain_bursts", "warm_up"]


def warm_up(ctx: Context, state: DeviceState) -> None:
    props = state.props
    dtype = next(
        (d for d in ("bf16", "fp16", "fp32") if ctx.backend.unsupported(props, d) is None),
        None,
    )
    if dtype is None:
        return
    session = gemm_session(ctx, state, dtype)
    state.sessions[dtype] = session  # reused by that dtype's search
    shape = next(
        (s for s in WARMUP_SHAPES if s.input_elements <= session.max_input_elements),
        WARMUP_SHAPES[-1],
    )
    case = session.case(shape)
    start = ctx.clock()
    deadline = start + ctx.profile.gpu_warmup_s
    calls = 0
    while True:
        for _ in range(8):
            case.run()
        calls += 8
        ctx.backend.synchronize(props)
        elapsed = ctx.clock() - start
        ctx.progress.update("warm-up", elapsed / max(ctx.profile.gpu_warmup_s, 1e-9))
        if ctx.clock() >= deadline:
            break
    state.burst = case
    state.burst_call_s = max(elapsed / calls, 1e-6)
    # Queue a burst without waiting: telemetry is read while it runs.
    for _ in range(max(1, min(1000, int(BURST_S / state.burst_call_s)))):
        case.run()


def drain_bursts(ctx: Context) -> None:
    """Wait for the warm-up bursts (telemetry was read while they ran) and free them."""
    for state in ctx.states:
        if state.burst is not None:
            with contextlib.suppress(Exception), ctx.backend.activate(state.props):
                ctx.backend.synchronize(state.props)
            state.burst.close()
            state.burst = None
