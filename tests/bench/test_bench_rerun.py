"""Verdicts that don't flap: a bounded-spread statistic, reruns within the budget, then
"inconclusive: node busy" naming why, never a slow device."""

from __future__ import annotations

import json

import pytest

from accelerators.bench import BenchReport, ReasonCode, Severity, Verdict, run
from accelerators.bench.device._context import BURST_S
from accelerators.bench.measure._profiles import get_profile
from accelerators.bench.measure._stable import bounded_best, unjudgeable
from accelerators.bench.measure._stream import KERNELS
from accelerators.bench.runner._rerun import MAX_RERUNS, RERUN_SHARE
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

_H100 = fake_detected("H100-SXM")


def test_bounded_best_needs_k_calls_within_the_spread() -> None:
    assert bounded_best([1.0, 1.05, 1.08, 3.0]) == 1.08
    assert bounded_best([0.5, 1.0, 1.0, 1.0]) is None  # one lucky call carries nothing
    assert bounded_best([1.0, 1.0]) is None
    assert bounded_best([1.0, 1.2, 1.2], spread=0.25) == 1.2


def test_unjudgeable_names_the_spread_and_the_band() -> None:
    calm = [1.0, 1.01, 1.02, 1.03, 1.02]
    assert unjudgeable(calm, 100.0, 95.0, spread_below=0.7, warn_below=0.9) is None
    spread = [1.0, 1.0, 1.0, 3.0, 3.0, 3.0, 3.0]
    why = unjudgeable(spread, 100.0, None, spread_below=0.7, warn_below=0.9)
    assert why is not None
    assert "median 33% of the best-of-3" in why
    lone = [0.5, 1.0, 1.0, 1.0]
    assert "lone fast call" in (
        unjudgeable(lone, 1.0, None, spread_below=0.7, warn_below=0.9) or ""
    )
    # Sustained 100/1.25 = 80 of 100 expected, best-of-3 at 100: within the band only at best.
    edge = [1.0, 1.0, 1.0, 1.25, 1.25, 1.25, 1.25]
    why = unjudgeable(edge, 100.0, 100.0, spread_below=0.7, warn_below=0.9)
    assert why is not None
    assert "within the band only at its best" in why
    # A slow device is slow at its best too: judgeable (and judged slow).
    slow = [2.0, 2.0, 2.05, 2.1]
    assert unjudgeable(slow, 100.0, 100.0, spread_below=0.7, warn_below=0.9) is None


def test_a_disturbed_window_is_rerun_and_the_calm_one_judged() -> None:
    device = FakeDevice(busy_until_s=3.0, busy_share=0.5, busy_factor=2.5)
    report = run("H100-SXM", backend=FakeBackend([device]), detected=_H100)
    assert report.verdict is Verdict.PASS
    rerun = [g for g in report.gemm if g.reruns]
    assert rerun, "the disturbed first windows were re-measured"
    for g in rerun:
        assert g.unjudged is None
        assert len(g.window_medians) == g.reruns + 1 <= MAX_RERUNS + 1
        # The judged window is the one with the highest median, and its samples are reported.
        assert g.median_tflops == pytest.approx(max(g.window_medians))
        assert g.tflops == pytest.approx(g.m * g.n * g.k * 2 / min(g.samples_s) / 1e12)  # type: ignore[operator]
        assert g.window_medians[0] < 0.9 * g.expected_tflops  # type: ignore[operator]
    assert not any(r.code is ReasonCode.GEMM_SLOW for r in report.reasons)


def test_a_calm_device_is_not_rerun() -> None:
    report = run("H100-SXM", backend=FakeBackend([FakeDevice(noise=0.01)]), detected=_H100)
    assert report.verdict is Verdict.PASS
    assert all(g.reruns == 0 and g.window_medians == () for g in report.gemm)


def test_contention_that_never_stops_is_inconclusive_not_slow() -> None:
    # Busy for 70 % of the calls: with 50 %, a lucky rerun window can be judged (seeded noise).
    device = FakeDevice(busy_until_s=1e9, busy_share=0.7, busy_factor=2.5)
    calm_backend, busy_backend = FakeBackend([FakeDevice()]), FakeBackend([device])
    run("H100-SXM", backend=calm_backend, detected=_H100)
    report = run("H100-SXM", backend=busy_backend, detected=_H100)
    busy = [r for r in report.reasons if r.code is ReasonCode.NODE_BUSY]
    assert busy
    assert all(r.severity is Severity.WARN for r in busy)
    assert any("stayed too spread to judge after 2 rerun(s)" in r.message for r in busy)
    # The fake host is idle: the spread is the device's own, and the message says so.
    assert all(r.message.startswith("inconclusive: timings unsteady, no other work") for r in busy)
    assert not any(r.code in (ReasonCode.GEMM_SLOW, ReasonCode.MEMORY_SLOW) for r in report.reasons)
    unjudged = [g for g in report.gemm if g.unjudged]
    assert unjudged
    # Each was re-timed as often as allowed, or the report says the budget ran out first.
    assert all(
        g.reruns == MAX_RERUNS or g.unjudged.endswith("no rerun budget left") for g in unjudged
    )
    assert any(g.reruns == MAX_RERUNS for g in unjudged)
    # Reruns stay within their share of the planned time (the fake clock: no wall time).
    quick = get_profile("quick")
    planned = (
        quick.gpu_warmup_s
        + BURST_S
        + len(quick.gpu_dtypes) * quick.gpu_gemm_budget_s
        + len(KERNELS) * quick.stream_budget_s * 1.25
        + 0.5
    )
    assert calm_backend.fake_clock() < planned
    assert busy_backend.fake_clock() < planned * (1 + RERUN_SHARE)


