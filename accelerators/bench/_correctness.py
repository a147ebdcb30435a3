"""Correctness of GEMM outputs: tolerances per dtype and the pass/fail decision.

After a dtype's search, the winning shape runs once more and random ``64 x 64`` blocks of
its output are compared with an fp64 product of the same inputs (on the device where fp64
exists, else on the CPU). The error is normalised by ``sqrt(k)``, the standard deviation of
an output element for unit-normal inputs, so one tolerance per dtype fits every ``k``.

Expected normalised errors and the tolerances (a fault gives errors of order 1, or NaN):

======  =================================================  ===============  =========
dtype   dominant error source                              expected error   tolerance
======  =================================================  ===============  =========
fp32    fp32 accumulation                                  ~1e-6            1e-3
tf32    inputs rounded to 10-bit mantissas                 ~1e-3            2e-2
fp16    fp16 output rounding, fp16 split-K reductions      ~2e-3            3e-2
bf16    bf16 output rounding, bf16 split-K reductions      ~1e-2            1e-1
fp8     bf16 output (inputs are exact fp8 values)          ~1e-2            1e-1
======  =================================================  ===============  =========

A NaN or infinity anywhere in a checked block is a miscompare whatever the tolerance.
Stream kernels are checked against analytic values in :mod:`accelerators.bench._stream`.
"""

from __future__ import annotations

from accelerators.bench._backend import GemmCheck

__all__ = ["GEMM_TOLERANCE", "gemm_check_passes"]

#: Largest accepted ``max |C - C_ref| / sqrt(k)`` per dtype.
GEMM_TOLERANCE: dict[str, float] = {
    "fp32": 1e-3,
    "tf32": 2e-2,
    "fp16": 3e-2,
    "bf16": 1e-1,
    "fp8": 1e-1,
}


def gemm_check_passes(check: GemmCheck, dtype: str) -> tuple[bool, float]:
    """Whether ``check`` is within the tolerance of ``dtype``; returns ``(passes, tolerance)``.

    :param check: the compared blocks.
    :param dtype: the GEMM dtype.
    """
    tolerance = GEMM_TOLERANCE.get(dtype, 1e-1)
    passes = check.nonfinite == 0 and check.max_error <= tolerance
    return passes, tolerance
