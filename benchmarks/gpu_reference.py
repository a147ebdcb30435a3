"""Reference figures for the gate, measured without the gate's code: a GEMM sweep and a stream run.

The gate's figures are only as good as its shape search and its timer. This module measures
the same device with plain torch calls and its own timing, so that
``benchmarks/gpu_validation.py`` can report each gate figure as a ratio of the best found here:

* :func:`gemm_sweep`: ``torch.mm`` (``torch._scaled_mm`` for fp8, e4m3 inputs, unit scales,
  bf16 output) over a grid of shapes in the spirit of Stas Bekman's mamf-finder (square and
  rectangular shapes from 4096 to 16384, plus the shapes the gate picked), random normal
  inputs, B stored column-major as mamf-finder and the gate do. Each shape is timed as batches
  of back-to-back calls between two device events (the mean of a batch, not one call), after
  warm-up; a shape's figure is its best batch. Bounded by a time budget per dtype: shapes are
  tried in order (the gate's first, then the grid from the middle out) until it runs out.
* :func:`stream_run`: BabelStream's copy (``c = a``, 2 arrays of traffic) and triad
  (``a = b + s * c``, 3 arrays) in fp64 over a few array sizes, timed the same way.

On a CPU the same code times with ``time.perf_counter`` (tests and smoke runs). Nothing here
imports :mod:`accelerators`.

    python benchmarks/gpu_reference.py            # both, on GPU 0 (or the CPU)
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

#: Edge sizes of the square grid; rectangular shapes pair neighbours of it.
GRID = (4096, 6144, 8192, 10240, 12288, 16384)
DTYPES = ("bf16", "fp16", "fp8", "tf32", "fp32")
_TORCH_DTYPE = {"fp32": "float32", "tf32": "float32", "bf16": "bfloat16", "fp16": "float16"}
_MIB = 1 << 20


class _Clock:
    """Times ``calls`` back-to-back calls of ``fn``: device events on a GPU, else wall time."""

    def __init__(self, torch: Any, device: Any):
        self.torch = torch
        self.cuda = device.type == "cuda"

    def batch(self, fn: Callable[[], object], calls: int) -> float:
        """Seconds per call, the mean over one batch of ``calls``."""
        if self.cuda:
            start = self.torch.cuda.Event(enable_timing=True)
            end = self.torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(calls):
                fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) / 1e3 / calls
        begin = time.perf_counter()
        for _ in range(calls):
            fn()
        return (time.perf_counter() - begin) / calls

    def sync(self) -> None:
        if self.cuda:
            self.torch.cuda.synchronize()


def default_device(torch: Any) -> Any:
    """GPU 0 where torch sees one, else the CPU."""
    return torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")


def fp8_supported(torch: Any, device: Any) -> str | None:
    """Why fp8 cannot run here, or ``None``."""
    if device.type != "cuda":
        return "fp8 GEMMs are measured on GPUs only"
    if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
        return f"torch {torch.__version__} has no torch._scaled_mm / float8_e4m3fn"
    if getattr(torch.version, "hip", None):
        return None
    major, minor = torch.cuda.get_device_capability(device)
    if (major, minor) < (8, 9):
        return f"fp8 needs compute capability 8.9+, this is {major}.{minor}"
    return None


def sweep_shapes(
    grid: Sequence[int], first: Sequence[tuple[int, int, int]] = ()
) -> list[tuple[int, int, int]]:
    """The order shapes are tried in: ``first`` (the gate's picks), then squares from the
    middle of ``grid`` outwards, then each square's neighbours with a longer or shorter k."""
    middle = len(grid) // 2
    order = sorted(range(len(grid)), key=lambda i: (abs(i - middle), i))
    shapes = [tuple(s) for s in first]
    shapes += [(grid[i], grid[i], grid[i]) for i in order]
    for i in order:
        for j in (i - 1, i + 1):
            if 0 <= j < len(grid):
                shapes.append((grid[i], grid[i], grid[j]))
    seen: set[tuple[int, int, int]] = set()
    unique = []
    for shape in shapes:
        if shape not in seen:
            seen.add(shape)
            unique.append(shape)  # type: ignore[arg-type]
    return unique  # type: ignore[return-value]


def _operands(torch: Any, dtype: str, m: int, n: int, k: int, device: Any) -> Callable[[], Any]:
    """A closure that runs one product of the dtype on fresh random inputs."""
    gen = torch.float32 if dtype == "fp8" else getattr(torch, _TORCH_DTYPE[dtype])
    a = torch.randn(m, k, device=device, dtype=gen)
    b = torch.randn(n, k, device=device, dtype=gen)
    if dtype == "fp8":
        a8 = a.to(torch.float8_e4m3fn)
        b8 = b.to(torch.float8_e4m3fn).t()
        del a, b
        one = torch.ones((), device=device, dtype=torch.float32)
        out = torch.empty(m, n, device=device, dtype=torch.bfloat16)

        def fp8() -> Any:
            return torch._scaled_mm(
                a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, out=out
            )

        try:
            fp8()
        except (RuntimeError, TypeError):  # no out= overload in this torch

            def fp8() -> Any:
                return torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)

        return fp8
    bt = b.t()
    out = torch.empty(m, n, device=device, dtype=gen)
    return lambda: torch.mm(a, bt, out=out)


