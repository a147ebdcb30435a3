"""Live GCP prices from the Cloud Billing Catalog API (an API key), kept in a dated cache.

>>> from accelerators.sizing import gcp
>>> result = gcp.refresh("us-central1", api_key="...")  # doctest: +SKIP
>>> result.source, len(result.prices)  # doctest: +SKIP
('live', 48)

GCP bills a GPU machine in parts, so :func:`refresh` prices each machine type of
``accelerators/data/gcp_skus.toml`` as vCPUs x its family's core SKU + GiB x the RAM SKU + its
GPUs x the GPU SKU, on-demand and spot, read in one region from the Compute Engine service's
SKU list (``cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus``), page by page
(``nextPageToken``, at most :data:`MAX_PAGES`) with throttled answers retried (:mod:`._http`).
The key comes from ``api_key`` or ``$ACCELERATORS_GCP_API_KEY``; without one nothing is asked
and the shipped table stays in use, as the result says. Rows go to ``gcp-<region>.json`` in
the user cache. TPU VMs are not refreshed (another service prices them).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

from accelerators import _datafiles
from accelerators.catalog import _instances
from accelerators.catalog._instances import Price
from accelerators.sizing import _price_cache
from accelerators.sizing._http import get_json
from accelerators.sizing._model import SizingError
from accelerators.sizing._price_cache import PriceRefresh

__all__ = ["API", "KEY_VARIABLE", "MAX_PAGES", "SOURCE", "refresh"]

API = "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus"
SOURCE = "gcp-billing-api"
KEY_VARIABLE = "ACCELERATORS_GCP_API_KEY"
MAX_PAGES = 100
_REGION = re.compile(r"^[a-z]+-[a-z]+[0-9]{1,2}$")
_SPOT = "Spot Preemptible "


def refresh(
    region: str = "us-central1",
    *,
    api_key: str | None = None,
    base_url: str = API,
    sleep: Callable[[float], None] = time.sleep,
    timeout: float = 30.0,
) -> PriceRefresh:
    """Price the GPU machine types of ``gcp_skus.toml`` in ``region`` and cache them."""
    if not _REGION.match(str(region)):
        raise SizingError(f"Expected a GCP region such as us-central1, got {region!r}")
    key = api_key or os.environ.get(KEY_VARIABLE)
    if not key:
        return PriceRefresh(
            "gcp",
            region,
            "shipped",
            f"No GCP API key (api_key= or ${KEY_VARIABLE}): using the shipped price table "
            "(accelerators/data/prices.toml), which is dated and may be stale.",
        )
    rates, skipped = _rates(base_url, key, region, sleep, timeout)
    table = _datafiles.load_toml("accelerators.data", "gcp_skus.toml")
    prices, missing = _machines(table, rates, region)
    path, fetched_at = _price_cache.write("gcp", region, prices)
    where = f"cached in {path}" if path else "not cached (the cache is off or unsafe)"
    left = (
        f"; {len(missing)} machine types lack a SKU here and keep shipped prices" if missing else ""
    )
    return PriceRefresh(
        "gcp",
        region,
        "live",
        f"Priced {len(prices)} GCP machine-type rows in {region} at {fetched_at}{left}; {where}",
        tuple(prices),
        path,
        fetched_at,
        skipped,
    )


def _rates(
    base_url: str, key: str, region: str, sleep: Callable[[float], None], timeout: float
) -> tuple[dict[tuple[str, str], float], int]:
    """(SKU description without its place, kind) -> USD per unit, for SKUs sold in ``region``."""
    rates: dict[tuple[str, str], float] = {}
    skipped = 0
    token = ""
    for _page in range(MAX_PAGES):
        query = {"key": key, "currencyCode": "USD", "pageSize": "5000"}
        if token:
            query["pageToken"] = token
        answer = get_json(
            f"{base_url}?{urllib.parse.urlencode(query)}", sleep=sleep, timeout=timeout
        )
        skus = answer.get("skus") if isinstance(answer, dict) else None
        if not isinstance(skus, list):
            raise SizingError(
                f"The Cloud Billing Catalog API answered without skus: {answer!r:.120}"
            )
        for sku in skus:
            parsed = _sku(sku, region)
            if parsed is None:
                skipped += 1
                continue
            rates[parsed[:2]] = parsed[2]
        token = str(answer.get("nextPageToken") or "")
        if not token:
            return rates, skipped
    raise SizingError(f"The Cloud Billing Catalog API kept paging past {MAX_PAGES} pages")


def _sku(sku: Any, region: str) -> tuple[str, str, float] | None:
    """(description stem, kind, USD per unit) of a SKU sold in ``region``, or None."""
    if not isinstance(sku, dict) or region not in (sku.get("serviceRegions") or ()):
        return None
    usage = (sku.get("category") or {}).get("usageType")
    kind = {"OnDemand": "on-demand", "Preemptible": "spot"}.get(str(usage))
    text = str(sku.get("description", ""))
    if kind is None or " running in " not in text:
        return None
    stem = text.split(" running in ")[0].removeprefix(_SPOT)
    try:
        rates = sku["pricingInfo"][0]["pricingExpression"]["tieredRates"]
        price = rates[-1]["unitPrice"]
        usd = int(price.get("units", 0) or 0) + int(price.get("nanos", 0) or 0) / 1e9
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return (stem, kind, usd) if usd > 0 else None


def _machines(
    table: dict[str, Any], rates: dict[tuple[str, str], float], region: str
) -> tuple[list[Price], list[str]]:
    rows = {r.name: r for r in _instances.instances("gcp")}
    today = dt.datetime.now(dt.UTC).date()
    prices: list[Price] = []
    missing: list[str] = []
    for name, shape in dict(table.get("machine", {})).items():
        row = rows.get(name)
        family = dict(table.get("family", {})).get(shape.get("family"), {})
        gpu = dict(table.get("gpu", {})).get(row.accelerator if row else "")
        if row is None or not family or not gpu:
            missing.append(name)
            continue
        for kind in ("on-demand", "spot"):
            parts = [(family["core"], shape["vcpus"]), (family["ram"], shape["memory_gib"])]
            parts.append((gpu, row.count))
            units = [rates.get((stem, kind)) for stem, _n in parts]
            if any(u is None for u in units):
                if kind == "on-demand":
                    missing.append(name)
                continue
            usd = sum(float(u or 0) * float(n) for u, (_s, n) in zip(units, parts, strict=True))
            prices.append(
                Price.model_validate(
                    {
                        "cloud": "gcp",
                        "instance": name,
                        "region": region,
                        "kind": kind,
                        "usd_per_hour": round(usd, 6),
                        "date": today,
                        "source": SOURCE,
                        "confidence": "derived",
                        "note": f"{shape['vcpus']} vCPUs + {shape['memory_gib']} GiB + "
                        f"{row.count:g} x {gpu}, Cloud Billing Catalog SKUs",
                    }
                )
            )
    return prices, missing
