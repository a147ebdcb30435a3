"""Complexity, sizes, duplicated places and import cycles of one or more trees, side by side.

For the shipped code (the core and each plugin) of each tree it prints one table, a column per
tree:

* **complexity** (radon's cyclomatic complexity): functions and methods, their mean, how many
  exceed 10 and 20, and the largest; ruff's C901 count over 10 (the figure issue 34 quotes);
  the longest function and the one with most parameters;
* **sizes**: modules, lines, and the modules over 400 and over 450 lines (the design card's
  ~400; issue 34's "done when" is no core module over ~450);
* **duplicated places**: the pairs the ``duplicates`` command finds in the shipped code (six
  or more lines alike), when it is on ``PATH``;
* **import cycles** (grimp, run on that tree's sources): groups of modules that import each
  other, with every import (inside functions and under ``if TYPE_CHECKING:`` too) and without
  the type-only ones (what the ``acyclic`` import-linter contract reads).

Then, per tree, the five most complex functions, the modules over 400 lines and each cycle.

radon is not in the lock (nothing else uses it): when it cannot be imported, it is installed
with pip into a folder under the temporary directory (``--radon-dir``), never into the venv.

Usage::

    python scripts/code_health.py [TREE ...]       # default: this checkout
    git archive before-34 | tar -x -C /tmp/before && python scripts/code_health.py /tmp/before .
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

#: The shipped code: (label, folder in the tree, the folder on sys.path, the package grimp reads).
PARTS = (
    ("core", "accelerators", ".", "accelerators"),
    ("flyte", "plugins/flyte/flytekitplugins", "plugins/flyte", "flytekitplugins.accelerators"),
    (
        "airflow",
        "plugins/airflow/accelerators_provider",
        "plugins/airflow",
        "accelerators_provider",
    ),
)
BIG, TOO_BIG = 400, 450

# Run in a fresh interpreter whose sys.path starts with the tree's folders: the cycles of that
# tree's sources, not of whatever this venv has installed.
_CYCLES = """
import json, sys
import grimp
def groups(graph):
    index, low, stack, on, found = {}, {}, [], set(), []
    def visit(v):
        index[v] = low[v] = len(index); stack.append(v); on.add(v)
        for w in sorted(graph.find_modules_directly_imported_by(v)):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop(); on.discard(w); group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))
    sys.setrecursionlimit(20000)
    for v in sorted(graph.modules):
        if v not in index:
            visit(v)
    return found
package = sys.argv[1]
out = {}
for key, exclude in (("all", False), ("runtime", True)):
    graph = grimp.build_graph(package, exclude_type_checking_imports=exclude, cache_dir=None)
    out[key] = groups(graph)
out["origin"] = __import__(package.split(".")[0]).__path__[0]
print(json.dumps(out))
"""


@dataclass
class Part:
    label: str
    modules: int = 0
    lines: int = 0
    blocks: list[tuple[int, str]] = field(default_factory=list)
    big: list[tuple[int, str]] = field(default_factory=list)
    c901: int | None = None
    longest: tuple[int, str] = (0, "-")
    widest: tuple[int, str] = (0, "-")
    cycles: dict[str, list[list[str]]] | None = None


@dataclass
class Tree:
    path: Path
    parts: list[Part] = field(default_factory=list)
    duplicates: str = "n/a"


def measure(tree: Path) -> Tree:
    result = Tree(tree)
    for label, folder, root, package in PARTS:
        where = tree / folder
        if not where.is_dir():
            continue
        part = Part(label)
        for path in sorted(where.rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            name = str(path.relative_to(tree))
            count = len(text.splitlines())
            part.modules += 1
            part.lines += count
            if count > BIG:
                part.big.append((count, name))
            part.blocks += _complexity(text, name)
            for size, wide, function in _functions(text, name):
                part.longest = max(part.longest, (size, function))
                part.widest = max(part.widest, (wide, function))
        part.big.sort(reverse=True)
        part.c901 = _ruff_c901(where)
        part.cycles = _cycles(tree, tree / root, package)
        result.parts.append(part)
    result.duplicates = _duplicates(tree)
    return result


def _complexity(text: str, name: str) -> list[tuple[int, str]]:
    from radon.complexity import cc_visit

    out: list[tuple[int, str]] = []
    for block in cc_visit(text):
        out.append((block.complexity, f"{name}:{block.name}"))
        out.extend(
            (m.complexity, f"{name}:{block.name}.{m.name}") for m in getattr(block, "methods", ())
        )
    return [item for item in out if item[1]]


def _functions(text: str, name: str) -> list[tuple[int, int, str]]:
    """(lines, parameters, where) of every function and method."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            params = len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs)
            size = (node.end_lineno or node.lineno) - node.lineno + 1
            found.append((size, params, f"{name}:{node.lineno} {node.name}()"))
    return found


def _ruff_c901(folder: Path) -> int | None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists() and not shutil.which(ruff):
        return None
    done = subprocess.run(
        [ruff, "check", "--isolated", "--select", "C901", "--output-format", "json", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        return len(json.loads(done.stdout))
    except ValueError:
        return None


def _cycles(tree: Path, root: Path, package: str) -> dict[str, list[list[str]]] | None:
    paths = [str(tree / r) for _, _, r, _ in PARTS]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), *paths]))
    done = subprocess.run(
        [sys.executable, "-c", _CYCLES, package],
        cwd=tempfile.gettempdir(),
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return None
    found: dict[str, list[list[str]]] = json.loads(done.stdout)
    origin = Path(str(found.pop("origin"))).resolve()
    if not origin.is_relative_to(tree.resolve()):  # pragma: no cover - an installed copy won
        return None
    return found


def _duplicates(tree: Path) -> str:
    """The first line of ``duplicates`` over a copy of the shipped code only (no tests)."""
    if not shutil.which("duplicates"):
        return "n/a (no duplicates command)"
    with tempfile.TemporaryDirectory() as scratch:
        for _, folder, _, _ in PARTS:
            if (tree / folder).is_dir():
                shutil.copytree(
                    tree / folder,
                    Path(scratch) / folder,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "data"),
                )
        done = subprocess.run(
            ["duplicates", "--repo", scratch, "--seconds", "300", "--most", "1"],
            capture_output=True,
            text=True,
            check=False,
        )
    return (done.stdout.splitlines() or ["(no output)"])[0]


