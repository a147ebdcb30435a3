"""Trends over the bench history: per node, device and metric, flag what degrades.

A device's latest sustained figure is compared with

* its **own median** over its earlier runs (at least :data:`MIN_OWN_RUNS` of them), and
* the **fleet median** for the same SKU and metric: the median over nodes of each node's
  median of its devices' latest figures (at least :data:`MIN_FLEET` distinct nodes), so that
  one node, however many devices or records it has, is one voice.

Falling more than ``drop`` (default 10 %) below either flags the device. Pure arithmetic over
:class:`~accelerators.bench.history._store.Figure` rows; no plotting, no pydantic.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from accelerators.bench.history._store import Figure
from accelerators.bench.history._summary import Summary

__all__ = [
    "DEFAULT_DROP",
    "MIN_FLEET",
    "MIN_OWN_RUNS",
    "Trend",
    "fleet_medians",
    "newest_medians",
    "sparkline",
    "trends",
]

#: Share below a median that flags a device.
DEFAULT_DROP = 0.10
#: Earlier runs a device needs before its own median counts.
MIN_OWN_RUNS = 3
#: Distinct nodes with a device of one SKU that a fleet median needs.
MIN_FLEET = 3
_BARS = "▁▂▃▄▅▆▇█"


@dataclass(frozen=True)
class Trend:
    """One device's series of one metric, oldest first, with what it is compared with."""

    node: str
    device_index: int
    sku: str
    metric: str
    unit: str
    times: tuple[datetime, ...]
    values: tuple[float, ...]
    own_median: float | None
    fleet_median: float | None
    flags: tuple[str, ...]

    @property
    def latest(self) -> float:
        return self.values[-1]

    @property
    def vs_own(self) -> float | None:
        return self.latest / self.own_median if self.own_median else None

    @property
    def vs_fleet(self) -> float | None:
        return self.latest / self.fleet_median if self.fleet_median else None

    @property
    def flagged(self) -> bool:
        return bool(self.flags)


def fleet_medians(figures: Iterable[Figure]) -> dict[tuple[str, str], tuple[float, int]]:
    """``(sku, metric) -> (median over nodes of each node's median, nodes)``, each node's
    median taken over its devices' latest figures."""
    latest: dict[tuple[str, int, str, str], Figure] = {}
    for f in sorted(figures, key=lambda f: f.started_at):
        latest[(f.node, f.device_index, f.sku, f.metric)] = f
    per_node: dict[tuple[str, str], dict[str, list[float]]] = {}
    for f in latest.values():
        per_node.setdefault((f.sku, f.metric), {}).setdefault(f.node, []).append(f.value)
    return {
        key: (statistics.median(statistics.median(v) for v in nodes.values()), len(nodes))
        for key, nodes in per_node.items()
    }


def newest_medians(summaries: Iterable[Summary]) -> dict[tuple[str, str], tuple[float, int]]:
    """:func:`fleet_medians` of ``summaries`` given newest first (as a store's query returns
    them): the first figure met per node, device and metric is its latest, so no sort and no
    :class:`Figure` rows (a gate's baseline reads 512 summaries of its SKU each time)."""
    seen: set[tuple[str, int, str, str]] = set()
    per_node: dict[tuple[str, str], dict[str, list[float]]] = {}
    for summary in summaries:
        for device in summary.devices:
            index = device["index"]
            for kind in ("gemm", "memory"):
                for label, value in device.get(kind, {}).items():
                    metric = f"{kind}.{label}"
                    key = (summary.node, index, summary.accelerator, metric)
                    if key in seen:
                        continue
                    seen.add(key)
                    nodes = per_node.setdefault((summary.accelerator, metric), {})
                    nodes.setdefault(summary.node, []).append(float(value))
    return {
        key: (statistics.median(statistics.median(v) for v in nodes.values()), len(nodes))
        for key, nodes in per_node.items()
    }


def trends(
    figures: Iterable[Figure],
    *,
    drop: float = DEFAULT_DROP,
    metrics: Sequence[str] = (),
) -> list[Trend]:
    """Every device's trend per metric, flagged where it fell more than ``drop``.

    :param figures: the history's figures (any order).
    :param drop: share below a median that flags (0.10: more than 10 % below).
    :param metrics: keep only metrics starting with one of these (``gemm.``, ``memory.triad``).
    """
    rows = sorted(figures, key=lambda f: f.started_at)
    if metrics:
        rows = [f for f in rows if any(f.metric.startswith(m) for m in metrics)]
    fleet = fleet_medians(rows)
    series: dict[tuple[str, int, str, str], list[Figure]] = {}
    for f in rows:
        series.setdefault((f.node, f.device_index, f.sku, f.metric), []).append(f)
    out = []
    for (node, index, sku, metric), items in sorted(series.items()):
        values = tuple(f.value for f in items)
        earlier = values[:-1]
        own = statistics.median(earlier) if len(earlier) >= MIN_OWN_RUNS else None
        fleet_value, devices = fleet.get((sku, metric), (0.0, 0))
        fleet_median = fleet_value if devices >= MIN_FLEET else None
        flags = []
        if own is not None and values[-1] < own * (1 - drop):
            flags.append("below own median")
        if fleet_median is not None and values[-1] < fleet_median * (1 - drop):
            flags.append("below fleet median")
        out.append(
            Trend(
                node=node,
                device_index=index,
                sku=sku,
                metric=metric,
                unit=items[0].unit,
                times=tuple(f.started_at for f in items),
                values=values,
                own_median=own,
                fleet_median=fleet_median,
                flags=tuple(flags),
            )
        )
    return out


def sparkline(values: Sequence[float], width: int = 16) -> str:
    """The last ``width`` values as block characters, scaled to their own range."""
    shown = list(values)[-width:]
    if not shown:
        return ""
    low, high = min(shown), max(shown)
    if high - low <= 1e-12 * max(abs(high), 1.0):
        return _BARS[len(_BARS) // 2] * len(shown)
    top = len(_BARS) - 1
    return "".join(_BARS[round((v - low) / (high - low) * top)] for v in shown)
