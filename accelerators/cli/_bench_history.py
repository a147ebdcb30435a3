"""``accelerators bench history``: per node and device, the trend of each figure, flagged.

::

    accelerators bench history                          # the default SQLite file
    accelerators bench history --store s3://fleet-bench/prod --chart fleet.png
    accelerators bench history --accelerator H100-SXM --days 30 --metric gemm.bf16
    accelerators bench history --store postgresql://bench@db/fleet --node gpu-7 --page 2

It reads summaries only, newest first, through the store's indexes: the newest ``--reports``
of the ``--accelerator`` and ``--node`` asked for, over the last ``--days``, a page of the
store at a time; the table shows ``--per-page`` trends of them at a time (``--page``).
Exit codes: 0 nothing flagged, 1 a device is flagged (``--check``), 2 bad input.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from accelerators._text import printable
from accelerators.cli._common import console, err_console, fail, guarded

__all__ = ["history_command"]

_HEADERS = (
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
)


@guarded
def history_command(
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            metavar="PATH|postgresql://HOST/DB|s3://BUCKET/PREFIX",
            help="The history to read. Default: bench-history.sqlite in the user data directory.",
        ),
    ] = None,
    accelerator: Annotated[
        list[str] | None,
        typer.Option(
            "--accelerator", metavar="SKU", help="Only this SKU (H100-SXM...); repeat it."
        ),
    ] = None,
    node: Annotated[
        list[str] | None,
        typer.Option("--node", metavar="NODE", help="Only this node; repeat it."),
    ] = None,
    days: Annotated[
        float | None,
        typer.Option("--days", min=0.0, metavar="DAYS", help="Only runs of the last DAYS days."),
    ] = None,
    reports: Annotated[
        int,
        typer.Option(
            "--reports", min=1, max=10_000_000, help="Read at most this many, the newest."
        ),
    ] = 10_000,
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
    page: Annotated[int, typer.Option("--page", min=1, help="The page of trends to show.")] = 1,
    per_page: Annotated[
        int, typer.Option("--per-page", min=1, max=100_000, help="Trends per page.")
    ] = 100,
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
    migrate: Annotated[
        bool,
        typer.Option(
            "--migrate",
            help="First bring records of an older layout into the current one (S3: move the "
            "first layout's objects; SQL: summarise every older report).",
        ),
    ] = False,
    deadline: Annotated[
        float,
        typer.Option(
            "--deadline",
            min=1.0,
            max=3600.0,
            metavar="SECONDS",
            help="How long reading may take (a gate reads within "
            "ACCELERATORS_BENCH_HISTORY_DEADLINE).",
        ),
    ] = 300.0,
) -> None:
    """Show each node's and device's trend per metric; flag those below their own or the
    fleet's median."""
    from dataclasses import replace

    from accelerators.bench.history._deadline import Deadline
    from accelerators.bench.history._fleet import sparkline, trends
    from accelerators.bench.history._open import open_store
    from accelerators.bench.history._store import HistoryRead, Limits, Query

    if chart is not None and (chart.is_dir() or not chart.parent.is_dir()):
        fail(f"--chart '{printable(str(chart))}': expected a file path in an existing directory")
    if chart is not None:
        try:
            import matplotlib  # noqa: F401 - only whether it is there, before reading anything
        except ImportError:
            fail(
                "--chart needs matplotlib, which is not installed",
                hint='pip install "accelerators[bench]"',
            )
    history = open_store(store, limits=replace(Limits.from_env(), deadline_s=deadline))
    within = Deadline(deadline)
    if migrate:
        moved = history.migrate(within)
        err_console.print(Text(f"Migrated {moved:,} records of an older layout", style="dim"))
    since = datetime.now(UTC) - timedelta(days=days) if days is not None else None
    query = Query(tuple(accelerator or ()), tuple(node or ()), since, None, reports)
    read = HistoryRead()
    for part in history.pages(query, deadline=within):
        read.summaries += part.summaries
        read.records += part.records
        read.skipped += part.skipped
        read.more = part.more
    _note_skipped(read.skipped, read.records, history.location)
    found = trends(read.figures, drop=drop, metrics=tuple(metric or ()))
    selected = [t for t in found if t.flagged] if flagged_only else found
    pages = max(1, -(-len(selected) // per_page))
    shown = selected[(page - 1) * per_page : page * per_page]
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
        typer.echo(json.dumps(rows, indent=2))  # ASCII: the same data on any terminal
    else:
        if not found:
            console.print(Text(f"No runs in {history.location}", style="yellow"))
        table = Table(title=f"Bench history: {history.location}", header_style="bold", box=None)
        for header in _HEADERS:
            left = header in ("node", "SKU", "metric", "trend", "flag")
            table.add_column(header, justify="left" if left else "right")
        for t in shown:
            table.add_row(
                printable(t.node, 60),
                str(t.device_index),
                printable(t.sku, 40),
                printable(t.metric, 40),
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
        if pages > 1:
            console.print(
                Text(f"Page {page} of {pages} ({len(selected):,} trends): --page for more")
            )
        if read.more:
            console.print(
                Text(
                    f"The newest {len(read.summaries):,} reports were read: --reports or "
                    "--days for more",
                    style="dim",
                )
            )
        flagged = sorted({(t.node, t.device_index, t.sku) for t in found if t.flagged})
        for name, index, sku in flagged:
            shown_node, shown_sku = printable(name, 60), printable(sku, 40)
            console.print(Text(f"FLAGGED {shown_node} device {index} ({shown_sku})", "bold red"))
        if chart is not None:
            console.print(Text(f"Chart: {printable(str(chart))}", style="dim"))
    if check and any(t.flagged for t in found):
        raise typer.Exit(code=1)


def _note_skipped(skipped: list[str], records: int, location: str) -> None:
    if not skipped:
        return
    err_console.print(
        Text(
            f"Note: skipped {len(skipped)} records of {records} in {location} "
            "(malformed or physically impossible):",
            style="yellow",
        )
    )
    for line in skipped[:10]:
        err_console.print(Text(f"  {printable(line, 300)}", style="yellow"), soft_wrap=True)
    if len(skipped) > 10:
        err_console.print(Text(f"  and {len(skipped) - 10} more", style="yellow"))
