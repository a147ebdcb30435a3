"""Exact row checksums for integer GEMMs (int8 in, int32 out).

An integer product has no rounding, so the ABFT check needs no tolerance: the row sums
``C.1`` must equal ``A.(B.1)`` exactly. ``C.1`` is summed in int64; ``A.(B.1)`` is a
matrix-vector product in fp64, which is exact here:
the pool's values are integers in ``[-16, 16]`` (:mod:`accelerators.bench.torch_backend._gemm`), so
an output element is at most ``256 k`` and a row sum at most ``256 k n``, below ``2**53`` for
every shape the search can pick (``k, n <= 32768`` gives ``2.7e11``); fp64 adds integers
below ``2**53`` exactly in any order. Any difference, in any row, fails the call.
"""

from __future__ import annotations

from typing import Any

__all__ = ["exact_call_stats"]

#: Rows of ``A`` converted to fp64 at once (bounds the temporary to 128 MiB).
_CHUNK_ELEMENTS = 1 << 24


def exact_call_stats(torch: Any, out: Any, a: Any, b: Any) -> Any:
    """A device tensor ``[failed, rows that differ, 0]`` for the integer ``out = a @ b``.

    The layout matches :func:`accelerators.bench.torch_backend._abft.call_stats`, so
    :func:`accelerators.bench.torch_backend._abft.summarize` reads both: the second figure
    (the outlier score) is the number of rows whose checksum differs, the third (the scale
    error) is 0.

    :param torch: the torch module.
    :param out: the ``m x n`` integer output just produced.
    :param a: the ``m x k`` integer input.
    :param b: the ``k x n`` integer input.
    """
    f64 = torch.float64
    m, k = a.shape
    i64 = torch.int64
    rows = out.sum(dim=1, dtype=i64)
    ones_b = b.sum(dim=1, dtype=i64).to(f64)  # B.1, a k-vector of exact integers
    step = max(1, _CHUNK_ELEMENTS // max(k, 1))
    ref = torch.cat([a[i : i + step].to(f64) @ ones_b for i in range(0, m, step)])
    differ = (rows != ref.to(i64)).sum().to(torch.float32)
    failed = (differ > 0).to(torch.float32)
    return torch.stack([failed, differ, torch.zeros((), dtype=torch.float32, device=out.device)])
