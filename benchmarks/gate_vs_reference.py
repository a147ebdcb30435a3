"""The gate's CPU figures against three references, measured in one alternating loop.

Each round runs, in an order that alternates from round to round (so a drift of the host hits
every side alike), each in a fresh process:

* **the gate**: ``accelerators bench --profile quick --device cpu --json`` as a pipeline
  runs it (a fresh process decides its thread count anew unless ``--history`` is given);
  with ``--compare-root`` also the gate of another tree (main, exported with ``git archive``):
  before and after in the same round;
* **a torch.mm sweep** per dtype (mamf-finder's method: fresh ``randn`` inputs, B a
  transposed view, one untimed call then ``--reps`` timed calls per shape, best call), over a
  grid of shapes plus every shape the gate picked in earlier rounds, at 1 thread and at every
  logical CPU;
* **numpy** (its own BLAS: OpenBLAS in the wheels), fp32, at 1 thread and every CPU;
* **a C STREAM run** (``benchmarks/stream_ref.c``, ``gcc -O3 -march=native -fopenmp``) on the
  gate's array length, at 1 thread and every CPU.

Per round it prints the per-pair ratios - the gate's best rate over the reference's best, at
the thread count the gate reported and at any - and the host's load during each side
(``others_cpu``: the share of the CPUs used by processes other than this script and the
measured child; ``load_1m``). At the end: median [min, max] of every ratio over the rounds,
the rounds in which the gate's fp32 and bf16 figures reached 0.9 of the sweep's best at the
gate's thread count (issue 23's bar under one competing process), the thread choices and
whether the all-core figure was reported.

``--hog N`` starts N competing CPU processes (busy loops, each ending by itself after
``--hog-max-s``, and stopped when the script ends) before the first round: ``--hog 1`` is the
"one competing CPU process" of the bar.

Usage::

    python benchmarks/gate_vs_reference.py --rounds 5 [--hog 1] [--compare-root /tmp/main]
        [--dtype fp32 --dtype bf16] [--history /tmp/h.sqlite] [--json out.json]
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

from accelerators.bench.device._contention import (  # noqa: E402
    CpuSnapshot,
    conditions,
    snapshot,
)

BAR = 0.9
#: Default sweep grid: square outputs and several depths (start, stop, step) / k values.
MN = (256, 512, 768, 1024, 1536, 2048)
K = (256, 512, 1024, 2048, 4096)


# ------------------------------------------------------------------------------- workers
def best_rate(
    shapes: list[tuple[int, int, int]],
    product: Any,
    reps: int,
) -> None:
    """Print the best GFLOPS over ``shapes`` (one untimed call, then the best of ``reps``);
    ``product(m, n, k)`` returns the call to time, its inputs made fresh."""
    best = (0.0, (0, 0, 0))
    for m, n, k in shapes:
        call = product(m, n, k)
        call()
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
        rate = 2 * m * n * k / min(times) / 1e9
        if rate > best[0]:
            best = (rate, (m, n, k))
    print(json.dumps({"gflops": best[0], "shape": best[1]}))


def sweep_worker(dtype: str, threads: int, shapes: list[tuple[int, int, int]], reps: int) -> None:
    import torch

    torch.set_num_threads(threads)
    kind = {"fp32": torch.float32, "bf16": torch.bfloat16}[dtype]

    def product(m: int, n: int, k: int) -> Any:
        a = torch.randn(m, k, dtype=kind)
        b = torch.randn(n, k, dtype=kind).t()  # mamf-finder's layout: B a transposed view
        c = torch.empty(m, n, dtype=kind)
        return lambda: torch.mm(a, b, out=c)

    best_rate(shapes, product, reps)


def numpy_worker(shapes: list[tuple[int, int, int]], reps: int) -> None:
    import numpy as np

    rng = np.random.default_rng(0)

    def product(m: int, n: int, k: int) -> Any:
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((n, k), dtype=np.float32).T
        c = np.empty((m, n), dtype=np.float32)
        return lambda: np.matmul(a, b, out=c)

    best_rate(shapes, product, reps)


# ------------------------------------------------------------------------------- the loop
class Host:
    """The host's load while one child ran: the child's own CPU time is not 'others'."""

    def __init__(self) -> None:
        self.before: CpuSnapshot | None = None

    def start(self) -> None:
        self.before = snapshot(children=True)

    def stop(self) -> dict[str, float]:
        after = snapshot(children=True)
        if self.before is None or after is None:
            return {}
        found = conditions(self.before, after)
        return {
            "others_cpu": round(found["others_cpu"], 3),
            "load_1m": found.get("load_1m", round(os.getloadavg()[0], 2)),
            "wall_s": round(after.wall_s - self.before.wall_s, 2),
        }


def run_json(argv: list[str], env: dict[str, str], cwd: Path) -> dict[str, Any]:
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{argv[:6]} failed ({done.returncode}): {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def gate(root: Path, out: Path, history: Path | None) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(root))
    env.pop("ACCELERATORS_BENCH_HISTORY", None)
    # With bytecode, as an installed package has it (the first round writes it).
    env.setdefault("PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir(), "gate-vs-ref-pyc")))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [sys.executable, "-m", "accelerators.cli", "bench", "--profile", "quick"]
    command += ["--device", "cpu", "--json", str(out)]
    if history is not None:
        command += ["--history", str(history)]
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=root, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"the gate in {root} failed ({done.returncode}): {done.stderr[-3000:]}")
    report = json.loads(out.read_text())
    device = report["devices"][0]
    figures: dict[str, Any] = {"wall_s": wall, "elapsed_s": report["elapsed_s"]}
    figures["verdict"] = report["verdict"]
    figures["conditions"] = report.get("conditions", {})
    for g in device["gemm"]:
        figures[g["dtype"]] = {
            "gflops": (g.get("tflops") or 0.0) * 1e3,
            "median_gflops": (g.get("median_tflops") or 0.0) * 1e3,
            "threads": g.get("threads"),
            "all_core_gflops": (g.get("all_core_tflops") or 0.0) * 1e3 or None,
            "per_core_gflops": (g.get("per_core_tflops") or 0.0) * 1e3 or None,
            "judged_on": g.get("judged_on"),
            "shape": (g.get("m"), g.get("n"), g.get("k")),
            "peak_gflops": (g.get("peak_tflops") or 0.0) * 1e3 or None,
        }
    stream_threads = next(
        (t["threads"] for t in device.get("threads", ()) if t["workload"] == "stream"), None
    )
    for m in device["memory"]:
        figures[m["kernel"]] = {
            "gbps": m.get("gbps"),
            "median_gbps": m.get("median_gbps"),
            "threads": m.get("threads") or stream_threads,
            "elements": m.get("elements"),
        }
    return figures


def c_stream(binary: Path, elements: int, threads: int, ntimes: int) -> dict[str, float]:
    from bandwidth_bar import run_c

    return run_c(binary, elements, threads, ntimes)


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def spread(values: list[float | None]) -> str:
    found = [v for v in values if v is not None]
    if not found:
        return "-"
    return f"{statistics.median(found):.3f} [{min(found):.3f}, {max(found):.3f}] (n={len(found)})"


def start_hogs(count: int, seconds: float) -> list[subprocess.Popen[bytes]]:
    code = f"import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n pass"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(count)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dtype", action="append", choices=("fp32", "bf16"))
    parser.add_argument("--reps", type=int, default=3, help="timed calls per sweep shape")
    parser.add_argument("--mn", type=int, nargs="+", default=list(MN), help="sweep m = n values")
    parser.add_argument("--k", type=int, nargs="+", default=list(K), help="sweep k values")
    parser.add_argument("--ntimes", type=int, default=10, help="C STREAM repetitions")
    parser.add_argument("--hog", type=int, default=0, help="competing CPU processes to start")
    parser.add_argument("--hog-max-s", type=float, default=1800.0)
    parser.add_argument("--compare-root", type=Path, help="another tree whose gate runs too")
    parser.add_argument("--history", type=Path, help="bench history the gate reads and appends")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    parser.add_argument("--worker", choices=("sweep", "numpy"), help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--shapes", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is not None:
        shapes = [tuple(s) for s in json.loads(args.shapes)]
        if args.worker == "sweep":
            sweep_worker(args.dtype[0], args.threads, shapes, args.reps)  # type: ignore[arg-type]
        else:
            numpy_worker(shapes, args.reps)  # type: ignore[arg-type]
        return 0

    from bandwidth_bar import build

    dtypes = args.dtype or ["fp32", "bf16"]
    logical = os.cpu_count() or 1
    counts = sorted({1, logical})
    grid = [(m, m, k) for m in args.mn for k in args.k]
    numpy_shapes = [(m, m, k) for m in (512, 1024, 2048) for k in (512, 2048, 4096)]
    trees = [("after", ROOT)] + ([("before", args.compare_root)] if args.compare_root else [])
    from _host import describe_host

    print(describe_host())
    hogs = start_hogs(args.hog, args.hog_max_s) if args.hog else []
    rounds: list[dict[str, Any]] = []
    picked: dict[str, set[tuple[int, int, int]]] = {d: set() for d in dtypes}
    host = Host()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            binary = build(Path(tmp))
            elements = 0
            for index in range(args.rounds):
                row: dict[str, Any] = {"round": index, "load": {}}
                steps: list[tuple[str, Any]] = [(f"gate {name}", root) for name, root in trees]
                steps += [(f"sweep {d} {t}", (d, t)) for d in dtypes for t in counts]
                steps += [(f"numpy {t}", t) for t in counts] if "fp32" in dtypes else []
                steps += [(f"stream {t}", t) for t in counts]
                if index % 2:
                    steps.reverse()
                if elements == 0:  # the C run needs the gate's array length first
                    steps.sort(key=lambda s: not s[0].startswith("gate"))
                for name, what in steps:
                    host.start()
                    if name.startswith("gate"):
                        report = gate(what, Path(tmp, f"{name}-{index}.json"), args.history)
                        row[name] = report
                        elements = elements or int(report.get("triad", {}).get("elements") or 0)
                        for d in dtypes:
                            if d in report and report[d]["shape"][0]:
                                picked[d].add(tuple(report[d]["shape"]))
                    elif name.startswith("sweep"):
                        dtype, threads = what
                        shapes = sorted(set(grid) | picked[dtype])
                        row[name] = run_json(
                            [
                                sys.executable,
                                str(HERE / "gate_vs_reference.py"),
                                "--worker",
                                "sweep",
                                "--dtype",
                                dtype,
                                "--threads",
                                str(threads),
                                "--reps",
                                str(args.reps),
                                "--shapes",
                                json.dumps(shapes),
                            ],
                            dict(os.environ),
                            ROOT,
                        )
                    elif name.startswith("numpy"):
                        env = dict(
                            os.environ, OPENBLAS_NUM_THREADS=str(what), OMP_NUM_THREADS=str(what)
                        )
                        row[name] = run_json(
                            [
                                sys.executable,
                                str(HERE / "gate_vs_reference.py"),
                                "--worker",
                                "numpy",
                                "--reps",
                                str(args.reps),
                                "--shapes",
                                json.dumps(numpy_shapes),
                            ],
                            env,
                            ROOT,
                        )
                    else:
                        row[name] = c_stream(binary, elements, what, args.ntimes)
                    row["load"][name] = host.stop()
                rounds.append(row)
                print_round(row, trees, dtypes, counts)
    finally:
        for hog in hogs:
            hog.terminate()
        for hog in hogs:
            hog.wait()
    summary = summarise(rounds, trees, dtypes, counts)
    if args.json:
        args.json.write_text(json.dumps({"rounds": rounds, "summary": summary}, indent=2))
    return 0


def pair_ratios(
    row: dict[str, Any], tree: str, dtypes: list[str], counts: list[int]
) -> dict[str, float | None]:
    """The gate of ``tree`` against every reference in one round."""
    g = row[f"gate {tree}"]
    out: dict[str, float | None] = {}
    for d in dtypes:
        mine = g.get(d, {})
        threads = mine.get("threads") or counts[-1]
        at = row.get(f"sweep {d} {threads}", {}).get("gflops")
        best = max(row.get(f"sweep {d} {t}", {}).get("gflops", 0.0) for t in counts)
        out[f"{d}/sweep@threads"] = ratio(mine.get("gflops"), at)
        out[f"{d}/sweep best"] = ratio(mine.get("gflops"), best)
        if d == "fp32":
            np_at = row.get(f"numpy {threads}", {}).get("gflops")
            np_best = max(row.get(f"numpy {t}", {}).get("gflops", 0.0) for t in counts)
            out["fp32/numpy@threads"] = ratio(mine.get("gflops"), np_at)
            out["fp32/numpy best"] = ratio(mine.get("gflops"), np_best)
    for kernel in ("triad", "copy"):
        mine = g.get(kernel, {})
        threads = mine.get("threads") or counts[-1]
        at = row.get(f"stream {threads}", {}).get(kernel)
        best = max(row.get(f"stream {t}", {}).get(kernel, 0.0) for t in counts)
        out[f"{kernel}/C@threads"] = ratio(mine.get("gbps"), at)
        out[f"{kernel}/C best"] = ratio(mine.get("gbps"), best)
    return out


def figure_or_dash(gflops: float | None) -> str:
    """A figure the gate may not have measured: ``-`` where it has none (not 0.0)."""
    return "-" if gflops is None else f"{gflops:.1f}"


def print_round(
    row: dict[str, Any], trees: list[tuple[str, Path]], dtypes: list[str], counts: list[int]
) -> None:
    print(f"\nround {row['round']}")
    for name, load in row["load"].items():
        value = row[name]
        if name.startswith("gate"):
            parts = [f"{value['wall_s']:.1f} s wall, {value['verdict']}"]
            for d in dtypes:
                f = value.get(d, {})
                parts.append(
                    f"{d} {f.get('gflops', 0):.1f} GFLOPS at {f.get('threads')}t "
                    f"(all-core {figure_or_dash(f.get('all_core_gflops'))}, per-core "
                    f"{figure_or_dash(f.get('per_core_gflops'))}, judged {f.get('judged_on')})"
                )
            for kernel in ("copy", "triad"):
                f = value.get(kernel, {})
                parts.append(f"{kernel} {f.get('gbps') or 0:.1f} GB/s at {f.get('threads')}t")
            text = "; ".join(parts)
        elif name.startswith(("sweep", "numpy")):
            text = f"{value['gflops']:.1f} GFLOPS at {tuple(value['shape'])}"
        else:
            text = f"copy {value.get('copy', 0):.1f}, triad {value.get('triad', 0):.1f} GB/s"
        print(
            f"  {name:<14} {text}  [others {load.get('others_cpu', 0):.0%}, "
            f"load {load.get('load_1m', 0):.2f}]"
        )
    for tree, _ in trees:
        ratios = pair_ratios(row, tree, dtypes, counts)
        shown = ", ".join(f"{k} {v:.3f}" for k, v in ratios.items() if v is not None)
        print(f"  ratios ({tree}): {shown}")


def summarise(
    rounds: list[dict[str, Any]],
    trees: list[tuple[str, Path]],
    dtypes: list[str],
    counts: list[int],
) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    print(f"\n{len(rounds)} rounds; ratio = the gate's best call over the reference's best call")
    for tree, _ in trees:
        per_round = [pair_ratios(r, tree, dtypes, counts) for r in rounds]
        keys = list(per_round[0]) if per_round else []
        print(f"gate ({tree}):")
        summary[tree] = {}
        for key in keys:
            values = [p[key] for p in per_round]
            summary[tree][key] = values
            print(f"  {key:<20} {spread(values)}")
        for d in dtypes:
            at = [p[f"{d}/sweep@threads"] for p in per_round]
            met = sum(1 for v in at if v is not None and v >= BAR)
            threads = [r[f"gate {tree}"].get(d, {}).get("threads") for r in rounds]
            reported = sum(1 for r in rounds if r[f"gate {tree}"].get(d, {}).get("all_core_gflops"))
            print(
                f"  {d}: >= {BAR} of the sweep at the gate's thread count in {met}/{len(at)} "
                f"rounds; threads chosen {threads}; all-core figure reported in "
                f"{reported}/{len(rounds)}"
            )
        walls = [r[f"gate {tree}"]["wall_s"] for r in rounds]
        median = statistics.median(walls)
        print(f"  gate wall {min(walls):.1f}-{max(walls):.1f} s (median {median:.1f})")
    others = [load.get("others_cpu", 0.0) for r in rounds for load in r["load"].values()]
    loads = [load.get("load_1m", 0.0) for r in rounds for load in r["load"].values()]
    if others:
        print(
            f"host load while measuring: others_cpu median {statistics.median(others):.0%} "
            f"[{min(others):.0%}, {max(others):.0%}], load_1m {min(loads):.2f}-{max(loads):.2f}"
        )
    return summary


if __name__ == "__main__":
    raise SystemExit(main())
