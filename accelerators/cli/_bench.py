"""``accelerators bench``: run the benchmark gate from a shell.

::

    accelerators bench --expect H100:8 --json report.json --plot roofline.png --history
    accelerators bench history --chart fleet.png

A progress bar runs on stderr while the benchmark runs; the result tables go to stdout.
Exit codes: 0 pass (or warn), 1 fail, 2 bad input (unknown profile, invalid spec, a device
that is not visible, an output path that cannot be written, torch not installed); bad input
is found before anything is measured. torch is imported only when the command runs.
"""

from __future__ import annotations

import enum
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from accelerators._text import printable
from accelerators.cli._bench_tables import print_cost, print_report, print_verdict_line
from accelerators.cli._common import console, err_console, fail, guarded

if TYPE_CHECKING:
    from accelerators.bench import BenchReport

__all__ = ["EXIT_FAIL", "bench_command", "register"]

#: Exit code of a failed gate (2 is bad input, as for every command).
EXIT_FAIL = 1


class ProfileChoice(enum.StrEnum):
    QUICK = "quick"
    STANDARD = "standard"
    FULL = "full"


def register(app: typer.Typer) -> None:
    """Add ``bench`` (and ``bench history``) to ``app``.

    :param app: the root application.
    """
    from accelerators.cli._bench_history import history_command

    group = typer.Typer(no_args_is_help=False, add_completion=False)
    group.callback(invoke_without_command=True)(bench_command)
    group.command("history")(history_command)
    app.add_typer(group, name="bench")


def _run_benchmark(**kwargs: Any) -> BenchReport:
    """Run the benchmark (a seam tests replace with a fake backend)."""
    from accelerators.bench import run

    return run(**kwargs)


@guarded
def bench_command(
    ctx: typer.Context,
    profile: Annotated[
        ProfileChoice,
        typer.Option(
            "--profile",
            help="quick: the pipeline gate (seconds); standard; full (minutes, "
            "mamf-finder-like warm-up).",
        ),
    ] = ProfileChoice.QUICK,
    expect: Annotated[
        str | None,
        typer.Option(
            "--expect",
            metavar="SPEC",
            help="What must be there, e.g. H100:8, A100@1g.5gb, 'H100 | A100:2'. "
            "Wrong SKU, MIG slice, too few devices fail.",
        ),
    ] = None,
    json_path: Annotated[
        Path | None,
        typer.Option(
            "--json", metavar="PATH", help="Write the report as JSON, atomically ('-': stdout)."
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            metavar="PATH",
            help="Write the roofline (a PNG): achieved FLOP/s "
            "against arithmetic intensity under the datasheet ceilings.",
        ),
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html", metavar="PATH", help="Write a self-contained HTML report (tables + roofline)."
        ),
    ] = None,
    history: Annotated[
        str | None,
        typer.Option(
            "--history",
            metavar="PATH|postgresql://HOST/DB|s3://BUCKET/PREFIX",
            envvar="ACCELERATORS_BENCH_HISTORY",
            help="Append the report to a bench history ('default': the user data directory); "
            "also the baseline for figures without a sourced band.",
        ),
    ] = None,
    device: Annotated[
        list[str] | None,
        typer.Option(
            "--device",
            metavar="INDEX|cpu",
            help="Device index to benchmark (repeat it or use 0,1), or 'cpu'. Default: all.",
        ),
    ] = None,
    instance: Annotated[
        str | None,
        typer.Option(
            "--instance",
            metavar="TYPE",
            help="The cloud instance type this runs on (p5.48xlarge…): print what the measured "
            "matmul rate costs there (USD per TFLOP-hour, per PFLOP).",
        ),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar and no tables.")
    ] = False,
) -> None:
    """Benchmark GEMM and memory bandwidth on every visible device and judge them."""
    if ctx.invoked_subcommand is not None:
        return
    selection = _parse_devices(device)
    to_stdout = json_path is not None and str(json_path) == "-"
    _check_output(json_path, "--json", allow_stdout=True)
    _check_output(plot, "--plot")
    _check_output(html, "--html")
    _check_instance(instance)
    store = None
    if history is not None:
        from accelerators.bench.history._open import open_store

        store = open_store(None if history == "default" else history)
    try:
        # The history is also the baseline: figures without a sourced band (a CPU's memory
        # bandwidth) are judged against this node's earlier runs and the fleet's. As the gate
        # does, a store that cannot take the report (an outage, bad credentials, an
        # unwritable path) is an info reason, never a failed gate; read and append share one
        # deadline.
        report = _with_progress(
            quiet or to_stdout,
            expect=expect,
            profile=profile.value,
            devices=selection,
            **({"history": store} if store is not None else {}),
        )
    except ImportError as exc:
        fail(exc, hint='pip install "accelerators[bench]"')
    if json_path is not None:
        if to_stdout:  # ASCII JSON (non-ASCII escaped): the same data on any terminal
            sys.stdout.write(json.dumps(report.model_dump(mode="json"), indent=2) + "\n")
        else:
            from accelerators.bench import write_json

            write_json(report, json_path)
    if plot is not None:
        from accelerators.bench import plot_report

        try:
            plot_report(report, plot)
        except ImportError as exc:
            fail(exc, hint='pip install "accelerators[bench]"')
    if html is not None:
        from accelerators.bench import html_report
        from accelerators.bench.report._models import atomic_write

        atomic_write(html, html_report(report).encode("utf-8"))
    if not (quiet or to_stdout):
        print_report(report)
        for what, where in (("JSON report", json_path), ("Roofline", plot), ("HTML", html)):
            if where is not None:
                console.print(Text(f"{what}: {printable(str(where))}", style="dim"), soft_wrap=True)
        if store is not None:
            console.print(Text(f"History: {store.location}", style="dim"), soft_wrap=True)
        if instance is not None:
            print_cost(report, instance)
    elif report.verdict.value == "fail":
        print_verdict_line(report, to_stderr=True)
    if report.verdict.value == "fail":
        raise typer.Exit(code=EXIT_FAIL)


