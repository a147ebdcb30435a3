"""``accelerators prices``: where the prices come from, how fresh they are, and live refreshes.

``prices refresh --cloud azure --region eastus`` caches live prices (AWS through boto3 and your
credentials, Azure's public Retail Prices API, GCP's Cloud Billing Catalog with an API key);
``plan``, ``recommend`` and ``instances`` read the cache before the shipped table. ``prices
audit --max-age-days 365`` lists the price rows older than that and exits 1 when there are
any; ``prices coverage`` counts the instance rows of each cloud that have a price and prints
why the others have none where the table records a reason.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Annotated

import typer
from rich.table import Table

from accelerators.cli._common import console, err_console, guarded, print_json
from accelerators.sizing import SizingError

__all__ = ["register"]

_REFRESHERS = ("aws", "azure", "gcp")


def register(app: typer.Typer) -> None:
    """Add ``prices`` (``refresh``, ``audit``, ``coverage``) to ``app``.

    :param app: the root application.
    """
    group = typer.Typer(
        help="Price tables: live refresh (AWS, Azure, GCP), age audit, coverage per cloud."
    )
    group.command("refresh")(refresh_command)
    group.command("audit")(audit_command)
    group.command("coverage")(coverage_command)
    app.add_typer(group, name="prices")


@guarded
def refresh_command(
    cloud: Annotated[str, typer.Option("--cloud", help="aws, azure or gcp.")],
    region: Annotated[
        str | None,
        typer.Option("--region", help="Region (default us-east-1, eastus, us-central1)."),
    ] = None,
    api_key: Annotated[
        str | None,
        typer.Option("--api-key", help="GCP API key (default $ACCELERATORS_GCP_API_KEY)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Fetch live prices of one cloud and region into the local cache plans read first."""
    name = cloud.strip().lower()
    if name not in _REFRESHERS:
        raise SizingError(f"Unknown cloud {cloud!r} to refresh: expected one of {_REFRESHERS}")
    if name == "aws":
        from accelerators.sizing import aws

        result = aws.refresh(region or "us-east-1")
        rows = (*result.on_demand, *result.spot)
        source, message = result.source, result.message
    elif name == "azure":
        from accelerators.sizing import azure

        refreshed = azure.refresh(region or "eastus")
        rows, source, message = refreshed.prices, refreshed.source, refreshed.message
    else:
        from accelerators.sizing import gcp

        refreshed = gcp.refresh(region or "us-central1", api_key=api_key)
        rows, source, message = refreshed.prices, refreshed.source, refreshed.message
    if as_json:
        print_json(
            {
                "source": source,
                "message": message,
                "prices": [p.model_dump(mode="json") for p in rows],
            }
        )
        return
    (console if source == "live" else err_console).print(message)


@guarded
def audit_command(
    max_age_days: Annotated[
        int, typer.Option("--max-age-days", min=0, help="Flag rows older than this.")
    ] = 365,
) -> None:
    """List price rows (shipped and cached) older than --max-age-days; exit 1 if any."""
    from accelerators.sizing._prices import all_prices

    limit = dt.datetime.now(dt.UTC).date() - dt.timedelta(days=max_age_days)
    rows = all_prices()
    old = [p for p in rows if p.date < limit]
    by_source = Counter((p.source, str(p.date)) for p in old)
    for (source, date), count in sorted(by_source.items()):
        console.print(f"stale: {count} rows of {source} dated {date}")
    console.print(f"{len(old)} of {len(rows)} price rows are older than {max_age_days} days")
    if old:
        raise typer.Exit(1)


@guarded
def coverage_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Count, per cloud, the instance rows with an on-demand price (shipped or cached), and say
    why the others have none where the table records it."""
    from accelerators.catalog import _instances
    from accelerators.sizing._prices import all_prices

    priced = {(p.cloud, p.instance.casefold()) for p in all_prices() if p.kind == "on-demand"}
    counts: dict[str, list[int]] = {}
    for row in _instances.instances():
        have = counts.setdefault(row.cloud, [0, 0])
        have[0] += (row.cloud, row.name.casefold()) in priced
        have[1] += 1
    gaps = [g for g in _instances.unpriced() if (g.cloud, g.instance.casefold()) not in priced]
    if as_json:
        print_json(
            {
                cloud: {
                    "priced": h,
                    "rows": t,
                    "unpriced": [
                        {"instance": g.instance, "reason": g.reason}
                        for g in gaps
                        if g.cloud == cloud
                    ],
                }
                for cloud, (h, t) in counts.items()
            }
        )
        return
    table = Table(title="Instance rows with an on-demand price", box=None)
    for header in ("Cloud", "Priced", "Rows", "Share", "Why not, recorded"):
        table.add_column(header, justify="left" if header == "Cloud" else "right")
    for cloud, (priced_rows, total) in counts.items():
        why = sum(g.cloud == cloud for g in gaps)
        table.add_row(cloud, str(priced_rows), str(total), f"{priced_rows / total:.0%}", str(why))
    console.print(table)
    by_reason: dict[tuple[str, str], list[str]] = {}
    for gap in gaps:
        by_reason.setdefault((gap.cloud, gap.reason), []).append(gap.instance)
    if by_reason:
        title = "\nWhy the other rows have no price (prices.toml [[unpriced]]):"
        console.print(title, markup=False)
    for (cloud, reason), names in by_reason.items():
        line = f"  {cloud}: {', '.join(names)}: {reason}"
        console.print(line, soft_wrap=True, highlight=False, markup=False)
