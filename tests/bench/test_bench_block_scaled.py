"""MXFP8 and FP4 (MXFP4) GEMMs with unit block scales (bench/torch_backend/_block_scaled.py).

No Blackwell GPU here: the real ``torch._scaled_mm`` refuses block scales on the CPU, which
the probe must report. The GEMM cases themselves run against a stand-in for the Blackwell
kernel (:class:`BlackwellTorch`): real torch, whose ``_scaled_mm`` checks what cuBLASLt's
path checks in torch (FP8/FP4 operands, E8M0 scales, the blocked scale count) and computes
the product of the dequantized elements on the CPU.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from accelerators.bench.measure._backend import DeviceProps, Shape  # noqa: E402
from accelerators.bench.measure._correctness import GEMM_TOLERANCE, gemm_check_passes  # noqa: E402
from accelerators.bench.torch_backend._block_scaled import (  # noqa: E402
    E2M1,
    fp4_codes,
    fp4_ones_b,
    probe,
    scale_count,
    widen_fp4,
)
from accelerators.bench.torch_backend._dtypes import torch_dtype, unsupported  # noqa: E402
from accelerators.bench.torch_backend._gemm import TorchGemmSession  # noqa: E402

CPU = torch.device("cpu")
BLACKWELL = DeviceProps(
    index=0, kind="cuda", name="NVIDIA B200", compute_units=148, capability="10.0"
)
HOPPER = DeviceProps(
    index=0, kind="cuda", name="NVIDIA H100-SXM", compute_units=132, capability="9.0"
)


def _decode_fp4(packed: Any) -> Any:
    """Both nibbles of each byte as E2M1 values, low nibble first (``m x 2k``)."""
    table = torch.tensor(E2M1, dtype=torch.float32)
    codes = packed.view(torch.uint8).to(torch.int64)
    low, high = table[codes & 15], table[codes >> 4]
    return torch.stack([low, high], dim=-1).reshape(codes.shape[0], -1)


class BlackwellTorch:
    """torch, with a ``_scaled_mm`` that does what the Blackwell kernel does, on the CPU."""

    def __init__(self, *, corrupt: bool = False) -> None:
        self.corrupt = corrupt
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(torch, name)

    def _scaled_mm(self, a: Any, b: Any, *, scale_a: Any, scale_b: Any, out_dtype: Any) -> Any:
        self.calls += 1
        if scale_a.dtype != torch.float8_e8m0fnu or scale_b.dtype != torch.float8_e8m0fnu:
            raise RuntimeError("block-scaled operands need float8_e8m0fnu scales")
        if a.dtype == torch.float4_e2m1fn_x2:
            left, right = _decode_fp4(a), _decode_fp4(b.t()).t()
        elif a.dtype == torch.float8_e4m3fn:
            left, right = a.to(torch.float32), b.to(torch.float32)
        else:
            raise RuntimeError(f"unsupported operand dtype {a.dtype}")
        m, k = left.shape
        n = right.shape[1]
        for scales, rows in ((scale_a, m), (scale_b, n)):
            if scales.numel() != scale_count(rows, k):
                raise RuntimeError(f"expected {scale_count(rows, k)} scales, got {scales.numel()}")
            if not bool((scales.to(torch.float32) == 1).all()):
                raise RuntimeError("this stand-in applies unit scales only")
        out = (left @ right).to(out_dtype)
        if self.corrupt:
            out[:16, :16] += 64  # one bad tile
        return out


class _Host:
    """The backend surface a :class:`TorchGemmSession` uses, on the CPU."""

    def __init__(self, stand_in: BlackwellTorch) -> None:
        self.torch = stand_in
        self.kind = "cuda"
        self.device_type = "cuda"

    def _device(self, device: DeviceProps) -> Any:
        return CPU

    def torch_dtype(self, dtype: str, device: DeviceProps) -> Any:
        return torch_dtype(torch, "cuda", device, dtype)

    def synchronize(self, device: DeviceProps) -> None:
        return None


def test_the_e2m1_table_follows_the_format_definition() -> None:
    # sign | 2 exponent bits (bias 1) | 1 mantissa bit; exponent 0 is subnormal: m x 0.5
    for code, value in enumerate(E2M1):
        sign, exponent, mantissa = code >> 3, (code >> 1) & 3, code & 1
        magnitude = mantissa * 0.5 if exponent == 0 else 2.0 ** (exponent - 1) * (1 + mantissa / 2)
        assert value == (-magnitude if sign else magnitude)
        assert math.copysign(1, value) == (-1 if sign else 1)


def test_scale_counts_are_whole_128_by_4_tiles() -> None:
    assert scale_count(256, 256) == 256 * 8
    assert scale_count(100, 64) == 128 * 4  # rows pad to 128, k/32 = 2 pads to 4
    assert scale_count(4096, 8192) == 4096 * 256


def test_fp4_bytes_repeat_their_code_and_widen_to_it() -> None:
    generator = torch.Generator().manual_seed(1)
    packed = fp4_codes(torch, 4096, generator, CPU)
    assert packed.dtype == torch.uint8
    assert bool(((packed & 15) == (packed >> 4)).all())
    assert set((packed & 15).tolist()) == set(range(16))  # every code drawn
    values = widen_fp4(torch, packed, torch.float32)
    assert values.tolist() == [E2M1[c] for c in (packed & 15).tolist()]
    b = packed[: 64 * 32].view(32, 64)  # k/2 x n
    assert torch.allclose(
        fp4_ones_b(torch, b, chunk=100), 2 * values[: 64 * 32].view(32, 64).sum(1)
    )


@pytest.mark.parametrize("dtype", ["mxfp8", "fp4"])
def test_on_this_cpu_torch_refuses_block_scales_and_the_probe_says_so(dtype: str) -> None:
    reason = probe(torch, dtype, CPU)
    assert reason is not None
    assert reason.startswith(f"torch._scaled_mm refuses a block-scaled {dtype} product here: ")


@pytest.mark.parametrize("dtype", ["mxfp8", "fp4"])
def test_the_probe_accepts_a_right_kernel_and_names_a_wrong_one(dtype: str) -> None:
    assert probe(BlackwellTorch(), dtype, CPU) is None
    wrong = probe(BlackwellTorch(corrupt=True), dtype, CPU)
    assert wrong is not None
    assert "differs from its reference" in wrong


def test_only_blackwell_runs_block_scaled_dtypes() -> None:
    assert unsupported(BlackwellTorch(), "cuda", BLACKWELL, "fp4", CPU) is None
    assert unsupported(BlackwellTorch(), "cuda", BLACKWELL, "mxfp8", CPU) is None
    hopper = unsupported(BlackwellTorch(), "cuda", HOPPER, "mxfp8", CPU)
    assert hopper is not None
    assert "compute capability 10.0+" in hopper
    refused = unsupported(torch, "cuda", BLACKWELL, "fp4", CPU)  # the CPU's real kernel
    assert refused is not None
    assert "refuses a block-scaled fp4 product" in refused


@pytest.mark.parametrize("dtype", ["mxfp8", "fp4"])
def test_every_call_is_checked_and_a_bad_tile_is_caught(dtype: str) -> None:
    shape = Shape(256, 256, 512)
    for corrupt in (False, True):
        stand_in = BlackwellTorch(corrupt=corrupt)
        session = TorchGemmSession(_Host(stand_in), BLACKWELL, dtype, 4 * shape.input_elements)
        case = session.case(shape)
        for _ in range(3):
            case.before()
            case.run()
        check = case.check(blocks=2, block=64, seed=7)
        case.close()
        assert stand_in.calls == 3
        assert check.calls_checked == 3
        passes, tolerance = gemm_check_passes(check, dtype)
        assert tolerance == GEMM_TOLERANCE[dtype]
        if corrupt:
            assert check.calls_failed == 3, check
            assert not passes
        else:
            assert check.calls_failed == 0, check
            assert check.nonfinite == 0
            assert check.max_error < tolerance / 4, check  # bf16 rounding of the output
            assert passes
