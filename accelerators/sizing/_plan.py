"""``plan()``: which accelerator finishes a fine-tune soonest or cheapest, within a budget.

>>> from accelerators.sizing import plan
>>> job = plan(7e9, "lora", tokens=1e8, clouds=["hf"], history=False)
>>> str(job.best.spec), job.best.where, round(job.best.hours, 1), round(job.best.usd, 2)
('L40S', 'hf l40sx1', 8.3, 14.95)
>>> round(job.best.startup.minutes, 1), round(job.best.tokens_per_s)
(11.4, 3422)

For each choice: the job's FLOPs (:func:`job_flops`), its memory (:func:`estimate_memory`),
the time at what a device really delivers (:func:`achievable`: the fleet's bench history,
else a sourced default) times :data:`TRAINING_EFFICIENCY`, plus the start-up (provisioning,
image pull, model load, first checkpoint: :mod:`._startup`), and the cost at the choice's
hourly price. Choices are **rentable** instance offerings, whole instances with all their
devices, and, only when you say you own them (``inventory``), **shares of your cluster**:
MIG slices or a few devices of a node. They are ranked by ``cost``, ``time``, or cost among
those that finish before ``deadline_h``; ``budget_usd`` drops what costs more; ``platform``
drops what the cluster the pods run on cannot place (:mod:`._plan_platform`). Every figure
says where it came from; ``docs/planning.md`` cites each factor.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from accelerators.sizing._choices import Choice, Exclusion, owned_choices, rented_choices
from accelerators.sizing._cost import KINDS
from accelerators.sizing._flops import JobFlops, job_flops
from accelerators.sizing._inventory import owned_nodes
from accelerators.sizing._memory import estimate_memory
from accelerators.sizing._plan_explain import infeasible
from accelerators.sizing._plan_inputs import (
    SCOPES,
    check_fractions,
    clouds_of,
    instance_names,
    one_of,
    optional_positive,
    region_of,
    scope_of,
    shape_of,
    vendors_of,
)
from accelerators.sizing._plan_platform import platform_of, unplaceable
from accelerators.sizing._plan_rank import RANKINGS, outside, ranking, with_rank
from accelerators.sizing._plan_types import Plan, PlanOption
from accelerators.sizing._startup import Startup, check_startup_min, startup_of
from accelerators.sizing._throughput import fleet_baseline

__all__ = ["RANKINGS", "SCOPES", "TRAINING_EFFICIENCY", "plan"]

#: Share of the achievable matmul rate that a training step sustains over a whole job
#: (attention, norms, optimizer, data loading, communication): Megatron-LM trained at 52 % of
#: the A100's peak (Narayanan et al. 2021, counting recomputation), and the A100 SXM's
#: measured MAMF is 86.9 % of it (bench_bands.toml, mamf-finder): 0.52 / 0.869 = 0.60.
TRAINING_EFFICIENCY = 0.52 / 0.869


def plan(
    model: Any,
    method: str = "lora",
    *,
    tokens: float,
    epochs: float = 1,
    budget_usd: float | None = None,
    deadline_h: float | None = None,
    scope: str | None = None,
    rank_by: str = "cost",
    inventory: Iterable[Any] | None = None,
    clouds: Iterable[str] | None = None,
    vendors: Iterable[str] | None = None,
    instances: Iterable[str] | None = None,
    kind: str = "on-demand",
    region: str | None = None,
    dtype: str = "bf16",
    seq_len: int = 4096,
    batch: int = 1,
    optimizer: str = "adamw",
    lora_rank: int = 16,
    checkpointing: bool = True,
    history: Any = None,
    efficiency: float = TRAINING_EFFICIENCY,
    min_headroom: float = 0.1,
    max_devices: int = 64,
    unpriced: bool = False,
    top: int | None = None,
    startup_min: float | None = None,
    platform: str | None = None,
    where: str | None = None,
) -> Plan:
    """Plan fine-tuning ``model`` with ``method`` (``full``, ``lora``, ``qlora``) on ``tokens``.

    :param model: a :class:`ModelShape`, a parameter count (``7e9``: the nearest Llama 2
        shape is assumed), a Hugging Face ``config.json`` path or its parsed dict.
    :param tokens: tokens in the dataset; ``epochs`` passes over it.
    :param budget_usd: drop choices whose total cost is above it.
    :param deadline_h: drop choices that take longer.
    :param scope: what to search: ``cloud`` (rentable instances), ``cluster`` (your
        ``inventory`` only) or ``all``; default ``all`` with an inventory, else ``cloud``.
    :param rank_by: ``cost`` (total USD) or ``time`` (hours).
    :param inventory: nodes you run (:func:`owned_nodes`: specs or node labels).
    :param clouds: rentable clouds (``aws``, ``gcp``, ``azure``, ``oci``, ``lambda``,
        ``runpod``, ``paperspace``, ``hf``...); default every priced cloud.
    :param region: price rented instances in this region (or its zones; prices a source gives
        for every region count too); default the cheapest region known.
    :param instances: rent only these instance types or flavors (``a10g-large``...).
    :param history: the bench history for the fleet baseline (see :func:`fleet_baseline`).
    :param efficiency: share of the achievable matmul rate a training step sustains.
    :param unpriced: keep instances with no known price (ranked after the priced ones).
    :param top: keep the first ``top`` choices.
    :param startup_min: minutes of start-up per option (your measurement; ``0``: none);
        default ``None``: each kind of offer's sourced default (:mod:`._startup`).
    :param platform: the Kubernetes platform the job's pods run on
        (:func:`accelerators.kubernetes.platforms`: ``karpenter``, ``gke``, ``nvidia``...):
        leave out what it cannot place, and offers of another cloud than its nodes'
        (:mod:`._plan_platform`); default ``None``: every option, wherever it runs.
    :param where: the old name of ``scope`` (deprecated, removed in 0.2.0: ``where`` is an
        option's location, :attr:`PlanOption.where`); it warns and does the same.
    :raises SizingError: bad input, named with what was expected.
    """
    shape = shape_of(model)
    rank_by = one_of(rank_by, RANKINGS, "rank_by")
    kind = one_of(kind, KINDS, "kind")
    place = scope_of(scope, inventory, where)
    budget = optional_positive(budget_usd, "budget_usd")
    deadline = optional_positive(deadline_h, "deadline_h")
    given_startup = check_startup_min(startup_min)
    target = platform_of(platform)
    cloud_names: tuple[str, ...] = ()
    check_fractions(efficiency, min_headroom)
    work = job_flops(
        shape,
        method=method,
        tokens=tokens,
        epochs=epochs,
        seq_len=seq_len,
        checkpointing=checkpointing,
        lora_rank=lora_rank,
    )
    memory = estimate_memory(
        shape,
        method=method,
        dtype=dtype,
        seq_len=seq_len,
        batch=batch,
        optimizer=optimizer,
        checkpointing=checkpointing,
        lora_rank=lora_rank,
    )
    fleet = fleet_baseline(history)
    choices: list[Choice] = []
    excluded: list[Exclusion] = []
    if place in ("cloud", "all"):
        cloud_names = clouds_of(clouds)
        found, dropped = rented_choices(
            memory,
            dtype,
            clouds=cloud_names,
            kind=kind,
            fleet=fleet,
            headroom=min_headroom,
            max_devices=max_devices,
            vendors=vendors_of(vendors),
            unpriced=unpriced,
            names=instance_names(instances),
            region=region_of(region),
        )
        choices += found
        excluded += dropped
    if place in ("cluster", "all"):
        found, dropped = owned_choices(
            memory,
            dtype,
            owned_nodes(inventory or ()),
            kind=kind,
            fleet=fleet,
            headroom=min_headroom,
        )
        choices += found
        excluded += dropped
    options: list[PlanOption] = []
    rejected: list[PlanOption] = []
    misplaced: list[PlanOption] = []
    for choice in choices:
        option = _priced(
            choice,
            work,
            efficiency,
            startup_of(
                choice.ownership, choice.cloud, choice.instances, memory, given_min=given_startup
            ),
        )
        off = unplaceable(choice, target) if target else None
        reason = off or outside(option, budget, deadline)
        if reason:
            excluded.append(Exclusion(option.where, str(option.spec), reason))
            (misplaced if off else rejected).append(option)
        else:
            options.append(option)
    rejected.sort(key=ranking("cost"))
    misplaced.sort(key=ranking("cost"))
    options.sort(key=ranking(rank_by))
    ranked = tuple(with_rank(o, i) for i, o in enumerate(options[:top] if top else options, 1))
    result = Plan(
        model=shape,
        method=method,
        dtype=dtype,
        flops=work,
        memory=memory,
        efficiency=float(efficiency),
        rank_by=rank_by,
        budget_usd=budget,
        deadline_h=deadline,
        options=ranked,
        excluded=tuple(excluded),
        fleet=fleet.location,
        clouds=cloud_names,
        rejected=tuple(rejected),
        startup_min=given_startup,
        platform=target,
        unplaceable=tuple(misplaced),
    )
    return result if ranked else replace(result, infeasible=infeasible(result))


# -- helpers -----------------------------------------------------------------------------------
def _priced(choice: Choice, work: JobFlops, efficiency: float, startup: Startup) -> PlanOption:
    devices = choice.layout.devices
    rate = devices * choice.throughput.achievable_tflops * 1e12 * efficiency
    train_hours = work.hardware_flops * work.time_factor / rate / 3600
    hours = train_hours + startup.hours
    usd = hours * choice.usd_per_hour if choice.usd_per_hour is not None else None
    return PlanOption(
        rank=0,
        ownership=choice.ownership,
        spec=choice.spec,
        where=choice.where,
        cloud=choice.cloud,
        instance=choice.instance,
        instances=choice.instances,
        devices=devices,
        layout=choice.layout.text,
        sharded=choice.layout.sharded,
        memory_per_device_gb=choice.layout.per_device_gb,
        capacity_gb=choice.capacity_gb,
        throughput=choice.throughput,
        hours=hours,
        usd=usd,
        usd_per_hour=choice.usd_per_hour,
        price=choice.price,
        cost_basis=choice.cost_basis,
        notes=choice.notes,
        train_hours=train_hours,
        startup=startup,
        tokens_per_s=work.tokens / (train_hours * 3600),
    )