def _check_instance(instance: str | None) -> None:
    """An unknown ``--instance`` is bad input (exit 2) before anything is measured."""
    if instance is None:
        return
    from accelerators.catalog._instances import get_instance, instances
    from accelerators.errors import close_matches

    if get_instance(instance) is None:
        hint = close_matches(instance, [row.name for row in instances()])
        fail(
            f"--instance: unknown instance type {instance!r}"
            + (f"; did you mean {hint[0]!r}?" if hint else ""),
            hint="`accelerators instances SPEC` lists the instance types that carry a spec",
        )


def _check_output(path: Path | None, option: str, *, allow_stdout: bool = False) -> None:
    """Exit 2 now, before measuring, when ``path`` cannot receive a report file."""
    if path is None:
        return
    text = str(path)
    if text == "-":
        if allow_stdout:
            return
        fail(f"{option} needs a file path; '-' (stdout) is only accepted by --json")
    if path.is_dir() or text.endswith(os.sep):
        fail(f"{option} {text!r} is a directory; expected a file path")
    from accelerators.bench.report._files import target_kind

    kind = target_kind(path)
    if kind in ("a FIFO", "a character device"):  # written directly, as a shell's '>' does
        if not os.access(path, os.W_OK):
            fail(f"{option} {text!r} ({kind}) is not writable")
        return
    if kind is not None:
        fail(f"{option} {text!r} is {kind}, not a regular file; expected a file path")
    parent = Path(os.path.realpath(path)).parent  # a symlink is written through
    if not parent.is_dir():
        fail(f"{option}: directory {str(parent)!r} of {text!r} does not exist")
    if path.exists() and not os.access(path, os.W_OK):
        fail(f"{option} {text!r} is not writable")
    try:  # what the atomic write will do: a temporary file beside the target (root included)
        with tempfile.NamedTemporaryFile(dir=parent, prefix=f".{path.name}.", suffix=".probe"):
            pass
    except OSError as exc:
        fail(f"{option} {text!r} cannot be written: {exc.strerror or exc}")


def _parse_devices(values: Sequence[str] | None) -> list[int] | str | None:
    if not values:
        return None
    parts = [p.strip().lower() for v in values for p in v.split(",") if p.strip()]
    if parts in (["all"], []):
        return None
    if "cpu" in parts:
        if len(parts) > 1:
            fail(f"--device cpu cannot be combined with other devices, got {', '.join(parts)}")
        return "cpu"
    indices = []
    for part in parts:
        if not part.isdigit():
            fail(f"Expected --device to be a device index, 'cpu' or 'all', got {part!r}")
        indices.append(int(part))
    return sorted(set(indices))


def _with_progress(quiet: bool, **kwargs: Any) -> BenchReport:
    if quiet:
        return _run_benchmark(**kwargs)
    from rich.progress import (
        BarColumn,
        Progress,
        SpinnerColumn,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        SpinnerColumn(),
        TextColumn("[bold]bench[/bold] {task.description:<14}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    ) as bar:
        task = bar.add_task("starting", total=1.0)

        def update(fraction: float, phase: str) -> None:
            bar.update(task, completed=fraction, description=phase)

        return _run_benchmark(progress=update, **kwargs)
