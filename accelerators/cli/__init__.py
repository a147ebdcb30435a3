"""The ``accelerators`` command line: ``accelerators list``, ``show``, ``parse`` and more.

It needs the ``[cli]`` extra (typer and rich); without it, :func:`main` says how to install
it and exits with code 2. Importing this package imports neither.

**Commands load lazily.** :data:`COMMANDS` names each command, the module that defines it
and the one line ``accelerators --help`` shows for it; a command's module is imported only
when that command runs (or its own ``--help`` is asked for), so ``accelerators parse`` does not
pay for the sizing tables, the Kubernetes translators or the benchmark. Each module exposes
``register(app: typer.Typer) -> None`` and uses the helpers in
:mod:`accelerators.cli._common` for output and errors. Adding a command is one entry in
:data:`COMMANDS` (``tests/test_cli_catalog.py`` checks that every entry's line is the
command's own first docstring line). A listed module that does not exist in this tree is
skipped; one that fails to import for another missing module raises when its command runs.
"""

# No ``from __future__ import annotations``: typer reads the root callback's annotations at
# run time, and they refer to ``typer``, which is imported inside build_app().
import importlib
import importlib.util
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

if TYPE_CHECKING:
    import typer

__all__ = ["COMMANDS", "Command", "build_app", "main"]


class Command(NamedTuple):
    """Where a command lives and what the root ``--help`` says about it."""

    module: str
    help: str


#: Every command, in help order: name -> (module exposing ``register(app)``, help line).
COMMANDS: dict[str, Command] = {
    "list": Command(
        "accelerators.cli._catalog", "List catalog accelerators with their headline figures."
    ),
    "show": Command(
        "accelerators.cli._catalog",
        "Show one accelerator: figures with sources, partitions, names on other systems.",
    ),
    "parse": Command(
        "accelerators.cli._catalog",
        "Show what a spec resolves to: canonical form, accepted SKUs, count, partition.",
    ),
    "k8s": Command(
        "accelerators.cli._k8s",
        "Print a Pod manifest (YAML or JSON) that places SPEC on a Kubernetes platform.",
    ),
    "recommend": Command(
        "accelerators.cli._sizing",
        "Estimate a workload's memory and rank the accelerator specs that hold it.",
    ),
    "instances": Command(
        "accelerators.cli._sizing",
        "List the instance types that carry SPEC, with their known hourly prices.",
    ),
    "bench": Command(
        "accelerators.cli._bench",
        "Benchmark GEMM and memory bandwidth on every visible device and judge them.",
    ),
    "plan": Command(
        "accelerators.cli._plan",
        "Rank where to run a fine-tune by total cost or time, within a budget and a deadline.",
    ),
    "prices": Command(
        "accelerators.cli._prices",
        "Price tables: live refresh (AWS, Azure, GCP), age audit, coverage per cloud.",
    ),
    "catalog": Command("accelerators.cli._catalog_audit", "The catalog data file itself."),
    "flyte": Command("accelerators.cli._flyte", "Flyte workflows: check accelerator use."),
}

#: The entry the fast path of ``parse`` stands for (main() takes it only while it is listed).
_PARSE = COMMANDS["parse"]

_CLI_REQUIREMENTS: tuple[str, ...] = ("typer", "rich")

_CLI_IMPORT_ERROR_MESSAGE = (
    "The accelerators command line needs the [cli] extra ({missing} is not installed). "
    'Install it with: pip install "accelerators[cli]"'
)


def _available(module_name: str) -> bool:
    """Whether ``module_name`` exists in this tree (without importing it)."""
    try:
        return importlib.util.find_spec(module_name) is not None
    except ModuleNotFoundError:
        return False