def _tf32(torch: Any, on: bool) -> None:
    matmul = torch.backends.cuda.matmul
    if getattr(matmul, "fp32_precision", None) not in (None, "none"):
        matmul.fp32_precision = "tf32" if on else "ieee"
    else:
        matmul.allow_tf32 = on


def time_batches(
    clock: _Clock, fn: Callable[[], object], *, seconds: float, warmup_s: float
) -> list[float]:
    """Seconds per call of ``fn``, one sample per batch of about 50 ms, after ``warmup_s``."""
    once = clock.batch(fn, 1)  # also compiles and warms the kernel
    calls = max(1, min(50, int(0.05 / max(once, 1e-7))))
    spent = once
    while spent < warmup_s:
        spent += clock.batch(fn, calls) * calls
    samples: list[float] = []
    deadline = time.perf_counter() + seconds
    while len(samples) < 3 or (time.perf_counter() < deadline and len(samples) < 40):
        samples.append(clock.batch(fn, calls))
    return samples


def rates(samples: Sequence[float], work: float, unit: float) -> dict[str, float]:
    """Best and median rate of ``work`` per call, in ``unit`` (1e12: TFLOPS, 1e9: GB/s)."""
    return {
        "best": work / min(samples) / unit,
        "median": work / statistics.median(samples) / unit,
        "batches": float(len(samples)),
    }


def gemm_sweep(
    torch: Any,
    device: Any,
    *,
    dtypes: Sequence[str] = DTYPES,
    budget_s: float = 15.0,
    grid: Sequence[int] = GRID,
    first: dict[str, list[tuple[int, int, int]]] | None = None,
    warmup_s: float = 0.3,
    per_shape_s: float = 0.4,
    memory_fraction: float = 0.5,
) -> dict[str, Any]:
    """The best rate of each dtype over the shape grid, shape by shape, within ``budget_s``."""
    clock = _Clock(torch, device)
    results: dict[str, Any] = {}
    free = torch.cuda.mem_get_info(device)[0] if device.type == "cuda" else 8 << 30
    for dtype in dtypes:
        entry: dict[str, Any] = {"shapes": [], "skipped": None, "error": None}
        results[dtype] = entry
        if dtype == "fp8":
            entry["skipped"] = fp8_supported(torch, device)
            if entry["skipped"]:
                continue
        if dtype in ("tf32",) and device.type != "cuda":
            entry["skipped"] = "tf32 is a GPU matrix-unit mode"
            continue
        started = time.perf_counter()
        if device.type == "cuda":
            _tf32(torch, dtype == "tf32")
        size = 1 if dtype == "fp8" else 2 if dtype in ("bf16", "fp16") else 4
        try:
            for m, n, k in sweep_shapes(grid, (first or {}).get(dtype, ())):
                if time.perf_counter() - started > budget_s:
                    entry["stopped"] = "budget"
                    break
                need = (m * k + n * k) * (4 if dtype == "fp8" else size) + m * n * 4
                if need > free * memory_fraction:
                    continue
                fn = _operands(torch, dtype, m, n, k, device)
                samples = time_batches(clock, fn, seconds=per_shape_s, warmup_s=warmup_s)
                figures = rates(samples, 2.0 * m * n * k, 1e12)
                entry["shapes"].append(
                    {
                        "m": m,
                        "n": n,
                        "k": k,
                        "best_tflops": figures["best"],
                        "median_tflops": figures["median"],
                        "batches": figures["batches"],
                    }
                )
                del fn
        except Exception as exc:  # recorded, the other dtypes still run
            entry["error"] = f"{type(exc).__name__}: {exc}"
        finally:
            if device.type == "cuda":
                _tf32(torch, False)
                torch.cuda.empty_cache()
        entry["seconds"] = time.perf_counter() - started
        if entry["shapes"]:
            top = max(entry["shapes"], key=lambda s: s["best_tflops"])
            entry["best"] = top
    return results


