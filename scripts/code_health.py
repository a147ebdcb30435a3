"""Complexity and size figures of a tree, for comparing two versions side by side (issue 24).

Prints, for the core and each plugin, the number of functions and methods, their mean cyclomatic
complexity, how many exceed 10 and 20, the five most complex, and the modules over 400 lines;
then the count of duplicated places from the ``duplicates`` command when it is on ``PATH``.
Needs radon (``pip install radon``; not part of the lock, since nothing else uses it).

Usage::

    python scripts/code_health.py [TREE ...]       # default: this checkout
    git archive REV | tar -x -C /tmp/before && python scripts/code_health.py /tmp/before .
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

PARTS = ("accelerators", "plugins/flyte/flytekitplugins", "plugins/airflow/accelerators_provider")


def blocks(folder: Path) -> list[tuple[int, str]]:
    from radon.complexity import cc_visit

    out: list[tuple[int, str]] = []
    for path in sorted(folder.rglob("*.py")):
        for block in cc_visit(path.read_text(encoding="utf-8")):
            out.append((block.complexity, f"{path.relative_to(folder.parent)}:{block.name}"))
            out.extend(
                (m.complexity, f"{path.relative_to(folder.parent)}:{block.name}.{m.name}")
                for m in getattr(block, "methods", ())
            )
    return out


def report(tree: Path) -> None:
    print(f"== {tree}")
    for part in PARTS:
        folder = tree / part
        if not folder.is_dir():
            continue
        found = blocks(folder)
        mean = sum(c for c, _ in found) / max(1, len(found))
        lines = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in folder.rglob("*.py")}
        big = sorted(((n, p) for p, n in lines.items() if n > 400), reverse=True)
        print(
            f"{part}: {len(lines)} modules, {sum(lines.values()):,} lines, {len(found)} blocks, "
            f"mean complexity {mean:.2f}, >10: {sum(c > 10 for c, _ in found)}, "
            f">20: {sum(c > 20 for c, _ in found)}"
        )
        for complexity, name in sorted(found, reverse=True)[:5]:
            print(f"    {complexity:3d} {name}")
        for count, path in big:
            print(f"    {count} lines: {path.relative_to(tree)}")
    if shutil.which("duplicates"):
        done = subprocess.run(
            ["duplicates", "--repo", str(tree), "--seconds", "180", "--most", "1"],
            capture_output=True,
            text=True,
            check=False,
        )
        print("duplicates:", (done.stdout.splitlines() or ["(no output)"])[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, default=[Path(__file__).parent.parent])
    args = parser.parse_args(argv)
    try:
        import radon  # noqa: F401
    except ImportError:
        sys.exit("code_health: radon is not installed (pip install radon)")
    for tree in args.trees:
        report(tree.resolve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
