"""Why a healthy GPU's GEMM samples spread: per-call timing against host stalls, on one GPU.

On an H200 (docs/gpu-validation.md, first run) two of ten quick gates warned: fp8's median
call was 67-69 % of its best. The gate times each call between two device events, with the
previous call's checksums enqueued between calls and a telemetry thread reading NVML every
0.25 s. Where the host enqueues more slowly than the device runs, the device reaches the start
event with nothing queued behind it, and the wait for the launch is timed. This script times
the gate's own GEMM cases (``TorchBackend``, the search's ``bench`` loop, checksums on) under:

* telemetry: none, the gate's sampler (a whole detection every 0.25 s, NVML initialised and
  shut down each time), or the same with NVML held initialised for the whole run (NVML
  counts its initialisations, so the per-read init and shutdown only count);
* the timer: plain device events, or events behind a 50 us device-side spacer
  (:class:`~accelerators.bench.measure._timing.EventTimer`'s ``spacer``);

interleaved, twice over, and prints best / median / p90 per configuration, plus what one
detection costs with and without NVML held, and the phases of a cold quick gate run first.

    python benchmarks/gpu_timing_diag.py [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

T0 = time.perf_counter()


def cold_quick_phases() -> dict[str, Any]:
    """A quick gate as this process's first CUDA work: when each phase began."""
    from accelerators.bench import run

    marks: list[tuple[float, str]] = []

    def progress(fraction: float, phase: str) -> None:
        if not marks or marks[-1][1] != phase:
            marks.append((time.perf_counter() - T0, phase))

    started = time.perf_counter() - T0
    report = run(None, profile="quick", progress=progress)
    return {
        "process_s_at_start": started,
        "elapsed_s": report.elapsed_s,
        "verdict": report.verdict.value,
        "phases": [{"t": round(t, 3), "phase": p} for t, p in marks],
    }


class Sampler:
    """A thread calling ``read`` every 0.25 s, as the gate's telemetry does."""

    def __init__(self, read: Callable[[], object]):
        self.read, self.stop_flag, self.reads = read, threading.Event(), 0
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self) -> None:
        while not self.stop_flag.wait(0.25):
            self.read()
            self.reads += 1

    def __enter__(self) -> Sampler:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_flag.set()
        self.thread.join()


def hold_nvml() -> Callable[[], None] | None:
    """Initialise NVML and keep it so until the returned function is called."""
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:
        return None
    return pynvml.nvmlShutdown  # type: ignore[no-any-return]


def detection_cost(held: bool, n: int = 10) -> float:
    from accelerators.detect import current

    release = hold_nvml() if held else None
    try:
        current(refresh=True)
        start = time.perf_counter()
        for _ in range(n):
            current(refresh=True)
        return (time.perf_counter() - start) / n
    finally:
        if release is not None:
            release()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--json", help="write every figure here")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--cpu", action="store_true", help="smoke run on the CPU (tiny shapes)")
    args = parser.parse_args()
    out: dict[str, Any] = {"cold_quick": {} if args.cpu else cold_quick_phases()}
    from accelerators.bench.measure._backend import Shape
    from accelerators.bench.measure._timing import EventTimer, bench
    from accelerators.bench.torch_backend._backend import TorchBackend
    from accelerators.detect import current

    out["detection_ms"] = {
        "nvml_init_each_time": detection_cost(False) * 1e3,
        "nvml_held": detection_cost(True) * 1e3,
    }
    backend = TorchBackend("cpu") if args.cpu else TorchBackend("cuda", indices=[0])
    props = backend.devices()[0]
    torch = backend.torch
    spacer = None if args.cpu else backend._spacer(props)
    shapes = {"fp8": Shape(2304, 2816, 32768), "bf16": Shape(1536, 11264, 16384)}
    if args.cpu:
        shapes = {"fp32": Shape(128, 128, 256), "bf16": Shape(128, 128, 256)}
    rows = []
    for rep in range(2):
        for dtype, shape in shapes.items():
            session = backend.open_gemm(props, dtype, pool_elements=2 * shape.input_elements)
            case = session.case(shape)
            try:
                with backend.precision(dtype):
                    for telemetry in ("none", "detect", "detect+held"):
                        for timer_kind in ("events", "events+spacer"):
                            timer = (
                                backend.timer(props)
                                if args.cpu
                                else EventTimer(
                                    torch.cuda, 0, spacer=spacer if "spacer" in timer_kind else None
                                )
                            )
                            release = hold_nvml() if telemetry == "detect+held" else None
                            sampler = (
                                Sampler(lambda: current(refresh=True))
                                if telemetry != "none"
                                else None
                            )
                            try:
                                if sampler is not None:
                                    sampler.__enter__()
                                m = bench(
                                    case.run,
                                    timer,
                                    rep_s=args.calls * shape.flops / 1.2e15,
                                    warmup_s=0.05,
                                    before=case.before,
                                    min_reps=args.calls,
                                    max_reps=args.calls,
                                )
                            finally:
                                if sampler is not None:
                                    sampler.__exit__()
                                if release is not None:
                                    release()
                            s = sorted(m.samples_s)
                            rate = shape.flops / 1e12
                            rows.append(
                                {
                                    "rep": rep,
                                    "dtype": dtype,
                                    "telemetry": telemetry,
                                    "timer": timer_kind,
                                    "calls": len(s),
                                    "best": rate / s[0],
                                    "median": rate / statistics.median(s),
                                    "p90": rate / s[int(0.9 * (len(s) - 1))],
                                    "median_over_best": s[0] / statistics.median(s),
                                    "reads": sampler.reads if sampler else 0,
                                }
                            )
                            r = rows[-1]
                            print(
                                f"{rep} {dtype:5} {telemetry:12} {timer_kind:14} best "
                                f"{r['best']:7.1f} median {r['median']:7.1f} "
                                f"p90 {r['p90']:7.1f}  median/best {r['median_over_best']:.3f}",
                                flush=True,
                            )
            finally:
                case.close()
                session.close()
    out["timing"] = rows
    print(json.dumps({k: v for k, v in out.items() if k != "timing"}, indent=1))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
