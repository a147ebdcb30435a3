"""Shared plumbing for the ``accelerators`` command modules.

A command module (``accelerators.cli._catalog``, ``_bench``, ``_k8s``) is named for each of
its commands in ``accelerators.cli.COMMANDS`` (with the line ``--help`` shows) and exposes
``register(app: typer.Typer) -> None``; it is imported only when one of its commands runs.
Inside it:

* print results with :data:`console` (stdout) and diagnostics with :data:`err_console`;
* decorate each command function with :func:`guarded` (under ``@app.command()``): an
  :class:`~accelerators.errors.AcceleratorError` raised for bad input (unknown name, bad
  spec) then ends the command with the error's message on stderr (caret line included),
  exit code :data:`EXIT_BAD_INPUT` (2) and no traceback;
* call :func:`fail` for bad input the command detects itself;
* print machine-readable output with :func:`print_json` (plain JSON on stdout, never
  coloured or wrapped);
* import heavy optional dependencies (torch, kubernetes) inside the command function, so
  that ``accelerators --help`` and the other commands work without them; when one is
  missing, ``fail(...)`` with the ``pip install "accelerators[<extra>]"`` line.

Example::

    import typer

    from accelerators import catalog
    from accelerators.cli._common import console, guarded


    def register(app: typer.Typer) -> None:
        app.command("memory")(memory)


    @guarded
    def memory(name: str) -> None:
        console.print(f"{catalog.get(name).memory_gb:g} GB")
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn, ParamSpec, TypeVar

import typer

from accelerators.errors import AcceleratorError

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["EXIT_BAD_INPUT", "console", "err_console", "fail", "guarded", "print_json"]

#: Exit code for bad input, the same code click uses for usage errors.
EXIT_BAD_INPUT = 2

console: Console
"""Results go to stdout (created on first use: rich loads only for commands that print
with it)."""
err_console: Console
"""Errors and warnings go to stderr (created on first use)."""

_CONSOLES: dict[str, Console] = {}


def __getattr__(name: str) -> Any:
    if name not in ("console", "err_console"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name not in _CONSOLES:
        from rich.console import Console

        _CONSOLES[name] = Console(stderr=name == "err_console", highlight=False)
    return _CONSOLES[name]


P = ParamSpec("P")
R = TypeVar("R")


def fail(problem: BaseException | str, *, hint: str | None = None) -> NoReturn:
    """Print ``problem`` as a one-screen error on stderr and exit with code 2.

    The message is printed verbatim (no markup, no wrapping), so a caret line under a
    spec stays aligned.

    :param problem: the error, or a message.
    :param hint: an optional line to add, such as the command that would work.
    :raises typer.Exit: always, with :data:`EXIT_BAD_INPUT`.
    """
    from rich.text import Text

    stderr = __getattr__("err_console")
    message = Text("error: ", style="bold red") + Text(str(problem))
    stderr.print(message, soft_wrap=True)
    if hint:
        stderr.print(Text(hint, style="dim"), soft_wrap=True)
    raise typer.Exit(code=EXIT_BAD_INPUT)


def guarded(command: Callable[P, R]) -> Callable[P, R]:
    """Turn an :class:`AcceleratorError` raised by ``command`` into :func:`fail`.

    The wrapper keeps ``command``'s signature, which typer reads for the options.

    :param command: a typer command function.
    """

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except AcceleratorError as exc:
            fail(exc)

    return wrapper


def print_json(data: Any) -> None:
    """Write ``data`` as indented JSON on stdout, for scripts (no colour, no wrapping).

    :param data: anything :func:`json.dumps` accepts.
    """
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
