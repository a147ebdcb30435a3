"""The choices a plan weighs: rentable instances (whole devices) and shares of your own nodes.

Each choice says how the job's memory lays out on its devices (one device, data parallel,
or sharded with FSDP / ZeRO-3), what one device sustains (:mod:`._throughput`) and what an
hour costs. Ranking and time live in :mod:`._plan`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from accelerators import catalog
from accelerators.catalog import _instances
from accelerators.catalog._instances import Instance, Price
from accelerators.catalog._schema import Accelerator
from accelerators.errors import AcceleratorError
from accelerators.sizing._cost import all_prices, unit_price
from accelerators.sizing._inventory import OwnedNodes
from accelerators.sizing._memory import MemoryEstimate
from accelerators.sizing._prices import select
from accelerators.sizing._throughput import FleetBaseline, Throughput, achievable
from accelerators.spec import AcceleratorSpec

__all__ = ["Choice", "Exclusion", "owned_choices", "rented_choices"]

#: Instances of at least this many devices may be combined for a job that needs more (pipeline
#: stages or FSDP across nodes need a cluster fabric; small instances are not built for it).
_NODE = 8


@dataclass(frozen=True, slots=True)
class Layout:
    """How the job's memory sits on ``devices`` devices."""

    devices: int
    text: str
    sharded: bool
    per_device_gb: float


@dataclass(frozen=True, slots=True)
class Choice:
    """One way to run the job, before its time and cost are worked out."""

    ownership: str
    """``rent`` (an instance offering) or ``own`` (a share of your cluster)."""
    spec: AcceleratorSpec
    where: str
    cloud: str | None
    instance: str | None
    instances: int
    layout: Layout
    capacity_gb: float
    """Memory of one device or slice."""
    throughput: Throughput
    usd_per_hour: float | None
    price: Price | None
    cost_basis: str
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Exclusion:
    """A choice left out, and why (no fit, over budget, past the deadline, no price)."""

    where: str
    spec: str
    reason: str
    need_gb: float | None = None
    """For a choice the job does not fit: what one device (or slice) would have to hold."""
    have_gb: float | None = None
    """... and what it has."""


def compute_dtype(acc: Accelerator, dtype: str) -> str | None:
    """``dtype`` if ``acc`` has a dense peak for it; bf16 falls back to fp16 (T4, V100)."""
    if acc.tflops.get(dtype):
        return dtype
    if dtype == "bf16" and acc.tflops.get("fp16"):
        return "fp16"
    return None


def inference_only(acc: Accelerator, memory: MemoryEstimate) -> str | None:
    """Why ``acc`` cannot run ``memory``'s job: a training job on a part whose vendor ships
    inference software only (the catalog's ``workloads``, sourced); None when it can."""
    if memory.method == "inference" or acc.trains or acc.workloads is None:
        return None
    return f"inference only: {acc.name} has no training software ({acc.workloads.source})"


def fit(
    memory: MemoryEstimate, per_device_gb: float, devices: int, headroom: float
) -> Layout | None:
    """The layout of ``memory`` on ``devices`` devices of ``per_device_gb``, if it fits.

    Whole on each device (one device, or data parallel over several), else sharded: weights,
    gradients and optimizer state divided over the devices, activations per device (FSDP,
    ZeRO-3; Rajbhandari et al. 2020).
    """
    usable = per_device_gb * (1 - headroom)
    if memory.total_gb <= usable:
        text = "single device" if devices == 1 else f"data parallel x{devices}"
        return Layout(devices, text, False, memory.total_gb)
    if devices > 1:
        state = memory.weights_gb + memory.gradients_gb + memory.optimizer_gb
        per = state / devices + memory.activations_gb + memory.kv_cache_gb + memory.overhead_gb
        if per <= usable:
            return Layout(devices, f"sharded x{devices} (FSDP/ZeRO-3)", True, per)
    return None


