"""``accelerators catalog audit``: where the catalog's figures come from, and what disagrees.

The same report as ``python benchmarks/catalog_audit.py`` (:mod:`accelerators.catalog._audit`):
figures by confidence and by source kind, figures without a URL, third-party figures, and the
findings of the consistency checks. Exits 1 when there is a finding.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.text import Text

from accelerators.catalog import _audit
from accelerators.cli._common import console, fail, guarded, print_json

__all__ = ["audit_catalog", "register"]


def register(app: typer.Typer) -> None:
    """Add the ``catalog`` group, with ``audit``, to ``app``.

    :param app: the root application.
    """
    group = typer.Typer(name="catalog", help="The catalog data file itself.", no_args_is_help=True)
    group.command("audit")(audit_catalog)
    app.add_typer(group)


@guarded
def audit_catalog(
    list_rows: Annotated[
        str | None,
        typer.Option(
            "--list",
            metavar="KIND",
            help="Also list these figures: " + ", ".join(_audit.LIST_CHOICES) + ".",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
) -> None:
    """Count the figures by confidence and source kind; list what breaks the catalog's rules."""
    if list_rows is not None and list_rows not in _audit.LIST_CHOICES:
        fail(f"--list {list_rows!r}: expected one of {', '.join(_audit.LIST_CHOICES)}")
    report = _audit.audit()
    if as_json:
        print_json(report.as_dict())
    else:
        console.print(Text(_audit.render(report, list_rows=list_rows)))
    if not report.ok:
        raise typer.Exit(1)
