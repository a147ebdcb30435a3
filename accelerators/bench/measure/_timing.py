"""Timing: a :class:`Timer` seam, a :class:`Measurement` of raw samples and a do_bench-style loop.

The loop follows ``triton.testing.do_bench``: estimate the cost of one call, turn the
millisecond budgets into iteration counts, warm up, then time each call on its own. Work that
must not be timed (flushing the cache) goes in ``before`` and runs before each call's start.

* :class:`SyncTimer` reads a clock around each call and synchronises the device before and
  after: right for CPUs, and the seam tests use, with a fake clock that fake kernels advance.
* :class:`EventTimer` records a pair of device events around each call (CUDA, ROCm, XPU) and
  synchronises once at the end, so host overhead between calls is not counted.
"""

from __future__ import annotations

import math
import statistics
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Clock", "EventTimer", "Measurement", "SyncTimer", "Timer", "bench"]

#: A monotonic clock in seconds (``time.perf_counter`` or a fake one).
Clock = Callable[[], float]

#: The spread above which a measurement is flagged as noisy (torch.utils.benchmark uses 10 %).
_IQR_WARN_FRACTION = 0.10


@dataclass(frozen=True)
class Measurement:
    """Raw per-call times of one kernel, in seconds, with robust statistics.

    :param samples_s: the timed calls, in the order they ran (warm-up excluded).
    :param cut: a deadline stopped the timing before the calls it planned.
    """

    samples_s: tuple[float, ...]
    cut: bool = False

    def __post_init__(self) -> None:
        if not self.samples_s:
            raise ValueError("A Measurement needs at least one sample")

    @property
    def best_s(self) -> float:
        """The fastest call: the figure STREAM, BabelStream and mamf-finder's "max" use."""
        return min(self.samples_s)

    @property
    def median_s(self) -> float:
        return statistics.median(self.samples_s)

    @property
    def iqr_s(self) -> float:
        """Interquartile range (0 with fewer than 4 samples)."""
        if len(self.samples_s) < 4:
            return 0.0
        q = statistics.quantiles(self.samples_s, n=4)
        return q[2] - q[0]

    @property
    def noisy(self) -> bool:
        """True when the IQR is more than 10 % of the median (environmental influence)."""
        return self.iqr_s > _IQR_WARN_FRACTION * self.median_s

    def merge(self, other: Measurement) -> Measurement:
        """Pool the samples of two measurements of the same kernel."""
        return Measurement(self.samples_s + other.samples_s, self.cut or other.cut)

    def __repr__(self) -> str:
        text = (
            f"<Measurement {len(self.samples_s)} samples, best {self.best_s * 1e3:.4g} ms, "
            f"median {self.median_s * 1e3:.4g} ms"
        )
        if self.noisy:
            text += (
                f"; WARNING: IQR is {self.iqr_s / self.median_s:.0%} of the median, "
                "which suggests environmental influence"
            )
        return text + ">"


class Timer(ABC):
    """Times calls one by one. Subclasses decide how the time is read."""

    @abstractmethod
    def time(
        self,
        fn: Callable[[], object],
        *,
        iterations: int,
        before: Callable[[], object] | None = None,
    ) -> list[float]:
        """Call ``fn`` ``iterations`` times and return each call's duration in seconds.

        :param fn: the kernel launch.
        :param iterations: how many timed calls.
        :param before: untimed work before each call (a cache flush), or ``None``.
        """


class SyncTimer(Timer):
    """Reads ``clock`` around each call, synchronising the device on both sides.

    :param clock: monotonic seconds; ``time.perf_counter`` by default.
    :param sync: blocks until the device is idle; a no-op for CPUs.
    """

    def __init__(self, clock: Clock = time.perf_counter, sync: Callable[[], None] | None = None):
        self.clock = clock
        self.sync: Callable[[], None] = sync if sync is not None else _no_sync

    def time(
        self,
        fn: Callable[[], object],
        *,
        iterations: int,
        before: Callable[[], object] | None = None,
    ) -> list[float]:
        samples = []
        for _ in range(iterations):
            if before is not None:
                before()
            self.sync()
            start = self.clock()
            fn()
            self.sync()
            samples.append(self.clock() - start)
        return samples


def _no_sync() -> None:
    return None