def rented_choices(
    memory: MemoryEstimate,
    dtype: str,
    *,
    clouds: Iterable[str],
    kind: str,
    fleet: FleetBaseline | None,
    headroom: float,
    max_devices: int,
    vendors: set[str],
    unpriced: bool,
    names: set[str] | None = None,
    region: str | None = None,
) -> tuple[list[Choice], list[Exclusion]]:
    """Every instance offering that holds the job, in whole instances (of ``names`` only),
    priced in ``region`` (its zones, or a price that holds everywhere) when one is given."""
    from accelerators.sizing.aws import cached_instances

    shipped = _instances.instances()
    known = {(row.cloud, row.name.casefold()) for row in shipped}
    rows = shipped + tuple(
        r for r in cached_instances() if (r.cloud, r.name.casefold()) not in known
    )
    prices = all_prices()
    cloud_set = set(clouds)
    choices: list[Choice] = []
    excluded: list[Exclusion] = []
    for row in rows:
        if row.cloud not in cloud_set or (names is not None and row.name.casefold() not in names):
            continue
        where = f"{row.cloud} {row.name}"
        if not float(row.count).is_integer():  # a share of one GPU (Azure NVadsA10 v5, 1/6)
            excluded.append(Exclusion(where, row.spec_text, "a fraction of one device"))
            continue
        price = select(prices, row.cloud, row.name, kind, region)
        try:
            acc = catalog.get(row.accelerator)
        except AcceleratorError:  # an accelerator the catalog does not list yet
            continue
        if vendors and acc.vendor not in vendors:
            continue
        if (why := inference_only(acc, memory)) is not None:
            excluded.append(Exclusion(where, row.spec_text, why))
            continue
        if price is None and not unpriced:
            where_priced = f" in {region}" if region else ""
            excluded.append(Exclusion(where, row.spec_text, f"no {kind} price known{where_priced}"))
            continue
        cdtype = compute_dtype(acc, dtype)
        if cdtype is None:
            excluded.append(Exclusion(where, row.spec_text, f"no dense {dtype} rate"))
            continue
        layout, count = _smallest_instances(memory, acc, row, headroom, max_devices)
        if layout is None:
            excluded.append(_misfit(memory, acc, row, max_devices, where))
            continue
        notes: list[str] = []
        if cdtype != dtype:
            notes.append(f"no {dtype} on {acc.name}: {cdtype} mixed precision")
        if count > 1:
            notes.append(
                f"{count} devices of this type in one pod, priced per device"
                if row.unit == "device"
                else f"{count} instances: needs a cluster fabric between them"
            )
        spec = AcceleratorSpec.parse(row.spec_text)
        if count > 1:
            spec = spec.model_copy(update={"count": spec.count * count})
        basis = price_basis(price)
        choices.append(
            Choice(
                ownership="rent",
                spec=spec,
                where=where if count == 1 else f"{count} x {where}",
                cloud=row.cloud,
                instance=row.name,
                instances=count,
                layout=layout,
                capacity_gb=acc.device_memory_gb,
                throughput=achievable(acc, cdtype, fleet=fleet),
                usd_per_hour=price.usd_per_hour * count if price else None,
                price=price,
                cost_basis=basis,
                notes=tuple(notes),
            )
        )
    return choices, excluded


def owned_choices(
    memory: MemoryEstimate,
    dtype: str,
    inventory: Iterable[OwnedNodes],
    *,
    kind: str,
    fleet: FleetBaseline | None,
    headroom: float,
) -> tuple[list[Choice], list[Exclusion]]:
    """Shares of your nodes that hold the job: one MIG slice, or the fewest whole devices."""
    choices: list[Choice] = []
    excluded: list[Exclusion] = []
    for owned in inventory:
        spec, acc = owned.spec, owned.spec.accelerator
        if acc is None:  # pragma: no cover - owned_nodes() keeps named accelerators only
            continue
        if (why := inference_only(acc, memory)) is not None:
            excluded.append(Exclusion(owned.name, str(spec), why))
            continue
        cdtype = compute_dtype(acc, dtype)
        if cdtype is None:
            excluded.append(Exclusion(owned.name, str(spec), f"no dense {dtype} rate"))
            continue
        if spec.partition is not None:
            choice = _slice_choice(memory, owned, acc, cdtype, kind, fleet, headroom)
        else:
            choice = _device_choice(memory, owned, acc, cdtype, kind, fleet, headroom)
        if isinstance(choice, Exclusion):
            excluded.append(choice)
        else:
            if cdtype != dtype:
                choice = _with_note(choice, f"no {dtype} on {acc.name}: {cdtype} mixed precision")
            choices.append(choice)
    return choices, excluded


# -- helpers -----------------------------------------------------------------------------------
def price_basis(price: Price | None) -> str:
    """Where a rented choice's price comes from: kind, region, date, source, confidence."""
    if price is None:
        return "no known price"
    where = f" in {price.region}" if price.region else ""
    return f"{price.kind} price{where} of {price.date} ({price.source}, {price.confidence})"


def _smallest_instances(
    memory: MemoryEstimate, acc: Accelerator, row: Instance, headroom: float, max_devices: int
) -> tuple[Layout | None, int]:
    """One instance, or the fewest instances of 8+ devices that hold the job sharded; for a
    GPU type rented by the device (RunPod, Vast.ai), the fewest devices (up to 8, one pod)."""
    devices = int(row.count)  # whole devices: rented_choices leaves fractions out
    if row.unit == "device":
        for count in (1, 2, 4, 8):
            layout = fit(memory, acc.device_memory_gb, count * devices, headroom)
            if layout is not None and count * devices <= max_devices:
                return layout, count
        return None, 1
    layout = fit(memory, acc.device_memory_gb, devices, headroom)
    if layout is not None or devices < _NODE:
        return layout, 1
    count = 2
    while count * devices <= max_devices:
        layout = fit(memory, acc.device_memory_gb, count * devices, headroom)
        if layout is not None:
            return layout, count
        count *= 2
    return None, 1