def _row(label: str, values: list[str], width: int) -> str:
    return f"{label:<34}" + "".join(f"{v:>{width}}" for v in values)


def table(trees: list[Tree]) -> list[str]:
    width = max(14, *(len(t.path.name) + 2 for t in trees))
    lines = [_row("", [t.path.name or str(t.path) for t in trees], width)]
    labels = [label for label, *_ in PARTS]
    for label in labels:
        parts = [next((p for p in t.parts if p.label == label), None) for t in trees]
        if not any(parts):
            continue

        def cell(fn: object, parts: list[Part | None] = parts) -> list[str]:
            return [fn(p) if p else "-" for p in parts]  # type: ignore[operator]

        lines.append(f"-- {label}")
        lines.append(_row("modules", cell(lambda p: str(p.modules)), width))
        lines.append(_row("lines", cell(lambda p: f"{p.lines:,}"), width))
        lines.append(_row(f"modules over {BIG} lines", cell(lambda p: str(len(p.big))), width))
        lines.append(
            _row(
                f"modules over {TOO_BIG} lines",
                cell(lambda p: str(sum(n > TOO_BIG for n, _ in p.big))),
                width,
            )
        )
        lines.append(_row("largest module (lines)", cell(lambda p: _largest(p)), width))
        lines.append(_row("functions and methods", cell(lambda p: str(len(p.blocks))), width))
        lines.append(_row("mean complexity (radon)", cell(lambda p: f"{_mean(p):.2f}"), width))
        lines.append(_row("complexity > 10 (radon)", cell(lambda p: str(_over(p, 10))), width))
        lines.append(_row("complexity > 20 (radon)", cell(lambda p: str(_over(p, 20))), width))
        lines.append(
            _row(
                "max complexity (radon)",
                cell(lambda p: str(max((c for c, _ in p.blocks), default=0))),
                width,
            )
        )
        lines.append(
            _row(
                "complexity > 10 (ruff C901)",
                cell(lambda p: str(p.c901) if p.c901 is not None else "n/a"),
                width,
            )
        )
        lines.append(_row("longest function (lines)", cell(lambda p: str(p.longest[0])), width))
        lines.append(_row("most parameters", cell(lambda p: str(p.widest[0])), width))
        lines.append(
            _row("import cycles, every import", cell(lambda p: _cycle_count(p, "all")), width)
        )
        lines.append(
            _row("import cycles, runtime only", cell(lambda p: _cycle_count(p, "runtime")), width)
        )
    lines.append("-- shipped code, all parts")
    lines.append(_row("duplicated places (pairs)", [_pairs(t.duplicates) for t in trees], width))
    return lines


def _largest(part: Part) -> str:
    return str(part.big[0][0]) if part.big else f"<={BIG}"


def _mean(part: Part) -> float:
    return sum(c for c, _ in part.blocks) / max(1, len(part.blocks))


def _over(part: Part, limit: int) -> int:
    return sum(c > limit for c, _ in part.blocks)


def _cycle_count(part: Part, key: str) -> str:
    if part.cycles is None:
        return "n/a"
    groups = part.cycles[key]
    return f"{len(groups)} ({sum(map(len, groups))} mod.)"


def _pairs(line: str) -> str:
    words = line.split()
    return words[0] if words and words[0].isdigit() else ("0" if "no duplicates" in line else "?")


def details(tree: Tree) -> list[str]:
    lines = [f"== {tree.path}", f"duplicates: {tree.duplicates}"]
    for part in tree.parts:
        lines.append(f"-- {part.label}")
        lines += [f"    {c:3d} {name}" for c, name in sorted(part.blocks, reverse=True)[:5]]
        lines.append(f"    longest: {part.longest[1]}, {part.longest[0]} lines")
        lines.append(f"    most parameters: {part.widest[1]}, {part.widest[0]}")
        lines += [f"    {count} lines: {name}" for count, name in part.big]
        for key in ("all", "runtime"):
            for group in (part.cycles or {}).get(key, []):
                lines.append(f"    cycle ({key}): {' <-> '.join(group)}")
    return lines


def _ensure_radon(folder: Path) -> None:
    try:
        import radon  # noqa: F401
    except ImportError:
        if not (folder / "radon").is_dir():
            print(f"code_health: installing radon into {folder} (not the venv)", file=sys.stderr)
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--target",
                    str(folder),
                    "radon",
                ],
                check=True,
            )
        sys.path.insert(0, str(folder))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, default=[Path(__file__).parent.parent])
    parser.add_argument(
        "--radon-dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "accelerators-code-health",
        help="where radon is installed when it cannot be imported",
    )
    args = parser.parse_args(argv)
    _ensure_radon(args.radon_dir)
    trees = [measure(tree.resolve()) for tree in args.trees]
    for line in table(trees):
        print(line)
    for tree in trees:
        print()
        for line in details(tree):
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
