"""Performance bar: the quick profile's GEMM search vs an exhaustive ``torch.mm`` size sweep.

For each dtype, on the same machine and in one run:

1. an exhaustive sweep of ``torch.mm`` over every (m, n, k) of a grid (mamf-finder style:
   fresh ``randn`` inputs, B a transposed view, one untimed call then ``--reps`` timed calls
   per shape, best call = the shape's rate), once per thread count in ``--sweep-threads``;
2. the quick profile's GEMM phase (``accelerators.bench.run`` with only that dtype and no
   stream phase: shape search, then the thread windows on its winner), ``--repeats`` times;
3. right after each quick run, the sweep's best shape (at the thread count quick chose) timed
   with as many calls as quick's winner got - a paired control for host drift;
4. a side-by-side re-measurement of the two winning shapes (quick's and the sweep's),
   interleaved for ``--remeasure`` rounds at the thread count quick chose, so the
   comparison is not a comparison of lucky samples.

Printed ratios: quick best / sweep best (per quick repeat: median [min, max]), the same
against the sweep at any thread count, quick best / the paired control, the re-measured
ratio, and quick's search time / the sweep's time. The bar: >= 0.95 of the sweep's best
rate in <= 0.10 of its time.

Usage::

    python benchmarks/gemm_bar.py --dtype fp32 --dtype bf16 --repeats 5 [--json out.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import torch  # noqa: E402

from accelerators.bench import PROFILES, run  # noqa: E402

TORCH_DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
#: Default sweep grids (start, stop, step) per dtype; bf16 is emulated (slow) on AVX2 CPUs.
GRIDS = {"fp32": (256, 2048, 256), "bf16": (128, 1024, 128), "fp16": (128, 1024, 128)}


def quick(dtype: str) -> dict[str, Any]:
    profile = dataclasses.replace(PROFILES["quick"], cpu_dtypes=(dtype,), stream=False)
    wall = time.perf_counter()
    report = run(None, profile, devices="cpu", refresh_threads=True)
    g = report.devices[0].gemm[0]
    if not g.correct:
        raise SystemExit(f"quick {dtype} GEMM failed its correctness check")
    return {
        "shape": (g.m, g.n, g.k),
        "best_gflops": (g.tflops or 0.0) * 1e3,
        "median_gflops": (g.median_tflops or 0.0) * 1e3,
        "threads": g.threads,
        "search_s": g.search_s,
        "run_s": time.perf_counter() - wall,
        "shapes_tried": g.shapes_tried,
        "calls": len(g.samples_s),
    }


def paired(dtype: str, shape: tuple[int, int, int], threads: int, calls: int) -> float:
    """Best GFLOPS of ``shape`` timed now with as many calls as quick's winner got."""
    torch.set_num_threads(threads)
    m, n, k = shape
    a = torch.randn(m, k, dtype=TORCH_DTYPES[dtype])
    b = torch.randn(n, k, dtype=TORCH_DTYPES[dtype]).t()
    c = torch.empty(m, n, dtype=TORCH_DTYPES[dtype])
    return 2 * m * n * k / min(time_mm(a, b, c, max(3, calls))) / 1e9


def time_mm(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, reps: int) -> list[float]:
    torch.mm(a, b, out=c)  # untimed: first touch, kernel selection
    samples = []
    for _ in range(reps):
        start = time.perf_counter()
        torch.mm(a, b, out=c)
        samples.append(time.perf_counter() - start)
    return samples


def sweep(dtype: str, threads: int, grid: tuple[int, int, int], reps: int) -> dict[str, Any]:
    torch.set_num_threads(threads)
    start, stop, step = grid
    sizes = range(start, stop + 1, step)
    best = (0.0, (0, 0, 0))
    best_median = (0.0, (0, 0, 0))
    wall = time.perf_counter()
    shapes = 0
    for m, n, k in itertools.product(sizes, sizes, sizes):
        a = torch.randn(m, k, dtype=TORCH_DTYPES[dtype])
        b = torch.randn(n, k, dtype=TORCH_DTYPES[dtype]).t()
        c = torch.empty(m, n, dtype=TORCH_DTYPES[dtype])
        samples = time_mm(a, b, c, reps)
        flops = 2 * m * n * k
        rate = flops / min(samples) / 1e9
        median = flops / statistics.median(samples) / 1e9
        best = max(best, (rate, (m, n, k)))
        best_median = max(best_median, (median, (m, n, k)))
        shapes += 1
    return {
        "threads": threads,
        "best_gflops": best[0],
        "best_shape": best[1],
        "best_median_gflops": best_median[0],
        "best_median_shape": best_median[1],
        "shapes": shapes,
        "sweep_s": time.perf_counter() - wall,
    }


def remeasure(
    dtype: str, shapes: dict[str, tuple[int, int, int]], threads: int, rounds: int, reps: int
) -> dict[str, dict[str, float]]:
    torch.set_num_threads(threads)
    tensors = {}
    for label, (m, n, k) in shapes.items():
        tensors[label] = (
            torch.randn(m, k, dtype=TORCH_DTYPES[dtype]),
            torch.randn(n, k, dtype=TORCH_DTYPES[dtype]).t(),
            torch.empty(m, n, dtype=TORCH_DTYPES[dtype]),
            2 * m * n * k,
        )
    samples: dict[str, list[float]] = {label: [] for label in shapes}
    for _ in range(rounds):
        for label, (a, b, c, _flops) in tensors.items():
            samples[label].extend(time_mm(a, b, c, reps))
    return {
        label: {
            "best_gflops": tensors[label][3] / min(times) / 1e9,
            "median_gflops": tensors[label][3] / statistics.median(times) / 1e9,
        }
        for label, times in samples.items()
    }


