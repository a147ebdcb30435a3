"""Stream kernels: byte counting, array sizing, analytic checks (real torch on small arrays)."""

from __future__ import annotations

import pytest

from accelerators.bench.measure._backend import DeviceProps
from accelerators.bench.measure._stream import (
    KERNELS,
    STREAM_SCALAR,
    expected_values,
    run_stream,
    stream_elements,
)
from accelerators.bench.measure._timing import SyncTimer

CPU = DeviceProps(index=0, kind="cpu", name="cpu", compute_units=2, llc_bytes=32 << 20)


def test_bytes_are_counted_as_stream_and_babelstream_count_them() -> None:
    arrays = {k.name: k.arrays for k in KERNELS}
    assert arrays == {"copy": 2, "scale": 2, "add": 3, "triad": 3, "dot": 2}
    triad = next(k for k in KERNELS if k.name == "triad")
    assert triad.bytes_per_call(1000, 8) == 24_000
    assert triad.formula(8) == "3 * 8 B * N"


def test_expected_values_follow_the_kernel_sequence() -> None:
    values = expected_values(10)
    s = STREAM_SCALAR
    assert values["copy"]["c"] == 0.1
    assert values["scale"]["b"] == s * 0.1
    assert values["add"]["c"] == 0.1 + s * 0.1
    assert values["triad"]["a"] == s * 0.1 + s * (0.1 + s * 0.1)
    assert values["dot"]["dot"] == pytest.approx(10 * values["triad"]["a"] * values["triad"]["b"])


def test_arrays_are_at_least_four_times_the_llc() -> None:
    elements = stream_elements(CPU, "fp64", llc_multiple=4, min_bytes=0, memory_budget_bytes=None)
    assert elements * 8 >= 4 * (32 << 20)
    assert elements % ((1 << 20) // 8) == 0
    bigger = stream_elements(
        CPU, "fp64", llc_multiple=4, min_bytes=512 << 20, memory_budget_bytes=None
    )
    assert bigger * 8 >= 512 << 20


def test_array_size_yields_to_the_memory_budget_but_not_below_4x_llc() -> None:
    capped = stream_elements(
        CPU, "fp64", llc_multiple=4, min_bytes=1 << 30, memory_budget_bytes=600 << 20
    )
    assert 4 * (32 << 20) <= capped * 8 <= 200 << 20
    with pytest.raises(ValueError, match="do not fit"):
        stream_elements(CPU, "fp64", llc_multiple=4, min_bytes=0, memory_budget_bytes=100 << 20)


@pytest.fixture(scope="module")
def torch_cpu():  # type: ignore[no-untyped-def]
    pytest.importorskip("torch")
    from accelerators.bench.torch_backend._backend import TorchBackend

    return TorchBackend("cpu")


def test_torch_stream_kernels_pass_their_checks(torch_cpu) -> None:  # type: ignore[no-untyped-def]
    device = torch_cpu.devices()[0]
    case = torch_cpu.open_stream(device, elements=1 << 16, dtype="fp64")
    outcomes = run_stream(
        torch_cpu, device, case, SyncTimer(), budget_s=0.001, min_reps=3, max_reps=5
    )
    assert [o.kernel.name for o in outcomes] == ["copy", "scale", "add", "triad", "dot"]
    assert all(o.correct for o in outcomes), [(o.kernel.name, o.max_rel_error) for o in outcomes]
    assert all(o.best_gbps > 0 and len(o.measurement.samples_s) >= 3 for o in outcomes)


def test_a_wrong_kernel_is_a_miscompare(torch_cpu) -> None:  # type: ignore[no-untyped-def]
    device = torch_cpu.devices()[0]
    case = torch_cpu.open_stream(device, elements=1 << 14, dtype="fp64")
    right = case.kernel

    def kernel(name: str):  # type: ignore[no-untyped-def]
        if name != "triad":
            return right(name)
        a, b, c = case.arrays["a"], case.arrays["b"], case.arrays["c"]

        def broken() -> None:  # a = b + s*c, except one element
            torch_cpu.torch.add(b, c, alpha=STREAM_SCALAR, out=a)
            a[123] = 7.0

        return broken

    case.kernel = kernel  # type: ignore[method-assign]
    outcomes = {
        o.kernel.name: o
        for o in run_stream(
            torch_cpu, device, case, SyncTimer(), budget_s=0.001, min_reps=1, max_reps=2
        )
    }
    assert not outcomes["triad"].correct
    assert not outcomes["dot"].correct  # the dot product reads the corrupted array
    assert outcomes["copy"].correct
    assert outcomes["add"].correct


def test_nan_is_a_miscompare(torch_cpu) -> None:  # type: ignore[no-untyped-def]
    device = torch_cpu.devices()[0]
    case = torch_cpu.open_stream(device, elements=1 << 12, dtype="fp64")
    case.arrays["c"][7] = float("nan")
    assert case.deviation("c", 0.0) == float("inf")
