"""One benchmark run over the devices of one backend: the plan, the deadlines, the phases.

:class:`Session` plans the phases (their spans give the progress bar its shape, each phase its
hard deadline and the run its own: :meth:`~accelerators.bench.device._context.Context.phase_end`),
then runs them in order: GPU warm-up, GEMM per dtype, the reruns, the sustained phase, the
device configuration, the stream kernels. A failure inside one device's phase (a CUDA error,
out of memory) becomes a ``bench_error`` reason for that device; the others go on.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from accelerators.bench.device._config import check_device_config
from accelerators.bench.device._context import (
    BURST_S,
    Context,
    DeviceState,
    Progress,
    ProgressCallback,
    identity_of,
)
from accelerators.bench.device._telemetry import TelemetrySampler, fold, telemetry_problems
from accelerators.bench.judge._judge import device_report
from accelerators.bench.measure._backend import Backend
from accelerators.bench.measure._profiles import Profile
from accelerators.bench.report._models import DeviceReport, Reason, ReasonCode, Severity
from accelerators.bench.runner._gemm_phase import measure_gemm
from accelerators.bench.runner._rerun import RERUN_SHARE, rerun_gemm
from accelerators.bench.runner._stream_phase import (
    RERUNNABLE,
    measure_stream,
    stream_kernels,
    stream_span,
)
from accelerators.bench.runner._sustained import measure_sustained
from accelerators.bench.runner._warmup import drain_bursts, warm_up

if TYPE_CHECKING:
    from accelerators.detect import Detected

__all__ = ["Session"]


class Session:
    """One benchmark run over the devices of one backend: the phases, in order."""

    def __init__(
        self,
        backend: Backend,
        profile: Profile,
        detected: Detected,
        sample: Callable[[], Detected] | None,
        progress: ProgressCallback | None,
        refresh_threads: bool,
    ):
        started = backend.clock()
        props = backend.devices()
        is_cpu = bool(props) and props[0].kind == "cpu"
        dtypes = profile.cpu_dtypes if is_cpu else profile.gpu_dtypes
        budget = profile.cpu_gemm_budget_s if is_cpu else profile.gpu_gemm_budget_s
        phases: list[tuple[str, float]] = []
        if not is_cpu:
            phases.append(("warm-up", profile.gpu_warmup_s + BURST_S))
        phases += [(f"GEMM {d}", budget) for d in dtypes]
        if not is_cpu and profile.sustained_s > 0:
            phases.append(("sustained", profile.sustained_s))
        if profile.stream:
            counts = len(backend.thread_options(props[0])) if is_cpu and props else 0
            phases.append(("stream", stream_span(profile, is_cpu, counts)))
        parallel = len(props) > 1 and all(p.parallel_safe for p in props)
        # Devices that cannot run side by side take their turns within every phase.
        turns = 1 if parallel else max(1, len(props))
        planned = sum(span for _, span in phases)
        self.ctx = Context(
            backend=backend,
            profile=profile,
            detected=detected,
            sample=sample,
            refresh_threads=refresh_threads,
            states=[DeviceState(p, identity_of(detected, p)) for p in props],
            is_cpu=is_cpu,
            dtypes=tuple(dtypes),
            progress=Progress(progress, phases),
            parallel=parallel,
            rerun_left_s=RERUN_SHARE * planned,
            rerun_reserve_s=(
                sum(k in RERUNNABLE for k in stream_kernels(profile, is_cpu))
                * profile.stream_budget_s
                if profile.stream
                else 0.0
            ),
            # Every phase within its budget, reruns within their share: the run's end.
            run_deadline=started + planned * turns * (1 + RERUN_SHARE),
            planned_after={
                name: turns * sum(span for _, span in phases[i + 1 :])
                for i, (name, _) in enumerate(phases)
            },
        )

    def _each(self, phase: str, fn: Callable[[DeviceState], None]) -> None:
        def guarded(state: DeviceState) -> None:
            try:
                with self.ctx.backend.activate(state.props):
                    fn(state)
            except Exception as exc:  # one device's failure must not hide the others'
                state.reasons.append(
                    Reason(
                        code=ReasonCode.BENCH_ERROR,
                        severity=Severity.FAIL,
                        device_index=state.props.index,
                        metric=phase,
                        message=f"device {state.props.index}: {phase} failed with "
                        f"{type(exc).__name__}: {exc}",
                    )
                )

        if self.ctx.parallel:
            with ThreadPoolExecutor(max_workers=len(self.ctx.states)) as pool:
                list(pool.map(guarded, self.ctx.states))
        else:
            for state in self.ctx.states:
                guarded(state)

    def run(self) -> list[DeviceReport]:
        ctx = self.ctx
        saved_threads = ctx.backend.get_threads() if ctx.is_cpu else None
        sampler = TelemetrySampler(ctx)
        try:
            if not ctx.is_cpu:
                self._each("warm-up", functools.partial(warm_up, ctx))
                if any(s.burst is not None for s in ctx.states):
                    sampler.start()  # the first read while the warm-up bursts run
                drain_bursts(ctx)
            try:
                for dtype in ctx.dtypes:
                    with ctx.backend.precision(dtype):
                        self._each(
                            f"GEMM {dtype}", functools.partial(measure_gemm, ctx, dtype=dtype)
                        )
                # Figures too spread to judge are re-timed after every dtype had its turn.
                for dtype in ctx.dtypes:
                    with ctx.backend.precision(dtype):
                        self._each(
                            f"GEMM {dtype} rerun", functools.partial(rerun_gemm, ctx, dtype=dtype)
                        )
                self._each("sustained", functools.partial(measure_sustained, ctx))
            finally:
                sampler.stop()
            self._each("device config", functools.partial(check_device_config, ctx))
            if sampler.started:
                for state in ctx.states:
                    state.load = fold(state.samples)
                    state.reasons += telemetry_problems(sampler, state)
            if ctx.profile.stream:
                self._each("stream", functools.partial(measure_stream, ctx))
        finally:
            for state in ctx.states:
                for session in state.sessions.values():
                    session.close()
                state.sessions.clear()
            if saved_threads is not None:
                ctx.backend.set_threads(saved_threads)
        return [device_report(ctx, state) for state in ctx.states]
