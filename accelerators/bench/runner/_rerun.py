"""Re-measure a figure whose window was too spread to judge, while the run's budget lasts.

After the shape search of every dtype (and inside the stream phase, for the kernels that can
run again without breaking the analytic check), each measured figure is tested with
:func:`~accelerators.bench.measure._stable.unjudgeable`. One that cannot be judged, or a stable one
below its band (once: a VM's speed drifts within minutes), is re-timed on
the same shape (GEMM) or kernel (stream), up to :data:`MAX_RERUNS` times, each window as long
as the profile's final re-measurement, out of a run-wide budget of :data:`RERUN_SHARE` of
the planned time (``Context.rerun_left_s``). The window with the highest median is the one
judged; every window's median is reported. On a host visibly busy since the run started
(``Context.busy``: other processes' CPU share or steal above the contention policy's lines)
there is no rerun: the verdict names the contention whatever another window would show, and
under a CPU hog reruns only made the run longer. A figure still unjudgeable when the budget or
the reruns run out keeps its reason in ``unjudged``, and the verdict names the contention
("inconclusive: node busy", :mod:`~accelerators.bench.device._contention`) instead of the device.

GEMM reruns run the winning shape's product again and verify every re-timed output with the
same row checksums as the search's (NaN and Inf included): a miscompare in a rerun fails like
any other. The fp64 block comparison is not repeated: the search made it on the same shape
and inputs. (When it was, on a loaded VM whose rerun budget ran out before a window was
timed, 4 runs in about 40 compared a case that had never run: its output was uninitialised
memory (NaN, 1.3e18) and zero calls were checksummed. A case that never ran now compares no
blocks: ``TorchGemmCase.check``.)
"""

from __future__ import annotations

from collections.abc import Callable

from accelerators.bench.device._context import Context, DeviceState, gemm_session
from accelerators.bench.expect._bands import bands
from accelerators.bench.measure._backend import Shape
from accelerators.bench.measure._correctness import gemm_check_passes
from accelerators.bench.measure._stable import unjudgeable
from accelerators.bench.measure._timing import Measurement, bench
from accelerators.bench.report._models import GemmResult

__all__ = ["MAX_RERUNS", "RERUN_SHARE", "Windows", "rerun_gemm"]

#: Most re-measurements of one figure.
MAX_RERUNS = 2
#: Share of a run's planned time that reruns may add.
RERUN_SHARE = 0.2


class Windows:
    """The windows of one figure: the first measurement, then each rerun's.

    :param first: the search's (or the first pass's) samples.
    :param work: work per call (FLOPs or bytes), so ``work / seconds`` is a rate.
    :param scale: from ``work / seconds`` to the reported unit (1e-12 for TFLOPS).
    :param expected: the expected rate in the reported unit, or ``None``.
    """

    def __init__(self, first: Measurement, work: float, scale: float, expected: float | None):
        self.windows = [first]
        self.out_of_budget = False
        """Whether a rerun that was wanted did not fit in the rerun budget."""
        self.work = work * scale
        self.expected = expected
        data = bands()
        self.spread_below = data.contention.spread_below
        self.warn_below = data.thresholds.warn_below

    def why(self) -> str | None:
        """Why the judged window cannot be judged, ``None`` when it can."""
        return unjudgeable(
            self.judged.samples_s,
            self.work,
            self.expected,
            spread_below=self.spread_below,
            warn_below=self.warn_below,
        )

    def slow(self) -> bool:
        """Whether the judged window's median is below the band (warn line)."""
        if not self.expected:
            return False
        return self.work / self.judged.median_s < self.warn_below * self.expected

    def wants_rerun(self, added: int) -> bool:
        """Too spread to judge, or stable but below the band on its first window: a VM's
        speed drifts within minutes, so one more window before the device is blamed."""
        return self.why() is not None or (self.slow() and added < 1)

    @property
    def judged(self) -> Measurement:
        """The window with the highest median rate."""
        return min(self.windows, key=lambda m: m.median_s)

    @property
    def medians(self) -> tuple[float, ...]:
        return tuple(self.work / m.median_s for m in self.windows)

    def rerun(
        self,
        ctx: Context,
        measure: Callable[[float], Measurement],
        rep_s: float,
        *,
        keep_s: float = 0.0,
    ) -> int:
        """Re-measure while the figure is unjudgeable, reruns and budget remain; returns how
        many windows were added. ``measure(seconds)`` times one more window; ``keep_s`` of
        the budget is left for later phases."""
        added = 0
        while added < MAX_RERUNS and self.wants_rerun(added) and not ctx.busy():
            spend = min(rep_s, ctx.rerun_left_s - keep_s)
            if spend < rep_s / 2:
                self.out_of_budget = True
                break
            start = ctx.clock()
            self.windows.append(measure(spend))
            ctx.rerun_left_s -= max(0.0, ctx.clock() - start)
            added += 1
        return added


