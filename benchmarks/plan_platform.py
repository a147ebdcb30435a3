"""What ``plan(platform=...)`` costs: a plan judged by a platform, beside one that is not.

Issue 33: a plan that knows where the job's pods run leaves out what that platform cannot place
(``accelerators.sizing._plan_platform``: ``placement_problems`` per distinct spec, kept per
(spec, platform)). Measured, in alternating order round after round:

* **warm**, in this process: ``plan(job)`` and ``plan(job, platform=P)`` for three jobs (the
  templates' 0.5B full fine-tune, an 8B LoRA within $200 and 12 h, a 70B full fine-tune) and
  three platforms (``karpenter``, ``gke``, ``nvidia``): the median of each and the per-round
  ratio to the plan without a platform;
* **first call**, each in a fresh interpreter (bytecode cached, the catalog's data-file cache
  warmed by an untimed first round, as an installed package has): the first ``plan()`` of a
  process with and without ``platform="karpenter"`` (the platform's adapter is imported and
  every spec judged then), timed inside the child around the call alone; with
  ``--compare-root`` (e.g. main exported with ``git archive``) the other tree's first
  ``plan()`` in the same rounds: before and after, for a plan without a platform;
* the size of the (spec, platform) cache after every job on every built-in platform: what it
  holds at most, whatever the number of plans a process makes.

Usage::

    python benchmarks/plan_platform.py --rounds 15 [--compare-root /tmp/main] [--json out.json]
"""

from __future__ import annotations

import argparse
import hashlib
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

#: meta-llama/Meta-Llama-3-8B's config.json (the fields sizing reads).
LLAMA3_8B = {
    "model_type": "llama",
    "vocab_size": 128256,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
}
JOBS: dict[str, dict[str, Any]] = {
    "0.5B full": {"model": "", "method": "full"},
    "8B lora $200 12h": {
        "model": LLAMA3_8B,
        "method": "lora",
        "tokens": 5e7,
        "budget_usd": 200.0,
        "deadline_h": 12.0,
    },
    "70B full": {"model": 70e9, "method": "full", "budget_usd": None},
}
PLATFORMS = ("karpenter", "gke", "nvidia")

#: The child of a first-call run: import, then time the first plan() alone.
_CHILD = """
import json, sys, time
from accelerators.sizing import example_model_config, plan
platform = sys.argv[1] or None
kwargs = {"platform": platform} if platform else {}
config = example_model_config()
start = time.perf_counter()
plan(config, "full", tokens=2e7, budget_usd=50.0, history=False, **kwargs)
print(json.dumps(time.perf_counter() - start))
"""


def _plan(job: dict[str, Any], platform: str | None) -> Any:
    from accelerators.sizing import example_model_config, plan

    args = dict(job)
    model = args.pop("model") or example_model_config()
    args.setdefault("tokens", 2e7)
    args.setdefault("budget_usd", 50.0)
    kwargs = {"platform": platform} if platform else {}
    return plan(model, args.pop("method"), history=False, **args, **kwargs)


def warm(rounds: int) -> dict[str, Any]:
    """Median seconds of each (job, platform) in this process, and per-round ratios."""
    variants = [(job, p) for job in JOBS for p in (None, *PLATFORMS)]
    for job, platform in variants:  # imports, data files, the placement cache: not timed
        _plan(JOBS[job], platform)
    times: dict[tuple[str, str | None], list[float]] = {v: [] for v in variants}
    for index in range(rounds):
        for variant in variants if index % 2 == 0 else variants[::-1]:
            start = time.perf_counter()
            _plan(JOBS[variant[0]], variant[1])
            times[variant].append(time.perf_counter() - start)
    out: dict[str, Any] = {}
    for job in JOBS:
        base = times[(job, None)]
        row: dict[str, Any] = {"none_median_s": statistics.median(base)}
        for platform in PLATFORMS:
            mine = times[(job, platform)]
            ratios = [b / a for a, b in zip(base, mine, strict=True)]
            row[platform] = {
                "median_s": statistics.median(mine),
                "ratio_median": statistics.median(ratios),
                "ratio_min": min(ratios),
                "ratio_max": max(ratios),
            }
        out[job] = row
    return out


