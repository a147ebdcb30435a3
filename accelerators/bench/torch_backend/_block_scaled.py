"""Block-scaled GEMMs on Blackwell: MXFP8 and FP4 (MXFP4) through ``torch._scaled_mm``.

Both formats carry one power-of-two scale (``float8_e8m0fnu``) per 32 values along ``k``
(the OCP Microscaling formats: MXFP8 = FP8 E4M3 elements, MXFP4 = FP4 E2M1 elements), and
cuBLASLt wants those scales in a "blocked" (swizzled) layout of 128 x 4 tiles. This benchmark
sets **every scale to 1** (E8M0 code 127):

* the tensor cores read and apply the scales as they would any others, so the rate is that
  of a real block-scaled GEMM;
* the product does not depend on where each scale sits, so the swizzle cannot be got wrong;
  only the number of scales per operand must be what torch checks,
  ``round_up(rows, 128) x round_up(k / 32, 4)``;
* the exact result is then the plain product of the elements, which the checksums and the
  reference blocks check as for any dtype.

FP4 elements come two per byte (``float4_e2m1fn_x2``). Both nibbles of a byte hold the same
E2M1 code here, so the result does not depend on which nibble is the first element: with
``A8``/``B8`` the ``m x k/2`` and ``k/2 x n`` byte matrices and ``v()`` the E2M1 value of a
code, ``C = 2 v(A8) v(B8)``. E2M1 (sign, 2 exponent bits, 1 mantissa bit, no Inf or NaN) has
the magnitudes 0, 0.5, 1, 1.5, 2, 3, 4 and 6 (OCP Microscaling Formats (MX) v1.0, section
5.3.3: https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf).

A probe (:func:`probe`) runs one small product and compares it with its reference before a
dtype is benchmarked: where torch's kernel or this layout is refused, the dtype is reported
unsupported with torch's own error, never measured wrongly.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "BLOCK",
    "E2M1",
    "fp4_codes",
    "fp4_ones_b",
    "operands",
    "probe",
    "scale_count",
    "scaled_mm",
    "unit_scales",
    "widen_fp4",
]

#: Values per E8M0 scale along ``k``.
BLOCK = 32
#: E2M1 value of each 4-bit code: bit 3 the sign, then 2 exponent bits and 1 mantissa bit.
E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0)
#: Shape of the probe product (every edge a multiple of the 128 x 4 scale tiles' rows).
_PROBE = (256, 256, 256)


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def scale_count(rows: int, k: int) -> int:
    """E8M0 scales one operand of ``rows x k`` needs in cuBLASLt's blocked layout."""
    return _round_up(rows, 128) * _round_up(math.ceil(k / BLOCK), 4)


def unit_scales(torch: Any, rows: int, k: int, where: Any) -> Any:
    """``scale_count(rows, k)`` scales of 1 (E8M0), in a flat tensor on ``where``."""
    ones = torch.ones(scale_count(rows, k), dtype=torch.float32, device=where)
    return ones.to(torch.float8_e8m0fnu)


def fp4_codes(torch: Any, count: int, generator: Any, where: Any) -> Any:
    """``count`` random bytes whose two nibbles hold the same random E2M1 code."""
    codes = torch.randint(0, 16, (count,), dtype=torch.int16, generator=generator, device=where)
    return (codes | (codes << 4)).to(torch.uint8)


def widen_fp4(torch: Any, packed: Any, dtype: Any) -> Any:
    """The E2M1 value of each byte of ``packed`` (its low nibble; both nibbles are equal)."""
    table = torch.tensor(E2M1, dtype=dtype, device=packed.device)
    return table[(packed.to(torch.int64) & 15)]


def fp4_ones_b(torch: Any, b: Any, *, chunk: int = 1 << 22) -> Any:
    """``B.1`` in fp32 for FP4 bytes ``b`` (``k/2 x n``), the x 2 of the doubled codes
    included; widened a slice of columns at a time (bounded temporary)."""
    half_k, n = b.shape
    step = max(1, chunk // max(half_k, 1))
    total = torch.zeros(half_k, dtype=torch.float32, device=b.device)
    for start in range(0, n, step):
        total += widen_fp4(torch, b[:, start : start + step], torch.float32).sum(dim=1)
    return 2 * total


def operands(torch: Any, dtype: str, a: Any, b: Any) -> tuple[Any, Any]:
    """``a`` and ``b`` as ``torch._scaled_mm`` takes them (FP4 bytes viewed as pairs)."""
    if dtype == "fp4":
        return a.view(torch.float4_e2m1fn_x2), b.view(torch.float4_e2m1fn_x2)
    return a, b


def scaled_mm(torch: Any, dtype: str, a: Any, b: Any, scales: tuple[Any, Any]) -> Any:
    """One block-scaled product ``a @ b`` (bf16 out) with the given unit scales."""
    left, right = operands(torch, dtype, a, b)
    return torch._scaled_mm(
        left, right, scale_a=scales[0], scale_b=scales[1], out_dtype=torch.bfloat16
    )


def _inputs(torch: Any, dtype: str, where: Any) -> tuple[Any, Any, Any, Any]:
    """Probe inputs (``a``, ``b`` as stored) and their fp32 values (``b`` with FP4's x 2)."""
    m, n, k = _PROBE
    generator = torch.Generator(device=where)
    generator.manual_seed(0xB10C)
    if dtype == "fp4":
        a = fp4_codes(torch, m * k // 2, generator, where).view(m, k // 2)
        b = fp4_codes(torch, n * k // 2, generator, where).view(n, k // 2).t()
        return a, b, widen_fp4(torch, a, torch.float32), 2 * widen_fp4(torch, b, torch.float32)
    a = torch.randn(m, k, generator=generator, device=where).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, generator=generator, device=where).to(torch.float8_e4m3fn).t()
    return a, b, a.to(torch.float32), b.to(torch.float32)


def probe(torch: Any, dtype: str, where: Any) -> str | None:
    """``None`` when one small ``dtype`` product runs and matches its reference, else why not."""
    m, n, k = _PROBE
    try:
        a, b, ref_a, ref_b = _inputs(torch, dtype, where)
        scales = (unit_scales(torch, m, k, where), unit_scales(torch, n, k, where))
        out = scaled_mm(torch, dtype, a, b, scales).to(torch.float32)
    except (RuntimeError, TypeError, ValueError, NotImplementedError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"torch._scaled_mm refuses a block-scaled {dtype} product here: {first}"
    ref = ref_a @ ref_b
    # bf16 output: relative rounding 2**-8 of each element; allow 4x that of the largest.
    tolerance = 4 * 2.0**-8 * float(ref.abs().max().item()) + 1e-6
    error = float((out - ref).abs().max().item())
    if not error <= tolerance:  # NaN fails too
        return (
            f"torch._scaled_mm's block-scaled {dtype} product differs from its reference on a "
            f"{m}x{n}x{k} probe (max error {error:.3g}, tolerance {tolerance:.3g})"
        )
    return None
