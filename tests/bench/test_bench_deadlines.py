"""Hard deadlines: no timed call ends past its phase's budget or the run's; a cut is reported.

Also what quick measures on a CPU (copy and triad only) and which figure a busy CPU's verdict
judges. Everything runs on the fake backend's clock: exact, no wall time.
"""

from __future__ import annotations

import dataclasses

import pytest

from accelerators.bench import PROFILES, ReasonCode, Severity, run
from accelerators.bench.device._context import Context
from accelerators.bench.measure._timing import SyncTimer, bench
from accelerators.bench.runner._rerun import RERUN_SHARE
from accelerators.bench.runner._session import Session
from accelerators.bench.runner._stream_phase import stream_span
from accelerators.bench.testing import FakeBackend, FakeClock, FakeDevice, fake_detected
from accelerators.errors import AcceleratorError


def _kernel(clock: FakeClock, seconds: float, calls: list[float]) -> object:
    def fn() -> None:
        calls.append(clock())
        clock.advance(seconds)

    return fn


def test_bench_stops_before_a_call_that_would_end_past_the_deadline() -> None:
    # GIVEN a 10 ms kernel, 1 s of timed calls asked for, and 95 ms to the deadline
    clock = FakeClock()
    calls: list[float] = []
    fn = _kernel(clock, 0.010, calls)
    deadline = clock() + 0.095
    # WHEN it is benchmarked with the deadline (and a prior estimate: no estimation calls)
    m = bench(
        fn,
        SyncTimer(clock=clock),
        rep_s=1.0,
        warmup_s=0.25,
        estimate=(0.010,),  # type: ignore[arg-type]
        deadline=deadline,
        clock=clock,
    )
    # THEN it runs only the calls that fit, timed ones before warm-up, and says it was cut
    assert clock() <= deadline
    assert len(m.samples_s) == 9
    assert m.cut
    # and a budget that fits is not cut
    roomy = bench(
        fn,
        SyncTimer(clock=clock),
        rep_s=0.05,
        estimate=(0.010,),  # type: ignore[arg-type]
        deadline=clock() + 1.0,
        clock=clock,
    )
    assert not roomy.cut
    assert len(roomy.samples_s) == 5


def test_a_call_far_slower_than_its_estimate_is_seen_before_more_are_queued() -> None:
    # GIVEN calls estimated at 1 ms that take 100 ms (two threads waiting out a busy host)
    clock = FakeClock()
    calls: list[float] = []
    deadline = clock() + 0.5
    # WHEN they are timed for 1 s of estimated calls with the deadline
    m = bench(
        _kernel(clock, 0.100, calls),
        SyncTimer(clock=clock),
        rep_s=1.0,  # type: ignore[arg-type]
        estimate=(0.001,),
        deadline=deadline,
        clock=clock,
    )
    # THEN the first call shows the real cost, and no call starts that would end past it
    assert clock() <= deadline + 1e-9
    assert 1 <= len(m.samples_s) <= 5
    assert m.cut


def test_bench_with_a_deadline_needs_its_clock() -> None:
    clock = FakeClock()
    with pytest.raises(ValueError, match="clock"):
        bench(_kernel(clock, 0.01, []), SyncTimer(clock=clock), rep_s=0.1, deadline=1.0)  # type: ignore[arg-type]


def _session(device: FakeDevice, profile_name: str = "quick") -> Session:
    backend = FakeBackend([device])
    return Session(
        backend,
        PROFILES[profile_name],
        fake_detected(None),
        None,
        None,
        False,  # type: ignore[arg-type]
    )


def _planned(ctx: Context) -> float:
    quick = ctx.profile
    stream = stream_span(quick, True, len(ctx.backend.thread_options(ctx.states[0].props)))
    return len(quick.cpu_dtypes) * quick.cpu_gemm_budget_s + stream


def _timed_run(device: FakeDevice) -> tuple[Context, dict[str, float], dict[str, float]]:
    """Run a session; per phase, its length and what it took from the rerun budget."""
    session = _session(device)
    ctx = session.ctx
    took: dict[str, float] = {}
    reruns: dict[str, float] = {}
    original = session._each

    def timed(phase: str, fn: object) -> None:
        start, left = ctx.clock(), ctx.rerun_left_s
        original(phase, fn)  # type: ignore[arg-type]
        took[phase], reruns[phase] = ctx.clock() - start, left - ctx.rerun_left_s

    session._each = timed  # type: ignore[method-assign]
    session.run()
    return ctx, took, reruns


