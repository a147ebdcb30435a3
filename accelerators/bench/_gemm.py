"""GEMM shape search: candidates from device properties, coarse-to-fine, under a time budget.

mamf-finder sweeps thousands of shapes for 15-30 minutes; its one-minute sweep gets 80-90 %
of the maximum. This search uses what the device says about itself instead:

**GPUs.** cuBLAS/hipBLASLt split ``C`` into output tiles (128x256, 256x128, 128x128 on
NVIDIA; 256x256 and 256x128 on AMD) and run one tile per SM or CU at a time. A shape whose
tile count is just above a multiple of the SM count leaves most SMs idle in its last wave
("wave quantization"), so candidates are multiples of 256 whose tile count fills whole waves
(:func:`wave_efficiency` >= 0.9), with a large ``K`` (4096-16384) to amortise each tile's
prologue and epilogue. Published best shapes fit this: H100 bf16 2048x2048x13312 is 128 tiles
of 128x256 on 132 SMs (97 %), A100 1024x10240x5120 is 320 tiles on 108 SMs (99 %).

**CPUs.** BLAS libraries block for the caches, so candidates are square-ish sizes around
what fits the per-core L2 and the shared L3 (multiples of 64), capped by a call time that
leaves room for several samples per shape; the rate of a first small product predicts the
cost of the others. The thread count (1 or N) is measured, not assumed.

**Search.** Measure the coarse candidates in order of their prior score, then hill-climb
from the best one: try neighbours at a step, move when a neighbour is faster by more than
the noise margin, halve the step when none is. Stop at the budget (or when the step reaches
its minimum) and spend the reserved rest re-measuring the two best shapes; the reported
figure pools every sample of the winning shape.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from accelerators.bench._backend import (
    ELEMENT_BYTES,
    Backend,
    DeviceProps,
    GemmCase,
    GemmSession,
    Shape,
)
from accelerators.bench._timing import Clock, Measurement, Timer, bench

__all__ = [
    "GPU_TILES",
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

#: Output tile shapes (rows, columns) GEMM libraries use per backend kind.
GPU_TILES: dict[str, tuple[tuple[int, int], ...]] = {
    "cuda": ((128, 256), (256, 128), (128, 128)),
    "rocm": ((256, 256), (256, 128), (128, 128)),
    "xpu": ((256, 256), (128, 128)),
    "fake": ((128, 256), (256, 128), (128, 128)),
}
#: GPU sizes are multiples of this (mamf-finder's step; every tile edge divides it).
_GPU_ALIGN = 256
_GPU_MN_RANGE = (256, 16384)
_GPU_MAX_EDGE = 32768
#: Full-wave counts the coarse GPU candidates cover.
_GPU_WAVES = (1, 2, 3, 4, 6, 8)
#: A wave this full counts as full for the coarse candidates.
_FULL_WAVE = 0.95
#: K of the first coarse stage, and the values tried for the two best (m, n) after it.
_GPU_K_FIRST = 8192
_GPU_K_CHOICES = (4096, 16384)
#: CPU sizes are multiples of this (AVX-512 register blocks).
_CPU_ALIGN = 64
#: Smallest CPU edge worth a trial when larger ones are affordable.
_CPU_MIN_EDGE = 256
#: A neighbour must beat the current best by this fraction to be accepted (noise margin).
_MIN_GAIN = 0.005
#: Timed budget of one exploratory trial: the exploration budget over this.
_TRIALS_PER_EXPLORATION = 30


def wave_efficiency(m: int, n: int, units: int, tile: tuple[int, int]) -> float:
    """Fraction of SM slots busy over all waves when ``m x n`` is cut into ``tile`` tiles.

    >>> round(wave_efficiency(2048, 2048, 132, (128, 256)), 3)
    0.97
    """
    tiles = math.ceil(m / tile[0]) * math.ceil(n / tile[1])
    waves = math.ceil(tiles / units)
    return tiles / (waves * units)


def _best_wave(m: int, n: int, units: int, tiles: Iterable[tuple[int, int]]) -> float:
    return max(wave_efficiency(m, n, units, t) for t in tiles)


def gpu_candidates(
    device: DeviceProps, dtype: str, *, max_input_elements: int, k: int = 8192
) -> list[Shape]:
    """Coarse GPU candidates at one ``k``: for 1, 2, 3, 4, 6 and 8 full waves, a square and
    an elongated (``n`` about 8x ``m``) output whose tile count fills that many waves.

    Published best shapes are of both kinds: H100 2048x2048 (one wave), A100 1024x10240 and
    GH200 1024x15360 (three to four waves, ``m`` small).

    :param device: the GPU (``compute_units`` is the SM/CU count).
    :param dtype: the GEMM dtype (every dtype uses the same tiles here).
    :param max_input_elements: most ``m*k + k*n`` elements the input pool holds.
    :param k: the inner dimension of every candidate.
    """
    del dtype  # same tiles for every dtype; kept for dtype-specific tiles later
    units = max(1, device.compute_units)
    tiles = GPU_TILES.get(device.kind, GPU_TILES["cuda"])
    lo, hi = _GPU_MN_RANGE
    sizes = range(lo, hi + 1, _GPU_ALIGN)
    out: list[Shape] = []
    for waves in _GPU_WAVES:
        full: list[tuple[int, int]] = []
        for m in sizes:
            for n in sizes:
                if _filled_waves(m, n, units, tiles) == waves:
                    full.append((m, n))
        for aspect in (1.0, 8.0):
            if not full:
                break
            m, n = min(full, key=lambda p: (abs(math.log(p[1] / p[0] / aspect)), p[0] * p[1]))
            shape = Shape(m, n, k)
            if shape not in out and shape.input_elements <= max_input_elements:
                out.append(shape)
    return out


def _filled_waves(m: int, n: int, units: int, tiles: Iterable[tuple[int, int]]) -> int | None:
    """Waves of the best tile shape when they are at least 95 % full, else ``None``."""
    for tile in tiles:
        count = math.ceil(m / tile[0]) * math.ceil(n / tile[1])
        waves = math.ceil(count / units)
        if count / (waves * units) >= _FULL_WAVE:
            return waves
    return None


def _waves(m: int, n: int, units: int, tiles: Iterable[tuple[int, int]]) -> int:
    """Waves of the tile shape that fills them best."""
    best = max(tiles, key=lambda t: wave_efficiency(m, n, units, t))
    return math.ceil(math.ceil(m / best[0]) * math.ceil(n / best[1]) / units)


def gpu_neighbours(
    shape: Shape, device: DeviceProps, *, step_k: int, max_scan: int = 24
) -> list[Shape]:
    """Wave-aware neighbours of ``shape``.

    Along ``m`` and along ``n``, in each direction: the nearest edge that keeps its waves
    at least 90 % full, and the nearest that fills them at least as well as ``shape`` does
    (less 2 %), which may be several tiles away - a plain step of 256 usually lands on a
    half-empty last wave. Then ``k`` one step up and down, iso-work moves (``m`` one or two
    steps either way, ``n`` rescaled to keep ``m*n`` and its waves full), and ``m`` and ``n``
    swapped.
    """
    units = max(1, device.compute_units)
    tiles = GPU_TILES.get(device.kind, GPU_TILES["cuda"])
    here = _best_wave(shape.m, shape.n, units, tiles)
    waves = _waves(shape.m, shape.n, units, tiles)
    out: list[Shape] = []
    for dk in (step_k, -step_k):  # K first: it moves the rate most once waves are full
        if _GPU_ALIGN <= shape.k + dk <= _GPU_MAX_EDGE:
            out.append(Shape(shape.m, shape.n, shape.k + dk))
    # Per axis and direction: nearest edge >= 90 % full; nearest as full as here; nearest
    # as full as here with another number of waves (the next plateau of the landscape).
    rules = ((0.9, False), (here - 0.02, False), (here - 0.02, True))
    for axis in ("m", "n"):
        for direction in (1, -1):
            for floor, other_waves in rules:
                for j in range(1, max_scan + 1):
                    value = getattr(shape, axis) + direction * j * _GPU_ALIGN
                    if not _GPU_ALIGN <= value <= _GPU_MAX_EDGE:
                        break
                    m, n = (value, shape.n) if axis == "m" else (shape.m, value)
                    if _best_wave(m, n, units, tiles) < floor:
                        continue
                    if other_waves and _waves(m, n, units, tiles) == waves:
                        continue
                    candidate = Shape(m, n, shape.k)
                    if candidate not in out:
                        out.append(candidate)
                    break
    # Iso-work moves: change m and give n the work back, on the best-filled nearby edge.
    for dm in (-2, -1, 1, 2):
        m = shape.m + dm * _GPU_ALIGN
        if not _GPU_ALIGN <= m <= _GPU_MAX_EDGE:
            continue
        centre = round(shape.n * shape.m / m / _GPU_ALIGN) * _GPU_ALIGN
        around = [centre + j * _GPU_ALIGN for j in range(-4, 5)]
        around = [n for n in around if _GPU_ALIGN <= n <= _GPU_MAX_EDGE]
        if not around:
            continue
        n = max(around, key=lambda v: (_best_wave(m, v, units, tiles), -abs(v - centre)))
        if _best_wave(m, n, units, tiles) >= here - 0.02:
            candidate = Shape(m, n, shape.k)
            if candidate not in out:
                out.append(candidate)
    if shape.m != shape.n:
        out.append(Shape(shape.n, shape.m, shape.k))
    return out


def cpu_candidates(
    device: DeviceProps,
    dtype: str,
    *,
    flops_per_s: float,
    max_call_s: float,
    max_input_elements: int,
) -> list[Shape]:
    """Coarse CPU candidates, most promising first.

    Edges come from the caches - where three ``n x n`` matrices fill the per-core L2, half
    the LLC, the LLC - plus powers of two and the largest affordable edge, all multiples of
    64 and at least 256 (smaller products are dominated by per-call overhead; they are used
    only when nothing larger is affordable). Each edge gives a square and, where affordable,
    a deep (``k = 2n``) shape: a larger ``k`` amortises packing, which matters most when a
    dtype is emulated. Shapes whose predicted call exceeds ``max_call_s`` at
    ``flops_per_s`` are left out. The edge between the L2 and LLC anchors (where BLAS
    blocking usually peaks) comes first, then the others from the largest down.

    :param device: the CPU.
    :param dtype: the GEMM dtype.
    :param flops_per_s: measured rate of a first small product.
    :param max_call_s: longest affordable call.
    :param max_input_elements: most ``m*k + k*n`` elements the input pool holds.
    """
    elem = ELEMENT_BYTES[dtype]
    budget_flops = max_call_s * flops_per_s
    n_max = int((budget_flops / 2) ** (1 / 3))
    n_max = min(n_max, math.isqrt(max(1, max_input_elements // 2)))
    n_max = max(_CPU_ALIGN, n_max // _CPU_ALIGN * _CPU_ALIGN)

    def edge(cache: int | None, fraction: float) -> int | None:
        if not cache:
            return None
        return max(_CPU_ALIGN, math.isqrt(int(cache * fraction) // (3 * elem)))

    l2, llc = device.l2_bytes, device.llc_bytes
    anchors = [edge(l2, 1.0), edge(llc, 0.5), edge(llc, 1.0), n_max]
    edges = {a // _CPU_ALIGN * _CPU_ALIGN for a in anchors if a}
    edges |= {1 << p for p in range(6, 14)}
    edges = {e for e in edges if _CPU_ALIGN <= e <= n_max}
    large = {e for e in edges if e >= _CPU_MIN_EDGE}
    edges = large or {max(edges, default=n_max)} | {e for e in edges if e >= n_max // 4}
    middle = math.sqrt((edge(l2, 1.0) or 256) * (edge(llc, 1.0) or 2048))
    first = min(edges, key=lambda e: abs(math.log(e / middle)))
    ordered = [first, *sorted(edges - {first}, reverse=True)]
    out: list[Shape] = []
    for e in ordered:
        out.append(Shape(e, e, e))
        deep = Shape(e, e, 2 * e)
        if deep.flops <= budget_flops:
            out.append(deep)
    return [s for s in out if s.input_elements <= max_input_elements]


def neighbours(shape: Shape, *, step_mn: int, step_k: int, align: int) -> list[Shape]:
    """CPU neighbours: ``k`` doubled and halved, then one step away in m, n, k, and in m
    and n together. Doubling ``k`` comes first: it amortises packing, and an emulated
    dtype (bf16 without AVX512_BF16) keeps gaining up to several thousand."""
    out = []
    for k in (2 * shape.k, shape.k // 2 // align * align):
        if k >= align:
            out.append(Shape(shape.m, shape.n, k))
    for dm, dn, dk in (
        (step_mn, 0, 0),
        (-step_mn, 0, 0),
        (0, step_mn, 0),
        (0, -step_mn, 0),
        (0, 0, step_k),
        (0, 0, -step_k),
        (step_mn, step_mn, 0),
        (-step_mn, -step_mn, 0),
    ):
        m, n, k = shape.m + dm, shape.n + dn, shape.k + dk
        candidate = Shape(m, n, k)
        if min(m, n, k) >= align and candidate not in out:
            out.append(candidate)
    return out


@dataclass(frozen=True)
class SearchSettings:
    """Budget and statistics of one shape search.

    :param budget_s: wall-clock budget of the whole search, in seconds.
    :param final_fraction: share of the budget kept to re-measure the best shapes.
    :param min_reps: fewest timed calls per candidate.
    :param trial_reps: timed calls an exploratory trial aims for (fewer when its share of
        the budget runs out first); enough to rank shapes, not to report them.
    """

    budget_s: float
    final_fraction: float = 0.3
    min_reps: int = 3
    trial_reps: int = 20


@dataclass(frozen=True)
class Trial:
    """One shape's measurement."""

    shape: Shape
    measurement: Measurement

    @property
    def best_tflops(self) -> float:
        return self.shape.flops / self.measurement.best_s / 1e12

    @property
    def median_tflops(self) -> float:
        return self.shape.flops / self.measurement.median_s / 1e12


