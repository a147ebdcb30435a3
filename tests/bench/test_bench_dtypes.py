"""fp64 and int8 GEMMs on the CPU through real torch; fp4/mxfp8 refused with a reason (#11)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accelerators.bench.measure._backend import DeviceProps, Shape
from accelerators.bench.measure._correctness import gemm_check_passes

torch = pytest.importorskip("torch")

from bench_helpers import run_checked_case  # noqa: E402

from accelerators.bench.torch_backend import _dtypes as _torch_dtypes  # noqa: E402
from accelerators.bench.torch_backend._backend import TorchBackend, _TorchGemmCase  # noqa: E402


@pytest.fixture(scope="module")
def backend() -> TorchBackend:
    return TorchBackend("cpu", cpu_caches=(512 << 10, 32 << 20), cpu_name="test CPU")


def _run(
    backend: TorchBackend, dtype: str, corrupt: Callable[[Any, int], None] | None, calls: int = 4
) -> Any:
    return run_checked_case(backend, dtype, corrupt, calls)


def test_int8_product_is_an_exact_int32_gemm(backend: TorchBackend) -> None:
    (device,) = backend.devices()
    session = backend.open_gemm(device, "int8", pool_elements=1 << 20)
    case = session.case(Shape(128, 64, 256))
    assert isinstance(case, _TorchGemmCase)
    case.run()
    a, b = case.views[0]
    assert a.dtype == torch.int8
    assert case.out.dtype == torch.int32
    assert int(a.abs().max()) <= 16
    assert int(a.abs().max()) > 0
    expected = a.to(torch.int64) @ b.to(torch.int64)
    assert torch.equal(case.out.to(torch.int64), expected)
    case.close()
    session.close()


def test_int8_healthy_run_passes_exactly(backend: TorchBackend) -> None:
    check = _run(backend, "int8", None)
    assert check.calls_checked == 4
    assert check.calls_failed == 0
    assert check.max_error == 0.0
    assert gemm_check_passes(check, "int8") == (True, 0.0)


def test_int8_checksum_catches_an_off_by_one_in_one_element(backend: TorchBackend) -> None:
    """An error of 1 in one int32 of 122880 is far below any float tolerance: exact ABFT."""

    def off_by_one(out: Any, call: int) -> None:
        if call == 1:
            out[17, 33] += 1

    check = _run(backend, "int8", off_by_one)
    assert check.calls_checked == 4
    assert check.calls_failed == 1
    assert gemm_check_passes(check, "int8")[0] is False


def test_int8_off_by_one_in_the_last_output_fails_the_block_check_too(
    backend: TorchBackend,
) -> None:
    def everywhere(out: Any, call: int) -> None:
        out.add_(1)

    check = _run(backend, "int8", everywhere)
    assert check.calls_failed == 4
    assert check.max_error > 0
    assert gemm_check_passes(check, "int8")[0] is False


def test_fp64_reference_is_not_rounded_through_fp32(backend: TorchBackend) -> None:
    check = _run(backend, "fp64", None)
    passes, tolerance = gemm_check_passes(check, "fp64")
    assert passes
    assert tolerance == 1e-9
    assert check.max_error < 1e-12  # through fp32 it would be ~1e-7


def test_fp64_small_systematic_error_fails(backend: TorchBackend) -> None:
    def scale(out: Any, call: int) -> None:
        out.mul_(1.001)

    check = _run(backend, "fp64", scale)
    assert check.calls_failed == 4
    assert gemm_check_passes(check, "fp64")[0] is False


@pytest.mark.parametrize("dtype", ["fp4", "mxfp8"])
def test_block_scaled_dtypes_say_why_not(backend: TorchBackend, dtype: str) -> None:
    (cpu,) = backend.devices()
    assert "Blackwell" in (backend.unsupported(cpu, dtype) or "")
    hopper = DeviceProps(index=0, kind="cuda", name="H100-SXM", compute_units=132, capability="9.0")
    why = _torch_dtypes.unsupported(torch, "cuda", hopper, dtype, None)
    assert why is not None
    assert "compute capability 9.0" in why
    blackwell = DeviceProps(index=0, kind="cuda", name="B200", compute_units=148, capability="10.0")
    # This CPU torch has the dtypes but its _scaled_mm refuses block scales: the probe says so.
    why = _torch_dtypes.unsupported(torch, "cuda", blackwell, dtype, torch.device("cpu"))
    assert why is not None
    assert why.startswith(f"torch._scaled_mm refuses a block-scaled {dtype} product here")


def test_block_scaled_dtype_on_a_torch_without_the_dtypes() -> None:
    class OldTorch:
        __version__ = "2.1.0"
        _scaled_mm = object()
        float8_e4m3fn = object()

    blackwell = DeviceProps(index=0, kind="cuda", name="B200", compute_units=148, capability="10.0")
    why = _torch_dtypes.unsupported(OldTorch(), "cuda", blackwell, "fp4", None)
    assert why == ("unsupported by this torch: torch 2.1.0 has no float4_e2m1fn_x2, float8_e8m0fnu")


def test_int8_without_int_mm_is_unsupported_not_a_crash() -> None:
    class OldTorch:
        __version__ = "1.13.0"

    cpu = DeviceProps(index=0, kind="cpu", name="cpu", compute_units=2)
    why = _torch_dtypes.unsupported(OldTorch(), "cpu", cpu, "int8", None)
    assert why == "unsupported by this torch: torch 1.13.0 has no torch._int_mm"


def test_int8_probe_failure_is_reported(backend: TorchBackend) -> None:
    class Failing:
        __version__ = "2.13.0"
        int8 = torch.int8

        def ones(self, *args: Any, **kwargs: Any) -> Any:
            return torch.ones(*args, **kwargs)

        def _int_mm(self, a: Any, b: Any) -> Any:
            raise RuntimeError("_int_mm_out_cuda not compiled for this GPU\nmore")

    gpu = DeviceProps(index=0, kind="cuda", name="T4", compute_units=40, capability="7.5")
    why = _torch_dtypes.unsupported(Failing(), "cuda", gpu, "int8", "cpu")
    assert why == "torch._int_mm fails on this device: _int_mm_out_cuda not compiled for this GPU"


def test_unknown_dtype_lists_the_known_ones(backend: TorchBackend) -> None:
    (cpu,) = backend.devices()
    why = backend.unsupported(cpu, "int4")
    assert why is not None
    assert "int8" in why
    assert "fp64" in why


@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
def test_a_case_that_never_ran_compares_no_blocks(backend: TorchBackend, dtype: str) -> None:
    """``out`` is torch.empty memory until a call writes it: checking it is not a miscompare.

    The stale values planted here are what an earlier tensor left in freed memory (a rerun
    whose budget ran out before its first call once read 1.3e18 and NaN this way)."""
    (device,) = backend.devices()
    session = backend.open_gemm(device, dtype, pool_elements=1 << 20)
    stale = torch.full((384, 320), float("nan"), dtype=torch.float32)
    del stale
    case = session.case(Shape(384, 320, 512))
    try:
        check = case.check(blocks=2, block=32, seed=1)
        assert check.blocks == 0
        assert check.nonfinite == 0
        assert check.calls_checked == 0
        assert gemm_check_passes(check, dtype)[0]
        case.before()
        case.run()
        ran = case.check(blocks=2, block=32, seed=1)
        assert ran.blocks == 2
        assert ran.calls_checked == 1
        assert gemm_check_passes(ran, dtype)[0]
    finally:
        case.close()
        session.close()
