"""``accelerators recommend`` and ``accelerators instances``: sizing and cost as rich tables.

``recommend --params 7e9 --method lora --dtype bf16`` prints the memory estimate by component
and the ranked specs that hold it; ``instances H100:8 --cloud aws`` prints the instance types
that carry a spec with their known prices (``--refresh`` first updates the live AWS cache).
Bad input exits with code 2 and a one-screen message.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

import typer
from rich.table import Table

from accelerators.cli._common import console, err_console, guarded, print_json
from accelerators.sizing import (
    ModelShape,
    SizingError,
    estimate_memory,
    instances,
    recommend,
)
from accelerators.sizing._plan_inputs import region_of
from accelerators.sizing._prices import origin

__all__ = ["instances_command", "recommend_command", "register"]


def register(app: typer.Typer) -> None:
    """Add ``recommend`` and ``instances`` to ``app``.

    :param app: the root application.
    """
    app.command("recommend")(recommend_command)
    app.command("instances")(instances_command)


@guarded
def recommend_command(
    params: Annotated[
        float | None, typer.Option("--params", help="Parameter count, e.g. 7e9.")
    ] = None,
    config: Annotated[
        str | None, typer.Option("--config", help="A local Hugging Face config.json.")
    ] = None,
    memory_gb: Annotated[
        float | None, typer.Option("--memory-gb", help="Memory needed, instead of a model.")
    ] = None,
    method: Annotated[
        str, typer.Option("--method", help="inference, full, lora or qlora.")
    ] = "inference",
    dtype: Annotated[str, typer.Option("--dtype", help="fp32, bf16, fp16, fp8, int8, int4.")] = (
        "bf16"
    ),
    seq_len: Annotated[int, typer.Option("--seq-len", help="Tokens per sequence.")] = 4096,
    batch: Annotated[int, typer.Option("--batch", help="Sequences per step or batch.")] = 1,
    budget: Annotated[float | None, typer.Option("--budget", help="Maximum USD per hour.")] = None,
    vendor: Annotated[
        list[str] | None, typer.Option("--vendor", help="Allowed vendor (repeatable).")
    ] = None,
    cloud: Annotated[
        list[str] | None,
        typer.Option("--cloud", help="aws, gcp, azure, oci, lambda, runpod, hf... (repeatable)."),
    ] = None,
    region: Annotated[
        str | None, typer.Option("--region", help="Price in this region (or its zones).")
    ] = None,
    spot: Annotated[bool, typer.Option("--spot", help="Rank by spot prices.")] = False,
    include_shares: Annotated[
        bool,
        typer.Option(
            "--include-shares",
            help="Also offer shares of an instance (a MIG slice of an 8-GPU flavor, pro rata).",
        ),
    ] = False,
    top: Annotated[int, typer.Option("--top", min=1, help="How many specs to show.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Estimate a workload's memory and rank the accelerator specs that hold it."""
    if memory_gb is not None:
        if params is not None or config is not None:
            raise SizingError("Give --memory-gb, or a model (--params or --config), not both")
        estimate, shape = None, None
        ranked = recommend(
            memory_gb=memory_gb,
            dtype=dtype,
            **_filters(budget, vendor, cloud, spot, top),
            include_shares=include_shares,
            region=region_of(region),
        )
    else:
        shape = _shape(params, config)
        estimate = estimate_memory(shape, method=method, dtype=dtype, seq_len=seq_len, batch=batch)
        ranked = recommend(
            estimate,
            dtype=dtype,
            **_filters(budget, vendor, cloud, spot, top),
            include_shares=include_shares,
            region=region_of(region),
        )
    if as_json:
        print_json(
            {
                "estimate": None
                if estimate is None
                else {**asdict(estimate), "total_gb": estimate.total_gb},
                "recommendations": [_recommendation_json(r) for r in ranked],
            }
        )
        return
    if estimate is not None:
        console.print(f"[bold]{method} memory, {dtype}: {estimate.total_gb:.1f} GB[/bold]")
        table = Table(box=None)
        table.add_column("Component", style="bold")
        table.add_column("GB", justify="right")
        for name, gb in estimate.components():
            table.add_row(name, f"{gb:.2f}")
        console.print(table)
        if shape is not None and shape.name:
            console.print(f"  [dim]model: {shape.name}, {shape.params:,} parameters[/dim]")
        for note in estimate.notes:
            console.print(f"  [dim]{note}[/dim]")
    table = Table(title="Recommended specs (cheapest known price first)", box=None)
    headers = ("#", "Spec", "Capacity GB", "Free", "Layout", "USD/h", "Instance", "Price of")
    for header in headers:
        right = header in ("#", "Capacity GB", "Free", "USD/h")
        table.add_column(header, justify="right" if right else "left", no_wrap=not right)
    for rank, rec in enumerate(ranked, 1):
        table.add_row(
            str(rank),
            str(rec.spec),
            f"{rec.capacity_gb:g}",
            f"{rec.headroom:.0%}",
            rec.parallelism,
            "-" if rec.usd_per_hour is None else f"{rec.usd_per_hour:.2f}",
            f"{rec.price.cloud} {rec.instance}" if rec.price else (rec.instance or "-"),
            _price_of(rec.price),
        )
    console.print(table)
    if ranked:
        console.print(f"  [dim]{origin(r.price for r in ranked if r.price)}[/dim]")
    if not ranked:
        err_console.print("No accelerator holds this workload with the filters given.")


