"""CPU thread count: chosen on the workload that is reported, over windows long enough to see
the scheduler, and remembered per node.

A short probe decides from noise. On the 2-vCPU development VM, with another process on the
second vCPU, a 0.3 s probe on a small GEMM picked one thread in 10 runs of 10: its
two-thread calls were whole multiples of ~16 ms (one worker waiting out the other process's
scheduler slice), while the same two threads, timed over longer windows on the winning shape,
delivered about twice what one did. So the count is chosen on the workload itself (the GEMM
search's winning shape, the first stream kernel), in **interleaved windows**: each window
runs the workload back to back at one count for at least :data:`WINDOW_S` (several scheduler
slices), the counts alternate in ABBA order (N, 1, 1, N, N, 1...) so drift hits both alike,
and each window's rate is its work over its wall time, stalls included: what a real job on
the node would get. Counts are compared by the median over rounds of each round's rate ratio
(paired, so a slow spell of the host cancels out).

**Which count.** Without a prior the larger count must be faster by more than
:data:`TIE_MARGIN` (fewer threads disturb the rest of the host less). With a prior - this
process's earlier choice, or the one the node's bench history recorded
(:func:`prior_from_history`) - the prior stays unless another count beats it by more than
:data:`SWITCH_MARGIN`: a second run does not decide again from fresh noise, and a real change
of the node (a hog that stays, a resized VM) still wins.

Every call's time is kept per count, so the report carries the all-core figure and the
one-core (per-core) figure side by side, whichever was chosen.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from accelerators.bench.measure._backend import Backend
from accelerators.bench.measure._timing import Clock, Timer

__all__ = [
    "SWITCH_MARGIN",
    "TIE_MARGIN",
    "WINDOW_S",
    "ThreadChoice",
    "Windows",
    "choose",
    "clear_cache",
    "prior_from_history",
    "recall",
    "remember",
    "time_windows",
]

#: Without a prior, a larger count must be faster by more than this fraction to be chosen.
TIE_MARGIN = 0.03
#: With a prior, another count must be faster by more than this fraction to replace it.
SWITCH_MARGIN = 0.10
#: Shortest window: several scheduler slices (Linux CFS slices are 3-24 ms; the stalls seen
#: on the development VM were multiples of ~16 ms).
WINDOW_S = 0.06
#: Fewest calls in a window, whatever its length.
MIN_WINDOW_CALLS = 2

Source = Literal["measured", "cached", "history", "fixed"]

_cache: dict[tuple[str, str], int] = {}
_cache_lock = threading.Lock()


@dataclass(frozen=True)
class ThreadChoice:
    """The thread count a workload runs with and how it was chosen.

    :param threads: the count used.
    :param source: ``measured`` (decided by this run's windows), ``cached`` (this process's
        earlier choice, confirmed by the windows), ``history`` (the node's recorded choice,
        confirmed by the windows) or ``fixed`` (one option only).
    :param median_s: median call time per thread count compared.
    :param rates: median window rate per thread count, stalls included (the workload's unit:
        TFLOPS, GB/s).
    :param rounds: rounds of windows timed (each round visits every count).
    :param prior: the count the run started from (cache or history), ``None`` without one.
    :param cut: the deadline stopped the windows before their planned rounds.
    """

    threads: int
    source: Source
    median_s: dict[int, float] = field(default_factory=dict)
    rates: dict[int, float] = field(default_factory=dict)
    rounds: int = 0
    prior: int | None = None
    cut: bool = False


@dataclass
class Windows:
    """Interleaved windows of one workload: every call's time and every window's rate."""

    samples: dict[int, list[float]]
    window_rates: dict[int, list[float]]
    """Calls per second of each window, per count."""
    rounds: int = 0
    cut: bool = False

    def median_s(self) -> dict[int, float]:
        return {t: statistics.median(s) for t, s in self.samples.items() if s}

    def rates(self) -> dict[int, float]:
        return {t: statistics.median(r) for t, r in self.window_rates.items() if r}

    def paired(self, base: int) -> dict[int, float]:
        """Per count: the median over complete rounds of its window rate over ``base``'s."""
        out: dict[int, float] = {}
        reference = self.window_rates.get(base, [])
        for threads, rates in self.window_rates.items():
            ratios = [r / b for r, b in zip(rates, reference, strict=False) if b > 0]
            if ratios:
                out[threads] = statistics.median(ratios)
        return out


def clear_cache() -> None:
    """Forget the thread counts chosen so far in this process."""
    with _cache_lock:
        _cache.clear()


def recall(device: str, workload: str) -> int | None:
    """The count chosen earlier in this process for ``workload`` on ``device``."""
    with _cache_lock:
        return _cache.get((device, workload))


def remember(device: str, workload: str, threads: int) -> None:
    with _cache_lock:
        _cache[(device, workload)] = threads


