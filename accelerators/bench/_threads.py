"""CPU thread count: measured, not assumed.

Two torch threads ran slower than one on the 2-vCPU development VM, for GEMM and for
bandwidth (the vCPUs likely share a core). So on the first run in a process the benchmark
times the workload with each candidate count, interleaved (1, N, 1, N...) so drift hits both
alike, keeps the count with the fastest *median* call, and caches the choice per (device,
workload) for later runs. The median, not the best call: on that VM two threads sometimes
ran a 512^2 GEMM at 115 GFLOPS but usually at 15 (one vCPU descheduled while the other
waits at a barrier), while one thread ran at 72 +- 5. Within :data:`TIE_MARGIN` the smaller
count wins: fewer threads disturb the rest of the host less.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from accelerators.bench._backend import Backend, DeviceProps
from accelerators.bench._timing import Clock, Timer

__all__ = ["TIE_MARGIN", "ThreadChoice", "clear_cache", "pick_threads"]

#: A larger thread count must be faster by more than this fraction to be chosen.
TIE_MARGIN = 0.03
#: Rounds of (1, N) visits: at least this many whatever the budget, at most the other.
_MIN_ROUNDS = 3
_MAX_ROUNDS = 20

_cache: dict[tuple[str, str], int] = {}
_cache_lock = threading.Lock()


@dataclass(frozen=True)
class ThreadChoice:
    """The thread count a workload runs with and how it was chosen.

    :param threads: the count used.
    :param source: ``"measured"`` (timed now), ``"cached"`` (timed earlier in this process)
        or ``"fixed"`` (one option only).
    :param median_s: median call time per thread count (empty unless measured).
    """

    threads: int
    source: Literal["measured", "cached", "fixed"]
    median_s: dict[int, float] = field(default_factory=dict)


def clear_cache() -> None:
    """Forget the thread counts chosen so far (the next run measures again)."""
    with _cache_lock:
        _cache.clear()


def pick_threads(
    backend: Backend,
    device: DeviceProps,
    workload: str,
    fn: Callable[[], object],
    timer: Timer,
    *,
    clock: Clock,
    budget_s: float,
    refresh: bool = False,
) -> ThreadChoice:
    """Choose and set the thread count for ``workload`` on ``device``.

    :param backend: sets the thread count.
    :param device: the CPU.
    :param workload: cache key, e.g. ``"gemm.fp32"`` or ``"stream"``.
    :param fn: one call of the workload.
    :param timer: times the calls.
    :param clock: bounds the probe to ``budget_s``.
    :param budget_s: time to spend comparing counts.
    :param refresh: measure even if a choice is cached.
    """
    options = backend.thread_options(device)
    if not options:
        current = backend.get_threads() or 1
        return ThreadChoice(threads=current, source="fixed")
    if len(options) == 1:
        backend.set_threads(options[0])
        return ThreadChoice(threads=options[0], source="fixed")
    key = (device.name, workload)
    with _cache_lock:
        cached = _cache.get(key)
    if cached is not None and not refresh:
        backend.set_threads(cached)
        return ThreadChoice(threads=cached, source="cached")
    samples: dict[int, list[float]] = {threads: [] for threads in options}
    deadline = clock() + budget_s
    rounds = 0
    while True:
        for threads in options:
            backend.set_threads(threads)
            fn()  # settle the thread pool at the new size
            samples[threads].extend(timer.time(fn, iterations=2))
        rounds += 1
        if rounds >= _MIN_ROUNDS and clock() >= deadline:
            break
        if rounds >= _MAX_ROUNDS:
            break
    median = {threads: statistics.median(times) for threads, times in samples.items()}
    chosen = options[0]
    for threads in options[1:]:
        if median[threads] < median[chosen] * (1 - TIE_MARGIN):
            chosen = threads
    backend.set_threads(chosen)
    with _cache_lock:
        _cache[key] = chosen
    return ThreadChoice(threads=chosen, source="measured", median_s=median)
