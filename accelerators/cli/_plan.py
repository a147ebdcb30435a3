"""``accelerators plan``: a fine-tune ranked by total cost or time, at what devices deliver.

``plan --params 7e9 --method lora --tokens 1e8 --budget 50`` prints the job's work and memory,
then the rentable choices (whole instances) ranked by total cost, each with its layout (one
device, data parallel, sharded), the achievable TFLOPS per device and where that figure comes
from (the bench history's fleet median, else the datasheet times a sourced MAMF band), the
tokens per second (all devices and per device), the start-up (provisioning, image pull,
model load, first checkpoint) and the total hours and cost, start-up included.
``--inventory`` (specs or ``kubectl get nodes -o json``) adds shares of nodes you own;
``--platform karpenter`` (any of ``accelerators k8s platforms``) keeps only what the cluster the
job's pods run on can place.
Bad input exits with code 2 and a one-screen message; a job no option holds within the
budget and the deadline exits with code 1 (:data:`EXIT_INFEASIBLE`) and says which binds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from accelerators._deprecated import REMOVED_IN
from accelerators.cli._common import console, err_console, guarded, print_json
from accelerators.sizing import TRAINING_EFFICIENCY, Plan, SizingError, plan
from accelerators.sizing._plan_report import clouds_note, platform_note, startup_note
from accelerators.sizing._plan_types import legend
from accelerators.sizing._prices import best_per_cloud
from accelerators.sizing._prices import origin as price_origin

__all__ = ["EXIT_INFEASIBLE", "plan_command", "register"]

#: Exit code of a job that no option holds within its budget and deadline (2: bad input).
EXIT_INFEASIBLE = 1


def register(app: typer.Typer) -> None:
    """Add ``plan`` to ``app``.

    :param app: the root application.
    """
    app.command("plan")(plan_command)


@guarded
def plan_command(
    params: Annotated[
        float | None, typer.Option("--params", help="Parameter count, e.g. 7e9.")
    ] = None,
    config: Annotated[
        str | None, typer.Option("--config", help="A local Hugging Face config.json.")
    ] = None,
    method: Annotated[str, typer.Option("--method", help="full, lora or qlora.")] = "lora",
    tokens: Annotated[
        float,
        typer.Option(
            "--tokens", help=r"Tokens in the training set. \[default: 1e8]", show_default=False
        ),
    ] = 1e8,
    epochs: Annotated[float, typer.Option("--epochs", help="Passes over the tokens.")] = 1,
    budget: Annotated[
        float | None, typer.Option("--budget", help="Total USD the job may cost.")
    ] = None,
    deadline: Annotated[
        float | None, typer.Option("--deadline", help="Hours the job may take.")
    ] = None,
    rank: Annotated[str, typer.Option("--rank", help="cost or time.")] = "cost",
    scope: Annotated[
        str | None,
        typer.Option(
            "--scope", help="What to search: cloud, cluster or all (default: by inventory)."
        ),
    ] = None,
    where: Annotated[
        str | None, typer.Option("--where", hidden=True, help="The old name of --scope.")
    ] = None,
    inventory: Annotated[
        list[str] | None,
        typer.Option("--inventory", help="A node you own: 'A100-80GB@1g.10gb:7' (repeatable)."),
    ] = None,
    inventory_file: Annotated[
        str | None,
        typer.Option(
            "--inventory-file", help="JSON: a list of specs/nodes, or `kubectl get nodes -o json`."
        ),
    ] = None,
    cloud: Annotated[
        list[str] | None,
        typer.Option("--cloud", help="aws, gcp, azure, oci, lambda, runpod, hf... (repeatable)."),
    ] = None,
    region: Annotated[
        str | None, typer.Option("--region", help="Price rented instances in this region.")
    ] = None,
    vendor: Annotated[
        list[str] | None, typer.Option("--vendor", help="Allowed vendor (repeatable).")
    ] = None,
    instance: Annotated[
        list[str] | None,
        typer.Option("--instance", help="Rent only this instance type or flavor (repeatable)."),
    ] = None,
    spot: Annotated[bool, typer.Option("--spot", help="Price with spot rates.")] = False,
    dtype: Annotated[str, typer.Option("--dtype", help="Training dtype (bf16, fp16, fp32).")] = (
        "bf16"
    ),
    seq_len: Annotated[int, typer.Option("--seq-len", help="Tokens per sequence.")] = 4096,
    batch: Annotated[int, typer.Option("--batch", help="Sequences per device and step.")] = 1,
    optimizer: Annotated[
        str, typer.Option("--optimizer", help="adamw, adamw-8bit or sgd.")
    ] = "adamw",
    lora_rank: Annotated[int, typer.Option("--lora-rank", help="LoRA rank.")] = 16,
    history: Annotated[
        str | None,
        typer.Option(
            "--history", help="Bench history (path or s3://); default $ACCELERATORS_BENCH_HISTORY."
        ),
    ] = None,
    no_history: Annotated[
        bool, typer.Option("--no-history", help="Use the sourced defaults only.")
    ] = False,
    efficiency: Annotated[
        float,
        typer.Option(
            "--efficiency",
            help=r"Share of the achievable matmul rate training sustains. \[default: "
            f"{TRAINING_EFFICIENCY:.2f}: Megatron-LM's 52% of peak over the A100's measured 86.9%]",
            show_default=False,
        ),
    ] = TRAINING_EFFICIENCY,
    unpriced: Annotated[
        bool, typer.Option("--unpriced", help="Also list instances with no known price.")
    ] = False,
    startup_min: Annotated[
        float | None,
        typer.Option(
            "--startup-min",
            help="Start-up minutes per option (yours; 0: none). Default: each offer's sourced "
            "default (provisioning, image pull, model load, first checkpoint).",
        ),
    ] = None,
    platform: Annotated[
        str | None,
        typer.Option(
            "--platform",
            help="The Kubernetes platform the job's pods run on (karpenter, gke, nvidia...): "
            "leave out what it cannot place, and other clouds' offers where its nodes are one "
            "cloud's.",
        ),
    ] = None,
    top: Annotated[int, typer.Option("--top", help="How many choices to show (0: all).")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Rank where to run a fine-tune by total cost or time, within a budget and a deadline."""
    if (params is None) == (config is None):
        raise SizingError("Give the model as --params 7e9 or --config config.json (one of them)")
    items = _inventory(inventory, inventory_file)
    scope = _scope(scope, where)
    result = plan(
        config if config is not None else params,
        method,
        tokens=tokens,
        epochs=epochs,
        budget_usd=budget,
        deadline_h=deadline,
        scope=scope,
        rank_by=rank,
        inventory=items,
        clouds=cloud or None,
        vendors=vendor or None,
        instances=instance or None,
        kind="spot" if spot else "on-demand",
        region=region,
        dtype=dtype,
        seq_len=seq_len,
        batch=batch,
        optimizer=optimizer,
        lora_rank=lora_rank,
        history=False if no_history else history,
        efficiency=efficiency,
        unpriced=unpriced,
        startup_min=startup_min,
        platform=platform,
    )
    if as_json:
        data = result.to_dict()
        if top:
            data["options"] = data["options"][:top]
        print_json(data)
    else:
        _print_job(result)
        _print_ranking(result, top)
    if not result.options:
        err_console.print(f"No option for this job: {result.infeasible}", markup=False)
        raise typer.Exit(code=EXIT_INFEASIBLE)


