"""GEMM shape candidates and neighbours from device properties (the search's geometry).

**GPUs.** cuBLAS/hipBLASLt split ``C`` into output tiles (128x256, 256x128, 128x128 on
NVIDIA; 256x256 and 256x128 on AMD) and run one tile per SM or CU at a time. A shape whose
tile count is just above a multiple of the SM count leaves most SMs idle in its last wave
("wave quantization"), so candidates are multiples of 256 whose tile count fills whole waves
(:func:`wave_efficiency` >= 0.9), with a large ``K`` (4096-16384) to amortise each tile's
prologue and epilogue. Published best shapes fit this: H100 bf16 2048x2048x13312 is 128 tiles
of 128x256 on 132 SMs (97 %), A100 1024x10240x5120 is 320 tiles on 108 SMs (99 %).

**CPUs.** BLAS libraries block for the caches, so candidates are square-ish sizes around
what fits the per-core L2 and the shared L3 (multiples of 64), capped by a call time that
leaves room for several samples per shape; the rate of a first small product predicts the
cost of the others.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from accelerators.bench.measure._backend import ELEMENT_BYTES, DeviceProps, Shape

__all__ = [
    "GPU_TILES",
    "best_wave",
    "cpu_candidates",
    "gpu_candidates",
    "gpu_neighbours",
    "neighbours",
    "wave_efficiency",
]

#: Output tile shapes (rows, columns) GEMM libraries use per backend kind.
GPU_TILES: dict[str, tuple[tuple[int, int], ...]] = {
    "cuda": ((128, 256), (256, 128), (128, 128)),
    "rocm": ((256, 256), (256, 128), (128, 128)),
    "xpu": ((256, 256), (128, 128)),
    "fake": ((128, 256), (256, 128), (128, 128)),
}
#: GPU sizes are multiples of this (mamf-finder's step; every tile edge divides it).
_GPU_ALIGN = 256
_GPU_MN_RANGE = (256, 16384)
_GPU_MAX_EDGE = 32768
#: Full-wave counts the coarse GPU candidates cover.
_GPU_WAVES = (1, 2, 3, 4, 6, 8)
#: A wave this full counts as full for the coarse candidates.
_FULL_WAVE = 0.95
#: K of the first coarse stage, and the values tried for the two best (m, n) after it.
_GPU_K_FIRST = 8192
_GPU_K_CHOICES = (4096, 16384)
#: CPU sizes are multiples of this (AVX-512 register blocks).
_CPU_ALIGN = 64
#: Smallest CPU edge worth a trial when larger ones are affordable.
_CPU_MIN_EDGE = 256


def wave_efficiency(m: int, n: int, units: int, tile: tuple[int, int]) -> float:
    """Fraction of SM slots busy over all waves when ``m x n`` is cut into ``tile`` tiles.

    >>> round(wave_efficiency(2048, 2048, 132, (128, 256)), 3)
    0.97
    """
    tiles = math.ceil(m / tile[0]) * math.ceil(n / tile[1])
    waves = math.ceil(tiles / units)
    return tiles / (waves * units)


def best_wave(m: int, n: int, units: int, tiles: Iterable[tuple[int, int]]) -> float:
    return max(wave_efficiency(m, n, units, t) for t in tiles)


def gpu_candidates(
    device: DeviceProps, dtype: str, *, max_input_elements: int, k: int = 8192
) -> list[Shape]:
    """Coarse GPU candidates at one ``k``: for 1, 2, 3, 4, 6 and 8 full waves, a square and
    an elongated (``n`` about 8x ``m``) output whose tile count fills that many waves.

    Published best shapes are of both kinds: H100 2048x2048 (one wave), A100 1024x10240 and
    GH200 1024x15360 (three to four waves, ``m`` small).

    :param device: the GPU (``compute_units`` is the SM/CU count).
    :param dtype: the GEMM dtype (every dtype uses the same tiles here).
    :param max_input_elements: most ``m*k + k*n`` elements the input pool holds.
    :param k: the inner dimension of every candidate.
    """
    del dtype  # same tiles for every dtype; kept for dtype-specific tiles later
    units = max(1, device.compute_units)
    tiles = GPU_TILES.get(device.kind, GPU_TILES["cuda"])
    lo, hi = _GPU_MN_RANGE
    sizes = range(lo, hi + 1, _GPU_ALIGN)
    out: list[Shape] = []
    for waves in _GPU_WAVES:
        full: list[tuple[int, int]] = []
        for m in sizes:
            for n in sizes:
                if _filled_waves(m, n, units, tiles) == waves:
                    full.append((m, n))
        for aspect in (1.0, 8.0):
            if not full:
                break
            m, n = min(full, key=lambda p: (abs(math.log(p[1] / p[0] / aspect)), p[0] * p[1]))
            shape = Shape(m, n, k)
            if shape not in out and shape.input_elements <= max_input_elements:
                out.append(shape)
    return out


def _filled_waves(m: int, n: int, units: int, tiles: Iterable[tuple[int, int]]) -> int | None:
    """Waves of the best tile shape when they are at least 95 % full, else ``None``."""
    for tile in tiles:
        count = math.ceil(m / tile[0]) * math.ceil(n / tile[1])
        waves = math.ceil(count / units)
        if count / (waves * units) >= _FULL_WAVE:
            return waves
    return None


def _waves(m: int, n: int, units: int, tiles: Iterable[tuple[int, int]]) -> int:
    """Waves of the tile shape that fills them best."""
    best = max(tiles, key=lambda t: wave_efficiency(m, n, units, t))
    return math.ceil(math.ceil(m / best[0]) * math.ceil(n / best[1]) / units)


def gpu_neighbours(
    shape: Shape, device: DeviceProps, *, step_k: int, max_scan: int = 24
) -> list[Shape]:
    """Wave-aware neighbours of ``shape``.

    Along ``m`` and along ``n``, in each direction: the nearest edge that keeps its waves
    at least 90 % full, and the nearest that fills them at least as well as ``shape`` does
    (less 2 %), which may be several tiles away - a plain step of 256 usually lands on a
    half-empty last wave. Then ``k`` one step up and down, iso-work moves (``m`` one or two
    steps either way, ``n`` rescaled to keep ``m*n`` and its waves full), and ``m`` and ``n``
    swapped.
    """
    units = max(1, device.compute_units)
    tiles = GPU_TILES.get(device.kind, GPU_TILES["cuda"])
    here = best_wave(shape.m, shape.n, units, tiles)
    waves = _waves(shape.m, shape.n, units, tiles)
    out: list[Shape] = []
    for dk in (step_k, -step_k):  # K first: it moves the rate most once waves are full
        if _GPU_ALIGN <= shape.k + dk <= _GPU_MAX_EDGE:
            out.append(Shape(shape.m, shape.n, shape.k + dk))
    # Per axis and direction: nearest edge >= 90 % full; nearest as full as here; nearest
    # as full as here with another number of waves (the next plateau of the landscape).
    rules = ((0.9, False), (here - 0.02, False), (here - 0.02, True))
    for axis in ("m", "n"):
        for direction in (1, -1):
            for floor, other_waves in rules:
                for j in range(1, max_scan + 1):
                    value = getattr(shape, axis) + direction * j * _GPU_ALIGN
                    if not _GPU_ALIGN <= value <= _GPU_MAX_EDGE:
                        break
                    m, n = (value, shape.n) if axis == "m" else (shape.m, value)
                    if best_wave(m, n, units, tiles) < floor:
                        continue
                    if other_waves and _waves(m, n, units, tiles) == waves:
                        continue
                    candidate = Shape(m, n, shape.k)
                    if candidate not in out:
                        out.append(candidate)
                    break
    # Iso-work moves: change m and give n the work back, on the best-filled nearby edge.
    for dm in (-2, -1, 1, 2):
        m = shape.m + dm * _GPU_ALIGN
        if not _GPU_ALIGN <= m <= _GPU_MAX_EDGE:
            continue
        centre = round(shape.n * shape.m / m / _GPU_ALIGN) * _GPU_ALIGN
        around = [centre + j * _GPU_ALIGN for j in range(-4, 5)]
        around = [n for n in around if _GPU_ALIGN <= n <= _GPU_MAX_EDGE]
        if not around:
            continue
        n = max(around, key=lambda v: (best_wave(m, v, units, tiles), -abs(v - centre)))
        if best_wave(m, n, units, tiles) >= here - 0.02:
            candidate = Shape(m, n, shape.k)
            if candidate not in out:
                out.append(candidate)
    if shape.m != shape.n:
        out.append(Shape(shape.n, shape.m, shape.k))
    return out


def cpu_candidates(
    device: DeviceProps,
    dtype: str,
    *,
    flops_per_s: float,
    max_call_s: float,
    max_input_elements: int,
) -> list[Shape]:
    """Coarse CPU candidates, most promising first.

    Edges come from the caches - where three ``n x n`` matrices fill the per-core L2, half
    the LLC, the LLC - plus powers of two and the largest affordable edge, all multiples of
    64 and at least 256 (smaller products are dominated by per-call overhead; they are used
    only when nothing larger is affordable). Each edge gives a square and, where affordable,
    a deep (``k = 2n``) shape: a larger ``k`` amortises packing, which matters most when a
    dtype is emulated. Shapes whose predicted call exceeds ``max_call_s`` at
    ``flops_per_s`` are left out. The edge between the L2 and LLC anchors (where BLAS
    blocking usually peaks) comes first, then the others from the largest down.

    :param device: the CPU.
    :param dtype: the GEMM dtype.
    :param flops_per_s: measured rate of a first small product.
    :param max_call_s: longest affordable call.
    :param max_input_elements: most ``m*k + k*n`` elements the input pool holds.
    """
    elem = ELEMENT_BYTES[dtype]
    budget_flops = max_call_s * flops_per_s
    n_max = int((budget_flops / 2) ** (1 / 3))
    n_max = min(n_max, math.isqrt(max(1, max_input_elements // 2)))
    n_max = max(_CPU_ALIGN, n_max // _CPU_ALIGN * _CPU_ALIGN)

    def edge(cache: int | None, fraction: float) -> int | None:
        if not cache:
            return None
        return max(_CPU_ALIGN, math.isqrt(int(cache * fraction) // (3 * elem)))

    l2, llc = device.l2_bytes, device.llc_bytes
    anchors = [edge(l2, 1.0), edge(llc, 0.5), edge(llc, 1.0), n_max]
    edges = {a // _CPU_ALIGN * _CPU_ALIGN for a in anchors if a}
    edges |= {1 << p for p in range(6, 14)}
    edges = {e for e in edges if _CPU_ALIGN <= e <= n_max}
    large = {e for e in edges if e >= _CPU_MIN_EDGE}
    edges = large or {max(edges, default=n_max)} | {e for e in edges if e >= n_max // 4}
    middle = math.sqrt((edge(l2, 1.0) or 256) * (edge(llc, 1.0) or 2048))
    first = min(edges, key=lambda e: abs(math.log(e / middle)))
    ordered = [first, *sorted(edges - {first}, reverse=True)]
    out: list[Shape] = []
    for e in ordered:
        out.append(Shape(e, e, e))
        deep = Shape(e, e, 2 * e)
        if deep.flops <= budget_flops:
            out.append(deep)
    return [s for s in out if s.input_elements <= max_input_elements]


def neighbours(shape: Shape, *, step_mn: int, step_k: int, align: int) -> list[Shape]:
    """CPU neighbours: ``k`` doubled and halved, then one step away in m, n, k, and in m
    and n together. Doubling ``k`` comes first: it amortises packing, and an emulated
    dtype (bf16 without AVX512_BF16) keeps gaining up to several thousand."""
    out = []
    for k in (2 * shape.k, shape.k // 2 // align * align):
        if k >= align:
            out.append(Shape(shape.m, shape.n, k))
    for dm, dn, dk in (
        (step_mn, 0, 0),
        (-step_mn, 0, 0),
        (0, step_mn, 0),
        (0, -step_mn, 0),
        (0, 0, step_k),
        (0, 0, -step_k),
        (step_mn, step_mn, 0),
        (-step_mn, -step_mn, 0),
    ):
        m, n, k = shape.m + dm, shape.n + dn, shape.k + dk
        candidate = Shape(m, n, k)
        if min(m, n, k) >= align and candidate not in out:
            out.append(candidate)
    return out
