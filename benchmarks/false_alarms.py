"""False alarms of the quick gate on a healthy node, and what it says under CPU and memory hogs.

Each run is the README's gate, ``accelerators bench --profile quick --json -``, in a fresh
interpreter (as a pipeline's first task runs it), on this machine's CPU:

* ``--runs`` idle runs: the target is 0 FAIL and at most 1 WARN in 20;
* ``--hog-runs`` runs while this script keeps every CPU busy with its own hog processes: the
  target is a verdict that names contention (``node_busy``) in every run;
* ``--bw-hog-runs`` runs while half the CPUs (at least one) copy 256 MiB buffers in a loop, a
  memory-bandwidth hog: the target is contention named in every run, and the triad figure's
  drop is printed against the idle runs' median.

Every run appends its report to a temporary bench history (``--history``, as a pipeline that
keeps one does), so from the fourth run on, the CPU's triad bandwidth is judged against this
node's own earlier runs; ``--no-history`` runs the bare README command instead.

The conditions are printed with the figures: CPU count, load average and steal before, and
per run the share of the CPUs other processes used (``others_cpu``, from the report), the wall
time of the command and of ``run()`` alone (``elapsed_s``: without the interpreter's start and
``import torch``, which a loaded machine slows most). A run
is only "idle" if nothing else runs: on a shared machine, read the per-run conditions.

    python benchmarks/false_alarms.py --runs 20 --hog-runs 5 --bw-hog-runs 5
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from typing import Any


def _hog(stop: Any) -> None:
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF


def _bw_hog(stop: Any) -> None:
    source = bytearray(256 << 20)
    target = bytearray(256 << 20)
    while not stop.is_set():
        target[:] = source  # one memcpy of 256 MiB: DRAM read and write traffic


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


def gate_once(profile: str, history: str | None = None) -> dict[str, Any]:
    """One gate run in a fresh interpreter; its report with the wall time."""
    command = [
        sys.executable,
        "-m",
        "accelerators.cli",
        "bench",
        "--profile",
        profile,
        "--device",
        "cpu",
        "--json",
        "-",
    ]
    if history is not None:
        command += ["--history", history]
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
    triad = next((m for m in report["memory"] if m["kernel"] == "triad"), {})
    reruns = sum(r.get("reruns", 0) for r in [*report["gemm"], *report["memory"]])
    return (
        f"{number:3d}  {report['verdict']:4}  {report['_wall_s']:5.1f} s "
        f"(run {report['elapsed_s']:4.1f} s)  "
        f"others_cpu {conditions.get('others_cpu', float('nan')):5.0%}  "
        f"load {conditions.get('load_1m', float('nan')):5.2f}  "
        f"fp32 median/best {median:6.1f}/{best:6.1f} GFLOPS  "
        f"triad {triad.get('median_gbps') or 0:5.1f} GB/s  reruns {reruns}  "
        f"{', '.join(codes) or '-'}"
    )


def _hogged(
    label: str, target: Any, processes: int, runs: int, profile: str, history: str | None
) -> list[dict[str, Any]]:
    print(f"\n-- {runs} runs under {processes} {label} process(es) started by this script")
    stop = multiprocessing.Event()
    hogs = [multiprocessing.Process(target=target, args=(stop,)) for _ in range(processes)]
    for hog in hogs:
        hog.start()
    reports = []
    try:
        time.sleep(1.0)
        for number in range(1, runs + 1):
            report = gate_once(profile, history)
            reports.append(report)
            print(line(number, report), flush=True)
            _print_failures(report)
    finally:
        stop.set()
        for hog in hogs:
            hog.join(timeout=5)
    return reports


def _print_failures(report: dict[str, Any]) -> None:
    for reason in report["reasons"]:
        if reason["severity"] == "fail":
            print(f"       fail {reason['code']}: {reason['message']}", flush=True)


def _names_contention(report: dict[str, Any]) -> bool:
    return any(r["code"] == "node_busy" for r in report["reasons"])


def _triad(report: dict[str, Any]) -> float | None:
    triad = next((m for m in report["memory"] if m["kernel"] == "triad"), {})
    value = triad.get("median_gbps")
    return float(value) if value else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--hog-runs", type=int, default=5)
    parser.add_argument("--bw-hog-runs", type=int, default=0)
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--no-history", action="store_true", help="run without --history")
    args = parser.parse_args()
    scratch = tempfile.TemporaryDirectory(prefix="false-alarms-")
    history = None if args.no_history else os.path.join(scratch.name, "history.sqlite")
    cpus = os.cpu_count() or 1
    load = os.getloadavg()
    print(
        f"conditions: {cpus} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
        f"steal {steal_share():.1%} over 1 s, python {sys.version.split()[0]}"
    )
    verdicts: Counter[str] = Counter()
    busy_idle = 0
    from accelerators.bench.expect._bands import bands

    busy_line = bands().contention.others_busy_above  # the gate's own contention line
    walls: list[float] = []
    runs_s: list[float] = []
    idle_triad: list[float] = []
    if args.runs:
        print(f"\n-- {args.runs} runs, no load added by this script")
    for number in range(1, args.runs + 1):
        report = gate_once(args.profile, history)
        verdicts[report["verdict"]] += 1
        busy_idle += report.get("conditions", {}).get("others_cpu", 0) > busy_line
        walls.append(report["_wall_s"])
        runs_s.append(report["elapsed_s"])
        triad = _triad(report)
        if triad:
            idle_triad.append(triad)
        print(line(number, report), flush=True)
        _print_failures(report)
    hogged = []
    if args.hog_runs:
        hogged = _hogged("CPU hog", _hog, cpus, args.hog_runs, args.profile, history)
    bw_hogged = []
    if args.bw_hog_runs:
        bw_hogged = _hogged(
            "memory-bandwidth hog",
            _bw_hog,
            max(1, cpus // 2),
            args.bw_hog_runs,
            args.profile,
            history,
        )
    print("\n-- summary")
    if args.runs:
        print(
            f"idle runs: {verdicts['fail']} FAIL, {verdicts['warn']} WARN, "
            f"{verdicts['pass']} PASS of {args.runs} (target: 0 FAIL, <= 1 WARN in 20); "
            f"{busy_idle} of them saw other processes use > {busy_line:.0%} of the CPUs; wall "
            f"{min(walls):.1f}-{max(walls):.1f} s, {sum(w > 15 for w in walls)} over the "
            f"15 s budget (run() alone {min(runs_s):.1f}-{max(runs_s):.1f} s: the rest is "
            "the interpreter, imports and the report)"
        )
    if args.hog_runs:
        named = sum(_names_contention(r) for r in hogged)
        print(f"hog runs naming contention (node_busy): {named} of {args.hog_runs} (target: all)")
    if args.bw_hog_runs:
        named = sum(_names_contention(r) for r in bw_hogged)
        memory = sum(
            any(
                r["code"] == "node_busy"
                and r.get("metric", "")
                and str(r.get("metric")).startswith("memory.")
                for r in report["reasons"]
            )
            for report in bw_hogged
        )
        drops = [t / statistics.median(idle_triad) for r in bw_hogged if (t := _triad(r))]
        drop = f"{min(drops):.0%}-{max(drops):.0%}" if drops and idle_triad else "n/a"
        print(
            f"bandwidth-hog runs naming contention (node_busy): {named} of "
            f"{args.bw_hog_runs} (target: all); on a memory figure: {memory}; triad at "
            f"{drop} of the idle runs' median"
        )
    scratch.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