def _scope(scope: str | None, where: str | None) -> str | None:
    """``--scope``, or ``--where``, its old name: deprecated (it also names an option's place)."""
    if where is None:
        return scope
    if scope is not None:
        raise SizingError("Give --scope only: --where is its old name")
    err_console.print(
        f"--where is deprecated and will be removed in accelerators {REMOVED_IN}: use --scope",
        markup=False,
    )
    return where


def _inventory(specs: list[str] | None, path: str | None) -> list[Any] | None:
    items: list[Any] = list(specs or [])
    if path is not None:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SizingError(f"Cannot read the inventory file {path!r}: {exc}") from None
        if isinstance(data, dict) and isinstance(data.get("items"), list):
            data = data["items"]  # kubectl get nodes -o json
        items += data if isinstance(data, list) else [data]
    return items or None


def _print_job(result: Plan) -> None:
    shape, work, memory = result.model, result.flops, result.memory
    name = f"{shape.name}, " if shape.name else ""
    console.print(
        f"[bold]{result.method} of {name}{shape.params / 1e9:.3g}B params on "
        f"{work.tokens:.3g} tokens, {result.dtype}[/bold]"
    )
    parts = ", ".join(f"{n} {gb:.2f}" for n, gb in memory.components())
    console.print(
        f"  work    {work.hardware_flops:.3g} FLOPs ({work.factor:.2f} x params x tokens"
        f"{', + recomputation' if work.recompute_per_token else ''}"
        f"{f', time x {work.time_factor:.2f}' if work.time_factor != 1 else ''})"
    )
    console.print(f"  memory  {memory.total_gb:.1f} GB ({parts})")
    console.print(
        f"  speed   achievable TFLOPS per device x {result.efficiency:.2f} training efficiency; "
        + (f"fleet baseline: {result.fleet}" if result.fleet else "no bench history read")
    )
    console.print(f"  start   {startup_note(result)}")
    console.print(f"  clouds  {clouds_note(result)}")
    if result.platform is not None:
        console.print(f"  platform {platform_note(result)}")
    for note in (*work.notes, *memory.notes):
        console.print(f"  [dim]{note}[/dim]")


