"""Small things a user sees (issue 30, item 8): ``list --sort``, what ``!`` means in ``parse``,
and option defaults printed as a person writes them in every ``--help``."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest

typer_testing = pytest.importorskip("typer.testing", reason="typer (the [cli] extra) is missing")

import typer.main  # noqa: E402

from accelerators import catalog  # noqa: E402
from accelerators.cli import build_app  # noqa: E402
from accelerators.cli._parse import lines  # noqa: E402
from accelerators.spec import AcceleratorSpec  # noqa: E402

WIDE = {"COLUMNS": "200"}


def run(*args: str) -> typer_testing.Result:  # type: ignore[name-defined]
    return typer_testing.CliRunner().invoke(build_app(), list(args), env=WIDE)


def _rows(*args: str) -> list[dict[str, object]]:
    result = run("list", *args, "--json")
    assert result.exit_code == 0, result.output
    rows: list[dict[str, object]] = json.loads(result.stdout)
    return rows


# -- list --sort -------------------------------------------------------------------------------
def test_sort_by_memory_puts_the_largest_first_and_keeps_the_filter() -> None:
    rows = _rows("--min-memory", "180", "--sort", "memory")
    memory = [row["memory_gb"] for row in rows]
    assert memory == sorted(memory, reverse=True)  # type: ignore[type-var]
    unsorted = _rows("--min-memory", "180")
    assert sorted(r["name"] for r in rows) == sorted(r["name"] for r in unsorted)  # type: ignore[type-var]
    assert memory != [row["memory_gb"] for row in unsorted]  # the catalog's order is another


def test_sort_ties_keep_the_catalog_order_and_reverse_flips_the_figures() -> None:
    rows = _rows("--sort", "memory", "--reverse")
    memory = [row["memory_gb"] for row in rows]
    assert memory == sorted(memory)  # type: ignore[type-var]
    order = [acc.name for acc in catalog.all()]
    for smaller, larger in itertools.pairwise(rows):
        if smaller["memory_gb"] == larger["memory_gb"]:
            assert order.index(str(smaller["name"])) < order.index(str(larger["name"]))


def test_sort_by_a_dtype_puts_entries_without_it_last() -> None:
    rows = _rows("--sort", "fp8")
    figures = [row["tflops_fp8"] for row in rows]
    known = [f for f in figures if f is not None]
    assert known == sorted(known, reverse=True)  # type: ignore[type-var]
    assert figures == [*known, *([None] * (len(figures) - len(known)))]
    assert None in figures  # the catalog has accelerators without fp8
    reversed_rows = _rows("--sort", "fp8", "--reverse")
    assert [row["tflops_fp8"] for row in reversed_rows][-1] is None  # still last


def test_sort_by_name_is_alphabetical() -> None:
    names = [str(row["name"]) for row in _rows("--vendor", "nvidia", "--sort", "name")]
    assert names == sorted(names, key=str.casefold)


def test_the_table_title_says_the_order() -> None:
    result = run("list", "--min-memory", "180", "--sort", "bandwidth")
    assert result.exit_code == 0, result.output
    assert "accelerators (catalog" in result.stdout
    assert ", by bandwidth" in result.stdout.splitlines()[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--sort", "memry"), "did you mean 'memory'?"),
        (("--reverse",), "--reverse needs --sort KEY"),
    ],
)
def test_bad_sort_arguments_exit_2_and_say_why(args: tuple[str, ...], message: str) -> None:
    result = run("list", *args)
    assert result.exit_code == 2
    assert message in result.output


# -- parse: the `!` ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "accepts"),
    [
        ("A100-80GB-SXM!", "A100-80GB-SXM only ('!' pins the SKU: not A100-80GB-PCIE)"),
        ("A100-80GB-SXM", "A100-80GB-SXM only ('!' pins the SKU: not A100-80GB-PCIE)"),
        ("MI300X!", "MI300X only ('!' pins the SKU: the only SKU of MI300X)"),
        ("A100-80GB", "A100-80GB-SXM, A100-80GB-PCIE"),
    ],
)
def test_parse_says_what_the_bang_pins(text: str, accepts: str) -> None:
    printed = lines(AcceleratorSpec.parse(text), lambda key: key)
    (row,) = [line for line in printed if line.strip().startswith("accepts")]
    assert row.split(None, 1)[1] == accepts
    result = run("parse", text)
    assert result.exit_code == 0, result.output
    assert accepts in result.stdout


# -- --help ------------------------------------------------------------------------------------
def _commands() -> list[tuple[str, ...]]:
    """Every command and subcommand's path (typer carries its own click: duck-typed)."""
    root = typer.main.get_command(build_app())
    found: list[tuple[str, ...]] = []

    def walk(command: Any, path: tuple[str, ...], ctx: Any) -> None:
        found.append(path)
        if callable(getattr(command, "list_commands", None)):  # a group, lazy: load each
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None, name
                walk(sub, (*path, name), sub.context_class(sub, parent=ctx, info_name=name))

    walk(root, (), root.context_class(root, info_name="accelerators"))
    return found


def test_no_help_prints_a_default_as_a_machine_float() -> None:
    commands = _commands()
    assert ("plan",) in commands
    ugly = re.compile(r"default: (\d+\.\d{4,}|\d{6,}\.0)\b")
    for path in commands:
        result = run(*path, "--help")
        assert result.exit_code == 0, (path, result.output)
        assert ugly.findall(result.stdout) == [], f"accelerators {' '.join(path)} --help"


def test_plan_help_names_its_defaults() -> None:
    text = " ".join(run("plan", "--help").stdout.split())
    assert "[default: 1e8]" in text
    assert "[default: 0.60: Megatron-LM's 52% of peak over the A100's measured 86.9%]" in text
