"""What :func:`~accelerators.sizing.plan` returns: the ranked options and the plan around them.

:class:`PlanOption` is one way to run the job (where, on what, how long, for how much),
:class:`Plan` the job's work and memory with its options, what was left out and, when nothing
holds the job, why (:attr:`Plan.infeasible`, worked out by :mod:`._plan_explain` when the plan
is made). Both turn themselves into JSON-ready dicts; the HTML page of a plan is
:func:`~accelerators.sizing.plan_html` (:mod:`._plan_report`), as the bench's
:func:`~accelerators.bench.html_report` is of a report. This module imports neither: the plan
is data, and what reads it sits above it (``tests/sizing/test_sizing_imports.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from accelerators._deprecated import renamed
from accelerators.catalog._instances import Price
from accelerators.sizing._choices import Exclusion
from accelerators.sizing._flops import JobFlops
from accelerators.sizing._memory import MemoryEstimate
from accelerators.sizing._model import ModelShape, SizingError
from accelerators.sizing._plan_platform import joins
from accelerators.sizing._startup import Startup
from accelerators.sizing._throughput import Throughput
from accelerators.spec import AcceleratorSpec

__all__ = ["EXACT_SKU", "InfeasibleJobError", "Plan", "PlanOption", "legend"]


@dataclass(frozen=True, slots=True)
class PlanOption:
    """One ranked way to run the job: where, on what, how long, for how much."""

    rank: int
    ownership: str
    """``rent``: an instance offering; ``own``: a share of a cluster you run (was ``kind``,
    which names the price kind, on-demand or spot, everywhere else)."""
    spec: AcceleratorSpec
    where: str
    """Where it runs: ``"hf l40sx1"``, ``"2 x aws g7e.48xlarge"``, ``"inventory[0] (1 of 8
    devices)"``."""
    cloud: str | None
    instance: str | None
    instances: int
    devices: int
    layout: str
    sharded: bool
    """The job's state must be split over the devices (FSDP / ZeRO-3)."""
    memory_per_device_gb: float
    capacity_gb: float
    throughput: Throughput
    hours: float
    """Wall time: the start-up plus the training steps."""
    usd: float | None
    """Cost of ``hours``: an instance is paid from boot."""
    usd_per_hour: float | None
    price: Price | None
    cost_basis: str
    notes: tuple[str, ...]
    train_hours: float
    startup: Startup
    tokens_per_s: float
    """Training tokens (dataset x epochs) per second of the training steps, all devices."""

    @property
    def kind(self) -> str:
        """Deprecated (removed in 0.2.0): :attr:`ownership`."""
        renamed("PlanOption.kind", "PlanOption.ownership")
        return self.ownership

    @property
    def tokens_per_s_per_device(self) -> float:
        return self.tokens_per_s / self.devices

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (Flyte Decks, Airflow XCom, ``accelerators plan --json``)."""
        t = self.throughput
        return {
            "rank": self.rank,
            "ownership": self.ownership,
            "spec": str(self.spec),
            "where": self.where,
            "cloud": self.cloud,
            "instance": self.instance,
            "instances": self.instances,
            "devices": self.devices,
            "layout": self.layout,
            "sharded": self.sharded,
            "memory_per_device_gb": round(self.memory_per_device_gb, 3),
            "capacity_gb": self.capacity_gb,
            "hours": self.hours,
            "train_hours": self.train_hours,
            "startup": self.startup.to_dict(),
            "tokens_per_s": round(self.tokens_per_s, 1),
            "tokens_per_s_per_device": round(self.tokens_per_s_per_device, 1),
            "usd": self.usd,
            "usd_per_hour": self.usd_per_hour,
            "cost_basis": self.cost_basis,
            "price_date": str(self.price.date) if self.price else None,
            "price_source": self.price.source if self.price else None,
            "price_region": self.price.region if self.price else None,
            "throughput": {
                "accelerator": t.accelerator,
                "partition": t.partition,
                "dtype": t.dtype,
                "peak_tflops": t.peak_tflops,
                "achievable_tflops": t.achievable_tflops,
                "fraction": t.fraction,
                "source": t.source,
                "detail": t.detail,
                "confidence": t.confidence,
            },
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class Plan:
    """A job's work, memory and ranked choices, with what was left out and why."""

    model: ModelShape
    method: str
    dtype: str
    flops: JobFlops
    memory: MemoryEstimate
    efficiency: float
    rank_by: str
    budget_usd: float | None
    deadline_h: float | None
    options: tuple[PlanOption, ...]
    excluded: tuple[Exclusion, ...]
    fleet: str | None
    """Where the fleet baseline came from (``None``: no bench history was read)."""
    clouds: tuple[str, ...] = ()
    """The clouds whose instances were considered (none when only an inventory was)."""
    rejected: tuple[PlanOption, ...] = ()
    """Options that hold the job but miss the budget or the deadline, cheapest first."""
    startup_min: float | None = None
    """The start-up the plan was given (``None``: each offer's default)."""
    platform: str | None = None
    """The Kubernetes platform the job's pods run on (``None``: options are not judged)."""
    unplaceable: tuple[PlanOption, ...] = ()
    """Options that hold the job but ``platform`` cannot place, cheapest first."""
    infeasible: str | None = None
    """Why no option holds the job within its constraints, the binding one named first
    (``None`` when an option does): :exc:`InfeasibleJobError`'s message."""

    @property
    def best(self) -> PlanOption | None:
        return self.options[0] if self.options else None

    def fallbacks(self, count: int = 3) -> AcceleratorSpec:
        """The best choice and up to ``count - 1`` next ones as an ordered fallback spec.

        The alternatives are the next distinct specs in rank order that one pod can ask for
        the same way as the best: the same number of devices of the same vendor, whole
        devices or MIG slices alike (``L40S | H200 | RTX-PRO-6000``), and, with a
        ``platform``, that it can place as one pod together.

        :raises InfeasibleJobError: no choice holds the job within the constraints (the
            message names the binding constraint).
        """
        if not self.options:
            raise InfeasibleJobError(self)
        first = self.options[0].spec
        chosen = [first]
        for option in self.options[1:]:
            spec = option.spec
            if len(chosen) >= max(count, 1) or spec in chosen:
                continue
            if (
                spec.count == first.count
                and _vendor(spec) == _vendor(first)
                and (spec.partition is None) == (first.partition is None)
                and (self.platform is None or joins(chosen, spec, self.platform))
            ):
                chosen.append(spec)
        return AcceleratorSpec.coerce(chosen)

    def summary(self) -> str:
        """One line: the job and its best choice (or why there is none)."""
        job = (
            f"{self.method} of {self.model.params / 1e9:.3g}B params on "
            f"{self.flops.tokens:.3g} tokens: {self.flops.hardware_flops:.3g} FLOPs, "
            f"{self.memory.total_gb:.1f} GB"
        )
        if self.platform is not None:
            job += f", on {self.platform}"
        best = self.best
        if best is None:
            return f"{job}; {self.infeasible or 'no option'}"
        cost = f"${best.usd:,.2f}" if best.usd is not None else "cost unknown"
        return (
            f"{job}; best: {best.spec} on {best.where}, {best.hours:.3g} h "
            f"({best.startup.minutes:.0f} min start-up), {cost}, "
            f"{best.tokens_per_s:,.0f} tokens/s"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the whole plan (``accelerators plan --json``, XCom)."""
        return {
            "model": {"name": self.model.name, "params": self.model.params},
            "method": self.method,
            "dtype": self.dtype,
            "rank_by": self.rank_by,
            "budget_usd": self.budget_usd,
            "deadline_h": self.deadline_h,
            "tokens": self.flops.tokens,
            "model_flops": self.flops.model_flops,
            "hardware_flops": self.flops.hardware_flops,
            "time_factor": self.flops.time_factor,
            "flops_notes": list(self.flops.notes),
            "memory_gb": self.memory.total_gb,
            "memory": dict(self.memory.components()),
            "memory_notes": list(self.memory.notes),
            "efficiency": self.efficiency,
            "fleet": self.fleet,
            "clouds": list(self.clouds),
            "platform": self.platform,
            "startup_min": self.startup_min,
            "infeasible": None if self.options else self.infeasible,
            "legend": legend(o.spec for o in self.options),
            "best": self.best.to_dict() if self.best else None,
            "options": [o.to_dict() for o in self.options],
            "excluded": [
                {"where": e.where, "spec": e.spec, "reason": e.reason} for e in self.excluded
            ],
            "summary": self.summary(),
        }


class InfeasibleJobError(SizingError):
    """No option holds the job within its budget and deadline; the message says which binds.

    :ivar plan: the plan, with every choice left out (``excluded``) and the near misses
        (``rejected``).
    """

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        super().__init__(f"No option for this job: {plan.infeasible or 'no option holds it'}")


#: What ``!`` after a name means in a plan (docs/grammar.md, "Model or SKU").
EXACT_SKU = (
    "`!` pins the exact SKU: A100-80GB-PCIE! is the PCIe card only, where A100-80GB would "
    "accept any A100 80GB (the instance carries that SKU)"
)


def legend(specs: Iterable[object]) -> str | None:
    """The ``!`` legend when any of ``specs`` is printed with one, else ``None``."""
    return EXACT_SKU if any("!" in str(s) for s in specs) else None


def _vendor(spec: AcceleratorSpec) -> str | None:
    return spec.accelerator.vendor if spec.accelerator is not None else spec.vendor
