"""accelerators.bench stays layered: no import cycles (lazy imports included), small modules.

The floors between its subpackages are import-linter contracts (``pyproject.toml``); this test
also follows the imports inside functions and under ``TYPE_CHECKING`` between modules.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import accelerators.bench

PACKAGE = Path(accelerators.bench.__file__).parent
ROOT = PACKAGE.parent.parent
#: The run, split one module per phase over a shared context (issue 11).
PHASES = (
    "accelerators/bench/runner/_run.py",
    "accelerators/bench/runner/_session.py",
    "accelerators/bench/device/_context.py",
    "accelerators/bench/runner/_select.py",
    "accelerators/bench/runner/_warmup.py",
    "accelerators/bench/runner/_gemm_phase.py",
    "accelerators/bench/runner/_stream_phase.py",
    "accelerators/bench/runner/_thread_phase.py",
    "accelerators/bench/judge/_judge.py",
)
CONTEXT = "accelerators/bench/device/_context.py"
#: The GEMM search and the torch backend were split (issue 11): each stays under 400 lines.
SPLIT = (
    "accelerators/bench/measure/_gemm.py",
    "accelerators/bench/measure/_gemm_shapes.py",
    "accelerators/bench/torch_backend/_backend.py",
    "accelerators/bench/torch_backend/_gemm.py",
    "accelerators/bench/torch_backend/_stream.py",
)


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(path: Path) -> set[str]:
    """Every accelerators.bench module ``path`` imports, at any depth (TYPE_CHECKING too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found |= {name for name in names if name in MODULES and name != "accelerators.bench"}
    return found


def test_no_import_cycles() -> None:
    graph = {name: _imports(path) - {name} for name, path in MODULES.items()}
    visiting: list[str] = []
    done: set[str] = set()

    def visit(module: str) -> None:
        if module in done:
            return
        assert module not in visiting, f"import cycle: {' -> '.join([*visiting, module])}"
        visiting.append(module)
        for target in sorted(graph.get(module, ())):
            visit(target)
        visiting.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)
    phases = {_name(ROOT / p) for p in PHASES} - {_name(ROOT / CONTEXT)}
    assert phases <= set(graph)
    assert graph[_name(ROOT / CONTEXT)].isdisjoint(phases)  # phases use the context, not back


def test_phase_modules_are_small() -> None:
    for path in PHASES:
        lines = len((ROOT / path).read_text(encoding="utf-8").splitlines())
        assert lines <= 300, f"{path} has {lines} lines"


def test_gemm_and_torch_modules_are_small() -> None:
    for path in SPLIT:
        lines = len((ROOT / path).read_text(encoding="utf-8").splitlines())
        assert lines <= 400, f"{path} has {lines} lines"


def _floors() -> list[set[str]]:
    """The bench's floors, top-down, as the ``bench-layers`` contract in pyproject.toml says."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = (
        c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "bench-layers"
    )
    assert contract["containers"] == ["accelerators.bench"]
    return [{name.strip() for name in floor.split("|")} for floor in contract["layers"]]


def test_every_module_lives_in_a_subpackage_on_a_floor() -> None:
    """No flat module beside ``__init__``: each part of the bench has its folder and floor."""
    flat = sorted(p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    assert flat == [], f"flat modules in accelerators/bench: {flat}"
    folders = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert folders == set().union(*_floors())


def test_imports_go_down_the_floors_type_checking_and_lazy_ones_too() -> None:
    """import-linter reads the contract without TYPE_CHECKING imports; this reads them all."""
    floor_of = {part: i for i, floor in enumerate(_floors()) for part in floor}
    upward = []
    for name, path in MODULES.items():
        if name == "accelerators.bench":
            continue
        part = name.split(".")[2]
        for target in _imports(path):
            other = target.split(".")[2]
            if other != part and floor_of[other] <= floor_of[part]:
                upward.append(f"{name} -> {target}")
    assert upward == []