@guarded
def instances_command(
    spec: Annotated[str, typer.Argument(metavar="SPEC", help="Accelerator spec, e.g. 'H100:8'.")],
    cloud: Annotated[
        str | None, typer.Option("--cloud", help="aws, gcp, azure, oci, lambda, runpod, hf...")
    ] = None,
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Fetch live AWS instance types and spot prices first.")
    ] = False,
    region: Annotated[
        str, typer.Option("--region", help="AWS region for --refresh.")
    ] = "us-east-1",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the instance types that carry SPEC, with their known hourly prices."""
    if refresh:
        from accelerators.sizing import aws

        result = aws.refresh(region)
        err_console.print(result.message)
    offers = instances(spec, cloud)
    if as_json:
        print_json([_offer_json(offer) for offer in offers])
        return
    table = Table(title=f"Instances carrying {spec}", box=None)
    headers = ("Cloud", "Instance", "Provides", "Needed", "On-demand", "Region", "Spot", "Price of")
    for header in headers:
        table.add_column(
            header, justify="right" if header in ("Needed", "On-demand", "Spot") else "left"
        )
    for offer in offers:
        on_demand, spot_price = offer.price("on-demand"), offer.price("spot")
        dated = on_demand or spot_price
        table.add_row(
            offer.instance.cloud,
            offer.instance.name,
            offer.instance.spec_text,
            f"{offer.needed:.3g}" + (" (share)" if offer.is_share else ""),
            f"{on_demand.usd_per_hour:.2f}" if on_demand else "-",
            (on_demand.region or "any") if on_demand else "-",
            f"{spot_price.usd_per_hour:.2f}" if spot_price else "-",
            _price_of(dated),
        )
    console.print(table)
    if not offers:
        err_console.print(f"No instance type in the table carries {spec}.")
        return
    _print_cheapest_per_cloud(offers)


def _price_of(price: Any) -> str:
    """``2026-11-28 skypilot-gcp``: a price's date and source, for a table cell."""
    return f"{price.date} {price.source}" if price is not None else "-"


def _print_cheapest_per_cloud(offers: Any) -> None:
    """One line per cloud: its cheapest whole-instance on-demand way to the spec, and where."""
    best: dict[str, tuple[float, Any, Any]] = {}
    for offer in offers:
        price = offer.price("on-demand")
        if price is None or offer.is_share:
            continue
        per_hour = offer.needed * price.usd_per_hour
        cloud = offer.instance.cloud
        if cloud not in best or per_hour < best[cloud][0]:
            best[cloud] = (per_hour, offer, price)
    if not best:
        console.print("  [dim]no whole-instance on-demand price known[/dim]")
        return
    console.print("Cheapest per cloud (on-demand, whole instances):")
    for cloud, (per_hour, offer, price) in sorted(best.items(), key=lambda kv: kv[1][0]):
        times = f"{offer.needed:g} x " if offer.needed != 1 else ""
        where = price.region or "every region"
        console.print(
            f"  {cloud:<11} {per_hour:>9.2f} USD/h  {times}{offer.instance.name} in {where} "
            f"[dim]({price.date}, {price.source})[/dim]"
        )


def _filters(
    budget: float | None, vendor: list[str] | None, cloud: list[str] | None, spot: bool, top: int
) -> dict[str, Any]:
    return {
        "budget_usd_per_hour": budget,
        "vendors": vendor or None,
        "clouds": cloud or None,
        "kind": "spot" if spot else "on-demand",
        "top": top,
    }


def _shape(params: float | None, config: str | None) -> ModelShape:
    if config is not None:
        return ModelShape.from_hf_config(config)
    if params is None:
        raise SizingError("Give the model as --params 7e9 or --config config.json, or --memory-gb")
    return ModelShape.like(params)


def _recommendation_json(rec: Any) -> dict[str, Any]:
    return {
        "spec": str(rec.spec),
        "memory_needed_gb": rec.memory_needed_gb,
        "capacity_gb": rec.capacity_gb,
        "headroom": rec.headroom,
        "parallelism": rec.parallelism,
        "usd_per_hour": rec.usd_per_hour,
        "instance": rec.instance,
        "cloud": rec.price.cloud if rec.price else None,
        "price_date": str(rec.price.date) if rec.price else None,
        "price_source": rec.price.source if rec.price else None,
        "price_region": rec.price.region if rec.price else None,
        "reason": rec.reason,
    }


def _offer_json(offer: Any) -> dict[str, Any]:
    return {
        "cloud": offer.instance.cloud,
        "instance": offer.instance.name,
        "provides": offer.instance.spec_text,
        "needed": offer.needed,
        "share": offer.is_share,
        "confidence": offer.instance.confidence,
        "prices": [p.model_dump(mode="json") for p in offer.prices],
    }
