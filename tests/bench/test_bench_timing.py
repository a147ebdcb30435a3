"""The timing seam: Measurement statistics, the do_bench loop, sync and event timers."""

from __future__ import annotations

import pytest

from accelerators.bench.measure._timing import EventTimer, Measurement, SyncTimer, bench
from accelerators.bench.testing import FakeClock


def test_measurement_statistics() -> None:
    m = Measurement((0.004, 0.001, 0.002, 0.003, 0.010))
    assert m.best_s == 0.001
    assert m.median_s == 0.003
    assert m.iqr_s > 0
    assert m.noisy
    assert "WARNING" in repr(m)
    assert m.merge(Measurement((0.0005,))).best_s == 0.0005


def test_measurement_needs_samples() -> None:
    with pytest.raises(ValueError, match="at least one sample"):
        Measurement(())


def test_quiet_measurement_has_no_warning() -> None:
    m = Measurement((1.0, 1.0, 1.01, 1.0))
    assert not m.noisy
    assert "WARNING" not in repr(m)


def _kernel(clock: FakeClock, seconds: float, calls: list[int]) -> object:
    def fn() -> None:
        calls.append(1)
        clock.advance(seconds)

    return fn


def test_bench_turns_budgets_into_iteration_counts() -> None:
    # GIVEN a ~1 ms kernel on a fake clock (powers of two keep the arithmetic exact)
    clock = FakeClock()
    calls: list[int] = []
    call_s = 2.0**-10
    fn = _kernel(clock, call_s, calls)
    # WHEN it is benchmarked for 50 calls' worth after 10 calls' worth of warm-up
    m = bench(fn, SyncTimer(clock=clock), rep_s=50 * call_s, warmup_s=10 * call_s)  # type: ignore[arg-type]
    # THEN 50 timed calls are kept, after 2 estimation calls and 10 warm-up calls
    assert len(m.samples_s) == 50
    assert len(calls) == 2 + 10 + 50
    assert m.best_s == call_s


def test_bench_respects_min_and_max_reps() -> None:
    clock = FakeClock()
    slow = bench(_kernel(clock, 1.0, []), SyncTimer(clock=clock), rep_s=0.01, min_reps=3)  # type: ignore[arg-type]
    assert len(slow.samples_s) == 3
    fast = bench(_kernel(clock, 1e-6, []), SyncTimer(clock=clock), rep_s=10.0, max_reps=7)  # type: ignore[arg-type]
    assert len(fast.samples_s) == 7


def test_bench_uses_the_median_of_an_estimate() -> None:
    clock = FakeClock()
    calls: list[int] = []
    m = bench(
        _kernel(clock, 2.0**-7, calls),  # type: ignore[arg-type]
        SyncTimer(clock=clock),
        rep_s=10 * 2.0**-7,
        estimate=(2.0**-10, 2.0**-7, 2.0**-7),  # one lucky call must not inflate the count
    )
    assert len(m.samples_s) == 10
    assert len(calls) == 10  # no estimation calls


def test_a_predicted_estimate_still_gets_a_warm_up_call() -> None:
    clock = FakeClock()
    calls: list[int] = []
    m = bench(
        _kernel(clock, 2.0**-7, calls),  # type: ignore[arg-type]
        SyncTimer(clock=clock),
        rep_s=3 * 2.0**-7,
        estimate=(2.0**-7,),
        min_warmup=1,
    )
    assert len(m.samples_s) == 3
    assert len(calls) == 1 + 3


def test_before_is_not_timed() -> None:
    clock = FakeClock()
    timer = SyncTimer(clock=clock)
    samples = timer.time(
        _kernel(clock, 0.002, []),  # type: ignore[arg-type]
        iterations=3,
        before=lambda: clock.advance(1.0),
    )
    assert samples == pytest.approx([0.002] * 3)
    assert clock() == pytest.approx(3.006)


def test_sync_timer_synchronises_around_each_call() -> None:
    events: list[str] = []
    timer = SyncTimer(clock=lambda: 0.0, sync=lambda: events.append("sync"))
    timer.time(lambda: events.append("call"), iterations=2)
    assert events == ["sync", "call", "sync"] * 2


def test_bench_validates_reps() -> None:
    with pytest.raises(ValueError, match="min_reps"):
        bench(lambda: None, SyncTimer(), rep_s=1.0, min_reps=0)


class _FakeEventModule:
    """A stand-in for torch.cuda: events record a shared log; elapsed is 2 ms each."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.synced = 0
        module = self

        class Event:
            def __init__(self, enable_timing: bool = False) -> None:
                assert enable_timing

            def record(self) -> None:
                module.log.append("record")

            def elapsed_time(self, end: object) -> float:
                return 2.0  # milliseconds, as torch returns them

        self.Event = Event

    def synchronize(self, device: int) -> None:
        self.synced += 1


def test_event_timer_enqueues_before_ahead_of_the_start_event() -> None:
    module = _FakeEventModule()
    timer = EventTimer(module, 0)
    samples = timer.time(
        lambda: module.log.append("call"), iterations=2, before=lambda: module.log.append("flush")
    )
    assert samples == [0.002, 0.002]
    assert module.log == ["flush", "record", "call", "record"] * 2
    assert module.synced == 1


def test_event_timer_queues_its_spacer_between_before_and_the_start_event() -> None:
    """The spacer keeps the device busy while the call's launch is queued: it must sit after
    the untimed work and right before the start event, never inside the timed region."""
    module = _FakeEventModule()
    timer = EventTimer(module, 0, spacer=lambda: module.log.append("spacer"))
    timer.time(
        lambda: module.log.append("call"), iterations=2, before=lambda: module.log.append("flush")
    )
    assert module.log == ["flush", "spacer", "record", "call", "record"] * 2


def test_the_torch_backend_spaces_cuda_timings_only() -> None:
    import types

    from accelerators.bench.torch_backend import _backend as _torch_backend

    slept: list[int] = []
    props = types.SimpleNamespace(clock_rate=1_980_000)  # kHz, as CUDA reports it
    cuda = types.SimpleNamespace(
        _sleep=slept.append, get_device_properties=lambda index: props, Event=object
    )
    backend = object.__new__(_torch_backend.TorchBackend)
    backend.torch = types.SimpleNamespace(cuda=cuda)
    backend.device_type = "cuda"
    device = types.SimpleNamespace(index=0)
    timer = backend.timer(device)  # type: ignore[arg-type]
    assert isinstance(timer, EventTimer)
    assert timer.spacer is not None
    timer.spacer()
    assert slept == [round(_torch_backend.SPACER_S * 1_980_000 * 1e3)]
    del cuda._sleep  # a torch without torch.cuda._sleep: no spacer, plain events
    assert backend.timer(device).spacer is None  # type: ignore[attr-defined, arg-type]
    backend.device_type = "cpu"
    assert not isinstance(backend.timer(device), EventTimer)  # type: ignore[arg-type]
