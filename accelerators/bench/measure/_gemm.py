"""GEMM shape search: coarse-to-fine over the candidates of :mod:`._gemm_shapes`, in a budget.

mamf-finder sweeps thousands of shapes for 15-30 minutes; its one-minute sweep gets 80-90 %
of the maximum. This search uses what the device says about itself instead (the candidates
and neighbours, from SM counts and caches, are in :mod:`accelerators.bench.measure._gemm_shapes`).
The CPU thread count (1 or N) is measured, not assumed.

**Search.** Measure the coarse candidates in order of their prior score, then hill-climb
from the best one: try neighbours at a step, move when a neighbour is faster by more than
the noise margin, halve the step when none is. Stop at the budget (or when the step reaches
its minimum) and spend the reserved rest re-measuring the two best shapes; the reported
figure pools every sample of the winning shape.

**No GPU product shorter than** :data:`MIN_GPU_CALL_S` **ranks first.** In ten quick gates on an
H200 (``docs/gpu-validation/2026-11-30-h200-run1.json``) the fp8 search settled twice on a
68.7 GFLOP product (51-53 us a call) whose median call was 72-74 % of its best, and the
healthy device failed ``gemm_slow``; the winners of 85 us and longer held 97-99 %. Timed alone
(``benchmarks/gpu_call_length.py``, ``...-call-length.json``) the same products held 97-98 %
behind the timer's spacer, so call length alone does not explain the spread inside a gate
(not established: the telemetry thread, power-cap clock swings). A product shorter than the
floor at the fastest rate measured ranks below every longer one and the climb tries no such
neighbour; the coarse stages still time them, for the tilings they name. With the floor, ten
more quick gates there passed, their fp8 winners 160-462 us (``...-run2.json``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from accelerators.bench.measure._backend import Backend, DeviceProps, GemmSession, Shape
from accelerators.bench.measure._gemm_shapes import (
    _CPU_ALIGN,
    _GPU_ALIGN,
    _GPU_K_CHOICES,
    _GPU_K_FIRST,
    GPU_TILES,
    best_wave,
    cpu_candidates,
    gpu_candidates,
    gpu_neighbours,
    neighbours,
    wave_efficiency,
)
from accelerators.bench.measure._gemm_types import SearchResult, SearchSettings, Trial
from accelerators.bench.measure._timing import Clock, Timer, bench

__all__ = [
    "GPU_TILES",
    "MIN_GPU_CALL_S",
    "SearchResult",
    "SearchSettings",
    "ShapeSearch",
    "Trial",
    "cpu_candidates",
    "gpu_candidates",
    "gpu_neighbours",
    "neighbours",
    "wave_efficiency",
]

#: A neighbour must beat the current best by this fraction to be accepted (noise margin).
_MIN_GAIN = 0.005
#: Timed budget of one exploratory trial: the exploration budget over this.
_TRIALS_PER_EXPLORATION = 30
#: Shortest GPU product the search ranks first (seconds a call): above the 51-53 us fp8
#: winners that spread (the H200 run named above) and just above the 74 us ones that held
#: 98-99 % in two earlier runs (docs/gpu-validation.md's runs table lists each run's range).
MIN_GPU_CALL_S = 75e-6


class ShapeSearch:
    """Find the fastest GEMM shape for one dtype on one device within a budget.

    :param backend: the device family.
    :param device: the device.
    :param session: an open input pool of the dtype.
    :param timer: how kernels are timed.
    :param settings: the budget.
    :param clock: monotonic seconds for the budget (the backend's clock).
    :param on_progress: called with the fraction of the budget spent after each trial.
    :param flops_per_s: CPU only: the rate a first product reached (sizes the candidates).
    :param start: clock reading the budget counts from (defaults to now).
    :param hard_deadline: clock reading no timed call may end after (a trial in progress is
        cut short there); the end of the budget by default.
    """

    def __init__(
        self,
        backend: Backend,
        device: DeviceProps,
        session: GemmSession,
        timer: Timer,
        settings: SearchSettings,
        *,
        clock: Clock,
        on_progress: Callable[[float], None] | None = None,
        flops_per_s: float | None = None,
        start: float | None = None,
        hard_deadline: float | None = None,
    ):
        self.backend = backend
        self.device = device
        self.session = session
        self.timer = timer
        self.settings = settings
        self.clock = clock
        self.on_progress = on_progress
        self.flops_per_s = flops_per_s
        self.start = clock() if start is None else start
        self.hard_deadline = (
            self.start + settings.budget_s if hard_deadline is None else hard_deadline
        )
        self.cut: dict[Shape, bool] = {}  # each shape's latest measurement cut at the deadline
        self.trials: dict[Shape, Trial] = {}
        self.order: list[Shape] = []
        self.failed: set[Shape] = set()
        self.is_cpu = device.kind == "cpu"
        self.align = _CPU_ALIGN if self.is_cpu else _GPU_ALIGN

    # -- budget --------------------------------------------------------------------------
    @property
    def deadline(self) -> float:
        return self.start + self.settings.budget_s

    @property
    def explore_deadline(self) -> float:
        return self.start + self.settings.budget_s * (1 - self.settings.final_fraction)

    def _progress(self) -> None:
        if self.on_progress is not None:
            spent = (self.clock() - self.start) / self.settings.budget_s
            self.on_progress(min(1.0, max(0.0, spent)))

    def _rate(self) -> float | None:
        """Best *median* rate seen so far in FLOP/s (or the caller's estimate).

        Medians, not best calls, predict what a trial costs: on a noisy host the best call
        can be several times faster than the typical one.
        """
        if self.trials:
            return max(t.shape.flops / t.measurement.median_s for t in self.trials.values())
        return self.flops_per_s

    def _predicted_call_s(self, shape: Shape) -> float | None:
        rate = self._rate()
        return shape.flops / rate if rate else None

    def _too_short(self, shape: Shape) -> bool:
        """A GPU product shorter than :data:`MIN_GPU_CALL_S` at the fastest call seen so far."""
        if self.is_cpu or not self.trials:
            return False
        fastest = max(t.shape.flops / t.measurement.best_s for t in self.trials.values())
        return shape.flops / fastest < MIN_GPU_CALL_S

    def _rank(self, trial: Trial) -> tuple[bool, float]:
        """How a trial ranks: long enough to time first, then its best call."""
        return not self._too_short(trial.shape), trial.best_tflops

    # -- measuring -----------------------------------------------------------------------
    def _fits(self, shape: Shape) -> bool:
        """Inputs fit the pool, and the output is no larger than the pool."""
        limit = self.session.max_input_elements
        return (
            shape not in self.failed
            and shape.input_elements <= limit
            and shape.m * shape.n <= limit
        )

    def _affordable(self, shape: Shape, until: float) -> bool:
        if not self._fits(shape):
            return False
        until = min(until, self.hard_deadline)
        predicted = self._predicted_call_s(shape)
        if predicted is None:
            return True
        needed = predicted * (self.settings.min_reps + 2)
        return self.clock() + needed <= until

    def _measure(self, shape: Shape, rep_s: float, *, explore: bool = True) -> Trial | None:
        """Time ``shape``; ``None`` when the device runs out of memory for it (skipped)."""
        previous = self.trials.get(shape)
        predicted = self._predicted_call_s(shape)
        if explore and predicted is not None:
            rep_s = min(rep_s, self.settings.trial_reps * predicted)
        estimate: tuple[float, ...] | None = None
        if previous is not None:
            estimate = previous.measurement.samples_s
        elif self.is_cpu and predicted is not None:
            # CPU calls are long: one warm-up call instead of two estimation calls.
            estimate = (predicted,)
        try:
            case = self.session.case(shape)
        except RuntimeError as exc:  # torch.OutOfMemoryError is a RuntimeError
            if "out of memory" not in str(exc).lower():
                raise
            self.failed.add(shape)
            return None
        try:
            measurement = bench(
                case.run,
                self.timer,
                rep_s=rep_s,
                warmup_s=rep_s / 4,
                before=case.before,
                min_reps=self.settings.min_reps,
                max_reps=500,
                estimate=estimate,
                min_warmup=1 if previous is None else 0,
                deadline=self.hard_deadline,
                clock=self.clock,
            )
        finally:
            case.close()
        self.cut[shape] = measurement.cut
        if previous is not None:
            measurement = previous.measurement.merge(measurement)
        else:
            self.order.append(shape)
        trial = Trial(shape, measurement)
        self.trials[shape] = trial
        self._progress()
        return trial

    def _beats(self, trial: Trial, current: Trial) -> bool:
        """Long enough where ``current`` is not, or faster by more than the noise margin."""
        (long, rate), (was_long, was) = self._rank(trial), self._rank(current)
        return long > was_long or (long == was_long and rate > was * (1 + _MIN_GAIN))

    def _best(self) -> Trial:
        return max(self.trials.values(), key=self._rank)

    # -- the search ----------------------------------------------------------------------
    def candidates(self) -> list[Shape]:
        """The first coarse stage (CPU: all coarse candidates)."""
        if self.is_cpu:
            rate = self._rate() or 1e9
            max_call = max(self.settings.budget_s / 40, 1e-4)
            return cpu_candidates(
                self.device,
                self.session.dtype,
                flops_per_s=rate,
                max_call_s=max_call,
                max_input_elements=self.session.max_input_elements,
            )
        return gpu_candidates(
            self.device,
            self.session.dtype,
            max_input_elements=self.session.max_input_elements,
            k=_GPU_K_FIRST,
        )

    def _explore(self, shapes: Iterable[Shape], until: float, per_trial: float) -> None:
        for shape in shapes:
            if self.trials and self.clock() >= until:
                return
            if shape in self.trials or not self._fits(shape):
                continue
            if self.trials and not self._affordable(shape, until):
                continue
            self._measure(shape, per_trial)

    def run(self, candidates: list[Shape] | None = None) -> SearchResult:
        """Search and return the best shape with its case still open.

        :param candidates: the first coarse stage; :meth:`candidates` by default.
        """
        coarse = self.candidates() if candidates is None else candidates
        if not coarse:
            raise ValueError(
                f"No GEMM shape fits device {self.device.name!r} for {self.session.dtype}"
            )
        explore = self.explore_deadline - self.start
        per_trial = explore / _TRIALS_PER_EXPLORATION
        self._explore(coarse, self.start + 0.4 * explore, per_trial)
        if not self.trials:
            raise RuntimeError(
                f"No GEMM shape could be measured on {self.device.name!r} in "
                f"{self.session.dtype}: every candidate ran out of memory"
            )
        if not self.is_cpu:
            # Second coarse stage: other K for the two best (m, n) of the first.
            pairs: list[tuple[int, int]] = []
            # (a short product's m x n still names a good tiling: its longer K may win)
            for trial in sorted(self.trials.values(), key=lambda t: -t.best_tflops):
                if (trial.shape.m, trial.shape.n) not in pairs:
                    pairs.append((trial.shape.m, trial.shape.n))
            second = [Shape(m, n, k) for m, n in pairs[:2] for k in _GPU_K_CHOICES]
            self._explore(second, self.start + 0.6 * explore, per_trial)
        stopped = self._refine(per_trial)
        return self._finish(stopped)

    def _neighbours(self, shape: Shape, step_mn: int, step_k: int) -> list[Shape]:
        if self.is_cpu:
            return neighbours(shape, step_mn=step_mn, step_k=step_k, align=self.align)
        return gpu_neighbours(shape, self.device, step_k=step_k)

    def _refine(self, per_trial: float) -> str:
        best = self._best()
        step_mn = max(self.align, _pow2_floor(max(best.shape.m, best.shape.n) // 4, self.align))
        step_k = max(self.align, _pow2_floor(best.shape.k // 4, self.align))
        skipped = False  # a neighbour was left out for lack of time: not converged
        momentum: tuple[int, int, int] | None = None  # the last move that paid off
        while True:
            if self.clock() >= self.explore_deadline:
                return "budget"
            moved = False
            current = self._best()
            around = self._neighbours(current.shape, step_mn, step_k)
            if momentum is not None:
                # Pattern search: try the move that just paid off once more, first.
                ahead = Shape(*(a + d for a, d in zip(_dims(current.shape), momentum, strict=True)))
                if min(_dims(ahead)) >= self.align and self._keeps_waves(ahead):
                    around = [ahead, *(s for s in around if s != ahead)]
            for shape in around:
                if shape in self.trials or self._too_short(shape):
                    continue
                if self.clock() >= self.explore_deadline:
                    return "budget"
                if not self._affordable(shape, self.explore_deadline):
                    skipped = skipped or self._fits(shape)
                    continue
                trial = self._measure(shape, per_trial)
                if trial is not None and self._beats(trial, current):
                    moved = True
                    momentum = tuple(  # type: ignore[assignment]
                        b - a for a, b in zip(_dims(current.shape), _dims(shape), strict=True)
                    )
                    break  # first improvement: climb from the new best
            if moved:
                continue
            momentum = None
            if step_mn <= self.align and step_k <= self.align:
                return "budget" if skipped else "converged"
            step_mn = max(self.align, step_mn // 2)
            step_k = max(self.align, step_k // 2)

    def _keeps_waves(self, shape: Shape) -> bool:
        if self.is_cpu:
            return True
        units = max(1, self.device.compute_units)
        tiles = GPU_TILES.get(self.device.kind, GPU_TILES["cuda"])
        return best_wave(shape.m, shape.n, units, tiles) >= 0.9

    def _finish(self, stopped: str) -> SearchResult:
        ranked = sorted(self.trials.values(), key=self._rank, reverse=True)[:2]
        # A converged search hands back its unused exploration time: the gate ends sooner.
        reserve = min(
            max(0.0, self.deadline - self.clock()),
            self.settings.budget_s * self.settings.final_fraction,
        )
        for trial in ranked if self.settings.remeasure else ():
            if self.clock() >= self.deadline:
                break
            share = reserve / len(ranked)
            if self._affordable(trial.shape, self.deadline):
                self._measure(trial.shape, share, explore=False)
        best = self._best()
        case = self.session.case(best.shape)
        case.run()  # the output the correctness check reads comes from a real call
        elapsed = self.clock() - self.start
        trials = tuple(self.trials[s] for s in self.order)
        cut = self.cut.get(best.shape, False)
        return SearchResult(self.session.dtype, best, trials, elapsed, stopped, case, cut)


def _dims(shape: Shape) -> tuple[int, int, int]:
    return shape.m, shape.n, shape.k


def _pow2_floor(value: int, align: int) -> int:
    """Largest ``align * 2**i`` not above ``value`` (at least ``align``)."""
    step = align
    while step * 2 <= value:
        step *= 2
    return step
