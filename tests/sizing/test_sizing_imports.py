"""No import cycle runs through ``accelerators.sizing``, type-only imports included.

The ``acyclic`` import-linter contract in ``pyproject.toml`` reads the graph without the
imports under ``if TYPE_CHECKING:``, so a cycle made only of them passes it: ``_plan`` and
``_plan_report`` imported each other that way until issue 34 (the plan's HTML is now
:func:`accelerators.sizing.plan_html`, a view above :class:`~accelerators.sizing.Plan`, as
the bench's ``html_report(report)``). This test builds the graph with every import (module
level, inside functions, and type-only) and fails on any strongly connected group of modules
that holds one of sizing's, naming a cycle. The core's top level has its own check
(``tests/test_layers.py``).
"""

from __future__ import annotations

import copy
import functools

import grimp
import pytest

SIZING = "accelerators.sizing"


@functools.cache
def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("accelerators", exclude_type_checking_imports=False, cache_dir=None)


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The groups of two or more modules that import each other, directly or not (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def sizing_cycles(graph: grimp.ImportGraph) -> list[str]:
    """One line per cycle that holds a module of sizing: the group, and one cycle through it."""
    lines = []
    for group in cycles(graph):
        inside = [m for m in group if m == SIZING or m.startswith(SIZING + ".")]
        if not inside:
            continue
        first = inside[0]
        back = min(
            (
                graph.find_shortest_chain(importer=m, imported=first) or ()
                for m in graph.find_modules_directly_imported_by(first)
                if m in group
            ),
            key=len,
        )
        lines.append(f"{' <-> '.join(group)}: {first} -> {' -> '.join(back)}")
    return lines


def test_no_import_cycle_holds_a_module_of_sizing() -> None:
    found = sizing_cycles(_graph())
    assert not found, "import cycles through accelerators.sizing:\n" + "\n".join(found)


def test_the_graph_has_the_type_only_and_the_function_level_imports() -> None:
    graph = _graph()
    # `_plan_rank` imports PlanOption only under `if TYPE_CHECKING:`.
    assert graph.direct_import_exists(
        importer=f"{SIZING}._plan_rank", imported=f"{SIZING}._plan_types"
    )
    # `_plan_inputs` imports the AWS refresher's cache only inside a function.
    assert graph.direct_import_exists(importer=f"{SIZING}._plan_inputs", imported=f"{SIZING}.aws")


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        (f"{SIZING}._plan_types", f"{SIZING}._plan_report"),  # the old Plan.to_html()
        (f"{SIZING}._plan_types", f"{SIZING}._plan_explain"),  # the old Plan.summary()
        (f"{SIZING}._memory", SIZING),  # a module that imports its own package
    ],
)
def test_a_cycle_is_found_and_named(importer: str, imported: str) -> None:
    graph = copy.deepcopy(_graph())
    graph.add_import(importer=importer, imported=imported)
    found = sizing_cycles(graph)
    assert len(found) == 1, found
    assert importer in found[0]
    assert imported in found[0]