def test_a_slow_device_is_judged_slow_after_one_rerun() -> None:
    rates = {"fp32": 20.0, "tf32": 180.0, "bf16": 400.0, "fp16": 400.0, "fp8": 700.0}
    report = run("H100-SXM", backend=FakeBackend([FakeDevice(gemm_tflops=rates)]), detected=_H100)
    assert report.verdict is Verdict.FAIL
    assert any(r.code is ReasonCode.GEMM_SLOW for r in report.reasons)
    assert not any(r.code is ReasonCode.NODE_BUSY for r in report.reasons)
    # Slow in a calm window is re-timed once (drift), slow again: judged, not unjudged.
    slow = [
        g for g in report.gemm if g.expected_tflops and g.median_tflops < 0.9 * g.expected_tflops
    ]  # type: ignore[operator]
    assert slow
    assert all(g.reruns <= 1 and g.unjudged is None for g in slow)
    assert any(g.reruns == 1 for g in slow)  # as far as the rerun budget goes


def test_a_miscompare_in_a_rerun_still_fails() -> None:
    device = FakeDevice(
        busy_until_s=3.0, busy_share=0.5, busy_factor=2.5, miscompare=frozenset({"tf32"})
    )
    report = run("H100-SXM", backend=FakeBackend([device]), detected=_H100)
    assert report.verdict is Verdict.FAIL
    assert any(r.code is ReasonCode.MISCOMPARE and r.metric == "gemm.tf32" for r in report.reasons)


def test_cpu_triad_is_rerun_when_spread() -> None:
    device = FakeDevice.cpu(busy_until_s=1e9, busy_share=0.5, busy_factor=3.0)
    report = run(None, devices="cpu", backend=FakeBackend([device]), detected=fake_detected(None))
    triad = next(m for m in report.memory if m.kernel == "triad")
    copy = next(m for m in report.memory if m.kernel == "copy")
    assert triad.reruns >= 1
    assert len(triad.window_medians) == triad.reruns + 1
    assert copy.reruns == 0
    assert copy.window_medians == ()
    assert triad.correct


def test_reruns_survive_the_json_round_trip_and_v1_reports_still_read() -> None:
    device = FakeDevice(busy_until_s=3.0, busy_share=0.5, busy_factor=2.5)
    report = run("H100-SXM", backend=FakeBackend([device]), detected=_H100)
    again = BenchReport.model_validate_json(report.model_dump_json())
    assert again == report
    assert again.schema_version == 2
    data = json.loads(report.model_dump_json())
    data["schema_version"] = 1
    for section in ("gemm", "memory"):
        for item in data[section]:
            for key in ("reruns", "unjudged", "window_medians"):
                item.pop(key)
    for device_data in data["devices"]:
        for section in ("gemm", "memory"):
            for item in device_data[section]:
                for key in ("reruns", "unjudged", "window_medians"):
                    item.pop(key)
    old = BenchReport.model_validate(data)
    assert old.schema_version == 1
    assert all(g.reruns == 0 for g in old.gemm)


def test_a_rerun_triad_is_checked_again() -> None:
    device = FakeDevice.cpu(
        busy_until_s=1e9, busy_share=0.5, busy_factor=3.0, miscompare=frozenset({"triad"})
    )
    report = run(None, devices="cpu", backend=FakeBackend([device]), detected=fake_detected(None))
    triad = next(m for m in report.memory if m.kernel == "triad")
    assert triad.reruns >= 1
    assert triad.correct is False
    assert report.verdict is Verdict.FAIL


def test_no_rerun_while_the_host_is_visibly_busy() -> None:
    import dataclasses
    import os
    import time
    from types import SimpleNamespace

    from accelerators.bench.measure._timing import Measurement
    from accelerators.bench.runner._rerun import Windows

    spread = Measurement((1.0, 1.0, 1.0, 2.5, 2.5, 2.5, 2.5))  # median 40 % of the best
    windows = Windows(spread, work=100.0, scale=1.0, expected=None)
    assert windows.why() is not None
    timed: list[float] = []

    def measure(seconds: float) -> Measurement:
        timed.append(seconds)
        return Measurement((1.0, 1.0, 1.0, 1.0))

    ctx = SimpleNamespace(busy=lambda: True, rerun_left_s=10.0, clock=time.monotonic)
    assert windows.rerun(ctx, measure, 1.0) == 0  # type: ignore[arg-type]
    assert timed == []
    assert windows.why() is not None  # still unjudged: the verdict names the contention
    ctx.busy = lambda: False
    assert windows.rerun(ctx, measure, 1.0) == 1  # type: ignore[arg-type]
    assert windows.why() is None

    # The contention policy's lines, measured from a run's start.
    from accelerators.bench.device._contention import busy_since, snapshot
    from accelerators.bench.expect._bands import ContentionPolicy

    now = snapshot()
    if now is None:
        pytest.skip("no /proc/stat here")
    calm = dataclasses.replace(now, wall_s=now.wall_s - 1.0)
    assert busy_since(calm, ContentionPolicy(others_busy_above=0.5)) is False
    # Other processes used every CPU for the last second (this process none of it).
    cpus = float(os.cpu_count() or 1)
    hogged = dataclasses.replace(calm, busy_s=now.busy_s - cpus, total_s=now.total_s - cpus)
    assert busy_since(hogged, ContentionPolicy(others_busy_above=0.5)) is True
