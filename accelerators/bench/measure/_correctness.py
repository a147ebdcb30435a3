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
fp64    fp64 accumulation order                            ~1e-15           1e-9
int8    none: integer products are exact                   0                0
======  =================================================  ===============  =========

A NaN or infinity anywhere in a checked block is a miscompare whatever the tolerance.

The sampled blocks see a small share of one output. Every output of every product a case
runs (warm-up and timed calls, all shapes of the search) is also verified by algorithm-based
row checksums (Huang and Abraham's ABFT), which cost two matrix-vector products: the row
sums ``r = C.1`` are compared with ``r_ref = A.(B.1)`` (fp32 accumulation), after the
output is produced and before the next call's start (untimed). Per call:

* any NaN or Inf in ``r`` fails (a NaN anywhere in ``C`` reaches its row sum);
* ``alpha`` is the least-squares scale of ``r`` on ``r_ref``; ``|alpha - 1|`` above
  ``max(SCALE_FLOOR[dtype], 10 sigma_rel / sqrt(m))`` fails (a systematic error: every
  output 1 % off gives ``|alpha - 1| = 0.01``);
* ``e = r - alpha r_ref``; its robust spread ``sigma = median |e| / 0.6745`` is rounding
  noise; a row with ``|e_i| > max(12 sigma, OUTLIER_FLOOR[dtype] * rms(r_ref))`` fails (a
  bad tile, flipped bits, a stale block: localised errors are outliers in their rows).

int8 products (int32 outputs) are checked exactly instead: every row sum must equal its
reference, see :mod:`accelerators.bench.torch_backend._abft_exact`.

Stream kernels are checked against analytic values in :mod:`accelerators.bench.measure._stream`.
"""

from __future__ import annotations

from accelerators.bench.measure._backend import GemmCheck

__all__ = ["GEMM_TOLERANCE", "OUTLIER_FLOOR", "OUTLIER_SIGMAS", "SCALE_FLOOR", "gemm_check_passes"]

#: Largest accepted ``max |C - C_ref| / sqrt(k)`` per dtype.
GEMM_TOLERANCE: dict[str, float] = {
    "fp32": 1e-3,
    "tf32": 2e-2,
    "fp16": 3e-2,
    "bf16": 1e-1,
    "fp8": 1e-1,
    "mxfp8": 1e-1,
    # E2M1 values reach 6 and the codes are doubled (_block_scaled): |C| is about 12 x sqrt(k)
    # rms, so the bf16 output's rounding alone gives max |C - C_ref| / sqrt(k) near 0.1.
    "fp4": 1.0,
    "fp64": 1e-9,
    "int8": 0.0,
}


#: Smallest row residual, relative to ``rms(r_ref)``, that can fail (below: rounding).
OUTLIER_FLOOR: dict[str, float] = {
    "fp32": 1e-5,
    "tf32": 2e-4,
    "fp16": 3e-4,
    "bf16": 1e-3,
    "fp8": 1e-3,
    "fp64": 1e-5,  # the float checksums accumulate in fp32
}
#: A row residual beyond this many robust standard deviations fails (Gaussian noise: never).
OUTLIER_SIGMAS = 12.0
#: Smallest ``|alpha - 1|`` that can fail. TF32 inputs truncated toward zero shrink products
#: by about 5e-4; rounding to nearest is unbiased.
SCALE_FLOOR: dict[str, float] = {
    "fp32": 1e-4,
    "tf32": 2e-3,
    "fp16": 2e-3,
    "bf16": 2e-3,
    "fp8": 2e-3,
    "fp64": 1e-4,
}


def gemm_check_passes(check: GemmCheck, dtype: str) -> tuple[bool, float]:
    """Whether ``check`` is within the tolerance of ``dtype``; returns ``(passes, tolerance)``.

    :param check: the compared blocks.
    :param dtype: the GEMM dtype.
    """
    tolerance = GEMM_TOLERANCE.get(dtype, 1e-1)
    passes = (
        check.nonfinite == 0
        and check.max_error <= tolerance  # NaN compares False: fails
        and check.calls_failed == 0
    )
    return passes, tolerance