def time_windows(
    backend: Backend,
    fn: Callable[[], object],
    timer: Timer,
    options: Sequence[int],
    *,
    clock: Clock,
    deadline: float,
    per_call_s: Mapping[int, float],
    rounds: int,
    window_s: float = WINDOW_S,
    before: Callable[[], object] | None = None,
    first: int | None = None,
    current: int | None = None,
) -> Windows:
    """Time ``fn`` in interleaved windows, ``rounds`` visits per count, none past ``deadline``.

    :param options: the thread counts to compare.
    :param per_call_s: a predicted call time per count; no call starts that would end after
        ``deadline`` by that prediction (or by the median of its calls so far).
    :param first: the count of the first window (the order then goes ABBA): one the workload
        has not run at yet, so that a deadline that allows one window still times it.
    :param current: the count set now (its first window needs no untimed settling call).
    :return: the windows; ``cut`` when the deadline ended them early.
    """
    counts = list(options)
    if first in counts:
        counts.remove(first)
        counts.insert(0, first)
    found = Windows({t: [] for t in counts}, {t: [] for t in counts})
    settled: set[int] = {current} if current is not None else {counts[0]}
    for round_index in range(rounds):
        order = counts if round_index % 2 == 0 else counts[::-1]
        for threads in order:
            if not _window(
                backend,
                fn,
                timer,
                threads,
                found,
                clock,
                deadline,
                per_call_s,
                window_s,
                before,
                settle=threads not in settled,
            ):
                found.cut = True
                return found
            settled.add(threads)
        found.rounds += 1
    return found


def _window(
    backend: Backend,
    fn: Callable[[], object],
    timer: Timer,
    threads: int,
    found: Windows,
    clock: Clock,
    deadline: float,
    per_call_s: Mapping[int, float],
    window_s: float,
    before: Callable[[], object] | None,
    *,
    settle: bool,
) -> bool:
    """One window at ``threads``; ``False`` when the deadline leaves no room for it."""
    done = found.samples[threads]
    predicted = statistics.median(done) if done else per_call_s[threads]
    if clock() + predicted * (MIN_WINDOW_CALLS + (1 if settle else 0)) > deadline:
        return False
    backend.set_threads(threads)
    if settle:
        fn()  # the pool grows or shrinks to the new size outside the timed window
    seconds: list[float] = []
    start = clock()
    # The window lasts window_s (at least MIN_WINDOW_CALLS calls), however slow the calls
    # turn out; no call starts that the median call so far says would end past the deadline.
    while len(seconds) < MIN_WINDOW_CALLS or clock() - start < window_s:
        typical = statistics.median(seconds) if seconds else predicted
        if clock() + typical > deadline:
            break
        seconds += timer.time(fn, iterations=1, before=before)
    wall = clock() - start
    if not seconds:
        return False
    done.extend(seconds)
    found.window_rates[threads].append(len(seconds) / max(wall, 1e-12))
    return True


def choose(found: Windows, options: Sequence[int], prior: int | None, ran_at: int) -> int:
    """The count to keep: the fastest by paired window rates, with the margins above.

    :param ran_at: the count the workload ran at before the windows, kept when too few
        windows were timed to compare counts.
    """
    ratio = found.paired(min(options))
    if len(ratio) < 2:
        # Too few windows to pair (a deadline, very slow calls): each count's median call,
        # where every count has calls, else the prior or the count it ran at.
        medians = found.median_s()
        if not all(t in medians for t in options):
            return prior if prior is not None and prior in options else ran_at
        ratio = {t: medians[min(options)] / medians[t] for t in options}
    if prior is not None and prior in ratio:
        best = max(ratio, key=lambda t: ratio[t])
        return best if ratio[best] > ratio[prior] * (1 + SWITCH_MARGIN) else prior
    chosen = min(ratio)
    for threads in sorted(ratio):
        if ratio[threads] > ratio[chosen] * (1 + TIE_MARGIN):
            chosen = threads
    return chosen


def _objects(value: object) -> list[Mapping[str, Any]]:
    """The mappings in a stored list; anything else in a damaged record is passed over."""
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def prior_from_history(
    reports: Iterable[Mapping[str, Any]], device_name: str, options: Sequence[int]
) -> dict[str, int]:
    """``workload -> threads`` as the latest of ``reports`` (one node's, oldest first) that
    benchmarked a CPU named ``device_name`` with the same thread options recorded them."""
    wanted = {str(t) for t in options}
    found: dict[str, int] = {}
    for report in reports:
        for device in _objects(report.get("devices")):
            if device.get("kind") != "cpu" or device.get("name") != device_name:
                continue
            for record in _objects(device.get("threads")):
                rates = record.get("rates") or record.get("median_s") or {}
                compared = {str(t) for t in rates} if isinstance(rates, Mapping) else set()
                threads = record.get("threads")
                if compared == wanted and isinstance(threads, int) and threads in options:
                    found[str(record.get("workload"))] = threads
    return found