def summarize(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} [{min(values):.3f}, {max(values):.3f}]"


def bench_dtype(dtype: str, args: argparse.Namespace) -> dict[str, Any]:
    grid = GRIDS[dtype]
    threads_list = args.sweep_threads or sorted({1, torch.get_num_threads()})
    default_threads = torch.get_num_threads()
    quicks: list[dict[str, Any]] = []
    sweeps: dict[int, dict[str, Any]] = {}
    print(
        f"\n== {dtype}: sweep grid {grid[0]}..{grid[1]} step {grid[2]} per dimension, "
        f"threads {threads_list}, {args.repeats} quick runs"
    )
    for threads in threads_list:
        sweeps[threads] = sweep(dtype, threads, grid, args.reps)
        torch.set_num_threads(default_threads)
        s = sweeps[threads]
        print(
            f"  sweep {threads}t: best {s['best_gflops']:.2f} GFLOPS at {s['best_shape']}, "
            f"best median {s['best_median_gflops']:.2f}, {s['shapes']} shapes in "
            f"{s['sweep_s']:.1f} s"
        )
    for i in range(args.repeats):
        q = quick(dtype)
        # Paired control: the sweep's best shape (at the thread count quick chose), timed
        # right after quick with as many calls, so host drift hits both alike.
        q["paired_sweep_gflops"] = paired(
            dtype, tuple(sweeps[q["threads"]]["best_shape"]), q["threads"], q["calls"]
        )
        torch.set_num_threads(default_threads)
        quicks.append(q)
        print(
            f"  quick #{i}: best {q['best_gflops']:.2f} median {q['median_gflops']:.2f} GFLOPS "
            f"at {q['shape']} ({q['threads']}t), search {q['search_s']:.2f} s, "
            f"{q['shapes_tried']} shapes; sweep's best shape now "
            f"{q['paired_sweep_gflops']:.2f}"
        )
    chosen = statistics.mode(q["threads"] for q in quicks)
    same = sweeps.get(chosen) or max(sweeps.values(), key=lambda s: s["best_gflops"])
    anyt = max(sweeps.values(), key=lambda s: s["best_gflops"])
    rate_same = [q["best_gflops"] / same["best_gflops"] for q in quicks]
    rate_any = [q["best_gflops"] / anyt["best_gflops"] for q in quicks]
    median_same = [q["median_gflops"] / same["best_median_gflops"] for q in quicks]
    time_ratio = [q["search_s"] / same["sweep_s"] for q in quicks]
    pair_ratio = [q["best_gflops"] / q["paired_sweep_gflops"] for q in quicks]
    best_quick = max(quicks, key=lambda q: q["best_gflops"])
    again = remeasure(
        dtype,
        {"quick": tuple(best_quick["shape"]), "sweep": tuple(same["best_shape"])},
        chosen,
        args.remeasure,
        args.reps,
    )
    re_best = again["quick"]["best_gflops"] / again["sweep"]["best_gflops"]
    re_median = again["quick"]["median_gflops"] / again["sweep"]["median_gflops"]
    print(f"  quick best / sweep best ({chosen}t):   {summarize(rate_same)}")
    print(f"  quick best / sweep best (any threads, {anyt['threads']}t): {summarize(rate_any)}")
    print(f"  quick median / sweep best median ({chosen}t): {summarize(median_same)}")
    q, w = again["quick"], again["sweep"]
    print(
        f"  re-measured side by side ({chosen}t, {args.remeasure} rounds): best "
        f"{q['best_gflops']:.2f} vs {w['best_gflops']:.2f} = {re_best:.3f}; "
        f"median {q['median_gflops']:.2f} vs {w['median_gflops']:.2f} "
        f"= {re_median:.3f}"
    )
    print(f"  quick best / sweep's best shape timed right after: {summarize(pair_ratio)}")
    print(f"  quick search time / sweep time ({chosen}t): {summarize(time_ratio)}")
    met = statistics.median(rate_same) >= 0.95 and max(time_ratio) <= 0.10
    print(
        f"  bar (>= 0.95 of the sweep's best in <= 0.10 of its time): {'MET' if met else 'NOT MET'}"
    )
    return {
        "dtype": dtype,
        "grid": grid,
        "quick": quicks,
        "sweeps": {str(t): s for t, s in sweeps.items()},
        "chosen_threads": chosen,
        "ratio_best_same_threads": rate_same,
        "ratio_best_any_threads": rate_any,
        "ratio_median_same_threads": median_same,
        "remeasured": again,
        "time_ratio": time_ratio,
        "paired_ratio": pair_ratio,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dtype", action="append", choices=sorted(GRIDS))
    parser.add_argument("--repeats", type=int, default=5, help="quick runs per dtype")
    parser.add_argument("--reps", type=int, default=3, help="timed calls per sweep shape")
    parser.add_argument("--remeasure", type=int, default=10, help="side-by-side rounds")
    parser.add_argument("--sweep-threads", type=int, action="append")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads by default, "
        f"capability {torch.backends.cpu.get_cpu_capability()}"
    )
    results = [bench_dtype(dtype, args) for dtype in args.dtype or ["fp32", "bf16"]]
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=list))


if __name__ == "__main__":
    main()
