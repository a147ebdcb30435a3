"""What ``accelerators parse SPEC`` prints, and the fast path that prints it without typer.

``parse`` is the command people run to check a spec, and it should answer at once; typer,
click and rich take ~60 ms to import, more than the spec grammar itself. :func:`run_fast`
answers the plain forms, ``parse SPEC`` and ``parse --json SPEC`` (either order), before
typer is imported, and prints exactly what the typer command
(:func:`accelerators.cli._catalog.parse_spec`) prints, as ``click.echo`` writes it: the keys
bold on a terminal, ANSI codes stripped elsewhere, exit code 0. Anything else (another
option, ``--help``, a spec that starts with ``-``, a spec that fails to parse, a completion
request, output that is not ASCII) returns False without printing anything, and the typer
application handles it as before, errors and exit codes included.
``tests/test_cli_fast_parse.py`` runs both paths on many specs, good and bad.

This module imports neither typer nor rich.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from accelerators.errors import AcceleratorError

if TYPE_CHECKING:
    from accelerators.spec import AcceleratorSpec

__all__ = ["lines", "run_fast"]

#: ``click.style(text, bold=True)``: what ``typer.style`` puts around each key.
_BOLD, _RESET = "\x1b[1m", "\x1b[0m"
#: The ANSI codes ``click.echo`` strips from text it writes to anything but a terminal.
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")
#: The only option ``parse`` has besides ``--help``.
_JSON = "--json"
#: click's shell-completion request for the program ``accelerators``.
_COMPLETION_VARIABLE = "_ACCELERATORS_COMPLETE"


def lines(parsed: AcceleratorSpec, bold: Callable[[str], str]) -> list[str]:
    """The lines ``accelerators parse`` prints for ``parsed``, each key passed to ``bold``.

    :param parsed: the spec.
    :param bold: how a key is made bold (``typer.style(key, bold=True)``).
    """
    rows: list[tuple[str, str]] = [("Canonical", str(parsed))]
    for index, alternative in enumerate(parsed.alternatives):
        rows.append(("", ""))
        rows.append(("Primary" if index == 0 else f"Fallback {index}", str(alternative)))
        rows.append(("  accepts", _accepts_text(alternative)))
        rows.append(("  count", _count_text(alternative)))
        rows.append(("  partition", _partition_text(alternative)))
        rows.append(("  constant", _constant_text(alternative)))
    # Plain aligned text (bold keys on a terminal): parse answers without loading rich.
    width = max(len(key) for key, _ in rows)
    return [f"{bold(key.ljust(width))}  {value}".rstrip() if key else "" for key, value in rows]


def _accepts_text(spec: AcceleratorSpec) -> str:
    """The SKUs ``spec`` accepts; for a pinned one (``!``), what the ``!`` leaves out."""
    accepted = ", ".join(acc.name for acc in spec.candidates)
    acc = spec.accelerator
    if not accepted or acc is None or not spec.exact:
        return accepted or "nothing in the catalog"
    from accelerators import catalog

    others = [other.name for other in catalog.by_model(acc.model) if other.name != acc.name]
    left_out = f"not {', '.join(others)}" if others else f"the only SKU of {acc.model}"
    return f"{accepted} only ('!' pins the SKU: {left_out})"


def _number(value: float) -> str:
    return f"{value:g}"


def _count_text(spec: AcceleratorSpec) -> str:
    count = _number(spec.count)
    if spec.shared:
        return f"{count} shared slot{'' if spec.count == 1 else 's'} (share not stated)"
    return f"{count} (shared)" if spec.is_fractional else count


def _partition_text(spec: AcceleratorSpec) -> str:
    if spec.unpartitioned:
        return "whole device on a non-MIG node"
    profile, topology = spec.mig_profile, spec.tpu_topology
    if profile is not None:
        return (
            f"MIG {profile.profile}: {_number(profile.memory_gb)} GB, "
            f"{profile.sm_fraction:.0%} of SMs, up to {profile.max_instances} per GPU"
        )
    if topology is not None:
        return f"TPU slice {topology.topology}: {topology.chips} chips"
    return "-"


def _constant_text(spec: AcceleratorSpec) -> str:
    from accelerators.constants import constant_for

    try:
        value = constant_for(spec)
    except AcceleratorError:
        return "-"
    return f"accelerators.{value.name}" if value.name else repr(value)


def _plain_form(args: Sequence[str]) -> tuple[str, bool] | None:
    """``(spec, as_json)`` when ``args`` are ``parse SPEC`` with at most ``--json``; else None."""
    if not args or args[0] != "parse":
        return None
    rest = list(args[1:])
    as_json = len(rest) == 2 and _JSON in rest
    if as_json:
        rest.remove(_JSON)
    if len(rest) != 1 or rest[0].startswith("-"):  # an option, or "-": click's to read
        return None
    return rest[0], as_json


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except Exception:  # as click's isatty(): a stream that cannot say is not a terminal
        return False


def run_fast(args: Sequence[str]) -> bool:
    """Print what ``accelerators parse`` prints for ``args`` and return True, or print nothing
    and return False when typer must handle ``args`` (see the module's docstring).

    :param args: the command line without the program name.
    :raises SystemExit: 130 on an interrupt; 74 when stdout is a closed pipe (where
        :func:`~accelerators.cli._output.guard_streams` did not take it).
    """
    plain = _plain_form(args)
    stdout: TextIO | None = sys.stdout
    if plain is None or stdout is None or os.name == "nt" or _COMPLETION_VARIABLE in os.environ:
        return False
    text, as_json = plain
    # No collections while the core and pydantic are imported and the catalog is built: each
    # pass would walk again the ~28,000 objects they create, none of them garbage.
    collecting = gc.isenabled()
    gc.disable()
    try:
        try:
            from accelerators.spec import AcceleratorSpec

            parsed = AcceleratorSpec.parse(text)
            if as_json:
                out = [parsed.model_dump_json()]
            else:
                out = lines(parsed, lambda key: f"{_BOLD}{key}{_RESET}")
        except Exception:  # typer's path gives the error (or the result) itself
            return False
        message = "".join(line + "\n" for line in out)
        if not message.isascii():  # click may re-encode a misconfigured stream: let it
            return False
        # click.echo strips ANSI codes from what it writes to anything but a terminal.
        if not _isatty(stdout) and not type(stdout).__module__.startswith("ipykernel."):
            message = _ANSI.sub("", message)
        stdout.write(message)
        stdout.flush()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        # Quietly, with the code of lost output: what is left in stdout's buffer goes
        # nowhere, and the interpreter's last flush does not report the closed pipe.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
        raise SystemExit(74) from None
    finally:
        if collecting:
            gc.enable()
    return True