@dataclass(frozen=True)
class SearchResult:
    """Outcome of :class:`ShapeSearch` for one dtype on one device.

    :param best: the winning shape with every sample it got.
    :param trials: every shape tried, in order.
    :param elapsed_s: wall-clock time of the search (pool allocation included).
    :param stopped: ``"budget"`` or ``"converged"``.
    :param case: the winning shape's case, still open, for the correctness check.
    """

    dtype: str
    best: Trial
    trials: tuple[Trial, ...]
    elapsed_s: float
    stopped: str
    case: GemmCase


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
            )
        finally:
            case.close()
        if previous is not None:
            measurement = previous.measurement.merge(measurement)
        else:
            self.order.append(shape)
        trial = Trial(shape, measurement)
        self.trials[shape] = trial
        self._progress()
        return trial

    def _best(self) -> Trial:
        return max(self.trials.values(), key=lambda t: t.best_tflops)

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
                if shape in self.trials:
                    continue
                if self.clock() >= self.explore_deadline:
                    return "budget"
                if not self._affordable(shape, self.explore_deadline):
                    skipped = skipped or self._fits(shape)
                    continue
                trial = self._measure(shape, per_trial)
                if trial is not None and trial.best_tflops > current.best_tflops * (1 + _MIN_GAIN):
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
        return _best_wave(shape.m, shape.n, units, tiles) >= 0.9

    def _finish(self, stopped: str) -> SearchResult:
        ranked = sorted(self.trials.values(), key=lambda t: -t.best_tflops)[:2]
        # A converged search hands back its unused exploration time: the gate ends sooner.
        reserve = min(
            max(0.0, self.deadline - self.clock()),
            self.settings.budget_s * self.settings.final_fraction,
        )
        for trial in ranked:
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
        return SearchResult(self.session.dtype, best, trials, elapsed, stopped, case)


def _dims(shape: Shape) -> tuple[int, int, int]:
    return shape.m, shape.n, shape.k


def _pow2_floor(value: int, align: int) -> int:
    """Largest ``align * 2**i`` not above ``value`` (at least ``align``)."""
    step = align
    while step * 2 <= value:
        step *= 2
    return step
