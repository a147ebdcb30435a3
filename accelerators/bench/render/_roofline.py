"""Roofline geometry of a report: each measured kernel's arithmetic intensity and rate.

Pure arithmetic, no plotting library: :mod:`accelerators.bench.render._plot` draws it and
:mod:`accelerators.bench.render._html` tabulates it.

* Points are *sustained* rates (the median of the timed calls), the figures the gate judges.
* A GEMM of ``m x n x k`` does ``2*m*n*k`` FLOP and, at the least, reads ``A`` and ``B`` and
  writes ``C`` once: ``w * (m*k + k*n + m*n)`` bytes (``w``: element size of the dtype). Its
  intensity is the ratio; its rate is the measured one.
* A stream kernel does ``f`` FLOP per element (scale 1, add 1, triad 2, dot 2) and moves
  STREAM's byte count; its FLOP rate is ``GB/s x f / (arrays * w)``. ``copy`` does no
  arithmetic (intensity 0): it has no place on a log-log roofline and is listed only.
* Ceilings: each dtype's datasheet peak (compute), the datasheet bandwidth and the best
  measured stream bandwidth (memory).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from accelerators.bench.measure._backend import ELEMENT_BYTES
from accelerators.bench.measure._stream import KERNELS
from accelerators.bench.report._models import BenchReport

__all__ = ["STREAM_FLOPS", "Ceiling", "RoofPoint", "Roofline", "gemm_intensity", "roofline"]

#: FLOP per element of each stream kernel.
STREAM_FLOPS: dict[str, int] = {"copy": 0, "scale": 1, "add": 1, "triad": 2, "dot": 2}
_ARRAYS = {k.name: k.arrays for k in KERNELS}


@dataclass(frozen=True)
class RoofPoint:
    """One measured kernel: ``intensity`` in FLOP/byte, ``gflops`` in 10^9 FLOP/s."""

    label: str
    kind: Literal["gemm", "stream"]
    device_index: int
    intensity: float
    gflops: float


@dataclass(frozen=True)
class Ceiling:
    """A roof: ``value`` in GFLOP/s (compute) or GB/s (memory)."""

    label: str
    kind: Literal["compute", "memory"]
    value: float
    source: Literal["datasheet", "measured"]


@dataclass(frozen=True)
class Roofline:
    points: tuple[RoofPoint, ...]
    ceilings: tuple[Ceiling, ...]
    unplaced: tuple[str, ...]
    """Measured kernels with no intensity (``copy``), named for the caption."""

    def compute(self) -> tuple[Ceiling, ...]:
        return tuple(c for c in self.ceilings if c.kind == "compute")

    def memory(self) -> tuple[Ceiling, ...]:
        return tuple(c for c in self.ceilings if c.kind == "memory")


def gemm_intensity(m: int, n: int, k: int, dtype: str) -> float:
    """FLOP per byte of an ``m x n x k`` product with each operand moved once."""
    width = ELEMENT_BYTES.get(dtype, 4)
    return 2.0 * m * n * k / (width * (m * k + k * n + m * n))


def roofline(report: BenchReport) -> Roofline:
    """The points and ceilings of ``report`` (every device's kernels; roofs from the report)."""
    several = len(report.devices) > 1
    points: list[RoofPoint] = []
    unplaced: list[str] = []
    for device in report.devices:
        tag = f" #{device.index}" if several else ""
        for g in device.gemm:
            rate = g.median_tflops or g.tflops
            if rate and g.m and g.n and g.k:
                points.append(
                    RoofPoint(
                        label=f"GEMM {g.dtype}{tag}",
                        kind="gemm",
                        device_index=device.index,
                        intensity=gemm_intensity(g.m, g.n, g.k, g.dtype),
                        gflops=rate * 1e3,
                    )
                )
        for s in device.memory:
            gbps = s.median_gbps or s.gbps
            if not gbps:
                continue
            flops = STREAM_FLOPS.get(s.kernel, 0)
            if flops == 0:
                unplaced.append(f"{s.kernel}{tag}")
                continue
            width = ELEMENT_BYTES.get(s.dtype or "fp64", 8)
            intensity = flops / (_ARRAYS.get(s.kernel, 2) * width)
            points.append(
                RoofPoint(
                    label=f"{s.kernel}{tag}",
                    kind="stream",
                    device_index=device.index,
                    intensity=intensity,
                    gflops=gbps * intensity,
                )
            )
    return Roofline(tuple(points), _ceilings(report), tuple(dict.fromkeys(unplaced)))


def _ceilings(report: BenchReport) -> tuple[Ceiling, ...]:
    ceilings: list[Ceiling] = []
    for g in report.gemm:
        if g.peak_tflops:
            ceilings.append(Ceiling(f"{g.dtype} peak", "compute", g.peak_tflops * 1e3, "datasheet"))
    peak_bw = next((m.peak_gbps for m in report.memory if m.peak_gbps), None)
    if peak_bw:
        ceilings.append(Ceiling("datasheet bandwidth", "memory", peak_bw, "datasheet"))
    measured = [(m.gbps, m.kernel) for m in report.memory if m.gbps]
    if measured:
        best, kernel = max(measured)
        ceilings.append(Ceiling(f"best measured ({kernel})", "memory", best, "measured"))
    return tuple(ceilings)