def first_calls(rounds: int, compare: Path | None) -> dict[str, list[float]]:
    """Seconds of the first plan() of a fresh interpreter, per side, alternating."""
    sides: dict[str, tuple[Path, str]] = {"none": (ROOT, ""), "karpenter": (ROOT, "karpenter")}
    if compare is not None:
        sides["before: none"] = (compare, "")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYTHONPYCACHEPREFIX=cache)
        env.pop("PYTHONDONTWRITEBYTECODE", None)

        def once(root: Path, platform: str) -> float:
            tree = hashlib.sha256(str(root).encode()).hexdigest()[:12]
            data = Path(cache) / "accelerators-cache" / tree
            run_env = dict(env, PYTHONPATH=str(root), ACCELERATORS_CACHE_DIR=str(data))
            done = subprocess.run(
                [sys.executable, "-c", _CHILD, platform],
                env=run_env,
                cwd=root,
                capture_output=True,
                check=False,
                text=True,
            )
            if done.returncode != 0:
                raise SystemExit(f"first call failed in {root}: {done.stderr[-2000:]}")
            return float(json.loads(done.stdout.strip().splitlines()[-1]))

        for root, platform in sides.values():  # bytecode and data-file caches: not timed
            once(root, platform)
        out: dict[str, list[float]] = {name: [] for name in sides}
        names = list(sides)
        for index in range(rounds):
            for name in names if index % 2 == 0 else names[::-1]:
                out[name].append(once(*sides[name]))
    return out


def cache_size() -> int:
    """Entries of the (spec, platform) cache after every job on every built-in platform."""
    from accelerators.kubernetes import platforms
    from accelerators.sizing import _plan_platform

    for job in JOBS.values():
        for platform in platforms():
            _plan(job, platform)
    return len(_plan_platform._PROBLEMS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--compare-root", type=Path, help="another tree: its first plan() too")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args(argv)

    start = snapshot(children=True)
    hot = warm(args.rounds)
    first = first_calls(args.rounds, args.compare_root)
    entries = cache_size()
    load = conditions(start, snapshot(children=True))

    print(describe_host())
    print(f"{args.rounds} rounds, alternating order")
    print("warm, in one process: plan() median ms; with a platform, per-round ratio to none")
    print(f"{'job':<18} {'none':>8}" + "".join(f" {p:>26}" for p in PLATFORMS))
    for job, row in hot.items():
        cells = "".join(
            f" {row[p]['median_s'] * 1e3:8.1f} ms x{row[p]['ratio_median']:.2f} "
            f"[{row[p]['ratio_min']:.2f}-{row[p]['ratio_max']:.2f}]"
            for p in PLATFORMS
        )
        print(f"{job:<18} {row['none_median_s'] * 1e3:6.1f}ms{cells}")
    print("first plan() of a fresh interpreter (0.5B full, $50), median [min, max] ms")
    for name, values in first.items():
        print(
            f"  {name:<14} {statistics.median(values) * 1e3:8.1f} "
            f"[{min(values) * 1e3:.1f}, {max(values) * 1e3:.1f}]"
        )
    ratios = [k / n for n, k in zip(first["none"], first["karpenter"], strict=True)]
    print(
        f"  karpenter / none, per round: median {statistics.median(ratios):.2f} "
        f"[{min(ratios):.2f}, {max(ratios):.2f}]"
    )
    if "before: none" in first:
        pairs = [a / b for a, b in zip(first["none"], first["before: none"], strict=True)]
        print(
            f"  after / before (no platform), per round: median {statistics.median(pairs):.2f} "
            f"[{min(pairs):.2f}, {max(pairs):.2f}]"
        )
    print(f"(spec, platform) cache: {entries} entries after 3 jobs on every built-in platform")
    print(
        f"host: others_cpu {load.get('others_cpu', 0.0):.0%}, load_1m "
        f"{load.get('load_1m', 0.0):.2f}, {os.cpu_count()} CPUs (only the ratios travel)"
    )
    if args.json:
        data = {"warm": hot, "first_call_s": first, "cache_entries": entries, "load": load}
        args.json.write_text(json.dumps(data, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
