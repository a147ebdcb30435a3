"""Performance bar: how fast the command line answers, side by side with ``python -c pass``.

Runs, in fresh interpreters and in alternating order round after round:

* ``python -c pass`` (the interpreter's own start, the floor),
* ``accelerators parse H100:8`` and ``accelerators --help`` from this tree,
* the same two commands from another tree (``--compare-root``, e.g. main exported with
  ``git archive``), when given: before and after, measured in the same rounds,
* three reference points in a plain interpreter: pydantic alone (``BaseModel`` imported and
  one model class defined: what any process that holds a catalog record pays),
  ``AcceleratorSpec.parse("H100:8")`` alone (the core's spec and catalog, pydantic included),
  and the same after importing typer. ``parse`` can come in under the second: its fast path
  (``accelerators.cli._parse``) runs without cyclic collections and freezes the heap before
  the process ends, which a plain interpreter does not,

each with bytecode (``PYTHONPYCACHEPREFIX`` in a temporary directory, warmed by a first
untimed round, and ``PYTHONDONTWRITEBYTECODE`` unset, as an installed package has) and each
tree with its own catalog cache (``ACCELERATORS_CACHE_DIR``, also warmed by that round), and
prints per command the median and minimum wall time, the median CPU time, the ratio to
``python -c pass`` and the host's load while it ran (the 1-minute load average and the share
of the CPUs other processes used: on a shared machine only the side-by-side ratios travel).
The bars (issue 23): ``parse`` under 150 ms and ``--help`` under 200 ms of wall time.

Usage::

    python benchmarks/cli_latency.py --rounds 15 [--compare-root /tmp/main] [--json out.json]
    python benchmarks/cli_latency.py --python /tmp/cli-venv/bin/python   # only [cli]'s packages
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from _host import describe_host  # noqa: E402

from accelerators.bench.device._contention import conditions, snapshot  # noqa: E402

#: The console script's body, run from a given tree (``-c`` puts no directory on sys.path:
#: PYTHONPATH names the tree).
_ENTRY = "import sys; sys.argv[0] = 'accelerators'; from accelerators.cli import main; main()"
_SPEC = "from accelerators.spec import AcceleratorSpec; AcceleratorSpec.parse('H100:8')"
_PYDANTIC = (
    "from pydantic import BaseModel\nclass Model(BaseModel, defer_build=True):\n    x: int = 1"
)
BARS_S = {"parse": 0.150, "help": 0.200}


def commands(compare: Path | None, py: str) -> dict[str, tuple[list[str], Path | None]]:
    out: dict[str, tuple[list[str], Path | None]] = {"python -c pass": ([py, "-c", "pass"], None)}
    # Reference points: pydantic's own cost, the spec parse alone, then with typer's imports.
    out["floor: pydantic"] = ([py, "-c", _PYDANTIC], None)
    out["floor: spec"] = ([py, "-c", _SPEC], ROOT)
    out["floor: typer+spec"] = ([py, "-c", "import typer.main, typer.core; " + _SPEC], ROOT)
    trees = [("", ROOT)] + ([("before ", compare)] if compare is not None else [])
    for label, root in trees:
        out[f"{label}parse"] = ([py, "-c", _ENTRY, "parse", "H100:8"], root)
        out[f"{label}help"] = ([py, "-c", _ENTRY, "--help"], root)
    return out


def once(argv: list[str], root: Path | None, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run (the CPU time of the child alone)."""
    if root is not None:
        # Each tree its own data-file cache (accelerators._datafiles), written by the untimed
        # first round, as one installed version has: trees with another schema or data file
        # (other worktrees on a shared host, the compared tree) replace each other's entries
        # in a shared cache, and a process that finds its entry gone validates the catalog.
        tree = hashlib.sha256(str(root).encode()).hexdigest()[:12]
        cache = Path(env["PYTHONPYCACHEPREFIX"]) / "accelerators-cache" / tree
        env = dict(env, PYTHONPATH=str(root), ACCELERATORS_CACHE_DIR=str(cache))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=root or ROOT, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--compare-root", type=Path, help="another tree to time beside this one")
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="interpreter to run the commands with (e.g. a venv holding only the [cli] extra's "
        "packages, as a user's install has; the package comes from the tree)",
    )
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args(argv)

    table = commands(args.compare_root, args.python)
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYTHONPYCACHEPREFIX=cache, COLUMNS="100")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for command, root in table.values():  # writes the bytecode; not timed
            once(command, root, env)
        walls: dict[str, list[float]] = {name: [] for name in table}
        cpus: dict[str, list[float]] = {name: [] for name in table}
        loads: list[dict[str, float]] = []
        names = list(table)
        for index in range(args.rounds):
            # The commands measured are this script's work, not other processes'.
            start = snapshot(children=True)
            order = names if index % 2 == 0 else names[::-1]
            for name in order:
                wall, cpu = once(*table[name], env)
                walls[name].append(wall)
                cpus[name].append(cpu)
            loads.append(conditions(start, snapshot(children=True)))
    floor = statistics.median(walls["python -c pass"])
    print(describe_host())
    print(f"{args.rounds} rounds, alternating order, bytecode cached; interpreter {args.python}")
    print(f"{'command':<16} {'median ms':>10} {'min ms':>8} {'cpu ms':>8} {'x pass':>7}  bar")
    summary = {}
    for name in names:
        median = statistics.median(walls[name])
        bar = BARS_S.get(name)
        verdict = ""
        if bar is not None:
            verdict = ("met" if median < bar else "NOT met") + f" (<{bar * 1e3:.0f})"
        summary[name] = {
            "median_s": median,
            "min_s": min(walls[name]),
            "cpu_median_s": statistics.median(cpus[name]),
            "ratio_to_pass": median / floor,
            "walls_s": walls[name],
        }
        print(
            f"{name:<16} {median * 1e3:10.1f} {min(walls[name]) * 1e3:8.1f} "
            f"{statistics.median(cpus[name]) * 1e3:8.1f} {median / floor:7.1f}  {verdict}"
        )
    if args.compare_root is not None:
        for kind in ("parse", "help"):
            pairs = [b / a for a, b in zip(walls[kind], walls[f"before {kind}"], strict=True)]
            print(
                f"before / after, {kind}: median {statistics.median(pairs):.2f} "
                f"[{min(pairs):.2f}, {max(pairs):.2f}] (per round)"
            )
    others = [c.get("others_cpu", 0.0) for c in loads]
    load = [c.get("load_1m", 0.0) for c in loads]
    print(
        f"host: others_cpu median {statistics.median(others):.0%} [max {max(others):.0%}], "
        f"load_1m {min(load):.2f}-{max(load):.2f}, {os.cpu_count()} CPUs "
        "(the bars are for a quiet host; the ratios hold on a busy one)"
    )
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "load": loads}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
