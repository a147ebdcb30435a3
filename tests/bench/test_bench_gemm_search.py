"""The GEMM shape search on fake devices with planted throughput models (no timing asserts)."""

from __future__ import annotations

import itertools
import math

import pytest

from accelerators.bench.measure._backend import DeviceProps, Shape
from accelerators.bench.measure._gemm import (
    GPU_TILES,
    MIN_GPU_CALL_S,
    SearchSettings,
    ShapeSearch,
    cpu_candidates,
    gpu_candidates,
    gpu_neighbours,
    neighbours,
    wave_efficiency,
)
from accelerators.bench.testing import FakeBackend, FakeDevice, gpu_efficiency


def _search(device: FakeDevice, dtype: str = "bf16", budget_s: float = 1.0, seed: int = 0):
    backend = FakeBackend([device], seed=seed)
    props = backend.devices()[0]
    session = backend.open_gemm(props, dtype, pool_elements=2 * 16384 * 16384)
    search = ShapeSearch(
        backend,
        props,
        session,
        backend.timer(props),
        SearchSettings(
            budget_s=budget_s,
            min_reps=5 if device.kind != "cpu" else 3,
            trial_reps=20 if device.kind != "cpu" else 8,  # as the runner sets them
        ),
        clock=backend.clock,
        flops_per_s=5e10 if device.kind == "cpu" else None,  # the runner measures this
    )
    return backend, search.run()


def _best_on_lattice(device: FakeDevice, step_k: int, top: int) -> float:
    edges = range(256, top + 1, 256)
    depths = range(step_k, top + 1, step_k)
    return max(
        gpu_efficiency(Shape(m, n, k), device)
        for m, n, k in itertools.product(edges, edges, depths)
    )


# -- candidates ----------------------------------------------------------------------------
def test_wave_efficiency_of_the_published_h100_best_shape() -> None:
    # 2048x2048 in 128x256 tiles is 128 tiles on 132 SMs.
    assert wave_efficiency(2048, 2048, 132, (128, 256)) == pytest.approx(128 / 132)
    # One tile over a full wave leaves the second wave almost empty.
    assert wave_efficiency(128 * 133, 256, 132, (128, 256)) == pytest.approx(133 / 264)


@pytest.mark.parametrize(("units", "kind"), [(132, "cuda"), (108, "cuda"), (304, "rocm")])
def test_gpu_candidates_fill_whole_waves(units: int, kind: str) -> None:
    device = DeviceProps(index=0, kind=kind, name="gpu", compute_units=units)  # type: ignore[arg-type]
    shapes = gpu_candidates(device, "bf16", max_input_elements=10**10)
    assert len(shapes) >= 8
    for shape in shapes:
        best = max(wave_efficiency(shape.m, shape.n, units, t) for t in GPU_TILES[kind])
        assert best >= 0.95, shape
        assert shape.m % 256 == 0
        assert shape.n % 256 == 0
    # Both square and elongated outputs are proposed.
    assert any(s.m == s.n for s in shapes)
    assert any(s.n >= 4 * s.m for s in shapes)


def test_gpu_candidates_respect_the_pool() -> None:
    device = DeviceProps(index=0, kind="cuda", name="gpu", compute_units=132)
    small = gpu_candidates(device, "fp32", max_input_elements=40_000_000)
    assert small
    assert all(s.input_elements <= 40_000_000 for s in small)


def test_gpu_neighbours_keep_waves_full() -> None:
    device = DeviceProps(index=0, kind="cuda", name="gpu", compute_units=132)
    around = gpu_neighbours(Shape(2048, 2048, 8192), device, step_k=1024)
    assert Shape(2048, 2048, 9216) in around
    assert Shape(2048, 2048, 7168) in around
    for shape in around:
        eff = max(wave_efficiency(shape.m, shape.n, 132, t) for t in GPU_TILES["cuda"])
        assert eff >= 0.9


def test_cpu_candidates_come_from_the_caches_and_the_call_budget() -> None:
    cpu = DeviceProps(
        index=0, kind="cpu", name="cpu", compute_units=2, llc_bytes=32 << 20, l2_bytes=512 << 10
    )
    shapes = cpu_candidates(
        cpu, "fp32", flops_per_s=70e9, max_call_s=0.06, max_input_elements=16 << 20
    )
    assert shapes
    assert all(s.m % 64 == 0 and s.n % 64 == 0 and s.k % 64 == 0 for s in shapes)
    # No candidate takes longer than the call budget at the measured rate.
    assert all(s.flops / 70e9 <= 0.06 for s in shapes)
    # Cache anchors: three 512^2 fp32 matrices fit half the LLC... and the edge between the
    # L2 and LLC anchors comes first; tiny products (below 256) are left out.
    assert shapes[0] == Shape(512, 512, 512)
    assert min(s.m for s in shapes) >= 256
    assert Shape(512, 512, 1024) in shapes
    # A slow (emulated) dtype gets small shapes only.
    slow = cpu_candidates(
        cpu, "bf16", flops_per_s=2e9, max_call_s=0.06, max_input_elements=16 << 20
    )
    assert max(s.m for s in slow) <= 384


def test_neighbours_stay_positive() -> None:
    assert all(
        min(s.m, s.n, s.k) >= 64
        for s in neighbours(Shape(64, 128, 64), step_mn=64, step_k=64, align=64)
    )


