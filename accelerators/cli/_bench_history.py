"""``accelerators bench history``: per node and device, the trend of each figure, flagged.

::

    accelerators bench history                          # the default SQLite file
    accelerators bench history --store s3://fleet-bench/prod --chart fleet.png
    accelerators bench history --metric gemm.bf16 --metric memory.triad --drop 0.05

Exit codes: 0 nothing flagged, 1 a device is flagged (``--check``), 2 bad input.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from accelerators.cli._common import console, err_console, fail, guarded

__all__ = ["history_command"]


@guarded
def history_command(
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            metavar="PATH|s3://BUCKET/PREFIX",
            help="The history to read. Default: bench-history.sqlite in the user data directory.",
        ),
    ] = None,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            metavar="PREFIX",
            help="Metrics to show (gemm.bf16, memory.triad, gemm.); repeat it. Default: all.",
        ),
    ] = None,
    drop: Annotated[
        float,
        typer.Option(
            "--drop", min=0.0, max=0.9, help="Flag a latest figure this share below a median."
        ),
    ] = 0.10,
    chart: Annotated[
        Path | None,
        typer.Option("--chart", metavar="PATH", help="Write a PNG of the trends."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the trends as JSON.")] = False,
    flagged_only: Annotated[
        bool, typer.Option("--flagged", help="Show only flagged devices.")
    ] = False,
    check: Annotated[
        bool, typer.Option("--check", help="Exit 1 when any device is flagged.")
    ] = False,
    deadline: Annotated[
        float,
        typer.Option(
            "--deadline",
            min=1.0,
            max=3600.0,
            metavar="SECONDS",
            help="How long reading the whole history may take (a gate reads it within "
            "ACCELERATORS_BENCH_HISTORY_DEADLINE).",
        ),
    ] = 300.0,
) -> None:
    """Show each node's and device's trend per metric; flag those below their own or the
    fleet's median."""
    from accelerators.bench.history._fleet import sparkline, trends
    from accelerators.bench.history._open import open_store

    if chart is not None and (chart.is_dir() or not chart.parent.is_dir()):
        fail(f"--chart {str(chart)!r}: expected a file path in an existing directory")
    if chart is not None:
        try:
            import matplotlib  # noqa: F401 - only whether it is there, before reading anything
        except ImportError:
            fail(
                "--chart needs matplotlib, which is not installed",
                hint='pip install "accelerators[bench]"',
            )
    from dataclasses import replace

    from accelerators.bench.history._store import Limits

    history = open_store(store, limits=replace(Limits.from_env(), deadline_s=deadline))
    read = history.read()
    if read.skipped:
        err_console.print(
            Text(
                f"Note: skipped {len(read.skipped)} records of {read.records} in "
                f"{history.location} (malformed or physically impossible):",
                style="yellow",
            )
        )
        for line in read.skipped[:10]:
            err_console.print(Text(f"  {line}", style="yellow"), soft_wrap=True)
        if len(read.skipped) > 10:
            err_console.print(Text(f"  and {len(read.skipped) - 10} more", style="yellow"))
    found = trends(read.figures, drop=drop, metrics=tuple(metric or ()))
    shown = [t for t in found if t.flagged] if flagged_only else found
    if chart is not None:
        from accelerators.bench.render._history_plot import history_png
        from accelerators.bench.report._models import atomic_write

        atomic_write(chart, history_png(found))
    if as_json:
        rows = [
            {
                "node": t.node,
                "device_index": t.device_index,
                "sku": t.sku,
                "metric": t.metric,
                "unit": t.unit,
                "runs": len(t.values),
                "latest": t.latest,
                "own_median": t.own_median,
                "fleet_median": t.fleet_median,
                "flags": list(t.flags),
            }
            for t in shown
        ]
        typer.echo(json.dumps(rows, indent=2))
    else:
        if not found:
            console.print(Text(f"No runs in {history.location}", style="yellow"))
        table = Table(title=f"Bench history: {history.location}", header_style="bold", box=None)
        for header in (
            "node",
            "dev",
            "SKU",
            "metric",
            "runs",
            "trend",
            "latest",
            "own med",
            "vs own",
            "fleet med",
            "vs fleet",
            "flag",
        ):
            table.add_column(
                header,
                justify="left" if header in ("node", "SKU", "metric", "trend", "flag") else "right",
            )
        for t in shown:
            table.add_row(
                t.node,
                str(t.device_index),
                t.sku,
                t.metric,
                str(len(t.values)),
                sparkline(t.values),
                f"{t.latest:.4g}",
                "-" if t.own_median is None else f"{t.own_median:.4g}",
                "-" if t.vs_own is None else f"{t.vs_own:.0%}",
                "-" if t.fleet_median is None else f"{t.fleet_median:.4g}",
                "-" if t.vs_fleet is None else f"{t.vs_fleet:.0%}",
                Text(", ".join(t.flags), style="bold red") if t.flags else Text("ok", "green"),
            )
        if shown:
            console.print(table)
        flagged = sorted({(t.node, t.device_index, t.sku) for t in found if t.flagged})
        for node, index, sku in flagged:
            console.print(Text(f"FLAGGED {node} device {index} ({sku})", style="bold red"))
        if chart is not None:
            console.print(Text(f"Chart: {chart}", style="dim"))
    if check and any(t.flagged for t in found):
        raise typer.Exit(code=1)