def _misfit(
    memory: MemoryEstimate, acc: Accelerator, row: Instance, max_devices: int, where: str
) -> Exclusion:
    state = memory.weights_gb + memory.gradients_gb + memory.optimizer_gb
    devices = int(row.count if row.count < _NODE else max(row.count, max_devices))
    per = state / devices + memory.activations_gb + memory.kv_cache_gb + memory.overhead_gb
    spread = f"even sharded over {devices} devices" if devices > 1 else "on its one device"
    reason = (
        f"does not fit: {memory.total_gb:.1f} GB, {spread} {per:.1f} GB per device; "
        f"{acc.name} has {acc.device_memory_gb:g} GB"
    )
    return Exclusion(where, row.spec_text, reason, per, acc.device_memory_gb)


def _slice_choice(
    memory: MemoryEstimate,
    owned: OwnedNodes,
    acc: Accelerator,
    dtype: str,
    kind: str,
    fleet: FleetBaseline | None,
    headroom: float,
) -> Choice | Exclusion:
    spec = owned.spec
    profile = acc.mig_profile(spec.partition or "")
    if profile is None:  # pragma: no cover - the spec was validated against the catalog
        return Exclusion(owned.name, str(spec), "unknown MIG profile")
    layout = fit(memory, profile.memory_gb, 1, headroom)
    if layout is None:
        return Exclusion(
            owned.name,
            str(spec),
            f"does not fit: {memory.total_gb:.1f} GB, one {profile.profile} slice has "
            f"{profile.memory_gb:g} GB; a job cannot span MIG slices",
            memory.total_gb,
            profile.memory_gb,
        )
    share = max(profile.sm_fraction, profile.memory_slices / 8)
    rate, basis, price = _owned_rate(owned, acc, share, spec.count, kind)
    return Choice(
        ownership="own",
        spec=AcceleratorSpec(accelerator=acc, partition=profile.profile),
        where=f"{owned.name} (1 of {spec.count * owned.nodes} slices)",
        cloud=None,
        instance=None,
        instances=1,
        layout=Layout(1, f"MIG slice {profile.profile}", False, layout.per_device_gb),
        capacity_gb=profile.memory_gb,
        throughput=achievable(acc, dtype, partition=profile.profile, fleet=fleet),
        usd_per_hour=rate,
        price=price,
        cost_basis=basis,
    )


def _device_choice(
    memory: MemoryEstimate,
    owned: OwnedNodes,
    acc: Accelerator,
    dtype: str,
    kind: str,
    fleet: FleetBaseline | None,
    headroom: float,
) -> Choice | Exclusion:
    per_node = int(owned.spec.count)
    total = per_node * owned.nodes
    counts = sorted(
        {c for c in (1, 2, 4) if c < per_node} | {per_node * k for k in range(1, owned.nodes + 1)}
    )
    layout = None
    for devices in counts:
        layout = fit(memory, acc.device_memory_gb, devices, headroom)
        if layout is not None:
            break
    if layout is None:
        state = memory.weights_gb + memory.gradients_gb + memory.optimizer_gb
        per = state / total + memory.activations_gb + memory.kv_cache_gb + memory.overhead_gb
        return Exclusion(
            owned.name,
            str(owned.spec),
            f"does not fit: {memory.total_gb:.1f} GB, even sharded over {total} x {acc.name} "
            f"{per:.1f} GB per device; it has {acc.device_memory_gb:g} GB",
            per,
            acc.device_memory_gb,
        )
    nodes = -(-devices // per_node)
    rate, basis, price = _owned_rate(owned, acc, float(devices), per_node, kind)
    notes = (f"{nodes} nodes: needs a cluster fabric between them",) if nodes > 1 else ()
    return Choice(
        ownership="own",
        spec=AcceleratorSpec(accelerator=acc, count=devices, exact=owned.spec.exact),
        where=f"{owned.name} ({devices} of {total} devices)",
        cloud=None,
        instance=None,
        instances=nodes,
        layout=layout,
        capacity_gb=acc.device_memory_gb,
        throughput=achievable(acc, dtype, fleet=fleet),
        usd_per_hour=rate,
        price=price,
        cost_basis=basis,
        notes=notes,
    )


def _owned_rate(
    owned: OwnedNodes, acc: Accelerator, devices: float, per_node: float, kind: str
) -> tuple[float | None, str, Price | None]:
    """What ``devices`` devices (or a slice's share of one) of your node cost per hour."""
    if owned.usd_per_hour is not None:
        return owned.usd_per_hour * devices / per_node, "your node's hourly cost, pro rata", None
    try:
        unit = unit_price(AcceleratorSpec(accelerator=acc), kind=kind)
    except AcceleratorError:
        return None, "no rate given and no rented price of this accelerator known", None
    return (
        unit.usd_per_device_hour * devices,
        f"opportunity cost: {devices:.3g} x a rented {unit.accelerator} device-hour "
        f"({unit.price.cloud} {unit.price.instance}, {unit.price.date})",
        unit.price,
    )


def _with_note(choice: Choice, note: str) -> Choice:
    return replace(choice, notes=(*choice.notes, note))
