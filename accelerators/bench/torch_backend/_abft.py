"""Row-checksum verification of GEMM outputs on the device (torch), one call at a time.

The rule and its thresholds are in :mod:`accelerators.bench.measure._correctness`; this module
computes, without synchronising the device, three numbers per output: whether it failed,
the worst row's outlier score and ``|alpha - 1|``. :func:`summarize` reads them all back
once, at the end of a case.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from accelerators.bench.measure._correctness import (
    OUTLIER_FLOOR,
    OUTLIER_SIGMAS,
    SCALE_FLOOR,
)

__all__ = ["call_stats", "summarize"]

#: Rows of ``A`` converted to fp32 at once (bounds the temporary to 64 MiB).
_CHUNK_ELEMENTS = 1 << 24
#: ``median |e| / 0.6745`` estimates the standard deviation of Gaussian noise.
_MAD_TO_SIGMA = 0.6745


def call_stats(
    torch: Any,
    out: Any,
    a: Any,
    b: Any,
    dtype: str,
    *,
    widen: Callable[[Any], Any] | None = None,
    ones_b: Any = None,
) -> Any:
    """A device tensor ``[failed, outlier score, |alpha - 1|]`` for ``out = a @ b``.

    :param torch: the torch module.
    :param out: the ``m x n`` output just produced.
    :param a: the ``m x k`` input.
    :param b: the ``k x n`` input.
    :param dtype: the GEMM dtype (selects the floors).
    :param widen: turns rows of ``a`` into their fp32 values (packed formats such as FP4);
        ``.to(float32)`` by default.
    :param ones_b: ``B.1`` when the caller computes it (packed formats), else ``b``'s row sums.
    """
    f32 = torch.float32
    m, k = a.shape
    rows = out.sum(dim=1, dtype=f32)
    if ones_b is None:
        ones_b = b.sum(dim=1, dtype=f32)  # B.1, a k-vector
    step = max(1, _CHUNK_ELEMENTS // max(k, 1))
    to32 = widen if widen is not None else (lambda chunk: chunk.to(f32))
    ref = torch.cat([to32(a[i : i + step]) @ ones_b for i in range(0, m, step)])
    nonfinite = ~torch.isfinite(rows).all()
    energy = (ref * ref).sum()
    alpha = (rows * ref).sum() / energy
    residual = (rows - alpha * ref).abs()
    sigma = residual.median() / _MAD_TO_SIGMA
    rms = torch.sqrt(energy / m)
    floor = OUTLIER_FLOOR.get(dtype, 1e-3) * rms
    outlier = residual.max() / torch.maximum(OUTLIER_SIGMAS * sigma, floor)
    scale_error = (alpha - 1).abs()
    scale_limit = torch.clamp(10 * sigma / rms / math.sqrt(m), min=SCALE_FLOOR.get(dtype, 2e-3))
    failed = nonfinite | ~(outlier <= 1) | ~(scale_error <= scale_limit)  # NaN fails
    return torch.stack([failed.to(f32), outlier.to(f32), scale_error.to(f32)])


def summarize(torch: Any, stats: Sequence[Any]) -> tuple[int, int, float, float]:
    """``(calls, failed calls, worst outlier score, worst |alpha - 1|)`` of ``stats``.

    Reads the device once. NaN scores (a NaN output) count as infinite.
    """
    if not stats:
        return 0, 0, 0.0, 0.0
    table = torch.nan_to_num(torch.stack(list(stats)).cpu(), nan=math.inf)
    failed = int(table[:, 0].sum().item())
    return len(stats), failed, float(table[:, 1].max().item()), float(table[:, 2].max().item())
