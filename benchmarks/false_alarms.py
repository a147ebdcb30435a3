"""False alarms of the quick gate on a healthy node, and what it says under a CPU hog.

Each run is the README's gate, ``accelerators bench --profile quick --json -``, in a fresh
interpreter (as a pipeline's first task runs it), on this machine's CPU:

* ``--runs`` idle runs: the target is 0 FAIL and at most 1 WARN in 20;
* ``--hog-runs`` runs while this script keeps every CPU busy with its own hog processes: the
  target is a verdict that names contention (``node_busy``) in every run.

The conditions are printed with the figures: CPU count, load average and steal before, and
per run the share of the CPUs other processes used (``others_cpu``, from the report). A run
is only "idle" if nothing else runs: on a shared machine, read the per-run conditions.

    python benchmarks/false_alarms.py --runs 20 --hog-runs 5
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import time
from collections import Counter
from typing import Any


def _hog(stop: Any) -> None:
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF


def steal_share(seconds: float = 1.0) -> float:
    """Share of CPU ticks stolen by the hypervisor over ``seconds``."""

    def read() -> list[int]:
        with open("/proc/stat", encoding="ascii") as handle:
            return [int(v) for v in handle.readline().split()[1:9]]

    try:
        first = read()
        time.sleep(seconds)
        second = read()
    except OSError:
        return float("nan")
    delta = [b - a for a, b in zip(first, second, strict=True)]
    return delta[7] / max(sum(delta), 1)


def gate_once(profile: str) -> dict[str, Any]:
    """One gate run in a fresh interpreter; its report with the wall time."""
    command = [sys.executable, "-m", "accelerators.cli", "bench", "--profile", profile,
               "--device", "cpu", "--json", "-"]  # fmt: skip
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"the gate exited {proc.returncode}:\n{proc.stderr}")
    report: dict[str, Any] = json.loads(proc.stdout)
    report["_wall_s"] = wall
    return report


def line(number: int, report: dict[str, Any]) -> str:
    conditions = report.get("conditions", {})
    codes = sorted({r["code"] for r in report["reasons"] if r["severity"] != "info"})
    fp32 = next((g for g in report["gemm"] if g["dtype"] == "fp32"), {})
    median = (fp32.get("median_tflops") or 0) * 1e3
    best = (fp32.get("tflops") or 0) * 1e3
    return (
        f"{number:3d}  {report['verdict']:4}  {report['_wall_s']:5.1f} s  "
        f"others_cpu {conditions.get('others_cpu', float('nan')):5.0%}  "
        f"load {conditions.get('load_1m', float('nan')):5.2f}  "
        f"fp32 median/best {median:6.1f}/{best:6.1f} GFLOPS  {', '.join(codes) or '-'}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--hog-runs", type=int, default=5)
    parser.add_argument("--profile", default="quick")
    args = parser.parse_args()
    cpus = os.cpu_count() or 1
    load = os.getloadavg()
    print(f"conditions: {cpus} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
          f"steal {steal_share():.1%} over 1 s, python {sys.version.split()[0]}")  # fmt: skip
    verdicts: Counter[str] = Counter()
    busy_idle = 0
    if args.runs:
        print(f"\n-- {args.runs} runs, no load added by this script")
    for number in range(1, args.runs + 1):
        report = gate_once(args.profile)
        verdicts[report["verdict"]] += 1
        busy_idle += report.get("conditions", {}).get("others_cpu", 0) > 0.25
        print(line(number, report), flush=True)
    named = 0
    if args.hog_runs:
        print(f"\n-- {args.hog_runs} runs under {cpus} CPU hog process(es) started by this script")
        stop = multiprocessing.Event()
        hogs = [multiprocessing.Process(target=_hog, args=(stop,)) for _ in range(cpus)]
        for hog in hogs:
            hog.start()
        try:
            time.sleep(1.0)
            for number in range(1, args.hog_runs + 1):
                report = gate_once(args.profile)
                named += any(r["code"] == "node_busy" for r in report["reasons"])
                print(line(number, report), flush=True)
        finally:
            stop.set()
            for hog in hogs:
                hog.join(timeout=5)
    print("\n-- summary")
    if args.runs:
        print(f"idle runs: {verdicts['fail']} FAIL, {verdicts['warn']} WARN, "
              f"{verdicts['pass']} PASS of {args.runs} (target: 0 FAIL, <= 1 WARN in 20); "
              f"{busy_idle} of them saw other processes use > 25 % of the CPUs")  # fmt: skip
    if args.hog_runs:
        print(f"hog runs naming contention (node_busy): {named} of {args.hog_runs} "
              "(target: all)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