def _why(windows: Windows) -> str | None:
    why = windows.why()
    return why + "; no rerun budget left" if why and windows.out_of_budget else why


def rerun_gemm(ctx: Context, state: DeviceState, dtype: str) -> None:
    """Re-measure ``dtype``'s GEMM on ``state``'s device when its window cannot be judged."""
    found = [
        (i, r) for i, r in enumerate(state.gemm) if r.dtype == dtype and r.status == "measured"
    ]
    if not found:
        return
    index, result = found[-1]
    if not result.samples_s or result.m is None or result.n is None or result.k is None:
        return
    shape = Shape(result.m, result.n, result.k)
    if result.expected_tflops is None and not ctx.fleet:
        return  # nothing judges this figure: a rerun would spend the budget for nothing
    windows = Windows(Measurement(result.samples_s), shape.flops, 1e-12, result.expected_tflops)
    why = windows.why()
    if not windows.wants_rerun(0):
        return
    busy = ctx.busy()
    if busy or ctx.rerun_left_s <= ctx.rerun_reserve_s:
        # No rerun: say why the figure stays unjudged (without opening a pool for nothing).
        if why is not None:
            state.gemm[index] = result.model_copy(
                update={
                    "unjudged": why + ("" if busy else "; no rerun budget left"),
                    "window_medians": windows.medians,
                }
            )
        return
    budget = ctx.profile.cpu_gemm_budget_s if ctx.is_cpu else ctx.profile.gpu_gemm_budget_s
    rep_s = budget * ctx.profile.final_fraction
    if result.threads is not None:
        ctx.backend.set_threads(result.threads)
    session = gemm_session(ctx, state, dtype)
    try:
        case = session.case(shape)
        try:
            timer = ctx.backend.timer(state.props)

            def measure(seconds: float) -> Measurement:
                return bench(
                    case.run,
                    timer,
                    rep_s=seconds,
                    before=case.before,
                    min_reps=3,
                    max_reps=500,
                    estimate=windows.judged.samples_s,
                    min_warmup=1,
                    # The phases after the GEMMs (sustained, stream) keep their planned time.
                    deadline=ctx.run_deadline - ctx.planned_after.get(f"GEMM {ctx.dtypes[-1]}", 0),
                    clock=ctx.clock,
                )

            added = windows.rerun(ctx, measure, rep_s, keep_s=ctx.rerun_reserve_s)
            # Row checksums of every re-timed output; the fp64 block comparison was the
            # search's, on the same shape and inputs (blocks=0 skips it).
            check = case.check(
                blocks=0,
                block=ctx.profile.check_block,
                seed=1000 * state.props.index + 7 * len(state.gemm) + added,
            )
        finally:
            case.close()
    finally:
        session.close()
    passes, _ = gemm_check_passes(check, dtype)
    judged = windows.judged
    update: dict[str, object] = {
        "tflops": shape.flops / judged.best_s / 1e12,
        "median_tflops": shape.flops / judged.median_s / 1e12,
        "samples_s": judged.samples_s,
        "reruns": added,
        "unjudged": _why(windows),
        "window_medians": windows.medians,
    }
    if not passes:
        update.update(
            correct=False,
            max_error=check.max_error,
            checksum_failures=check.calls_failed if check.calls_checked else None,
            calls_checked=check.calls_checked or None,
            outlier_score=check.outlier_score if check.calls_checked else None,
            scale_error=check.scale_error if check.calls_checked else None,
        )
    state.gemm[index] = GemmResult.model_validate({**result.model_dump(), **update})
