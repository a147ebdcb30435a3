"""Expected figures from a bench history where no sourced band exists: the fleet's median
for the SKU, else this node's own earlier runs (a VM's CPU has no datasheet bandwidth).

The fleet median is the median over nodes of each node's median (:func:`._fleet.fleet_medians`,
at least :data:`._fleet.MIN_FLEET` distinct nodes), and where the figure has a datasheet peak
it is bounded by it: never above the peak, nor above what a device meeting its own band
would still pass against (its band's expected figure / ``warn_below``), and never below
:data:`FLEET_FLOOR` of the peak. A history, forged or not, can therefore neither fail a
device that meets its band nor pass one below a quarter of its datasheet.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable

from accelerators.bench.expect._bands import bands
from accelerators.bench.history._fleet import MIN_FLEET, MIN_OWN_RUNS
from accelerators.bench.history._store import Figure
from accelerators.bench.report._models import GemmResult, MemoryResult

__all__ = ["FLEET_FLOOR", "OWN_BAND", "Medians", "OwnMedians", "own_medians", "with_fleet_baseline"]

Medians = dict[tuple[str, str], tuple[float, int]]
OwnMedians = dict[tuple[int, str], tuple[float, int]]

#: A fleet median is never taken below this share of the datasheet peak.
FLEET_FLOOR = 0.25


#: A figure judged against its own node's history is expected at this share of the median of
#: the earlier runs, so it warns below 0.9 x 0.75 = 68 % of it. On the 2-vCPU development VM,
#: quiet runs' triad spread 79-107 % of their median (benchmarks/false_alarms.py, load 0.4-1.5):
#: 0.9 gave 2 false warnings in 16 quiet runs; a bandwidth hog cut triad to 55-71 %.
OWN_BAND = 0.75


def own_medians(figures: Iterable[Figure], node: str) -> dict[tuple[int, str], tuple[float, int]]:
    """``(device index, metric) -> (median, runs)`` over ``node``'s runs that passed in a
    history (a disturbed run's "inconclusive" warning keeps it out of the baseline)."""
    series: dict[tuple[int, str], list[float]] = {}
    for f in figures:
        if f.node == node and f.verdict == "pass":
            series.setdefault((f.device_index, f.metric), []).append(f.value)
    return {key: (statistics.median(v), len(v)) for key, v in series.items()}


def with_fleet_baseline(
    results: list[GemmResult | MemoryResult],
    sku: str,
    fleet: dict[tuple[str, str], tuple[float, int]],
    own: dict[tuple[int, str], tuple[float, int]] | None = None,
    *,
    peak_is_floor: bool = False,
) -> list[GemmResult | MemoryResult]:
    """Results whose band or peak is unconfirmed (or missing) take the fleet median of their
    SKU as the expected figure (at least ``MIN_FLEET`` nodes in the history), bounded by the
    datasheet (module docstring); figures with no
    band at all, failing that, :data:`OWN_BAND` x the median of this node's earlier passing
    runs (at least ``MIN_OWN_RUNS``).

    :param peak_is_floor: the peaks rest on a clock that is not a ceiling (a CPU without
        cpufreq: the TSC or nominal clock, see :mod:`._cpu_peak`). A band derived from a floor
        says little of what the node sustains, so this node's own history replaces it too.
    """
    out: list[GemmResult | MemoryResult] = []
    for result in results:
        metric = (
            f"gemm.{result.dtype}" if isinstance(result, GemmResult) else f"memory.{result.kernel}"
        )
        median, nodes = fleet.get((sku, metric), (0.0, 0))
        weak = "unconfirmed" in (result.band_confidence, result.peak_confidence) or (
            result.band_confidence is None
        )
        mine, runs = (own or {}).get((result.device_index, metric), (0.0, 0))
        # The node's own history only stands in where nothing else gives an expectation (a
        # CPU's bandwidth) or the band rests on a floor clock: a peak-derived band from a
        # ceiling stays, however unconfirmed.
        unbanded = result.band_fraction is None and result.band_confidence is None
        peak = result.peak_tflops if isinstance(result, GemmResult) else result.peak_gbps
        floored = peak_is_floor and peak is not None
        fleetless = nodes < MIN_FLEET or median <= 0
        if (unbanded or floored) and fleetless and runs >= MIN_OWN_RUNS and mine > 0:
            key = "expected_tflops" if isinstance(result, GemmResult) else "expected_gbps"
            instead = " instead of a band from a floor peak" if floored and not unbanded else ""
            update = {
                key: mine * OWN_BAND,
                "band_fraction": OWN_BAND,
                "band_source": f"{OWN_BAND:.0%} of the median of this node's {runs} earlier "
                f"runs (bench history{instead})",
                "band_confidence": "history",
            }
            out.append(result.model_copy(update=update))
            continue
        if not weak or fleetless:
            out.append(result)
            continue
        key = "expected_tflops" if isinstance(result, GemmResult) else "expected_gbps"
        own_expected = (
            result.expected_tflops if isinstance(result, GemmResult) else (result.expected_gbps)
        )
        expected, bounded = _bounded(median, None if floored else peak, own_expected)
        update = {
            key: expected,
            "band_fraction": None,
            "band_source": f"fleet median of {nodes} {sku} nodes (bench history){bounded}",
            "band_confidence": "fleet",
        }
        out.append(result.model_copy(update=update))
    return out


def _bounded(median: float, peak: float | None, own: float | None) -> tuple[float, str]:
    """``median`` within the datasheet's bounds (module docstring), and what was done to it."""
    if not peak:
        return median, ""
    ceiling = peak
    if own:
        ceiling = min(ceiling, own / bands().thresholds.warn_below)
    floor = min(FLEET_FLOOR * peak, ceiling)
    if median > ceiling:
        return ceiling, f", {median:.4g} capped at {ceiling:.4g} (the datasheet's bound)"
    if median < floor:
        return floor, f", {median:.4g} raised to the floor of {FLEET_FLOOR:.0%} of the peak"
    return median, ""
