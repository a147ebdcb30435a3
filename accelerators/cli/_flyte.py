"""``accelerators flyte check FILE``: lint the Flyte workflows a Python file defines.

Needs the Flyte plugin (``pip install flytekitplugins-accelerators``, in ``plugins/flyte``).
Exit codes: 0 no findings, 1 findings (one line each, naming the task), 2 bad input.
"""

from __future__ import annotations

import importlib
from typing import Annotated, Any

import typer

from accelerators.cli._common import fail, guarded

__all__ = ["flyte_check", "register"]

_PLUGIN = "flytekitplugins.accelerators"


def register(app: typer.Typer) -> None:
    """Add the ``flyte`` group (``flyte check``) to ``app``.

    :param app: the root application.
    """
    group = typer.Typer(help="Flyte workflows: check accelerator use.", no_args_is_help=True)
    group.command("check")(flyte_check)
    app.add_typer(group, name="flyte")


@guarded
def flyte_check(
    path: Annotated[str, typer.Argument(metavar="FILE", help="A .py file defining workflows.")],
    platform: Annotated[
        str, typer.Option("--platform", "-p", help="How the cluster labels nodes.")
    ] = "flyte",
    no_gate: Annotated[
        bool, typer.Option("--no-gate-check", help="Do not report GPU tasks without a gate.")
    ] = False,
) -> None:
    """Report accelerator mistakes in every workflow FILE defines (exit 1 when any)."""
    try:
        plugin: Any = importlib.import_module(_PLUGIN)
    except ModuleNotFoundError as exc:
        fail(
            f"accelerators flyte check needs the Flyte plugin ({exc.name} is not installed)",
            hint="pip install -e plugins/flyte  (distribution flytekitplugins-accelerators)",
        )
    try:
        results = plugin.check_file(path, platform=platform, require_gate=not no_gate)
    except SystemExit as exc:  # the file exits while it is imported: nothing was checked
        fail(
            f"{path} called SystemExit({exc.code!r}) while it was imported, so no workflow "
            "was checked",
            hint='guard the file\'s script part with `if __name__ == "__main__":`',
        )
    total = 0
    for workflow, findings in results.items():
        typer.echo(f"{workflow}: {len(findings)} finding(s)")
        for finding in findings:
            typer.echo(f"  {finding}")
        total += len(findings)
    if total:
        raise typer.Exit(code=1)
