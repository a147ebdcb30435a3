"""Live Azure prices from the public Retail Prices API (no credentials), kept in a dated cache.

>>> from accelerators.sizing import azure
>>> result = azure.refresh("eastus")  # doctest: +SKIP
>>> result.source, len(result.prices)  # doctest: +SKIP
('live', 61)

:func:`refresh` asks ``prices.azure.com/api/retail/prices`` for the pay-as-you-go
(``Consumption``) prices of the GPU sizes in ``instances.toml`` in one region, a few sizes per
query, following ``NextPageLink`` (on the same host only, at most :data:`MAX_PAGES` pages) and
retrying throttled answers (:mod:`._http`). Linux prices only: ``Windows`` products and ``Low
Priority`` meters are skipped; a ``Spot`` meter is the spot price. The rows go to
``azure-<region>.json`` in the user cache (:mod:`._price_cache`), which plans read before the
shipped table. No Azure SDK: HTTP through the standard library's urllib (:mod:`._http`).
"""

from __future__ import annotations

import datetime as dt
import re
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

from accelerators.catalog import _instances
from accelerators.catalog._instances import Price
from accelerators.sizing import _price_cache
from accelerators.sizing._http import get_json
from accelerators.sizing._model import SizingError
from accelerators.sizing._price_cache import PriceRefresh

__all__ = ["API", "MAX_PAGES", "SOURCE", "refresh"]

API = "https://prices.azure.com/api/retail/prices"
SOURCE = "azure-retail-api"
MAX_PAGES = 200
_REGION = re.compile(r"^[a-z][a-z0-9]{1,30}$")
_BATCH = 8


def refresh(
    region: str = "eastus",
    *,
    sizes: list[str] | None = None,
    base_url: str = API,
    sleep: Callable[[float], None] = time.sleep,
    timeout: float = 30.0,
) -> PriceRefresh:
    """Fetch the Linux pay-as-you-go and spot prices of ``sizes`` (default: every Azure size in
    the instance table) in ``region`` and cache them."""
    if not _REGION.match(str(region)):
        raise SizingError(f"Expected an Azure region such as eastus, got {region!r}")
    wanted = sizes if sizes is not None else [r.name for r in _instances.instances("azure")]
    by_key = {name.casefold(): name for name in wanted}
    best: dict[tuple[str, str], float] = {}
    skipped = 0
    for start in range(0, len(wanted), _BATCH):
        names = wanted[start : start + _BATCH]
        for item in _items(base_url, region, names, sleep, timeout):
            parsed = _price(item, region)
            if parsed is None or parsed[0].casefold() not in by_key:
                skipped += 1
                continue
            name, kind, usd = parsed
            key = (by_key[name.casefold()], kind)
            best[key] = min(usd, best.get(key, usd))
    today = dt.datetime.now(dt.UTC).date()
    prices = [
        Price.model_validate(
            {
                "cloud": "azure",
                "instance": name,
                "region": region,
                "kind": kind,
                "usd_per_hour": usd,
                "date": today,
                "source": SOURCE,
                "note": "Retail Prices API, Consumption, Linux",
            }
        )
        for (name, kind), usd in sorted(best.items())
    ]
    path, fetched_at = _price_cache.write("azure", region, prices)
    where = f"cached in {path}" if path else "not cached (the cache is off or unsafe)"
    return PriceRefresh(
        "azure",
        region,
        "live",
        f"Fetched {len(prices)} Azure prices in {region} at {fetched_at}; {where}",
        tuple(prices),
        path,
        fetched_at,
        skipped,
    )


def _items(
    base_url: str, region: str, names: list[str], sleep: Callable[[float], None], timeout: float
) -> list[dict[str, Any]]:
    """Every item of the answer to one query, across its pages."""
    sizes = " or ".join(f"armSkuName eq '{n}'" for n in names)
    query = (
        f"serviceName eq 'Virtual Machines' and armRegionName eq '{region}' "
        f"and priceType eq 'Consumption' and ({sizes})"
    )
    url: str | None = f"{base_url}?" + urllib.parse.urlencode(
        {"api-version": "2023-01-01-preview", "$filter": query}
    )
    home = urllib.parse.urlsplit(base_url).netloc
    items: list[dict[str, Any]] = []
    for _page in range(MAX_PAGES):
        if url is None:
            return items
        answer = get_json(url, sleep=sleep, timeout=timeout)
        page = answer.get("Items") if isinstance(answer, dict) else None
        if not isinstance(page, list):
            raise SizingError(
                f"The Azure Retail Prices API answered without Items: {answer!r:.120}"
            )
        items += [i for i in page if isinstance(i, dict)]
        link = answer.get("NextPageLink")
        if link and urllib.parse.urlsplit(str(link)).netloc != home:
            raise SizingError(f"The Azure Retail Prices API sent a next page off {home}: {link!r}")
        url = str(link) if link else None
    raise SizingError(f"The Azure Retail Prices API kept paging past {MAX_PAGES} pages")


def _price(item: dict[str, Any], region: str) -> tuple[str, str, float] | None:
    """(size, kind, USD per hour) of one Linux item in ``region``, or None."""
    meter = f"{item.get('meterName', '')} {item.get('skuName', '')}"
    if (
        item.get("type") != "Consumption"
        or item.get("unitOfMeasure") != "1 Hour"
        or "Windows" in str(item.get("productName", ""))
        or "Low Priority" in meter
        or item.get("armRegionName") != region
        or item.get("currencyCode", "USD") != "USD"
    ):
        return None
    try:
        usd = float(item["retailPrice"])
    except (KeyError, TypeError, ValueError):
        return None
    if not usd > 0 or not isinstance(item.get("armSkuName"), str):
        return None
    return item["armSkuName"], "spot" if "Spot" in meter else "on-demand", usd
