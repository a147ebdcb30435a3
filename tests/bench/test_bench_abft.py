"""Row checksums over every GEMM output (real torch on the CPU), and NaN in the JSON report."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from accelerators.bench.measure._correctness import gemm_check_passes

torch = pytest.importorskip("torch")

from bench_helpers import run_checked_case  # noqa: E402

from accelerators.bench.torch_backend._backend import TorchBackend  # noqa: E402


@pytest.fixture(scope="module")
def backend() -> TorchBackend:
    return TorchBackend("cpu", cpu_caches=(512 << 10, 32 << 20), cpu_name="test CPU")


def _nan(out: Any, call: int) -> None:
    out[call % out.shape[0], (7 * call) % out.shape[1]] = math.nan


def _tile(out: Any, call: int) -> None:
    out[64:128, 128:192] = out[192:256, 0:64].clone()


def _scale(out: Any, call: int) -> None:
    out.mul_(1.01)


def _late_nan(out: Any, call: int) -> None:
    if call == 2:  # one of five calls, not the last: a sampled check of the last output misses it
        out[3, 5] = math.nan


def _exponent_flip(out: Any, call: int) -> None:
    bits = out.view(torch.int16)
    for i in range(4):
        bits[11 * i + call, 13 * i] ^= 1 << 9  # an exponent bit of a bf16 element


def _run_case(
    backend: TorchBackend, dtype: str, corrupt: Callable[[Any, int], None] | None, calls: int = 5
) -> Any:
    return run_checked_case(backend, dtype, corrupt, calls)


@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
def test_every_output_is_checked_and_a_healthy_one_passes(
    backend: TorchBackend, dtype: str
) -> None:
    check = _run_case(backend, dtype, None)
    assert check.calls_checked == 5
    assert check.calls_failed == 0
    assert check.outlier_score < 1
    assert check.scale_error < 1e-3
    assert gemm_check_passes(check, dtype)[0]


@pytest.mark.parametrize(
    ("corrupt", "dtype"),
    [
        (_nan, "fp32"),
        (_nan, "bf16"),
        (_tile, "fp32"),
        (_tile, "bf16"),
        (_scale, "fp32"),
        (_scale, "bf16"),
        (_late_nan, "bf16"),
        (_exponent_flip, "bf16"),
    ],
)
def test_corrupted_outputs_fail(
    backend: TorchBackend, corrupt: Callable[[Any, int], None], dtype: str
) -> None:
    check = _run_case(backend, dtype, corrupt)
    assert check.calls_checked == 5
    assert check.calls_failed >= 1
    assert not gemm_check_passes(check, dtype)[0]


def test_a_systematic_error_is_reported_as_a_scale_error(backend: TorchBackend) -> None:
    check = _run_case(backend, "fp32", _scale)
    assert check.calls_failed == 5
    assert check.scale_error == pytest.approx(0.01, rel=1e-3)


def test_a_nan_error_survives_the_json_round_trip() -> None:
    from accelerators.bench import BenchReport, GemmResult, run
    from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

    report = run("H100-SXM", backend=FakeBackend([FakeDevice()]), detected=fake_detected())
    broken = GemmResult(dtype="bf16", device_index=0, max_error=math.nan, correct=False)
    report = report.model_copy(update={"gemm": (broken,)})
    back = BenchReport.model_validate_json(report.model_dump_json())
    assert back.gemm[0].max_error is not None
    assert math.isnan(back.gemm[0].max_error)
    assert '"max_error":"NaN"' in report.model_dump_json()
