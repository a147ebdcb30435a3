"""Live AWS data: accelerator instance types, spot and on-demand prices through boto3, cached.

>>> from accelerators.sizing import aws
>>> result = aws.refresh("us-east-1")  # doctest: +SKIP
>>> result.source, len(result.spot)  # doctest: +SKIP
('live', 212)

``refresh()`` calls EC2 ``DescribeInstanceTypes`` (GPU and Neuron devices of the families in
:data:`FAMILIES`), ``DescribeSpotPriceHistory`` (the current Linux spot price per
availability zone) and the Price List Query API (Linux on-demand, :mod:`._aws_pricing`), then
writes ``aws-<region>.json`` with a UTC timestamp to the user cache
directory (``$ACCELERATORS_CACHE_DIR``, else ``$XDG_CACHE_HOME/accelerators``, else
``~/.cache/accelerators``). :func:`cached_instances` and :func:`cached_prices` read it back;
the sizing functions merge them with the shipped tables. Without credentials nothing is
called: ``refresh()`` returns ``source="shipped"`` and says so. boto3 (the ``[aws]`` extra)
is imported only inside :func:`refresh`.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from accelerators import _datafiles
from accelerators._text import redact
from accelerators.catalog._instances import Instance, Price
from accelerators.errors import AcceleratorError
from accelerators.sizing._aws_pricing import on_demand_prices
from accelerators.sizing._model import SizingError
from accelerators.sizing._price_cache import write_json

__all__ = [
    "FAMILIES",
    "AwsRefresh",
    "cache_dir",
    "cached_instances",
    "cached_prices",
    "refresh",
]

#: Instance families the refresh keeps (issue 12's list).
FAMILIES: tuple[str, ...] = (
    "p4d",
    "p4de",
    "p5",
    "p5e",
    "p5en",
    "p6-b200",
    "g4dn",
    "g5",
    "g5g",
    "g6",
    "g6e",
    "trn1",
    "trn1n",
    "trn2",
    "inf1",
    "inf2",
)
_CACHE_VERSION = 1
#: An AWS region name (``us-east-1``, ``ap-southeast-4``, ``us-gov-west-1``): it becomes a file
#: name in the cache folder, so nothing else is accepted.
_REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-[0-9]{1,2}$")
_Row = TypeVar("_Row", Instance, Price)
_SOURCE = "aws-api"


@dataclass(frozen=True, slots=True)
class AwsRefresh:
    """What a refresh did: ``source`` is ``live`` (API answered) or ``shipped`` (no credentials)."""

    region: str
    source: str
    message: str
    fetched_at: dt.datetime | None = None
    path: Path | None = None
    instances: tuple[Instance, ...] = ()
    spot: tuple[Price, ...] = ()
    skipped: tuple[str, ...] = field(default=())
    """Instance types whose device the catalog does not know (``name: device``)."""
    on_demand: tuple[Price, ...] = ()
    """Linux on-demand prices from the Price List Query API (``pricing:GetProducts``)."""


#: EC2's GpuInfo names that a bare catalog name leaves open: the only H100 and H200 EC2 offers
#: are the SXM boards of p5, p5e and p5en (AWS's instance-type docs; a bare H100 is the family).
_AWS_GPU_NAMES = {"h100": "H100-SXM", "h200": "H200-SXM"}


def cache_dir() -> Path | None:
    """Where live data is cached (see the module docstring); ``None`` when the cache is off
    (``ACCELERATORS_CACHE_DIR=off``) or its folder cannot be trusted (another user's, or one
    others can write: :func:`accelerators._datafiles.trusted_cache_dir`)."""
    return _datafiles.trusted_cache_dir()


def refresh(
    region: str = "us-east-1",
    *,
    families: tuple[str, ...] = FAMILIES,
    endpoint_url: str | None = None,
    session: Any = None,
    on_demand: bool = True,
    pricing_endpoint_url: str | None = None,
) -> AwsRefresh:
    """Fetch instance types, spot and on-demand prices for ``region`` and write the cache.

    ``session`` is a ``boto3.Session`` (default: a new one, reading the usual AWS credential
    chain); ``endpoint_url`` points EC2 elsewhere (a local moto server in the tests) and
    ``pricing_endpoint_url`` the Price List Query API (default: ``endpoint_url`` too, so a
    local stand-in never sends the price query to AWS; ``on_demand=False`` skips it). An
    account that may not read prices keeps its spot prices, and the message says so.
    """
    if not _REGION.match(str(region)):
        raise SizingError(f"Expected an AWS region such as us-east-1, got {region!r}")
    try:
        import boto3
        from botocore.exceptions import BotoCoreError, ClientError
    except ModuleNotFoundError:
        raise SizingError(
            'The live AWS refresh needs boto3: pip install "accelerators[aws]"'
        ) from None
    session = session or boto3.Session()
    if session.get_credentials() is None:
        return AwsRefresh(
            region,
            "shipped",
            "No AWS credentials found: using the shipped instance and price tables "
            "(accelerators/data/instances.toml, prices.toml), which are dated and may be stale.",
        )
    try:
        client = session.client("ec2", region_name=region, endpoint_url=endpoint_url)
        rows, skipped = _instance_types(client, families)
        spot = _spot_prices(client, [r.name for r in rows], region)
    except (BotoCoreError, ClientError, ValueError) as exc:
        raise SizingError(f"AWS refresh in {region} failed: {redact(str(exc))}") from exc
    listed: tuple[Price, ...] = ()
    priced = ""
    if on_demand:
        names = {r.name for r in rows} | {r.name for r in _shipped_aws()}
        try:
            found, garbled = on_demand_prices(
                session, region, names, endpoint_url=pricing_endpoint_url or endpoint_url
            )
            listed = tuple(found)
            priced = f", {len(listed)} on-demand prices" + (
                f" ({garbled} garbled products skipped)" if garbled else ""
            )
        except (BotoCoreError, ClientError, ValueError) as exc:
            priced = f"; no on-demand prices (the Price List API failed: {redact(str(exc))})"
    fetched_at = dt.datetime.now(dt.UTC).replace(microsecond=0)
    folder = cache_dir()
    payload = {
        "version": _CACHE_VERSION,
        "region": region,
        "fetched_at": fetched_at.isoformat(),
        "instances": [r.model_dump(mode="json") for r in rows],
        "spot": [p.model_dump(mode="json") for p in spot],
        "on_demand": [p.model_dump(mode="json") for p in listed],
    }
    path = None if folder is None else write_json(folder / f"aws-{region}.json", payload)
    _read_cache_at.cache_clear()
    where = f"cached in {path}" if path is not None else "not cached (the cache is off or unsafe)"
    return AwsRefresh(
        region,
        "live",
        f"Fetched {len(rows)} instance types and {len(spot)} spot prices{priced} from AWS "
        f"{region} at {fetched_at.isoformat()}; {where}",
        fetched_at,
        path,
        tuple(rows),
        tuple(spot),
        tuple(skipped),
        listed,
    )


def _shipped_aws() -> tuple[Instance, ...]:
    from accelerators.catalog import _instances

    return _instances.instances("aws")


def cached_instances() -> tuple[Instance, ...]:
    """Instance rows from every cached refresh (newest file wins per name)."""
    seen: dict[str, Instance] = {}
    for payload in _read_cache():
        for row in _valid(Instance, payload.get("instances")):
            seen.setdefault(row.name.casefold(), row)
    return tuple(seen.values())


def cached_prices() -> tuple[Price, ...]:
    """Spot and on-demand price rows from every cached refresh."""
    return tuple(
        row
        for payload in _read_cache()
        for key in ("spot", "on_demand")
        for row in _valid(Price, payload.get(key))
    )


def _valid(model: type[_Row], raws: object) -> list[_Row]:
    """The rows of a cache list that validate; anything else in the file is ignored."""
    rows = []
    for raw in raws if isinstance(raws, list) else ():
        try:
            rows.append(model.model_validate(raw))
        except ValidationError:
            continue
    return rows


@functools.cache
def _read_cache_at(
    directory: str, stamp: tuple[tuple[str, float], ...]
) -> tuple[dict[str, Any], ...]:
    payloads = []
    for name, _mtime in stamp:
        try:
            payload = json.loads((Path(directory) / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a damaged cache is ignored, never fatal
        if isinstance(payload, dict) and payload.get("version") == _CACHE_VERSION:
            payloads.append(payload)
    payloads.sort(key=lambda p: str(p.get("fetched_at", "")), reverse=True)
    return tuple(payloads)


def _read_cache() -> tuple[dict[str, Any], ...]:
    directory = cache_dir()
    if directory is None:
        return ()
    try:
        files = sorted(directory.glob("aws-*.json"))
        stamp = tuple((f.name, f.stat().st_mtime) for f in files)
    except OSError:
        return ()
    return _read_cache_at(str(directory), stamp)


def _instance_types(client: Any, families: tuple[str, ...]) -> tuple[list[Instance], list[str]]:
    """GPU and Neuron instance types of ``families`` as instance rows."""
    from accelerators import catalog

    wanted = set(families)
    rows: list[Instance] = []
    skipped: list[str] = []
    wildcards = [{"Name": "instance-type", "Values": [f"{family}.*" for family in families]}]
    for page in client.get_paginator("describe_instance_types").paginate(Filters=wildcards):
        for info in page.get("InstanceTypes", ()):
            name = str(info.get("InstanceType", ""))
            if name.split(".")[0] not in wanted:
                continue
            devices = (info.get("GpuInfo") or {}).get("Gpus") or (info.get("NeuronInfo") or {}).get(
                "NeuronDevices"
            )
            if not devices:
                continue
            device = devices[0]
            label = str(device.get("Name", ""))
            mib = (device.get("MemoryInfo") or {}).get("SizeInMiB")
            accelerator = _AWS_GPU_NAMES.get(label.casefold())
            texts = (f"{label} {round(mib / 1024)}GB" if mib else None, label)
            for text in () if accelerator else texts:
                try:
                    accelerator = catalog.get(text).model if text else None
                except AcceleratorError:
                    continue
                if accelerator:
                    break
            if accelerator is None:
                skipped.append(f"{name}: {label}")
                continue
            rows.append(
                Instance(
                    cloud="aws",
                    name=name,
                    accelerator=accelerator,
                    count=int(device.get("Count", 1)),
                    source=_SOURCE,
                )
            )
    rows.sort(key=lambda r: r.name)
    return rows, skipped


def _spot_prices(client: Any, names: list[str], region: str) -> list[Price]:
    """The newest Linux spot price per instance type and availability zone."""
    if not names:
        return []
    newest: dict[tuple[str, str], dict[str, Any]] = {}
    now = dt.datetime.now(dt.UTC)
    for start in range(0, len(names), 100):
        pages = client.get_paginator("describe_spot_price_history").paginate(
            InstanceTypes=names[start : start + 100],
            ProductDescriptions=["Linux/UNIX"],
            StartTime=now,
        )
        for page in pages:
            for item in page.get("SpotPriceHistory", ()):
                key = (str(item.get("InstanceType")), str(item.get("AvailabilityZone") or region))
                stamp = item.get("Timestamp") or now
                if key not in newest or stamp > (newest[key].get("Timestamp") or now):
                    newest[key] = item
    prices = []
    for (name, zone), item in sorted(newest.items()):
        try:
            usd = float(item.get("SpotPrice", "nan"))
        except ValueError:
            continue
        if usd > 0:
            prices.append(
                Price(
                    cloud="aws",
                    instance=name,
                    region=zone,
                    kind="spot",
                    usd_per_hour=usd,
                    date=now.date(),
                    source=_SOURCE,
                    note="DescribeSpotPriceHistory, Linux/UNIX, newest per availability zone",
                )
            )
    return prices
