"""Performance bar: accelerators.bench stream bandwidth vs a plain compiled C reference.

Builds ``benchmarks/stream_ref.c`` with ``gcc -O3 -march=native -fopenmp``, then alternates,
round after round on the same machine:

* the C reference with 1 thread and with every logical CPU (best of ``--ntimes`` each), and
* the stream phase of ``accelerators.bench.run`` (the quick profile's code path: thread
  windows on the first kernel, warm-up, best of N) with GEMM dtypes switched off and all
  five kernels on (quick runs only copy and triad on a CPU),

on arrays of the same length (the quick profile's: at least 4 x the last-level cache). Per
round it prints ours / best C for every kernel; at the end the median and spread of the
per-round triad ratios and the ratio of the best triad over all rounds. The bar: triad >= 95 %
of the C reference.

Usage::

    python benchmarks/bandwidth_bar.py --rounds 7 [--json results.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from accelerators.bench import PROFILES, run  # noqa: E402
from accelerators.bench.measure._backend import DeviceProps  # noqa: E402
from accelerators.bench.measure._stream import stream_elements  # noqa: E402

KERNELS = ("copy", "scale", "add", "triad", "dot")


def build(out_dir: Path) -> Path:
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        raise SystemExit("need gcc or cc to build the C reference")
    binary = out_dir / "stream_ref"
    subprocess.run(
        [
            compiler,
            "-O3",
            "-march=native",
            "-fopenmp",
            str(HERE / "stream_ref.c"),
            "-o",
            str(binary),
            "-lm",
        ],
        check=True,
    )
    return binary


def run_c(binary: Path, elements: int, threads: int, ntimes: int) -> dict[str, float]:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="spread")
    out = subprocess.run(
        [str(binary), str(elements), str(ntimes)], env=env, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise SystemExit(f"C reference failed ({out.returncode}): {out.stdout} {out.stderr}")
    figures = {}
    for line in out.stdout.splitlines():
        name, _, value = line.partition(" ")
        if name in KERNELS:
            figures[name] = float(value)
    return figures


def run_ours(profile_name: str) -> tuple[dict[str, float], int, int | None]:
    profile = dataclasses.replace(PROFILES[profile_name], cpu_dtypes=(), cpu_stream_kernels=KERNELS)
    report = run(None, profile, devices="cpu", refresh_threads=True)
    device = report.devices[0]
    figures = {m.kernel: m.gbps or 0.0 for m in device.memory}
    if not all(m.correct for m in device.memory):
        raise SystemExit("accelerators.bench stream check failed")
    threads = next((t.threads for t in device.threads if t.workload == "stream"), None)
    return figures, device.memory[0].elements or 0, threads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--ntimes", type=int, default=10, help="C repetitions per kernel (STREAM's NTIMES)"
    )
    parser.add_argument("--profile", default="quick", choices=sorted(PROFILES))
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args()

    from accelerators.detect import current

    cpu = current().cpu
    props = DeviceProps(
        index=0,
        kind="cpu",
        name=cpu.model_name,
        compute_units=cpu.logical_cpus,
        llc_bytes=cpu.l3_bytes,
        l2_bytes=cpu.l2_bytes,
    )
    profile = PROFILES[args.profile]
    elements = stream_elements(
        props,
        "fp64",
        llc_multiple=profile.stream_llc_multiple,
        min_bytes=profile.cpu_stream_min_bytes,
        memory_budget_bytes=None,
    )
    logical = os.cpu_count() or 1
    thread_counts = sorted({1, logical})
    print(f"CPU {cpu.model_name}, {logical} logical CPUs, LLC {cpu.l3_bytes} B")
    print(
        f"arrays: {elements} doubles ({elements * 8 / 2**20:.0f} MiB each), profile {args.profile}",
        flush=True,
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        binary = build(Path(tmp))
        for index in range(args.rounds):
            c_runs = {t: run_c(binary, elements, t, args.ntimes) for t in thread_counts}
            ours, ours_elements, ours_threads = run_ours(args.profile)
            if ours_elements != elements:
                raise SystemExit(f"array length differs: ours {ours_elements}, C {elements}")
            best_c = {k: max(c_runs[t][k] for t in thread_counts) for k in KERNELS}
            ratios = {k: ours[k] / best_c[k] for k in KERNELS}
            same_c = c_runs.get(ours_threads or 1, c_runs[thread_counts[0]])
            same = {k: ours[k] / same_c[k] for k in KERNELS}
            rows.append(
                {
                    "round": index,
                    "c": c_runs,
                    "ours": ours,
                    "ours_threads": ours_threads,
                    "best_c": best_c,
                    "ratio": ratios,
                    "same_threads_ratio": same,
                }
            )
            c_text = "  ".join(f"C{t}t triad {c_runs[t]['triad']:.1f}" for t in thread_counts)
            print(
                f"round {index}: {c_text}  ours ({ours_threads}t) triad {ours['triad']:.1f} GB/s  "
                + "  ".join(f"{k} {ratios[k]:.3f}" for k in KERNELS)
                + f"  (triad vs C at {ours_threads}t: {same['triad']:.3f})"
            )
    print("\nratio ours / best C per kernel over rounds: median [min, max]")
    summary = {}
    for k in KERNELS:
        values = [r["ratio"][k] for r in rows]
        best_ours = max(r["ours"][k] for r in rows)
        best_c = max(r["best_c"][k] for r in rows)
        summary[k] = {
            "median": statistics.median(values),
            "min": min(values),
            "max": max(values),
            "best_vs_best": best_ours / best_c,
            "best_ours_gbps": best_ours,
            "best_c_gbps": best_c,
        }
        print(
            f"  {k:<6} {summary[k]['median']:.3f} [{min(values):.3f}, {max(values):.3f}]  "
            f"best-of-rounds {best_ours:.1f} vs {best_c:.1f} GB/s = {best_ours / best_c:.3f}"
        )
    same_triad = [r["same_threads_ratio"]["triad"] for r in rows]
    print(
        f"  triad vs C at the thread count ours chose: {statistics.median(same_triad):.3f} "
        f"[{min(same_triad):.3f}, {max(same_triad):.3f}]"
    )
    summary["triad_same_threads"] = {
        "median": statistics.median(same_triad),
        "min": min(same_triad),
        "max": max(same_triad),
    }
    verdict = "MET" if summary["triad"]["median"] >= 0.95 else "NOT MET"
    print(f"\nbar: triad >= 0.95 of the C reference (median of rounds): {verdict}")
    if args.json:
        args.json.write_text(
            json.dumps({"elements": elements, "rounds": rows, "summary": summary}, indent=2)
        )


if __name__ == "__main__":
    main()
