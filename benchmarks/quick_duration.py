"""Performance bar: how long the quick profile of ``accelerators bench`` takes, end to end.

Runs the real command (``python -m accelerators.cli bench --profile quick --json ...``) in a
fresh interpreter ``--runs`` times, one after the other, and prints for each run the wall time
of the whole command (interpreter start and torch import included), the report's own
``elapsed_s``, the verdict, whether a phase was cut at its hard deadline, and the host's load
during the run (the share of the CPUs other processes used, from ``/proc/stat`` minus the
command's own CPU time, and the 1-minute load average). The bar: every run finishes within
``--bar`` seconds (10 s on a quiet 2-vCPU host, issue 23). Unlike the other bars this one is an
absolute time, so it prints the spread over the runs, the ratio of the slowest run to the bar,
and how busy the host was: a run on a busy host says little about the bar.

Bytecode is written to a temporary ``PYTHONPYCACHEPREFIX`` by a first untimed run per tree
(``PYTHONDONTWRITEBYTECODE`` is dropped for the commands), as an installed package has it.

With ``--compare-root`` (another tree, e.g. main exported with ``git archive``) every run of
this tree is paired with a run of that one, alternating which goes first: before and after
side by side.

Usage::

    python benchmarks/quick_duration.py --runs 20 [--compare-root /tmp/main] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from _host import describe_host  # noqa: E402

from accelerators.bench.device._contention import conditions, snapshot  # noqa: E402


def one_run(root: Path, report_path: Path, cache: str) -> dict[str, Any]:
    """Run the command once from ``root``; its wall time, report figures and host load."""
    command = [sys.executable, "-m", "accelerators.cli", "bench", "--profile", "quick"]
    command += ["--device", "cpu", "--json", str(report_path)]
    # With bytecode, as an installed package has it (torch's import is seconds without).
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONPYCACHEPREFIX=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("ACCELERATORS_BENCH_HISTORY", None)
    before = snapshot(children=True)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = snapshot(children=True)
    if done.returncode not in (0, 1):
        sys.exit(f"accelerators bench failed with exit code {done.returncode}:\n{done.stderr}")
    report = json.loads(report_path.read_text())
    others = conditions(before, after).get("others_cpu", 0.0)
    codes = [r["code"] for r in report["reasons"]]
    return {
        "wall_s": wall,
        "elapsed_s": float(report["elapsed_s"]),
        "verdict": str(report["verdict"]),
        "cut_short": codes.count("phase_cut_short"),
        # What a warn or fail rests on: on a quiet host a warn is a false alarm worth reading.
        "raised": sorted({r["code"] for r in report["reasons"] if r["severity"] != "info"}),
        "others_cpu": others,
        "load_1m": os.getloadavg()[0],
    }


def raised(row: dict[str, Any]) -> str:
    return f" ({', '.join(row['raised'])})" if row["raised"] else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--bar", type=float, default=10.0, help="seconds per run (default 10)")
    parser.add_argument("--compare-root", type=Path, help="another tree to pair every run with")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args(argv)

    print(describe_host(), flush=True)
    trees = [("after", ROOT)] + ([("before", args.compare_root)] if args.compare_root else [])
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in trees}
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as cache:
        for _, root in trees:  # writes the bytecode; not timed
            one_run(root, Path(tmp, "warm.json"), cache)
        for index in range(args.runs):
            order = trees if index % 2 == 0 else trees[::-1]
            for name, root in order:
                row = one_run(root, Path(tmp, f"{name}{index}.json"), cache)
                rows[name].append(row)
                print(
                    f"run {index + 1:>2} {name:<6} {row['wall_s']:6.2f} s wall, elapsed_s "
                    f"{row['elapsed_s']:6.2f} s, {row['verdict']}{raised(row)}, "
                    f"cut {row['cut_short']}; "
                    f"others_cpu {row['others_cpu']:.0%}, load {row['load_1m']:.2f}",
                    flush=True,
                )
    for name, _ in trees:
        walls = [row["wall_s"] for row in rows[name]]
        slowest = max(walls)
        within = sum(1 for w in walls if w <= args.bar)
        print(
            f"{name}: wall median {statistics.median(walls):.2f} s [min {min(walls):.2f}, max "
            f"{slowest:.2f}]; {within}/{len(walls)} within {args.bar:g} s; slowest / bar = "
            f"{slowest / args.bar:.3f}: bar {'met' if within == len(walls) else 'NOT met'}"
        )
    if len(trees) == 2:
        pairs = [
            a["wall_s"] / b["wall_s"] for a, b in zip(rows["after"], rows["before"], strict=True)
        ]
        print(
            f"after / before wall, per pair: median {statistics.median(pairs):.3f} "
            f"[{min(pairs):.3f}, {max(pairs):.3f}]"
        )
    others = [row["others_cpu"] for r in rows.values() for row in r]
    loads = [row["load_1m"] for r in rows.values() for row in r]
    print(
        f"host: others_cpu median {statistics.median(others):.0%} [max {max(others):.0%}], "
        f"load_1m {min(loads):.2f}-{max(loads):.2f} (the bar is for a quiet host)"
    )
    if args.json:
        args.json.write_text(json.dumps({"bar_s": args.bar, "runs": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
