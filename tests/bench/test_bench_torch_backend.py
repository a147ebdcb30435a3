"""The torch backend on the CPU: GEMM cases, fp64 reference checks, fp8 path, threads."""

from __future__ import annotations

import pytest

from accelerators.bench.measure._backend import Shape
from accelerators.bench.measure._correctness import gemm_check_passes

torch = pytest.importorskip("torch")

from accelerators.bench.torch_backend._backend import TorchBackend  # noqa: E402


@pytest.fixture(scope="module")
def backend() -> TorchBackend:
    return TorchBackend("cpu", cpu_caches=(512 << 10, 32 << 20), cpu_name="test CPU")


def test_the_cpu_device(backend: TorchBackend) -> None:
    (device,) = backend.devices()
    assert device.kind == "cpu"
    assert device.name == "test CPU"
    assert device.llc_bytes == 32 << 20
    assert device.l2_bytes == 512 << 10
    assert backend.kind == "cpu"
    assert backend.unsupported(device, "fp32") is None
    assert backend.unsupported(device, "bf16") is None
    assert "GPU" in (backend.unsupported(device, "tf32") or "")
    assert "GPU" in (backend.unsupported(device, "fp8") or "")
    assert backend.thread_options(device)[0] == 1
    assert "torch" in backend.describe()


def test_invalid_device_index_is_rejected() -> None:
    with pytest.raises(ValueError, match="not visible"):
        TorchBackend("cpu", indices=[3])


@pytest.mark.parametrize("dtype", ["fp32", "bf16", "fp16"])
def test_gemm_case_output_matches_the_fp64_reference(backend: TorchBackend, dtype: str) -> None:
    device = backend.devices()[0]
    session = backend.open_gemm(device, dtype, pool_elements=1 << 20)
    case = session.case(Shape(128, 192, 256))
    for _ in range(3):
        case.run()
    check = case.check(blocks=3, block=64, seed=1)
    passes, tolerance = gemm_check_passes(check, dtype)
    assert passes, (check, tolerance)
    assert check.nonfinite == 0
    assert check.blocks == 3


def test_inputs_are_random_normal_and_rotate_on_the_cpu(backend: TorchBackend) -> None:
    device = backend.devices()[0]
    session = backend.open_gemm(device, "fp32", pool_elements=1 << 20)
    case = session.case(Shape(64, 64, 64))
    assert len(case.views) > 1  # type: ignore[attr-defined]
    a0, _ = case.views[0]  # type: ignore[attr-defined]
    a1, _ = case.views[1]  # type: ignore[attr-defined]
    assert a0.data_ptr() != a1.data_ptr()
    values = session.pool  # type: ignore[attr-defined]
    assert abs(float(values.mean())) < 0.05
    assert 0.9 < float(values.std()) < 1.1
    assert int((values == 0).sum()) == 0


def test_a_corrupted_output_is_caught(backend: TorchBackend) -> None:
    device = backend.devices()[0]
    session = backend.open_gemm(device, "bf16", pool_elements=1 << 20)
    case = session.case(Shape(64, 64, 128))
    case.run()
    case.out[10, 20] += 5.0  # type: ignore[attr-defined]
    check = case.check(blocks=1, block=64, seed=0)
    assert not gemm_check_passes(check, "bf16")[0]
    case.out[0, 0] = float("nan")  # type: ignore[attr-defined]
    nan_check = case.check(blocks=1, block=64, seed=0)
    assert nan_check.nonfinite == 1
    assert not gemm_check_passes(nan_check, "bf16")[0]


def test_fp8_goes_through_scaled_mm(backend: TorchBackend) -> None:
    # The CPU build of torch implements torch._scaled_mm, which exercises the GPU's fp8 path.
    device = backend.devices()[0]
    session = backend.open_gemm(device, "fp8", pool_elements=1 << 18)
    case = session.case(Shape(64, 64, 128))
    case.run()
    assert case.out.dtype == torch.bfloat16  # type: ignore[attr-defined]
    check = case.check(blocks=1, block=64, seed=0)
    assert gemm_check_passes(check, "fp8")[0], check


def test_thread_setting_round_trips(backend: TorchBackend) -> None:
    before = backend.get_threads()
    backend.set_threads(1)
    assert backend.get_threads() == 1
    backend.set_threads(before or 1)


def test_precision_is_a_no_op_on_the_cpu(backend: TorchBackend) -> None:
    import warnings

    matmul = backend.torch.backends.cuda.matmul

    def settings() -> tuple[object, object]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return matmul.allow_tf32, getattr(matmul, "fp32_precision", None)

    before = settings()
    with backend.precision("tf32"):
        inside = settings()
    assert inside == before
    assert settings() == before


def test_cpu_inputs_never_repeat_a_row_of_a_as_a_column_of_b(backend: TorchBackend) -> None:
    """The CPU pool repeats its fresh random values (drawing them all costs more than a call).
    With a period of 8 Mi values, ``A``'s row ``r`` equalled ``B``'s column ``r + 1024`` at
    1024 x 1280 x 4096: those outputs were sums of squares (~k, not ~sqrt(k)), whose bf16
    rounding alone (up to 16) read as a miscompare of 0.25 on a healthy CPU when a checked
    block met them. Every output of that shape is within the tolerance."""
    device = backend.devices()[0]
    m, n, k = 1024, 1280, 4096
    session = backend.open_gemm(device, "bf16", pool_elements=2 * (m + n) * k + (1 << 16))
    case = session.case(Shape(m, n, k))
    case.run()
    a, b = case.views[case._last]  # type: ignore[attr-defined]
    reference = a.to(torch.float64) @ b.to(torch.float64)
    out = case.out.to(torch.float64)  # type: ignore[attr-defined]
    worst = float((out - reference).abs().max()) / k**0.5
    _, tolerance = gemm_check_passes(case.check(blocks=0, block=64, seed=1), "bf16")
    assert worst < tolerance / 4, worst  # bf16 output rounding alone: ~0.02
    case.close()
