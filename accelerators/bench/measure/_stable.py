"""A statistic that does not flap: a bounded-spread best plus the median, and when to re-measure.

One lucky call must not carry a verdict, and one disturbed window must not sink it:

* :func:`bounded_best` is a best-of-k that at least ``k`` calls reach: the slowest of the
  ``k`` fastest calls, kept only when those ``k`` lie within ``spread`` of the fastest (a lone
  outlier gives ``None``);
* the judged figure stays the median (the sustained rate);
* :func:`unjudgeable` says why a window cannot be judged yet: its median is far below its
  bounded best (the window was disturbed), there is no bounded best, or the median is below
  the band while the bounded best is inside it. Such a figure is re-measured while the run's
  budget lasts (:mod:`~accelerators.bench.runner._rerun`); a device that is really slow is slow in
  every window, with a tight spread, and is judged slow.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["BEST_OF", "BEST_SPREAD", "bounded_best", "unjudgeable"]

#: Calls that must reach the bounded best.
BEST_OF = 3
#: How far (relative time) the ``BEST_OF`` fastest calls may lie from the fastest one.
BEST_SPREAD = 0.10


def bounded_best(
    samples_s: Sequence[float], *, k: int = BEST_OF, spread: float = BEST_SPREAD
) -> float | None:
    """The slowest of the ``k`` fastest calls (seconds) when they lie within ``spread`` of the
    fastest; ``None`` with fewer than ``k`` calls or a wider spread.

    :param samples_s: per-call times in seconds.
    :param k: how many calls must reach the figure.
    :param spread: relative bound on ``k``-th fastest / fastest - 1.
    """
    fastest = sorted(t for t in samples_s if t > 0)[:k]
    if len(fastest) < k:
        return None
    if fastest[-1] > fastest[0] * (1.0 + spread):
        return None
    return fastest[-1]


def unjudgeable(
    samples_s: Sequence[float],
    work: float,
    expected: float | None,
    *,
    spread_below: float,
    warn_below: float,
) -> str | None:
    """Why a window of timed calls is too spread to judge, ``None`` when it can be judged.

    :param samples_s: per-call times in seconds.
    :param work: work per call (FLOPs, bytes) in the unit the rates are compared in, so that
        ``work / seconds`` is commensurable with ``expected``.
    :param expected: the expected rate (``None``: spread only).
    :param spread_below: a median under this share of the bounded best is unstable.
    :param warn_below: a median under this share of ``expected`` is below the band.
    """
    if not samples_s:
        return None
    ordered = sorted(samples_s)
    median_s = (
        ordered[len(ordered) // 2]
        if len(ordered) % 2
        else sum(ordered[len(ordered) // 2 - 1 : len(ordered) // 2 + 1]) / 2
    )
    best_s = bounded_best(samples_s)
    if best_s is None:
        return (
            f"no {BEST_OF} calls within {BEST_SPREAD:.0%} of the fastest "
            f"({len(samples_s)} calls): a lone fast call"
        )
    ratio = best_s / median_s
    if ratio < spread_below:
        return f"median {ratio:.0%} of the best-of-{BEST_OF}, below {spread_below:.0%}"
    if expected:
        median_rate, best_rate = work / median_s, work / best_s
        if median_rate < warn_below * expected <= best_rate:
            return (
                f"sustained {median_rate / expected:.0%} of expected, best-of-{BEST_OF} "
                f"{best_rate / expected:.0%}: within the band only at its best"
            )
    return None
