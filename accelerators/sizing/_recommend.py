"""``recommend()``: ranked accelerator specs that hold a workload, with headroom and price.

>>> from accelerators.sizing import ModelShape, recommend
>>> best = recommend(ModelShape.from_params(7e9), dtype="bf16", clouds=["hf"])[0]
>>> str(best.spec), best.instance  # 18.9 GB, KV cache included, on what one can rent alone
('L4', 'l4x1')

Each catalog model (its default SKU) is tried in its smallest form that holds the workload
with ``min_headroom`` of its memory left free and **that can be rented alone**: one MIG slice
(only where a provider rents that slice, as RunPod does), one TPU slice, or 1, 2, 4, 8 devices
(tensor parallelism within a node) and 16-64 (tensor parallelism x8 times pipeline stages
across nodes) on whole instances. ``include_shares=True`` also offers what only a share of an
instance gives (a MIG slice of an 8-GPU flavor priced as its share of a device-hour, or an
accelerator no cloud in the tables rents). A workload split over ``n`` devices needs
``total / n`` on each: tensor parallelism shards the weights, the KV heads and most activations
(Megatron-LM). Results are ranked by the hourly price of the cheapest priced instance that
carries the spec (``estimate_cost``, in ``region`` if one is given), then, for specs with no
known price, by the memory they reserve.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from accelerators import catalog
from accelerators._vendors import vendor_names
from accelerators.catalog._instances import Price
from accelerators.catalog._schema import DTYPES, Accelerator
from accelerators.errors import close_matches
from accelerators.sizing._cost import CostEstimate, estimate_cost, instances
from accelerators.sizing._memory import MemoryEstimate, estimate_memory
from accelerators.sizing._model import ModelShape, SizingError
from accelerators.spec import AcceleratorSpec

__all__ = ["Recommendation", "recommend"]

#: Device counts tried for whole devices; above 8, tensor x8 times pipeline stages.
_COUNTS = (1, 2, 4, 8, 16, 32, 64)
_VENDORS = vendor_names()


@dataclass(frozen=True, slots=True)
class Recommendation:
    """One ranked answer: a spec that holds the workload, why, its headroom and its price."""

    spec: AcceleratorSpec
    memory_needed_gb: float
    capacity_gb: float
    parallelism: str
    usd_per_hour: float | None
    instance: str | None
    price: Price | None
    reason: str

    @property
    def headroom(self) -> float:
        """Fraction of the spec's memory left free."""
        return 1 - self.memory_needed_gb / self.capacity_gb


def recommend(
    workload: MemoryEstimate | ModelShape | None = None,
    *,
    memory_gb: float | None = None,
    dtype: str = "bf16",
    budget_usd_per_hour: float | None = None,
    vendors: Iterable[str] | None = None,
    clouds: Iterable[str] | None = None,
    kind: str = "on-demand",
    min_headroom: float = 0.1,
    max_devices: int = 64,
    partitions: bool = True,
    top: int | None = 10,
    include_shares: bool = False,
    region: str | None = None,
) -> tuple[Recommendation, ...]:
    """Specs that hold ``workload``: an estimate, a model served at ``dtype``, or ``memory_gb``.

    ``vendors`` and ``clouds`` restrict the candidates (a cloud keeps the accelerators it has
    an instance type for); only what can be rented alone is offered unless
    ``include_shares``; ``region`` prices in one region (or a price that holds in every
    region); ``budget_usd_per_hour`` drops specs whose known price is above it
    (specs with no known price are kept, ranked last, and say so). ``dtype`` also drops
    accelerators without tensor support for it (no bf16 on a V100 or T4).
    """
    needed = _needed_gb(workload, memory_gb, dtype)
    if top is not None and (type(top) is not int or top < 1):  # True is not a count
        raise SizingError(f"Expected top to be a positive number of specs (or None), got {top!r}")
    if not 0 <= min_headroom < 1:
        raise SizingError(f"Expected min_headroom in [0, 1), got {min_headroom!r}")
    vendor_set = _vendors([vendors] if isinstance(vendors, str) else vendors)
    if isinstance(clouds, str):
        clouds = [clouds]
    cloud_list = [str(c).strip().lower() for c in clouds] if clouds is not None else None
    found: list[Recommendation] = []
    trains = isinstance(workload, MemoryEstimate) and workload.method != "inference"
    for acc in catalog.all():
        if not acc.default_for_model or (vendor_set and acc.vendor not in vendor_set):
            continue
        if trains and not acc.trains:  # a training estimate on an inference-only part
            continue
        if dtype in DTYPES and acc.tflops and dtype not in acc.tflops:
            continue
        option = next(
            (
                form
                for form in _forms(acc, needed, min_headroom, max_devices, partitions)
                if include_shares or _rentable(form[0], cloud_list)
            ),
            None,
        )
        if option is None:
            continue
        spec, capacity, parallelism = option
        if cloud_list is not None and not any(instances(spec, c) for c in cloud_list):
            continue
        cost = _cheapest(spec, cloud_list, kind, include_shares, region)
        if (
            budget_usd_per_hour is not None
            and cost is not None
            and cost.usd_per_hour > budget_usd_per_hour
        ):
            continue
        found.append(
            _recommendation(spec, needed, capacity, parallelism, cost, budget_usd_per_hour)
        )
    found.sort(
        key=lambda r: (r.usd_per_hour is None, r.usd_per_hour or 0.0, r.capacity_gb, str(r.spec))
    )
    return tuple(found[:top] if top is not None else found)


