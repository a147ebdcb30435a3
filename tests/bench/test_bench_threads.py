"""CPU thread count: measured 1 vs N on the first run, cached afterwards."""

from __future__ import annotations

import pytest

from accelerators.bench import run
from accelerators.bench._backend import Shape
from accelerators.bench._threads import TIE_MARGIN, pick_threads
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected


def _pick(speedup: dict[int, float], *, refresh: bool = False, backend: FakeBackend | None = None):
    backend = backend or FakeBackend([FakeDevice.cpu(thread_speedup=speedup)])
    device = backend.devices()[0]
    case = backend.open_gemm(device, "fp32", pool_elements=1 << 22).case(Shape(256, 256, 256))
    choice = pick_threads(
        backend,
        device,
        "gemm.fp32",
        case.run,
        backend.timer(device),
        clock=backend.clock,
        budget_s=0.05,
        refresh=refresh,
    )
    return backend, choice


@pytest.mark.parametrize(
    ("speedup", "expected"),
    [
        ({1: 1.0, 2: 0.8}, 1),  # two threads slower (the development VM)
        ({1: 1.0, 2: 1.9}, 2),
        ({1: 1.0, 2: 1.0 + TIE_MARGIN / 2}, 1),  # a tie goes to fewer threads
    ],
)
def test_the_faster_count_is_chosen_and_set(speedup: dict[int, float], expected: int) -> None:
    backend, choice = _pick(speedup)
    assert choice.threads == expected
    assert choice.source == "measured"
    assert set(choice.median_s) == {1, 2}
    assert backend.threads == expected
    # Counts were interleaved, not measured one after the other.
    assert backend.thread_log[:4] == [1, 2, 1, 2]


def test_the_choice_is_cached_until_refreshed() -> None:
    backend, first = _pick({1: 1.0, 2: 0.8})
    _, second = _pick({1: 1.0, 2: 0.8}, backend=backend)
    assert (second.threads, second.source) == (first.threads, "cached")
    _, third = _pick({1: 1.0, 2: 0.8}, backend=backend, refresh=True)
    assert third.source == "measured"


def test_a_single_option_is_fixed() -> None:
    _, choice = _pick({1: 1.0})
    assert choice.source == "fixed"


def test_a_cpu_run_records_its_thread_choices_and_restores_the_count() -> None:
    backend = FakeBackend([FakeDevice.cpu()])
    backend.threads = 2
    report = run(None, backend=backend, detected=fake_detected(None))  # type: ignore[arg-type]
    workloads = {t.workload: t for t in report.devices[0].threads}
    assert set(workloads) == {"gemm.fp32", "gemm.bf16", "stream"}
    assert all(t.threads == 1 and t.source == "measured" for t in workloads.values())
    assert all(g.threads == 1 for g in report.devices[0].gemm)
    assert backend.threads == 2  # the caller's setting is restored
