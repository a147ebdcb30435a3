"""Performance bar: how long the quick profile of ``accelerators bench`` takes, end to end.

Runs the real command (``python -m accelerators.cli bench --profile quick --json ...``) in a
fresh interpreter ``--runs`` times, one after the other, and prints for each run the wall time
of the whole command (interpreter start and torch import included) and the report's own
``elapsed_s``. The bar: every run finishes within ``--bar`` seconds (15 s on the 2-vCPU
development VM). Unlike the other bars this one is an absolute time, so it prints the spread
over the runs and the ratio of the slowest run to the bar.

Usage::

    python benchmarks/quick_duration.py --runs 5 [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def one_run(report_path: Path) -> tuple[float, float, str]:
    """Run the command once; return (wall seconds, report elapsed_s, verdict)."""
    command = [sys.executable, "-m", "accelerators.cli", "bench", "--profile", "quick"]
    command += ["--json", str(report_path)]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"accelerators bench failed with exit code {done.returncode}:\n{done.stderr}")
    report = json.loads(report_path.read_text())
    return wall, float(report["elapsed_s"]), str(report["verdict"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bar", type=float, default=15.0, help="seconds per run (default 15)")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args(argv)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for index in range(args.runs):
            wall, elapsed, verdict = one_run(Path(tmp, f"report{index}.json"))
            rows.append(
                {"run": index + 1, "wall_s": wall, "elapsed_s": elapsed, "verdict": verdict}
            )
            print(f"run {index + 1}: {wall:6.2f} s wall, elapsed_s {elapsed:6.2f} s, {verdict}")

    walls = [row["wall_s"] for row in rows]
    slowest = max(walls)
    print(
        f"wall: median {statistics.median(walls):.2f} s [min {min(walls):.2f}, max {slowest:.2f}]; "
        f"slowest / bar = {slowest / args.bar:.3f}; "
        f"bar (every run <= {args.bar:g} s): {'met' if slowest <= args.bar else 'NOT met'}"
    )
    if args.json:
        args.json.write_text(json.dumps({"bar_s": args.bar, "runs": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
