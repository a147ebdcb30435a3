"""The ``accelerators`` command line: ``accelerators list``, ``show``, ``parse`` and more.

It needs the ``[cli]`` extra (typer and rich); without it, :func:`main` says how to install
it and exits with code 2. Importing this package imports neither.

Commands live in the modules named by :data:`_COMMAND_MODULES`; each exposes
``register(app: typer.Typer) -> None`` and uses the helpers in
:mod:`accelerators.cli._common` for output and errors. A listed module that does not exist
in this tree is skipped.
"""

# No ``from __future__ import annotations``: typer reads the root callback's annotations at
# run time, and they refer to ``typer``, which is imported inside build_app().
import importlib
import importlib.util
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

if TYPE_CHECKING:
    import typer

__all__ = ["build_app", "main"]

#: Modules that add commands, in help order; each exposes ``register(app)``.
_COMMAND_MODULES: tuple[str, ...] = (
    "accelerators.cli._catalog",
    "accelerators.cli._catalog_audit",
    "accelerators.cli._bench",
    "accelerators.cli._k8s",
    "accelerators.cli._sizing",
    "accelerators.cli._flyte",
)

_CLI_REQUIREMENTS: tuple[str, ...] = ("typer", "rich")

_CLI_IMPORT_ERROR_MESSAGE = (
    "The accelerators command line needs the [cli] extra ({missing} is not installed). "
    'Install it with: pip install "accelerators[cli]"'
)


def build_app() -> "typer.Typer":
    """Create the typer application with every available command module registered.

    :raises ModuleNotFoundError: typer or rich is missing, or a command module fails to
        import for another missing module than itself.
    """
    import typer

    from accelerators import __version__

    app = typer.Typer(
        name="accelerators",
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

    for module_name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        module.register(app)
    return app


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``accelerators = "accelerators.cli:main"``).

    :param argv: arguments without the program name; ``sys.argv[1:]`` when ``None``.
    """
    missing = [name for name in _CLI_REQUIREMENTS if importlib.util.find_spec(name) is None]
    if missing:
        print(_CLI_IMPORT_ERROR_MESSAGE.format(missing=" and ".join(missing)), file=sys.stderr)
        raise SystemExit(2)
    app = build_app()
    app(args=list(argv) if argv is not None else None, prog_name="accelerators")
