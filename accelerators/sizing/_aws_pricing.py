"""AWS on-demand prices from the Price List Query API (``pricing:GetProducts``), for
:func:`accelerators.sizing.aws.refresh`.

The API answers from ``us-east-1`` for every region. One query per instance family (``GPU
instance``, ``Machine Learning ASIC Instances``), filtered to Linux, shared tenancy, no
pre-installed software and ``capacitystatus=Used`` (the plain on-demand line), pages through
the products; each product's ``OnDemand`` term gives USD per ``Hrs`` of the whole instance.
Products the answer garbles (not JSON, no hourly USD figure) are skipped and counted.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from accelerators.catalog._instances import Price

__all__ = ["FAMILIES", "SOURCE", "on_demand_prices"]

SOURCE = "aws-pricing-api"
#: ``instanceFamily`` values of the accelerated instance types.
FAMILIES: tuple[str, ...] = ("GPU instance", "Machine Learning ASIC Instances")


def on_demand_prices(
    session: Any, region: str, names: set[str], *, endpoint_url: str | None = None
) -> tuple[list[Price], int]:
    """Linux on-demand prices of ``names`` in ``region``; the count of products skipped."""
    client = session.client("pricing", region_name="us-east-1", endpoint_url=endpoint_url)
    paginator = client.get_paginator("get_products")
    wanted = {n.casefold(): n for n in names}
    found: dict[str, float] = {}
    skipped = 0
    today = dt.datetime.now(dt.UTC).date()
    for family in FAMILIES:
        filters = [
            {"Type": "TERM_MATCH", "Field": field, "Value": value}
            for field, value in (
                ("regionCode", region),
                ("instanceFamily", family),
                ("operatingSystem", "Linux"),
                ("tenancy", "Shared"),
                ("preInstalledSw", "NA"),
                ("capacitystatus", "Used"),
            )
        ]
        for page in paginator.paginate(ServiceCode="AmazonEC2", Filters=filters):
            for item in page.get("PriceList", ()):
                parsed = _product(item)
                if parsed is None:
                    skipped += 1
                    continue
                name, usd = parsed
                key = name.casefold()
                if key in wanted and (key not in found or usd < found[key]):
                    found[key] = usd
    prices = [
        Price(
            cloud="aws",
            instance=wanted[key],
            region=region,
            kind="on-demand",
            usd_per_hour=usd,
            date=today,
            source=SOURCE,
            note="Price List Query API, Linux, shared tenancy, OnDemand term",
        )
        for key, usd in sorted(found.items())
    ]
    return prices, skipped


def _product(item: Any) -> tuple[str, float] | None:
    """(instance type, USD per hour) of one price-list product, or None when it has neither."""
    try:
        product = json.loads(item) if isinstance(item, str) else item
        name = str(product["product"]["attributes"]["instanceType"])
        terms = product["terms"]["OnDemand"]
    except (ValueError, KeyError, TypeError):
        return None
    rates: list[float] = []
    for term in terms.values() if isinstance(terms, dict) else ():
        dimensions = term.get("priceDimensions", {}) if isinstance(term, dict) else {}
        for dimension in dimensions.values() if isinstance(dimensions, dict) else ():
            if not isinstance(dimension, dict) or dimension.get("unit") != "Hrs":
                continue
            try:
                usd = float(dimension["pricePerUnit"]["USD"])
            except (KeyError, TypeError, ValueError):
                continue
            if usd > 0:
                rates.append(usd)
    return (name, min(rates)) if rates else None