# -- the search finds planted optima -------------------------------------------------------
def test_search_finds_the_planted_gpu_optimum() -> None:
    # GIVEN an H100-like fake whose best shape is mamf-finder's 2048x2048x13312
    device = FakeDevice()
    assert gpu_efficiency(device.optimum, device) == pytest.approx(  # type: ignore[arg-type]
        _best_on_lattice(device, 512, 16384)
    )
    # WHEN the quick budget is spent searching bf16
    _backend, result = _search(device)
    # THEN the planted shape wins and the search converged inside its budget (elapsed_s is
    # the fake clock's time: deterministic, no wall-clock assertion)
    assert result.best.shape == device.optimum
    assert result.stopped == "converged"
    assert result.elapsed_s <= 1.0 * 1.15
    assert result.best.best_tflops == pytest.approx(800, rel=0.05)
    # and it tried far fewer shapes than a sweep would
    assert len(result.trials) < 60


@pytest.mark.parametrize(
    ("units", "kind", "optimum"),
    [
        (108, "cuda", Shape(1024, 10240, 5120)),  # mamf-finder's A100 SXM best shape
        (132, "cuda", Shape(4096, 4096, 8192)),
        (304, "rocm", Shape(4352, 4352, 8192)),  # one full wave of 256x256 tiles on 304 CUs
    ],
)
def test_search_finds_other_planted_optima(units: int, kind: str, optimum: Shape) -> None:
    device = FakeDevice(compute_units=units, kind=kind, optimum=optimum)  # type: ignore[arg-type]
    # The planted shape is the best of the whole lattice (m, n in 256 steps, k in 512).
    assert gpu_efficiency(optimum, device) == pytest.approx(_best_on_lattice(device, 512, 16384))
    _backend, result = _search(device)
    assert result.best.shape == optimum


def test_search_is_robust_to_timing_noise() -> None:
    device = FakeDevice(noise=0.03)
    _backend, result = _search(device, seed=7)
    assert gpu_efficiency(result.best.shape, device) >= 0.95 * gpu_efficiency(
        device.optimum,  # type: ignore[arg-type]
        device,
    )


def test_search_finds_the_planted_cpu_optimum() -> None:
    device = FakeDevice.cpu(optimum=Shape(448, 448, 448), thread_speedup={1: 1.0})
    _backend, result = _search(device, dtype="fp32", budget_s=2.5)
    found = gpu_efficiency(result.best.shape, device)
    assert found >= 0.97 * gpu_efficiency(Shape(448, 448, 448), device)
    assert result.elapsed_s <= 2.5 * 1.15


def test_search_stops_on_its_budget() -> None:
    # A slow device: every trial is expensive, so the budget, not convergence, ends it.
    device = FakeDevice(gemm_tflops={"bf16": 2.0})
    _backend, result = _search(device, budget_s=0.5)
    assert result.stopped == "budget"
    assert result.elapsed_s <= 0.5 * 1.25
    assert math.isfinite(result.best.best_tflops)


def test_search_returns_an_open_case_of_the_winner_that_has_run() -> None:
    backend, result = _search(FakeDevice())
    calls_before = backend.calls[(0, "bf16")]
    check = result.case.check(blocks=2, block=64, seed=0)
    assert check.max_error < 0.1
    assert result.case.shape == result.best.shape
    assert calls_before > 0


def test_shapes_that_run_out_of_memory_are_skipped() -> None:
    # A small slice: outputs above 4096x4096 do not fit; the search works around them.
    device = FakeDevice(max_output_elements=4096 * 4096)
    _backend, result = _search(device)
    assert result.best.shape.m * result.best.shape.n <= 4096 * 4096
    assert result.best.shape == device.optimum


def test_nothing_fitting_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="out of memory"):
        _search(FakeDevice(max_output_elements=1))


def test_the_search_leaves_products_too_short_to_time_alone() -> None:
    # GIVEN an H100-like fake whose planted optimum is a short fp8 product (69 GFLOP, 53 us a
    # call at 1,420 TFLOPS) and whose calls under 60 us wait 30 us for their launch in 7 of 10
    # (a host slower per iteration than the device, as the short fp8 products of an H200 run:
    # docs/gpu-validation/2026-11-30-h200-run1.json): their best call is fast, their median not
    device = FakeDevice(
        optimum=Shape(2048, 2048, 8192), stall_s=30e-6, stall_share=0.7, stall_below_s=60e-6
    )
    backend, result = _search(device, dtype="fp8")
    props = backend.devices()[0]
    # WHEN the search hands back its winner
    best = result.best
    # THEN the winner is a product long enough to time one call at a time...
    assert best.shape.flops / best.best_tflops / 1e12 >= MIN_GPU_CALL_S
    assert backend.gemm_seconds(props, "fp8", best.shape) >= device.stall_below_s
    # ...so its median call is its typical one: the figure the gate judges is not a stall
    assert best.median_tflops >= 0.97 * best.best_tflops
    # and the short optimum, timed with its fastest single call of all, did not win
    timed = {t.shape: t for t in result.trials}
    assert device.optimum in timed
    assert timed[device.optimum].best_tflops > best.best_tflops
