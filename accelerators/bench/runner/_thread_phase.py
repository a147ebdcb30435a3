"""The thread count of one CPU workload, chosen in a run: the prior, the windows, the record.

A phase that measures a CPU workload (a dtype's GEMM on its winning shape, the first stream
kernel) calls :func:`windowed_choice` once the workload is ready: it starts from the prior
(this process's earlier choice, else the one the node's bench history recorded, unless
``refresh_threads``), times interleaved windows at every thread count inside the phase's
deadline (:func:`~accelerators.bench.measure._threads.time_windows`), keeps a count
(:func:`~accelerators.bench.measure._threads.choose`), sets it, and remembers it for the process.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from accelerators.bench.device._context import Context, DeviceState
from accelerators.bench.measure._threads import (
    WINDOW_S,
    ThreadChoice,
    Windows,
    choose,
    prior_from_history,
    recall,
    remember,
    time_windows,
)

__all__ = [
    "ROUNDS",
    "Chosen",
    "history_priors",
    "prior_of",
    "start_threads",
    "windowed_choice",
]

#: Rounds of windows planned (each visits every count); fewer when the budget is short.
ROUNDS = 3
#: How many of the node's latest reports are read for its thread counts.
RECENT_REPORTS = 5


@dataclass(frozen=True)
class Chosen:
    """A workload's thread choice and the samples it gives every count.

    :param choice: what was chosen and how.
    :param samples: per count, every call timed at it (the windows', plus the calls the
        workload made before them at the count it ran at).
    """

    choice: ThreadChoice
    samples: dict[int, tuple[float, ...]]


def prior_of(ctx: Context, device: str, workload: str) -> tuple[int | None, str]:
    """The count to start from and where it comes from (``cached``, ``history`` or none)."""
    if ctx.refresh_threads:
        return None, "measured"
    cached = recall(device, workload)
    if cached is not None:
        return cached, "cached"
    recorded = ctx.thread_priors.get(workload)
    if recorded is not None:
        return recorded, "history"
    return None, "measured"


def start_threads(ctx: Context, device: str, workload: str, options: tuple[int, ...]) -> int:
    """Set and return the count a workload runs at before its windows: the prior, else every
    core (the count that delivers most on a quiet host)."""
    prior, _ = prior_of(ctx, device, workload)
    threads = prior if prior in options and prior is not None else max(options)
    ctx.backend.set_threads(threads)
    return threads


def windowed_choice(
    ctx: Context,
    state: DeviceState,
    workload: str,
    fn: Callable[[], object],
    *,
    work: float,
    ran_at: int,
    earlier_s: tuple[float, ...],
    deadline: float,
    before: Callable[[], object] | None = None,
) -> Chosen:
    """Compare every thread count on ``fn`` in windows that end by ``deadline``; set the count
    chosen.

    :param work: the work of one call in the unit rates are reported in (TFLOP, GB).
    :param ran_at: the count ``fn`` ran at so far.
    :param earlier_s: calls of ``fn`` already timed at ``ran_at`` (they predict a call's time
        and join that count's samples).
    """
    device = state.props.name
    options = ctx.backend.thread_options(state.props)
    prior, source = prior_of(ctx, device, workload)
    if len(options) < 2:
        return Chosen(ThreadChoice(ran_at, "fixed"), {ran_at: earlier_s})
    typical = sorted(earlier_s)[len(earlier_s) // 2] if earlier_s else 1e-3
    fastest = min(earlier_s) if earlier_s else typical
    # A smaller count is predicted from the fastest call, proportionally slower: the calls
    # it ran at may have waited out other processes' slices (their median can be ten times
    # the fastest), which fewer threads need not; a larger count as the typical call.
    per_call = {t: fastest * ran_at / t if t < ran_at else typical for t in options}
    span = max(0.0, deadline - ctx.clock())
    rounds = ROUNDS
    while rounds > 1 and span / (rounds * len(options)) < WINDOW_S:
        rounds -= 1
    window_s = max(WINDOW_S, span / (rounds * len(options)) * 0.8)
    found: Windows = time_windows(
        ctx.backend,
        fn,
        ctx.backend.timer(state.props),
        options,
        clock=ctx.clock,
        deadline=deadline,
        per_call_s=per_call,
        rounds=rounds,
        window_s=window_s,
        before=before,
        # The count it has not run at first: if the deadline allows one window, it is that.
        first=next((t for t in options if t != ran_at), ran_at),
        current=ran_at,
    )
    found.samples[ran_at] = [*earlier_s, *found.samples[ran_at]]
    chosen = choose(found, options, prior, ran_at)
    ctx.backend.set_threads(chosen)
    remember(device, workload, chosen)
    samples = {t: tuple(s) for t, s in found.samples.items()}
    confirmed = prior is not None and chosen == prior
    choice = ThreadChoice(
        threads=chosen,
        source=source if confirmed else "measured",  # type: ignore[arg-type]
        median_s=found.median_s(),
        rates={t: rate * work for t, rate in found.rates().items()},
        rounds=found.rounds,
        prior=prior,
        cut=found.cut,
    )
    return Chosen(choice, samples)


def history_priors(
    reports: list[dict[str, Any]], device: str, options: tuple[int, ...]
) -> dict[str, int]:
    """``workload -> threads`` the node's latest runs on this CPU recorded in a bench history
    (``reports``: the node's summaries, oldest first, as its baseline read found them; none
    when the history could not be read: the run then decides from its own windows)."""
    if len(options) < 2:
        return {}
    return prior_from_history(reports[-RECENT_REPORTS:], device, options)