def test_every_phase_ends_by_its_budget_and_the_run_by_its_deadline() -> None:
    # A CPU whose calls are slow and noisy: every call is predicted from the median so far.
    device = FakeDevice.cpu(thread_speedup={1: 1.0, 2: 1.7}, noise=0.1)
    ctx, took, reruns = _timed_run(device)
    budget = ctx.profile.cpu_gemm_budget_s
    for dtype in ctx.profile.cpu_dtypes:
        assert took[f"GEMM {dtype}"] <= budget + 1e-9
    # The stream phase: its span, plus what triad's reruns took from their own budget.
    assert took["stream"] <= _planned(ctx) - 2 * budget + reruns["stream"] + 1e-9
    assert ctx.clock() <= ctx.run_deadline + 1e-9
    assert ctx.run_deadline == pytest.approx(_planned(ctx) * (1 + RERUN_SHARE))


def test_a_heavy_tailed_host_overruns_by_at_most_a_stray_call() -> None:
    """A call can take six times the median (a loaded host): one may end past a deadline it
    was predicted to meet, but the run still ends within a stray call of its own."""
    device = FakeDevice.cpu(
        thread_speedup={1: 1.0, 2: 1.7},
        noise=0.6,
        busy_until_s=1e9,
        busy_share=0.3,
        busy_factor=6.0,
    )
    ctx, took, _ = _timed_run(device)
    assert all(took[f"GEMM {d}"] <= ctx.profile.cpu_gemm_budget_s for d in ctx.profile.cpu_dtypes)
    longest_call = ctx.profile.cpu_gemm_budget_s / 40  # the CPU search's largest call
    assert ctx.clock() <= ctx.run_deadline + 6 * longest_call


def test_a_phase_cut_short_says_so() -> None:
    # Calls so long that the thread windows cannot all fit in the dtype's budget.
    device = FakeDevice.cpu(
        gemm_tflops={"fp32": 0.002, "bf16": 0.001}, thread_speedup={1: 1.0, 2: 1.9}
    )
    report = run(None, backend=FakeBackend([device]), detected=fake_detected(None))  # type: ignore[arg-type]
    cut = [r for r in report.reasons if r.code is ReasonCode.PHASE_CUT_SHORT]
    assert cut, report.reasons
    assert all(r.severity is Severity.INFO for r in cut)
    assert "hard deadline" in cut[0].message
    metrics = {r.metric for r in cut}
    gemm = {g.dtype: g for g in report.devices[0].gemm}
    for metric in metrics & {"gemm.fp32", "gemm.bf16"}:
        assert gemm[metric.split(".")[1]].search_stopped == "deadline"
    assert report.elapsed_s < 60  # wall time: the fake clock is not the wall


def test_quick_measures_on_a_cpu_only_what_it_judges() -> None:
    backend = FakeBackend([FakeDevice.cpu()])
    quick = run(None, backend=backend, detected=fake_detected(None))  # type: ignore[arg-type]
    assert [m.kernel for m in quick.devices[0].memory] == ["copy", "triad"]
    assert all(m.correct for m in quick.devices[0].memory)  # checked against copy-then-triad
    standard = run(
        None,
        dataclasses.replace(PROFILES["standard"], cpu_dtypes=("fp32",)),
        backend=FakeBackend([FakeDevice.cpu()]),
        detected=fake_detected(None),
    )  # type: ignore[arg-type]
    assert [m.kernel for m in standard.devices[0].memory] == [
        "copy",
        "scale",
        "add",
        "triad",
        "dot",
    ]
    gpu = run("H100-SXM", backend=FakeBackend([FakeDevice()]), detected=fake_detected("H100-SXM"))  # type: ignore[arg-type]
    assert len(gpu.devices[0].memory) == 5  # a GPU's every kernel has a datasheet band


def test_a_profile_names_only_real_stream_kernels() -> None:
    with pytest.raises(AcceleratorError, match="cpu_stream_kernels"):
        dataclasses.replace(PROFILES["quick"], cpu_stream_kernels=("triad", "memset"))


def test_a_busy_host_that_runs_one_thread_is_judged_per_core() -> None:
    """Under contention one thread beat two: the figure is judged against one core's peak,
    and the all-core figure is reported beside it."""
    device = FakeDevice.cpu(
        gemm_tflops={"fp32": 0.064, "bf16": 0.032}, thread_speedup={1: 1.0, 2: 0.6}
    )
    session = _session(device)
    session.ctx.busy = lambda: True
    (report,) = session.run()
    for g in report.gemm:
        assert g.threads == 1
        assert g.judged_on == "per-core"
        assert g.per_core_tflops
        assert g.all_core_tflops
        assert g.all_core_tflops < g.per_core_tflops
    fp32 = next(g for g in report.gemm if g.dtype == "fp32")  # the fake has no bf16 peak
    assert fp32.peak_tflops is not None
    assert "x 1 core x" in (fp32.peak_note or "")
    calm = next(g for g in _session(device).run()[0].gemm if g.dtype == "fp32")
    assert calm.judged_on == "all-core"
    assert calm.peak_tflops == pytest.approx(2 * fp32.peak_tflops)
