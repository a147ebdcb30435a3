"""Cloud instance types and their hourly prices: two dated, sourced data files.

>>> from accelerators.catalog import _instances
>>> row = _instances.get_instance("p5.48xlarge")
>>> row.cloud, row.accelerator, row.count
('aws', 'H100-SXM', 8)

``accelerators/data/instances.toml`` says which accelerator, how many and (for TPU machine
types) which slice topology each instance type carries; ``accelerators/data/prices.toml``
holds hourly prices with region, on-demand or spot, date and source. Both are loaded on first
use and validated here. This module knows names only: resolving ``accelerator`` to a catalog
entry, and everything about specs, lives above it (:mod:`accelerators.sizing`).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import tomllib
from importlib import resources
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from accelerators.errors import CatalogDataError

__all__ = [
    "CLOUDS",
    "Instance",
    "Price",
    "TableSource",
    "Unpriced",
    "get_instance",
    "instance_sources",
    "instances",
    "instances_named",
    "price_sources",
    "prices",
    "service_instance",
    "unpriced",
]

#: Clouds the tables know, in display order. ``hf`` is Hugging Face Jobs; ``sagemaker`` is
#: SageMaker's ``ml.*`` types; ``runpod`` and ``vastai`` rows are GPU types (``unit = "device"``).
Cloud = Literal[
    "aws",
    "sagemaker",
    "gcp",
    "azure",
    "oci",
    "lambda",
    "scaleway",
    "runpod",
    "vastai",
    "paperspace",
    "hf",
]
CLOUDS: tuple[str, ...] = get_args(Cloud)
_STRICT = ConfigDict(extra="forbid", frozen=True)


class TableSource(BaseModel):
    """Where rows come from, and when the page was read."""

    model_config = _STRICT

    title: str
    url: str | None = None
    retrieved: dt.date
    note: str | None = None


class Instance(BaseModel):
    """One instance or machine type and the accelerators it carries."""

    model_config = _STRICT

    cloud: Cloud
    name: str = Field(min_length=1)
    accelerator: str
    """A catalog name (model, or SKU where the instance pins a form factor)."""
    count: int | float = Field(gt=0)
    """Devices per instance; below 1, the fraction of one device the type sells (``g6f``)."""
    partition: str | None = None
    """TPU topology of the host's slice (TPU machine types), or a MIG profile (RunPod)."""
    unit: Literal["machine", "device"] = "machine"
    """``machine``: a machine type of ``count`` devices, a node size. ``device``: the cloud's id
    for one device model, rented one or several at a time (RunPod's GPU types, Vast.ai's GPU
    names): ``count`` is that one device, not the size of any node."""
    source: str
    confidence: Literal["source", "derived", "unconfirmed"] = "source"
    note: str | None = None

    @property
    def spec_text(self) -> str:
        """The spec this instance provides, in the grammar (``H100:8``, ``TPU-V5E@2x2:4``)."""
        text = self.accelerator + (f"@{self.partition}" if self.partition else "")
        return text + (f":{self.count:g}" if self.count != 1 else "")


class Price(BaseModel):
    """One hourly price of one whole instance."""

    model_config = _STRICT

    cloud: Cloud
    instance: str
    region: str | None = None
    kind: Literal["on-demand", "spot"]
    usd_per_hour: float = Field(gt=0)
    date: dt.date
    source: str
    confidence: Literal["source", "third-party", "derived", "unconfirmed"] = "source"
    note: str | None = None


class Unpriced(BaseModel):
    """An instance row no source read prices on demand, and why (``prices coverage``)."""

    model_config = _STRICT

    cloud: Cloud
    instance: str
    reason: str = Field(min_length=1)


class _InstanceFile(BaseModel):
    model_config = _STRICT

    schema_version: Literal[1]
    table_version: str
    sources: dict[str, TableSource]
    instance: tuple[Instance, ...]

    @model_validator(mode="after")
    def _check(self) -> _InstanceFile:
        problems: list[str] = []
        seen: set[tuple[str, str]] = set()
        for row in self.instance:
            key = (row.cloud, row.name.casefold())
            if key in seen:
                problems.append(f"{row.cloud} instance {row.name!r} is listed twice")
            seen.add(key)
            if row.source not in self.sources:
                problems.append(f"instance {row.name}: unknown source key {row.source!r}")
        if problems:
            raise ValueError("; ".join(problems))
        return self


