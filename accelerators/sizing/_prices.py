"""Which price of an instance to use: live caches before the shipped table, by region and kind.

>>> from accelerators.sizing._prices import select
>>> row = select(all_prices(), "aws", "p5.48xlarge", "on-demand", "us-east-1")
>>> row.region, row.usd_per_hour
('us-east-1', 55.04)

:func:`all_prices` is every row a plan may use: the rows of the live caches the refreshers wrote
(:mod:`accelerators.sizing.aws`, :mod:`~accelerators.sizing.azure`,
:mod:`~accelerators.sizing.gcp`), and the shipped table's rows for every (cloud, instance,
kind) no live cache prices. :func:`origin` says which of the two priced what;
:func:`best_per_cloud` names each cloud's best-ranked choice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from accelerators.catalog import _instances
from accelerators.catalog._instances import Price

__all__ = ["LIVE_CLOUDS", "all_prices", "in_region", "live_prices", "origin", "select"]

#: Clouds with a live refresher, and the modules that hold them.
LIVE_CLOUDS: tuple[str, ...] = ("aws", "azure", "gcp")


def live_prices() -> tuple[Price, ...]:
    """Every row of every live cache (AWS spot and on-demand, Azure, GCP)."""
    from accelerators.sizing import _price_cache
    from accelerators.sizing.aws import cached_prices

    rows = list(cached_prices())
    for cloud in ("azure", "gcp"):
        rows += _price_cache.cached_rows(cloud)
    return tuple(rows)


def all_prices() -> tuple[Price, ...]:
    """Live rows, then the shipped rows of every (cloud, instance, kind) no live row prices."""
    live = live_prices()
    covered = {(p.cloud, p.instance.casefold(), p.kind) for p in live}
    shipped = tuple(
        p for p in _instances.prices() if (p.cloud, p.instance.casefold(), p.kind) not in covered
    )
    return live + shipped


def in_region(price: Price, region: str | None) -> bool:
    """Whether ``price`` holds in ``region``: the same region, one of its zones (``us-east-1a``),
    or a price the source gives for every region."""
    if region is None or price.region is None:
        return True
    wanted, have = region.strip().lower(), price.region.lower()
    return have == wanted or (have[:-1] == wanted and have[-1:].isalpha())


def select(
    prices: Iterable[Price], cloud: str, instance: str, kind: str, region: str | None = None
) -> Price | None:
    """The cheapest ``kind`` price of ``cloud``'s ``instance`` (in ``region``)."""
    name = instance.casefold()
    rows = [
        p
        for p in prices
        if p.cloud == cloud
        and p.instance.casefold() == name
        and p.kind == kind
        and in_region(p, region)
    ]
    return min(rows, key=lambda p: (p.usd_per_hour, p.region or ""), default=None)


def origin(used: Iterable[Price]) -> str:
    """One line: how many prices came from which source, and of which date."""
    counts: Counter[tuple[str, str]] = Counter()
    for price in used:
        counts[(price.source, str(price.date))] += 1
    if not counts:
        return "no prices used"
    parts = [f"{source} of {date} ({n})" for (source, date), n in sorted(counts.items())]
    return "prices: " + ", ".join(parts)


def best_per_cloud(options: Iterable[Any]) -> str | None:
    """One line naming each cloud's first option in rank order (``options`` are ranked plan
    choices with ``rank``, ``cloud``, ``spec`` and ``usd``); ``None`` below two clouds."""
    first: dict[str, Any] = {}
    for option in options:
        if option.cloud is not None and option.cloud not in first:
            first[option.cloud] = option
    if len(first) < 2:
        return None
    parts = [
        f"{cloud} #{o.rank} {o.spec}" + (f" ${o.usd:,.2f}" if o.usd is not None else "")
        for cloud, o in first.items()
    ]
    return f"best of each of {len(first)} clouds: " + ", ".join(parts)