def _stream_row(
    torch: Any, clock: _Clock, device: Any, n: int, tdtype: Any, seconds: float
) -> dict[str, Any]:
    """Copy and triad over arrays of ``n`` elements; checks the arrays' values afterwards."""
    item = torch.empty((), dtype=tdtype).element_size()
    a = torch.full((n,), 0.1, dtype=tdtype, device=device)
    b = torch.full((n,), 0.2, dtype=tdtype, device=device)
    c = torch.full((n,), 0.0, dtype=tdtype, device=device)
    kernels: dict[str, tuple[Callable[[], object], int]] = {
        "copy": (lambda: c.copy_(a), 2),
        "triad": (lambda: torch.add(b, c, alpha=0.4, out=a), 3),
    }
    row: dict[str, Any] = {"array_mib": n * item / _MIB}
    for name, (fn, arrays) in kernels.items():
        samples = time_batches(clock, fn, seconds=seconds, warmup_s=0.1)
        figures = rates(samples, arrays * n * item, 1e9)
        row[name] = {
            "best_gbps": figures["best"],
            "median_gbps": figures["median"],
            "batches": figures["batches"],
        }
    clock.sync()
    # Copy ran first (c = a = 0.1), then triad: a = 0.2 + 0.4 * 0.1 on every call.
    head, tail = a[: 1 << 16], c[-(1 << 16) :]
    row["check"] = bool(
        torch.allclose(head, torch.full_like(head, 0.24))
        and torch.allclose(tail, torch.full_like(tail, 0.1))
    )
    return row


def stream_run(
    torch: Any,
    device: Any,
    *,
    sizes_mib: Sequence[int] = (256, 1024, 4096),
    seconds: float = 0.5,
    dtype: str = "float64",
    memory_fraction: float = 0.5,
) -> dict[str, Any]:
    """BabelStream copy and triad, GB/s by array size (best and median of batches)."""
    clock = _Clock(torch, device)
    tdtype = getattr(torch, dtype)
    item = torch.empty((), dtype=tdtype).element_size()
    free = torch.cuda.mem_get_info(device)[0] if device.type == "cuda" else 8 << 30
    rows = []
    for mib in sizes_mib:
        if 3 * mib * _MIB > free * memory_fraction:
            rows.append({"array_mib": mib, "skipped": "does not fit in free memory"})
            continue
        rows.append(_stream_row(torch, clock, device, mib * _MIB // item, tdtype, seconds))
        if device.type == "cuda":
            torch.cuda.empty_cache()
    best = {
        name: max((r[name]["best_gbps"] for r in rows if name in r), default=math.nan)
        for name in ("copy", "triad")
    }
    return {
        "sizes": rows,
        "best_gbps": best,
        "dtype": dtype,
        "all_checked": all(r.get("check", True) for r in rows),
    }


def main() -> int:
    import argparse
    import json

    import torch

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--budget", type=float, default=15.0, help="seconds per GEMM dtype")
    args = parser.parse_args()
    device = default_device(torch)
    print(
        json.dumps(
            {
                "gemm": gemm_sweep(torch, device, budget_s=args.budget),
                "stream": stream_run(torch, device),
            },
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