class _PriceFile(BaseModel):
    model_config = _STRICT

    schema_version: Literal[1]
    table_version: str
    sources: dict[str, TableSource]
    price: tuple[Price, ...]
    unpriced: tuple[Unpriced, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> _PriceFile:
        problems: list[str] = []
        on_demand = {(r.cloud, r.instance.casefold()) for r in self.price if r.kind == "on-demand"}
        for gap in self.unpriced:
            if (gap.cloud, gap.instance.casefold()) in on_demand:
                problems.append(f"{gap.cloud} instance {gap.instance!r} is priced and unpriced")
        seen: set[tuple[str, str, str | None, str]] = set()
        for row in self.price:
            key = (row.cloud, row.instance.casefold(), row.region, row.kind)
            if key in seen:
                problems.append(f"price {key} is listed twice")
            seen.add(key)
            if row.source not in self.sources:
                problems.append(f"price of {row.instance}: unknown source key {row.source!r}")
        if problems:
            raise ValueError("; ".join(problems))
        return self


def _read(file_name: str) -> dict[str, object]:
    text = resources.files("accelerators.data").joinpath(file_name).read_text(encoding="utf-8")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogDataError(f"data file {file_name} is not valid TOML: {exc}") from exc


@functools.cache
def _instance_file() -> _InstanceFile:
    try:
        return _InstanceFile.model_validate(_read("instances.toml"))
    except ValidationError as exc:
        raise CatalogDataError(f"data file instances.toml failed validation:\n{exc}") from exc


@functools.cache
def _price_file() -> _PriceFile:
    try:
        table = _PriceFile.model_validate(_read("prices.toml"))
    except ValidationError as exc:
        raise CatalogDataError(f"data file prices.toml failed validation:\n{exc}") from exc
    by_name = _by_name()
    named: list[tuple[str, str]] = [(r.cloud, r.instance) for r in table.price]
    named += [(r.cloud, r.instance) for r in table.unpriced]
    for cloud, instance in named:
        if not [r for r in by_name.get(instance.casefold(), ()) if r.cloud == cloud]:
            raise CatalogDataError(
                f"prices.toml: {cloud} instance {instance!r} is not in instances.toml"
            )
    return table


@functools.cache
def _by_name() -> dict[str, tuple[Instance, ...]]:
    """Rows by case-folded name: two clouds may spell one name (Paperspace's ``A100x8``, Hugging
    Face's ``a100x8``), each meaning its own hardware."""
    found: dict[str, list[Instance]] = {}
    for row in _instance_file().instance:
        found.setdefault(row.name.casefold(), []).append(row)
    return {key: tuple(rows) for key, rows in found.items()}


def instances(cloud: str | None = None) -> tuple[Instance, ...]:
    """Every instance row (of one cloud), in data-file order."""
    rows = _instance_file().instance
    return rows if cloud is None else tuple(r for r in rows if r.cloud == cloud.lower())


def get_instance(name: str) -> Instance | None:
    """The row whose name is ``name`` (case-insensitive, surrounding blanks ignored).

    Where clouds share a name in different cases, the row spelled exactly so; None when no
    row is (:func:`instances_named` lists them all).
    """
    rows = instances_named(name)
    if len(rows) <= 1:
        return rows[0] if rows else None
    exact = [row for row in rows if row.name == name.strip()]
    return exact[0] if len(exact) == 1 else None


#: AWS services that run their tasks on EC2 instance types under a prefix of their own, the
#: hardware the EC2 type's: AWS HealthOmics' ``omics.g5.12xlarge`` (its compute docs,
#: https://docs.aws.amazon.com/omics/latest/dev/memory-and-compute-tasks.html: the
#: ``omics.g5`` types are G5 instances). SageMaker's ``ml.`` types are rows of their own.
_AWS_SERVICE = re.compile(r"\s*omics\.(?P<ec2>[a-z0-9]+\.[0-9]*x?large)\s*", re.I)


def service_instance(name: str) -> Instance | None:
    """The EC2 row of an AWS service's instance type (``omics.g5.12xlarge``), else None."""
    found = _AWS_SERVICE.fullmatch(name)
    row = get_instance(found["ec2"]) if found is not None else None
    return row if row is not None and row.cloud == "aws" else None


def instances_named(name: str) -> tuple[Instance, ...]:
    """Every row whose name is ``name``, case aside (several where clouds share a name)."""
    return _by_name().get(name.strip().casefold(), ())


def prices(cloud: str | None = None) -> tuple[Price, ...]:
    """Every shipped price row (of one cloud), in data-file order."""
    rows = _price_file().price
    return rows if cloud is None else tuple(r for r in rows if r.cloud == cloud.lower())


def unpriced(cloud: str | None = None) -> tuple[Unpriced, ...]:
    """The instance rows (of one cloud) no source read prices on demand, each with the reason."""
    rows = _price_file().unpriced
    return rows if cloud is None else tuple(r for r in rows if r.cloud == cloud.lower())


def instance_sources() -> dict[str, TableSource]:
    return dict(_instance_file().sources)


def price_sources() -> dict[str, TableSource]:
    return dict(_price_file().sources)


def table_versions() -> tuple[str, str]:
    """Versions of the instance and price tables."""
    return _instance_file().table_version, _price_file().table_version
