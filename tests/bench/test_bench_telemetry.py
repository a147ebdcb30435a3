"""Telemetry sampled through the GEMM phase, folded per device, failures reported."""

from __future__ import annotations

import threading

import pytest

from accelerators.bench import BenchReport, ReasonCode, Severity, Verdict, run
from accelerators.bench.device import _telemetry
from accelerators.bench.device._telemetry import fold
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

UUIDS = ["GPU-aaaaaaaa-0000-0000-0000-000000000000", "GPU-bbbbbbbb-0000-0000-0000-000000000000"]


@pytest.fixture(autouse=True)
def _fast_sampling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_telemetry, "SAMPLE_INTERVAL_S", 0.001)


class _Sampler:
    """Returns ``first`` on the first read and ``later`` after, counting reads."""

    def __init__(self, first: object, later: object | Exception):
        self.first, self.later = first, later
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self) -> object:
        with self.lock:
            self.calls += 1
            calls = self.calls
        if calls == 1:
            return self.first
        if isinstance(self.later, Exception):
            raise self.later
        return self.later


def _run(sample: _Sampler, device: FakeDevice | None = None) -> BenchReport:
    return run(
        "H100-SXM",
        backend=FakeBackend([device or FakeDevice()]),
        detected=fake_detected("H100-SXM"),  # type: ignore[arg-type]
        sample=sample,  # type: ignore[arg-type]
    )


def test_a_throttle_after_the_first_read_is_caught() -> None:
    # One read during the warm-up burst would see a clean device; the slowdown comes later.
    sample = _Sampler(
        fake_detected("H100-SXM"), fake_detected("H100-SXM", throttle_reasons=("hw_slowdown",))
    )
    report = _run(sample)
    assert sample.calls > 1
    assert report.devices[0].telemetry_samples == sample.calls
    throttled = [r for r in report.reasons if r.code is ReasonCode.THROTTLED]
    assert [r.severity for r in throttled] == [Severity.FAIL]
    assert report.devices[0].throttle_reasons == ("hw_slowdown",)


def test_an_unreadable_nvml_is_reported_with_its_error() -> None:
    def broken() -> object:
        raise RuntimeError("NVML Shared Library Not Found")

    report = run(
        "H100-SXM",
        backend=FakeBackend([FakeDevice()]),
        detected=fake_detected("H100-SXM"),  # type: ignore[arg-type]
        sample=broken,  # type: ignore[arg-type]
    )
    reason = next(r for r in report.reasons if r.code is ReasonCode.TELEMETRY_UNAVAILABLE)
    assert reason.severity is Severity.INFO
    assert "RuntimeError: NVML Shared Library Not Found" in reason.message
    assert "not judged" in reason.message
    assert report.verdict is Verdict.PASS
    assert report.devices[0].telemetry_samples == 0


def test_reads_that_fail_midway_are_counted() -> None:
    sample = _Sampler(
        fake_detected("H100-SXM", clocks_mhz={"sm": 1900.0, "sm_max": 1980.0}),
        OSError("NVML: GPU is lost"),
    )
    report = _run(sample)
    reason = next(r for r in report.reasons if r.code is ReasonCode.TELEMETRY_UNAVAILABLE)
    assert "OSError: NVML: GPU is lost" in reason.message
    assert f"{sample.calls - 1} of {sample.calls} telemetry reads failed" in reason.message


def test_a_driver_without_clocks_is_named() -> None:
    bare = fake_detected("H100-SXM")
    report = _run(_Sampler(bare, bare))
    reason = next(r for r in report.reasons if r.code is ReasonCode.TELEMETRY_UNAVAILABLE)
    assert "no clocks or temperature" in reason.message


def test_samples_are_matched_to_the_benchmarked_device_by_uuid() -> None:
    # The driver lists the throttled GPU first; torch benchmarks the other one.
    seen = fake_detected(
        "H100-SXM",
        count=2,
        uuids=UUIDS,
        clocks_mhz={"sm": 1900.0},
        per_device=[{"throttle_reasons": ("hw_slowdown",)}],
    )
    report = run(
        "H100-SXM",
        backend=FakeBackend([FakeDevice(uuid=UUIDS[1].removeprefix("GPU-"))]),
        detected=seen,  # type: ignore[arg-type]
        sample=lambda: seen,  # type: ignore[arg-type,return-value]
    )
    assert ReasonCode.THROTTLED not in {r.code for r in report.reasons}


def test_fold_takes_the_median_clock_the_worst_heat_and_every_reason() -> None:
    from accelerators.detect import DeviceInfo

    def one(sm: float, temperature: float, reasons: tuple[str, ...]) -> DeviceInfo:
        return DeviceInfo(
            index=0,
            kind="gpu",
            vendor="nvidia",
            raw_name="H100-SXM",
            accelerator=None,
            memory_bytes=None,
            clocks_mhz={"sm": sm, "sm_max": 1980.0},
            throttle_reasons=reasons,
            temperature_c=temperature,
            power_w=temperature * 10,
        )

    folded = fold([one(1900, 60, ()), one(1200, 85, ("sw_power_cap",)), one(1850, 70, ())])
    assert folded is not None
    assert folded.clocks_mhz["sm"] == 1850
    assert folded.clocks_mhz["sm_min"] == 1200
    assert folded.temperature_c == 85
    assert folded.power_w == 850
    assert folded.throttle_reasons == ("sw_power_cap",)
    assert fold([]) is None


def test_a_probe_that_falls_back_to_the_cpu_says_why() -> None:
    # current() does not raise when NVML fails: it answers with the CPU and a reason.
    cpu_only = fake_detected(None)
    report = _run(_Sampler(cpu_only, cpu_only))
    reason = next(r for r in report.reasons if r.code is ReasonCode.TELEMETRY_UNAVAILABLE)
    assert "no accelerator found (fake)" in reason.message
    assert "source cpu" in reason.message
