"""How short a GEMM call the gate can time: median / best of single calls against call length.

On an H200 (``docs/gpu-validation/2026-11-30-h200-run1.json``) two of ten quick gates failed
``gemm_slow`` on fp8: each search had settled on a 68.7 GFLOP product (51-53 us a call) whose
best call reached 1,304-1,334 TFLOPS and whose median only 965, while the gates that passed
settled on 124-947 GFLOP products with medians 97-99 % of their best. The gate times one call
at a time, the previous call's checksums and a cache flush enqueued between calls and a short
device-side spacer ahead of each start event. This script times the gate's own GEMM cases
(``TorchBackend``, the search's ``bench`` loop, checksums and flush on), outside a gate (no
telemetry thread, no earlier load), over products of 17 to 550 GFLOP, with no spacer, the
gate's spacer and a three times longer one, interleaved, twice over, and prints best / median
and the call's length for each. (On that H200, ``...-call-length.json``: behind the spacer
every product held 96-99.6 %, the 50 us fp8 ones included; without it, medians fell to 30-91 %
of the best in 10 of 28 cases, products up to 283 GFLOP.)

    python benchmarks/gpu_call_length.py [--json OUT.json] [--calls 200]
    python benchmarks/gpu_call_length.py --cpu          # smoke run (tiny shapes, no spacer)
    python benchmarks/gpu_call_length.py --summarize RESULTS.json  # a committed run's summary
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

#: (m, n, k) of the products timed: 17 to 550 GFLOP (2mnk).
SHAPES = (
    (1024, 1024, 8192),
    (2048, 1024, 8192),
    (2048, 1024, 16384),
    (2048, 2048, 8192),
    (2048, 2048, 16384),
    (2816, 3072, 16384),
    (4096, 4096, 16384),
)
CPU_SHAPES = ((64, 64, 128), (128, 128, 256))


def summary(rows: list[dict[str, Any]]) -> list[str]:
    """Per spacer: the range of median / best over every product and round, and how many
    fell below 95 % (with the largest such product)."""
    lines = []
    for spacer in sorted({r["spacer_us"] for r in rows}):
        mine = [r for r in rows if r["spacer_us"] == spacer]
        shares = [r["median_over_best"] for r in mine]
        low = [r for r in mine if r["median_over_best"] < 0.95]
        largest = max((r["gflop"] for r in low), default=None)
        lines.append(
            f"spacer {spacer:.0f} us: median / best {min(shares):.3f}-{max(shares):.3f} over "
            f"{len(mine)} timings; {len(low)} below 0.95"
            + ("" if largest is None else f" (products up to {largest:.0f} GFLOP)")
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--json", help="write every figure here")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--cpu", action="store_true", help="smoke run on the CPU (tiny shapes)")
    parser.add_argument("--summarize", help="print the summary of a results file and stop")
    args = parser.parse_args()
    if args.summarize:
        with open(args.summarize, encoding="utf-8") as handle:
            print("\n".join(summary(json.load(handle)["rows"])))
        return 0
    from accelerators.bench.measure._backend import Shape
    from accelerators.bench.measure._timing import EventTimer, Timer, bench
    from accelerators.bench.torch_backend._backend import SPACER_S, TorchBackend

    backend = TorchBackend("cpu") if args.cpu else TorchBackend("cuda", indices=[0])
    props = backend.devices()[0]
    torch = backend.torch
    dtypes = ("fp32",) if args.cpu else ("fp8", "bf16")
    spacers = (0.0,) if args.cpu else (0.0, SPACER_S, 3 * SPACER_S)

    def timer_for(seconds: float) -> Timer:
        if args.cpu:
            return backend.timer(props)
        if not seconds:
            return EventTimer(torch.cuda, props.index)
        p = torch.cuda.get_device_properties(props.index)
        khz = getattr(p, "clock_rate", None) or 2_000_000  # as TorchBackend._spacer
        cycles = round(seconds * khz * 1e3)
        return EventTimer(torch.cuda, props.index, spacer=lambda: torch.cuda._sleep(cycles))

    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    for rep in range(2):
        for dtype in dtypes:
            for m, n, k in CPU_SHAPES if args.cpu else SHAPES:
                shape = Shape(m, n, k)
                session = backend.open_gemm(props, dtype, pool_elements=2 * shape.input_elements)
                case = session.case(shape)
                try:
                    with backend.precision(dtype):
                        for spacer in spacers:
                            got = bench(
                                case.run,
                                timer_for(spacer),
                                rep_s=1.0,
                                warmup_s=0.02,
                                before=case.before,
                                min_reps=args.calls,
                                max_reps=args.calls,
                            )
                            s = sorted(got.samples_s)
                            work = shape.flops / 1e12
                            rows.append(
                                {
                                    "rep": rep,
                                    "dtype": dtype,
                                    "shape": [m, n, k],
                                    "gflop": shape.flops / 1e9,
                                    "spacer_us": spacer * 1e6,
                                    "calls": len(s),
                                    "best_us": s[0] * 1e6,
                                    "median_us": statistics.median(s) * 1e6,
                                    "best": work / s[0],
                                    "median": work / statistics.median(s),
                                    "median_over_best": s[0] / statistics.median(s),
                                }
                            )
                            r = rows[-1]
                            print(
                                f"{rep} {dtype:4} {m:5}x{n:5}x{k:5} {r['gflop']:6.1f} GFLOP "
                                f"spacer {r['spacer_us']:4.0f} us: best {r['best_us']:7.1f} us "
                                f"median {r['median_us']:7.1f} us  median/best "
                                f"{r['median_over_best']:.3f}",
                                flush=True,
                            )
                finally:
                    case.close()
                    session.close()
    print("\n".join(summary(rows)))
    out = {"device": props.name, "seconds": time.perf_counter() - started, "rows": rows}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