def _print_ranking(result: Plan, top: int) -> None:
    limits = []
    if result.budget_usd is not None:
        limits.append(f"budget ${result.budget_usd:,.2f}")
    if result.deadline_h is not None:
        limits.append(f"deadline {result.deadline_h:g} h")
    title = f"Ranked by {'total cost' if result.rank_by == 'cost' else 'time'}"
    title += f" ({', '.join(limits)})" if limits else ""
    table = Table(title=title, box=None)
    headers = (
        "#",
        "Spec",
        "Where",
        "Layout",
        "GB/dev",
        "TFLOPS",
        "Tok/s",
        "/dev",
        "Start",
        "Hours",
        "USD",
        "USD/h",
    )
    left = ("Spec", "Where", "Layout")
    wraps = ("Where", "Layout")  # a narrow terminal wraps these, never cuts a figure
    for header in headers:
        if header in left:
            table.add_column(header, justify="left", no_wrap=header not in wraps)
        else:
            table.add_column(header, justify="right", no_wrap=True)
    shown = result.options[:top] if top else result.options
    for option in shown:
        t = option.throughput
        table.add_row(
            str(option.rank),
            str(option.spec),
            option.where,
            option.layout.replace(_SHARDED, ""),
            f"{option.memory_per_device_gb:.1f}/{option.capacity_gb:g}",
            f"{t.achievable_tflops:.0f}" + ("*" if t.source == "fleet" else ""),
            _count(option.tokens_per_s),
            _count(option.tokens_per_s_per_device),
            f"{option.startup.minutes:.0f}m",
            f"{option.hours:.3g}",
            "-" if option.usd is None else f"{option.usd:,.2f}",
            "-" if option.usd_per_hour is None else f"{option.usd_per_hour:.2f}",
        )
    if shown:
        console.print(table)
    if any(o.throughput.source == "fleet" for o in shown):
        console.print("  [dim]TFLOPS*: the fleet's measured median (bench history)[/dim]")
    if any(_SHARDED in o.layout for o in shown):
        console.print(
            "  [dim]sharded: FSDP/ZeRO-3, weights, gradients and optimizer state split over "
            "the devices[/dim]"
        )
    exact = legend(o.spec for o in shown)
    if exact:
        console.print(f"  [dim]{exact}[/dim]", highlight=False)
    sources = {o.throughput.accelerator: o.throughput for o in shown}
    for acc, t in sources.items():
        console.print(f"  [dim]{acc}: {t.detail}[/dim]")
    offers = {o.startup.offer: o.startup for o in shown}
    for offer, startup in offers.items():
        console.print(f"  [dim]start-up, {offer}: {startup.source} ({startup.confidence})[/dim]")
    for option in shown:
        for note in (option.cost_basis, *option.notes):
            if note:
                console.print(f"  [dim]#{option.rank}: {note}[/dim]")
    if shown:
        console.print(f"  [dim]{price_origin(o.price for o in shown if o.price)}[/dim]")
    if (per_cloud := best_per_cloud(result.options)) is not None:
        console.print(f"  [dim]{per_cloud}[/dim]")
    if len(shown) < len(result.options):
        console.print(f"  [dim]{len(result.options) - len(shown)} more: --top 0 shows all[/dim]")
    if result.excluded:
        counts: dict[str, int] = {}
        for exclusion in result.excluded:
            key = exclusion.reason.split(":")[0]
            counts[key] = counts.get(key, 0) + 1
        summary = ", ".join(f"{n} {why}" for why, n in sorted(counts.items()))
        console.print(f"  [dim]left out: {summary} (--json lists each)[/dim]")


#: How a sharded layout is named (the table leaves it to a note below it).
_SHARDED = " (FSDP/ZeRO-3)"


def _count(value: float) -> str:
    """``48.2k``: a rate in three figures."""
    if value >= 1e6:
        return f"{value / 1e6:.3g}M"
    return f"{value / 1e3:.3g}k" if value >= 1e3 else f"{value:.3g}"