def _needed_gb(
    workload: MemoryEstimate | ModelShape | None, memory_gb: float | None, dtype: str
) -> float:
    if (workload is None) == (memory_gb is None):
        raise SizingError(
            "recommend() needs a workload (MemoryEstimate or ModelShape) or memory_gb, not both"
        )
    if isinstance(workload, MemoryEstimate):
        return workload.total_gb
    if isinstance(workload, ModelShape):
        return estimate_memory(workload, method="inference", dtype=dtype).total_gb
    if workload is not None:
        raise SizingError(f"Expected a MemoryEstimate or ModelShape, got {type(workload).__name__}")
    raw: object = memory_gb
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not raw > 0:
        raise SizingError(f"Expected a positive memory_gb, got {raw!r}")
    return float(raw)


def _vendors(vendors: Iterable[str] | None) -> set[str]:
    if vendors is None:
        return set()
    chosen = {str(v).strip().lower() for v in vendors}
    for vendor in chosen - set(_VENDORS):
        hint = close_matches(vendor, _VENDORS)
        extra = f"; did you mean {hint[0]!r}?" if hint else ""
        raise SizingError(f"Unknown vendor {vendor!r}: expected one of {_VENDORS}{extra}")
    return chosen


def _forms(
    acc: Accelerator, needed: float, min_headroom: float, max_devices: int, partitions: bool
) -> Iterator[tuple[AcceleratorSpec, float, str]]:
    """The forms of ``acc`` that hold ``needed`` GB with the headroom left, smallest first."""
    usable = 1 - min_headroom
    if partitions:
        for profile in sorted(acc.mig, key=lambda m: (m.memory_gb, m.compute_slices)):
            if (
                "+" not in profile.profile
                and "-" not in profile.profile
                and needed <= profile.memory_gb * usable
                and profile.compute_slices < 7
            ):
                spec = AcceleratorSpec(accelerator=acc, partition=profile.profile)
                yield spec, profile.memory_gb, f"MIG slice {profile.profile}"
    if acc.tpu_topologies:
        for topology in sorted(acc.tpu_topologies, key=lambda t: t.chips):
            capacity = topology.chips * acc.memory_gb
            if topology.chips <= max_devices and needed <= capacity * usable:
                spec = AcceleratorSpec(
                    accelerator=acc, partition=topology.topology, count=topology.chips
                )
                yield spec, capacity, f"TPU slice {topology.topology} ({topology.chips} chips)"
        return
    for count in _COUNTS:
        capacity = count * acc.memory_gb
        if count <= max_devices and needed <= capacity * usable:
            yield AcceleratorSpec(accelerator=acc, count=count), capacity, _parallelism(count)


def _rentable(spec: AcceleratorSpec, clouds: list[str] | None) -> bool:
    """Some instance (of ``clouds``) rents ``spec`` whole: not a share of a node, and a MIG
    slice only from a provider that rents that slice as such."""
    mig = spec.partition is not None and spec.tpu_topology is None
    choices: list[str | None] = list(clouds) if clouds else [None]
    return any(
        not o.is_share and (not mig or o.instance.partition == spec.partition)
        for cloud in choices
        for o in instances(spec, cloud)
    )


def _parallelism(count: int) -> str:
    if count == 1:
        return "single device"
    if count <= 8:
        return f"tensor parallel x{count}"
    return f"tensor parallel x8, pipeline x{count // 8}"


def _cheapest(
    spec: AcceleratorSpec, clouds: list[str] | None, kind: str, shares: bool, region: str | None
) -> CostEstimate | None:
    best: CostEstimate | None = None
    choices: list[str | None] = list(clouds) if clouds else [None]
    for cloud in choices:
        try:
            cost = estimate_cost(spec, 1, cloud, kind=kind, region=region, shares=shares)
        except SizingError:
            continue
        if best is None or cost.usd_per_hour < best.usd_per_hour:
            best = cost
    return best


def _recommendation(
    spec: AcceleratorSpec,
    needed: float,
    capacity: float,
    parallelism: str,
    cost: CostEstimate | None,
    budget: float | None,
) -> Recommendation:
    headroom = 1 - needed / capacity
    reason = (
        f"needs {needed:.1f} GB; {spec} has {capacity:g} GB ({headroom:.0%} free), {parallelism}"
    )
    if cost is not None:
        where = f"{cost.price.cloud} {cost.instance}"
        if cost.instances_needed < 1:
            where = f"its share of a device-hour on {where}"
        elif cost.instances_needed > 1:
            where = f"{cost.instances_needed:g} x {where}"
        reason += (
            f"; ${cost.usd_per_hour:.2f}/h ({where}, {cost.price.kind} price of {cost.price.date})"
        )
    else:
        reason += "; no known price" + (
            ", not checked against the budget" if budget is not None else ""
        )
    return Recommendation(
        spec=spec,
        memory_needed_gb=needed,
        capacity_gb=capacity,
        parallelism=parallelism,
        usd_per_hour=cost.usd_per_hour if cost else None,
        instance=cost.instance if cost else None,
        price=cost.price if cost else None,
        reason=reason,
    )
