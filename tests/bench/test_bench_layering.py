"""accelerators.bench stays layered: no import cycles (lazy imports included), small phases."""

from __future__ import annotations

import ast
from pathlib import Path

import accelerators.bench

PACKAGE = Path(accelerators.bench.__file__).parent
#: The run, split one module per phase over a shared context (issue 11).
PHASES = (
    "_run",
    "_session",
    "_context",
    "_select",
    "_warmup",
    "_gemm_phase",
    "_stream_phase",
    "_thread_phase",
    "_judge",
)


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
        for name in names:
            if name.startswith("accelerators.bench."):
                module = name.split(".")[2]
                if (PACKAGE / f"{module}.py").exists():
                    found.add(module)
    return found


def test_no_import_cycles() -> None:
    graph = {p.stem: _imports(p) - {p.stem} for p in PACKAGE.glob("*.py")}
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
    assert "_run" in graph
    assert graph["_context"].isdisjoint(PHASES)  # phases depend on the context, not back


def test_phase_modules_are_small() -> None:
    for name in PHASES:
        lines = len((PACKAGE / f"{name}.py").read_text(encoding="utf-8").splitlines())
        assert lines <= 300, f"{name}.py has {lines} lines"


def test_gemm_and_torch_modules_are_small() -> None:
    """The GEMM search and the torch backend were split (issue 11): each stays under 400."""
    for name in ("_gemm", "_gemm_shapes", "_torch_backend", "_torch_gemm", "_torch_stream"):
        lines = len((PACKAGE / f"{name}.py").read_text(encoding="utf-8").splitlines())
        assert lines <= 400, f"{name}.py has {lines} lines"