class EventTimer(Timer):
    """Times each call with a pair of device events (``torch.cuda`` or ``torch.xpu``).

    Calls and ``before`` are enqueued back to back; ``before`` is enqueued ahead of the start
    event, so a flush is not inside the timed region. One synchronisation at the end.

    An event is stamped when the device reaches it. Where the host enqueues more slowly than
    the device runs (short calls with checks between them, or a host thread that stalls), the
    device reaches the start event with nothing behind it and waits for the call's launch:
    that wait would be timed. ``spacer`` enqueues a short device-side busy wait ahead of each
    start event (``torch.cuda._sleep``), so that the launch is queued before the device gets
    to the event.

    :param module: ``torch.cuda`` or ``torch.xpu`` (anything with ``Event`` and
        ``synchronize``).
    :param device: the device index to synchronise.
    :param spacer: enqueues device work ahead of each start event, or ``None``.
    """

    def __init__(self, module: Any, device: int, spacer: Callable[[], object] | None = None):
        self.module = module
        self.device = device
        self.spacer = spacer

    def time(
        self,
        fn: Callable[[], object],
        *,
        iterations: int,
        before: Callable[[], object] | None = None,
    ) -> list[float]:
        starts = [self.module.Event(enable_timing=True) for _ in range(iterations)]
        ends = [self.module.Event(enable_timing=True) for _ in range(iterations)]
        for start, end in zip(starts, ends, strict=True):
            if before is not None:
                before()
            if self.spacer is not None:
                self.spacer()
            start.record()
            fn()
            end.record()
        self.module.synchronize(self.device)
        return [start.elapsed_time(end) / 1e3 for start, end in zip(starts, ends, strict=True)]


def bench(
    fn: Callable[[], object],
    timer: Timer,
    *,
    rep_s: float,
    warmup_s: float = 0.0,
    before: Callable[[], object] | None = None,
    min_reps: int = 3,
    max_reps: int = 1000,
    estimate: Sequence[float] | None = None,
    min_warmup: int = 0,
    deadline: float | None = None,
    clock: Clock | None = None,
) -> Measurement:
    """Time ``fn`` for about ``rep_s`` seconds after about ``warmup_s`` of warm-up.

    The do_bench algorithm: time one call (after one untimed call, which pays for lazy
    initialisation), convert the budgets into iteration counts, run the warm-up calls, then
    the timed ones. ``estimate`` skips the estimation with known per-call times.

    With a ``deadline`` (a ``clock`` reading) the loop is hard-bounded: warm-up and timed
    calls are cut to what fits (timed calls first), the calls run in batches, and no batch
    starts that would end after the deadline by the median call so far; the measurement is
    then marked ``cut`` (it keeps at least one call, the caller checked it could afford one).

    :param fn: the kernel launch.
    :param timer: how calls are timed.
    :param rep_s: timed budget in seconds; at least ``min_reps`` calls run whatever it says
        (unless the deadline comes first).
    :param warmup_s: untimed warm-up budget in seconds.
    :param before: untimed work before each call.
    :param min_reps: fewest timed calls.
    :param max_reps: most timed calls.
    :param estimate: earlier samples of the same call, or a prediction, in seconds (their
        median is the per-call estimate: the best call would over-count reps on a noisy host).
    :param min_warmup: untimed calls to make whatever ``warmup_s`` says (with an
        ``estimate``, nothing else pays for first-touch and lazy initialisation).
    :param deadline: no call starts that cannot end before this ``clock`` reading.
    :param clock: reads the time the deadline is in; needed with ``deadline``.
    :return: the timed samples (warm-up and estimation excluded).
    """
    if min_reps < 1 or max_reps < min_reps:
        raise ValueError(f"Need 1 <= min_reps <= max_reps, got {min_reps} and {max_reps}")
    if deadline is not None and clock is None:
        raise ValueError("bench() needs the clock its deadline is read on")
    if estimate:
        per_call = max(statistics.median(estimate), 1e-9)
    else:
        timer.time(fn, iterations=1, before=before)  # lazy init, first-touch, kernel load
        per_call = max(timer.time(fn, iterations=1, before=before)[0], 1e-9)
    warmup = max(min_warmup, min(max_reps, math.floor(warmup_s / per_call)))
    reps = max(min_reps, min(max_reps, math.floor(rep_s / per_call)))
    if deadline is None or clock is None:
        if warmup > 0:
            timer.time(fn, iterations=warmup, before=before)
        return Measurement(tuple(timer.time(fn, iterations=reps, before=before)))
    # Warm-up only in the time the timed calls leave (they come first); each part in batches
    # that grow from one call, so a call far slower than its estimate is seen before more run.
    keep = reps * per_call
    warmed = _guarded(fn, timer, before, warmup, per_call, deadline - keep, clock, at_least=0)
    if warmed:
        per_call = max(statistics.median(warmed), 1e-9)
    samples = _guarded(fn, timer, before, reps, per_call, deadline, clock, at_least=1)
    return Measurement(tuple(samples), cut=len(samples) < reps)


def _guarded(
    fn: Callable[[], object],
    timer: Timer,
    before: Callable[[], object] | None,
    count: int,
    per_call: float,
    deadline: float,
    clock: Clock,
    *,
    at_least: int,
) -> list[float]:
    """Up to ``count`` calls, none started that the median call so far (``per_call`` before
    the first) says would end after ``deadline`` - except the first ``at_least``. Batches
    double from one call, and never take more than a quarter of what fits."""
    samples: list[float] = []
    batch = 1
    while len(samples) < count:
        typical = statistics.median(samples) if samples else per_call
        left = math.floor((deadline - clock()) / typical)
        if left < 1 and len(samples) >= at_least:
            break
        size = max(1, min(count - len(samples), batch, left // 4))
        samples += timer.time(fn, iterations=size, before=before)
        batch *= 2
    return samples
