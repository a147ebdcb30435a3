"""Instances that carry a spec, what they cost, and what a TFLOP-hour or a GB/s-hour costs.

>>> from accelerators.sizing import instances
>>> [offer.instance.name for offer in instances("H100:8", cloud="aws")]
['p5.48xlarge']

Prices come from ``accelerators/data/prices.toml`` (dated, sourced) and, when a live AWS
refresh has run, from its local cache (:mod:`accelerators.sizing.aws`). You pay for whole
instances: 16 H100s on AWS are two ``p5.48xlarge``, and 2 L4s need one instance with at least
two (tensor parallelism stays within a node; beyond 8 devices, instances of 8 or more). A MIG
slice or a fractional count is charged its share of one device-hour (``count`` of a device;
for a MIG profile the larger of its compute share and its memory share, ``memory_slices / 8``):
what it costs when the rest of the GPU is used by others, as on your own partitioned nodes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from accelerators import catalog
from accelerators.catalog import _instances
from accelerators.catalog._instances import CLOUDS, Instance, Price
from accelerators.catalog._schema import Accelerator
from accelerators.errors import AcceleratorError, close_matches
from accelerators.sizing import _prices
from accelerators.sizing._model import SizingError
from accelerators.sizing._prices import in_region
from accelerators.spec import AcceleratorSpec, SpecLike

__all__ = [
    "CostEstimate",
    "InstanceOffer",
    "ThroughputCost",
    "UnitPrice",
    "all_prices",
    "cost_of_throughput",
    "estimate_cost",
    "instances",
    "unit_price",
]

KINDS = ("on-demand", "spot")
#: Devices of one tensor-parallel group: one node.
_NODE = 8


@dataclass(frozen=True, slots=True)
class InstanceOffer:
    """An instance type that carries (part of) a spec, with its known prices."""

    instance: Instance
    accelerator: Accelerator
    prices: tuple[Price, ...]
    needed: float
    """Instances the spec needs: whole instances, or a share of one for a slice."""

    @property
    def spec(self) -> AcceleratorSpec:
        """What one instance provides, as a spec (``p5.48xlarge`` is ``H100:8``)."""
        return AcceleratorSpec.parse(self.instance.spec_text)

    def price(self, kind: str = "on-demand", region: str | None = None) -> Price | None:
        """The cheapest known price of this kind (in this region, or one of its zones)."""
        rows = [p for p in self.prices if p.kind == kind and in_region(p, region)]
        return min(rows, key=lambda p: (p.usd_per_hour, p.region or ""), default=None)

    @property
    def is_share(self) -> bool:
        """The spec takes part of an instance (a MIG slice or a few devices of a node priced
        pro rata): what it costs when others use the rest, not something one can rent alone."""
        return self.needed < 1


@dataclass(frozen=True, slots=True)
class CostEstimate:
    """What running a spec for some hours costs on the cheapest priced instance."""

    spec: AcceleratorSpec
    hours: float
    usd: float
    usd_per_hour: float
    instance: str
    instances_needed: float
    price: Price

    @property
    def cloud(self) -> str:
        return self.price.cloud


@dataclass(frozen=True, slots=True)
class UnitPrice:
    """Price of one device-hour, and per dense TFLOP-hour and per GB/s-hour of its datasheet."""

    accelerator: str
    dtype: str
    usd_per_device_hour: float
    usd_per_tflop_hour: float | None
    usd_per_gbps_hour: float
    price: Price


@dataclass(frozen=True, slots=True)
class ThroughputCost:
    """The cost of a measured matmul rate on an instance (``accelerators bench`` output)."""

    instance: str
    measured_tflops: float
    """Per device."""
    usd_per_device_hour: float
    usd_per_tflop_hour: float
    usd_per_pflop: float
    """USD per 10**15 floating-point operations at the measured rate."""
    datasheet_usd_per_tflop_hour: float | None
    price: Price


def all_prices() -> tuple[Price, ...]:
    """Live-cache price rows (AWS, Azure, GCP refreshes), then the shipped rows of every
    (cloud, instance, kind) no live row prices (:mod:`accelerators.sizing._prices`)."""
    return _prices.all_prices()


def instances(spec: SpecLike, cloud: str | None = None) -> tuple[InstanceOffer, ...]:
    """Instance types that carry ``spec``'s accelerator (any alternative), fewest needed first.

    ``cloud`` is one of :data:`~accelerators.catalog._instances.CLOUDS` (``aws``, ``gcp``,
    ``azure``, ``oci``, ``lambda``, ``runpod``, ``hf``...); ``None`` is all. Each offer keeps
    its cloud's prices of that instance (live caches first, see :func:`all_prices`).
    """
    from accelerators.sizing.aws import cached_instances

    parsed = AcceleratorSpec.coerce(spec)
    clouds = _clouds(cloud)
    by_instance: dict[tuple[str, str], list[Price]] = {}
    for price in all_prices():
        by_instance.setdefault((price.cloud, price.instance.casefold()), []).append(price)
    shipped = _instances.instances()
    known = {row.name.casefold() for row in shipped}
    rows = shipped + tuple(r for r in cached_instances() if r.name.casefold() not in known)
    found: list[InstanceOffer] = []
    for alternative in parsed.alternatives:
        models = {acc.model for acc in alternative.candidates}
        for row in rows:
            if row.cloud not in clouds or any(o.instance == row for o in found):
                continue
            try:
                acc = catalog.get(row.accelerator)
            except AcceleratorError:  # an accelerator the catalog does not list yet
                continue
            if acc.model not in models or not _partition_fits(alternative, row):
                continue
            needed = _needed(alternative, row, acc)
            if needed is None:
                continue
            own = tuple(by_instance.get((row.cloud, row.name.casefold()), ()))
            found.append(InstanceOffer(row, acc, own, needed))
    return tuple(sorted(found, key=_offer_order))


def estimate_cost(
    spec: SpecLike,
    hours: float,
    cloud: str | None = None,
    *,
    kind: str = "on-demand",
    region: str | None = None,
    shares: bool = True,
) -> CostEstimate:
    """The cheapest priced way to run ``spec`` for ``hours`` (whole instances, or a slice's share).

    ``shares=False`` keeps only what can be rented alone: whole instances, or a slice a
    provider rents as such (RunPod's MIG types), never a share of a node priced pro rata.
    Raises :class:`SizingError` when no instance with a known price carries the spec.
    """
    raw: object = hours
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not raw >= 0:
        raise SizingError(f"Expected a non-negative number of hours, got {hours!r}")
    if kind not in KINDS:
        raise SizingError(f"Unknown price kind {kind!r}: expected one of {KINDS}")
    parsed = AcceleratorSpec.coerce(spec)
    offers = instances(parsed, cloud)
    best: CostEstimate | None = None
    for offer in offers:
        price = offer.price(kind, region)
        if price is None or (offer.is_share and not shares):
            continue
        per_hour = offer.needed * price.usd_per_hour
        if best is None or per_hour < best.usd_per_hour:
            best = CostEstimate(
                parsed,
                float(hours),
                per_hour * hours,
                per_hour,
                offer.instance.name,
                offer.needed,
                price,
            )
    if best is None:
        raise SizingError(_no_price_message(parsed, offers, cloud, kind, region))
    return best


def unit_price(
    spec: SpecLike, dtype: str = "bf16", cloud: str | None = None, *, kind: str = "on-demand"
) -> UnitPrice:
    """Cheapest device-hour of ``spec``'s accelerator, and per TFLOP-hour and GB/s-hour."""
    parsed = AcceleratorSpec.coerce(spec)
    cheapest: tuple[float, InstanceOffer, Price] | None = None
    for offer in instances(parsed.model_copy(update={"count": 1, "partition": None}), cloud):
        price = offer.price(kind)
        if price is not None:
            per_device = price.usd_per_hour / offer.instance.count
            if cheapest is None or per_device < cheapest[0]:
                cheapest = (per_device, offer, price)
    if cheapest is None:
        raise SizingError(_no_price_message(parsed, instances(parsed, cloud), cloud, kind, None))
    per_device, offer, price = cheapest
    tflops = offer.accelerator.tflops.get(dtype)
    return UnitPrice(
        accelerator=offer.accelerator.name,
        dtype=dtype,
        usd_per_device_hour=per_device,
        usd_per_tflop_hour=per_device / tflops if tflops else None,
        usd_per_gbps_hour=per_device / (offer.accelerator.bandwidth_tbps * 1000),
        price=price,
    )


def cost_of_throughput(
    measured: Any,
    instance: str,
    cloud: str | None = None,
    *,
    dtype: str | None = None,
    kind: str = "on-demand",
    region: str | None = None,
) -> ThroughputCost:
    """What a measured matmul rate costs on ``instance``.

    ``measured`` is TFLOPS per device, or a bench report (``accelerators.bench`` ``BenchReport``
    or anything with ``gemm`` results carrying ``dtype`` and ``tflops``): then the mean over
    devices of the ``dtype`` results (default: bf16 if measured, else the fastest dtype) is used.
    """
    raw: object = instance
    row = _instances.get_instance(raw) if isinstance(raw, str) else None
    if row is None or (cloud is not None and row.cloud != cloud.lower()):
        names = [r.name for r in _instances.instances(cloud)]
        hint = close_matches(str(instance), names)
        extra = f"; did you mean {hint[0]!r}?" if hint else ""
        raise SizingError(f"Unknown instance type {instance!r}{extra}")
    tflops, dtype = _measured_tflops(measured, dtype)
    rows = [
        p
        for p in all_prices()
        if p.instance.casefold() == row.name.casefold() and p.kind == kind and in_region(p, region)
    ]
    price = min(rows, key=lambda p: p.usd_per_hour, default=None)
    if price is None:
        raise SizingError(f"No {kind} price is known for {row.cloud} instance {row.name}")
    per_device = price.usd_per_hour / row.count
    datasheet = None
    try:
        peak = catalog.get(row.accelerator).tflops.get(dtype) if dtype else None
        datasheet = per_device / peak if peak else None
    except AcceleratorError:
        pass
    return ThroughputCost(
        instance=row.name,
        measured_tflops=tflops,
        usd_per_device_hour=per_device,
        usd_per_tflop_hour=per_device / tflops,
        usd_per_pflop=per_device / (tflops * 3.6),
        datasheet_usd_per_tflop_hour=datasheet,
        price=price,
    )


# -- helpers -----------------------------------------------------------------------------------
def _clouds(cloud: object) -> tuple[str, ...]:
    if cloud is None:
        return CLOUDS
    if not isinstance(cloud, str) or cloud.strip().lower() not in CLOUDS:
        hint = close_matches(str(cloud).lower(), CLOUDS)
        extra = f"; did you mean {hint[0]!r}?" if hint else ""
        raise SizingError(f"Unknown cloud {cloud!r}: expected one of {CLOUDS}{extra}")
    return (cloud.strip().lower(),)


def _partition_fits(spec: AcceleratorSpec, row: Instance) -> bool:
    topology = spec.tpu_topology
    if topology is not None:
        return row.partition == topology.topology
    if row.partition is not None and row.unit == "device":  # a provider's MIG slice type
        return spec.partition == row.partition
    return True


def _needed(spec: AcceleratorSpec, row: Instance, acc: Accelerator) -> float | None:
    """Instances (or a share of one) the spec needs on ``row``; ``None`` if it cannot host it.

    Up to 8 devices form one tensor-parallel group and must share an instance; more than 8
    span instances of at least 8 devices each (pipeline stages between them).
    """
    if spec.tpu_topology is not None:
        return 1.0
    if spec.partition is not None and row.partition == spec.partition:  # a rented slice type
        return float(spec.count) / float(row.count)
    if row.unit == "device" and spec.partition is None and not spec.is_fractional:
        # a GPU type rented by the device: a pod of up to 8 of them, priced per device
        return float(spec.count) if spec.count <= _NODE else None
    profile = acc.mig_profile(spec.partition) if spec.partition else None
    share = 1.0
    if profile is not None:  # what the slice keeps others from using: compute or memory
        share = max(profile.sm_fraction, profile.memory_slices / 8)
    devices = float(spec.count) * share
    if devices < 1 or spec.is_fractional or profile is not None:
        return devices / row.count
    if devices > row.count and (devices <= _NODE or row.count < _NODE):
        return None
    return float(math.ceil(devices / row.count))


def _offer_order(offer: InstanceOffer) -> tuple[float, float, str]:
    price = offer.price()
    return (offer.needed, price.usd_per_hour if price else math.inf, offer.instance.name)


def _measured_tflops(measured: Any, dtype: str | None) -> tuple[float, str | None]:
    if isinstance(measured, int | float) and not isinstance(measured, bool):
        if not (math.isfinite(measured) and measured > 0):
            raise SizingError(f"Expected a positive measured TFLOPS, got {measured!r}")
        return float(measured), dtype
    results: Iterable[Any] = getattr(measured, "gemm", None) or ()
    by_dtype: dict[str, list[float]] = {}
    for result in results:
        value = getattr(result, "tflops", None)
        if isinstance(value, int | float) and value > 0:
            by_dtype.setdefault(str(getattr(result, "dtype", "")), []).append(float(value))
    if not by_dtype or (dtype is not None and dtype not in by_dtype):
        what = f"{dtype} " if dtype else ""
        raise SizingError(
            f"Expected measured TFLOPS (a number) or a bench report with {what}GEMM results, "
            f"got {type(measured).__name__}"
        )
    means = {d: sum(v) / len(v) for d, v in by_dtype.items()}
    chosen = dtype or ("bf16" if "bf16" in means else max(means, key=lambda d: means[d]))
    return means[chosen], chosen


def _no_price_message(
    spec: AcceleratorSpec,
    offers: tuple[InstanceOffer, ...],
    cloud: str | None,
    kind: str,
    region: str | None,
) -> str:
    where = f" on {cloud}" if cloud else ""
    where += f" in {region}" if region else ""
    if not offers:
        return f"No instance type{where} carries {spec}; `accelerators instances` lists them"
    names = ", ".join(sorted({o.instance.name for o in offers})[:6])
    return (
        f"No {kind} price{where} is known for an instance carrying {spec} ({names}). The shipped "
        "price table holds only figures seen in a dated source; with AWS credentials "
        "`accelerators instances --refresh` adds live spot prices"
    )