def _lazy_group_class() -> Any:
    """The root group class: typer's, with the :data:`COMMANDS` it was not given added as
    lazy stand-ins (built here so that importing this package imports no typer)."""
    import typer
    from typer.core import TyperCommand, TyperGroup

    loaded: dict[str, Any] = {}

    def load(name: str, module_name: str) -> Any:
        """The real click command ``name``, registered by its module on a scratch app."""
        if name not in loaded:
            scratch = typer.Typer(add_completion=False)
            importlib.import_module(module_name).register(scratch)
            group = typer.main.get_group(scratch)
            for command_name, command in group.commands.items():
                loaded.setdefault(command_name, command)
        return loaded[name]

    class LazyCommand(TyperCommand):
        """Stands in for a command until it runs: help line only, module not imported."""

        def __init__(self, name: str, entry: Command):
            super().__init__(name=name, help=entry.help, short_help=entry.help)
            self.command_name = name
            self.entry = entry

        def real(self) -> Any:
            return load(self.command_name, self.entry.module)

        def make_context(self, info_name: Any, args: Any, parent: Any = None, **extra: Any) -> Any:
            return self.real().make_context(info_name, args, parent=parent, **extra)

        def invoke(self, ctx: Any) -> Any:
            return self.real().invoke(ctx)

        def shell_complete(self, ctx: Any, incomplete: str) -> Any:
            return self.real().shell_complete(ctx, incomplete)

    class LazyGroup(TyperGroup):
        def __init__(self, **kwargs: Any):
            super().__init__(**kwargs)
            for name, entry in COMMANDS.items():
                if name not in self.commands and _available(entry.module):
                    self.commands[name] = LazyCommand(name, entry)

    return LazyGroup


def build_app() -> "typer.Typer":
    """Create the typer application; every command of :data:`COMMANDS` whose module exists is
    listed, and its module is imported only when the command runs.

    :raises ModuleNotFoundError: typer or rich is missing; when a command runs, its module
        failed to import for another missing module than itself.
    """
    import typer

    from accelerators import __version__

    app = typer.Typer(
        name="accelerators",
        cls=_lazy_group_class(),
        help="Accelerator catalog, spec grammar, Kubernetes placement and benchmark gate.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_show_locals=False,
    )

    def show_version(value: bool) -> None:
        if value:
            from accelerators import catalog

            typer.echo(f"accelerators {__version__} (catalog {catalog.catalog_version()})")
            raise typer.Exit()

    @app.callback()
    def root(
        version: Annotated[
            bool,
            typer.Option(
                "--version",
                is_eager=True,
                callback=show_version,
                help="Print the package and catalog versions and exit.",
            ),
        ] = False,
    ) -> None:
        """Accelerator catalog, spec grammar, Kubernetes placement and benchmark gate."""

    return app


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``accelerators = "accelerators.cli:main"``).

    :param argv: arguments without the program name; ``sys.argv[1:]`` when ``None``.
    """
    from accelerators.cli._output import guard_streams, output_lost

    # Any terminal encoding, a closed stdout, a reader gone: never an exception, and an exit
    # code that still means the command's own outcome (accelerators.cli._output).
    guard_streams()
    missing = [name for name in _CLI_REQUIREMENTS if importlib.util.find_spec(name) is None]
    if missing:
        print(_CLI_IMPORT_ERROR_MESSAGE.format(missing=" and ".join(missing)), file=sys.stderr)
        raise SystemExit(2)
    args = list(argv) if argv is not None else sys.argv[1:]
    code: object = 0
    if COMMANDS.get("parse") == _PARSE:
        # ``parse SPEC`` answers before typer is imported, with the same output; anything it
        # does not take (options, errors, help) goes to typer (accelerators.cli._parse).
        from accelerators.cli._parse import run_fast

        if run_fast(args):
            if argv is None:
                # The program ends here, and what is alive now stays alive until it does:
                # frozen, it is not walked again by the collections the interpreter runs as
                # it shuts down (~20 ms of this ~130 ms command, benchmarks/cli_latency.py).
                import gc

                gc.freeze()
            raise SystemExit(_lost_output() if output_lost() else 0)
    app = build_app()
    try:
        app(args=list(argv) if argv is not None else None, prog_name="accelerators")
    except SystemExit as exit_:
        code = exit_.code
    if code in (0, None) and output_lost():
        code = _lost_output()
    raise SystemExit(code)


def _lost_output() -> int:
    """Say that stdout took nothing; :data:`~accelerators.cli._output.EXIT_OUTPUT`."""
    from accelerators.cli._output import EXIT_OUTPUT

    print(
        "error: the output could not be written (stdout is closed or its reader has gone)",
        file=sys.stderr,
    )
    return EXIT_OUTPUT
