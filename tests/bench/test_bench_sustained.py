"""The sustained phase on fake GPUs: a healthy device holds its burst rate, a throttling one
is named (thermal_throttle with a thermal reason, sustained_drop without) - issue 11."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

import pytest

from accelerators.bench import ReasonCode, Severity, Verdict, run
from accelerators.bench.device import _telemetry
from accelerators.bench.measure._profiles import get_profile
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

#: standard's dtypes and sustained phase, on a short budget (fake time).
PROFILE = dataclasses.replace(
    get_profile("quick"), sustained_s=3.0, gpu_dtypes=("bf16",), stream=False
)


@pytest.fixture(autouse=True)
def _fast_sampling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_telemetry, "SAMPLE_INTERVAL_S", 0.001)


class _Telemetry:
    """Clean reads until ``hot`` is set (after the search), then ``reasons`` and a lower clock."""

    def __init__(self, reasons: tuple[str, ...]):
        self.reasons = reasons
        self.hot = threading.Event()

    def __call__(self) -> object:
        if self.hot.is_set():
            return fake_detected(
                "H100-SXM", throttle_reasons=self.reasons, clocks_mhz={"sm": 1400, "sm_max": 1980}
            )
        return fake_detected("H100-SXM", clocks_mhz={"sm": 1980, "sm_max": 1980})


def _run(device: FakeDevice, sample: Any = None, profile: Any = PROFILE) -> Any:
    return run(
        "H100-SXM",
        profile,
        backend=FakeBackend([device]),
        detected=fake_detected("H100-SXM"),  # type: ignore[arg-type]
        sample=sample,
    )


def test_a_healthy_gpu_holds_its_burst_rate() -> None:
    report = _run(FakeDevice())
    sustained = report.devices[0].sustained
    assert sustained is not None
    assert sustained.dtype == "bf16"
    assert sustained.seconds >= 3.0
    assert sustained.ratio == pytest.approx(1.0, abs=0.02)
    assert sustained.calls > 0
    assert report.verdict is Verdict.PASS, report.reasons


def test_a_gpu_that_sags_under_load_without_a_reason_is_a_sustained_drop() -> None:
    report = _run(FakeDevice(throttle_after_s=1.0, throttle_factor=0.7))
    sustained = report.devices[0].sustained
    assert sustained is not None
    assert sustained.ratio == pytest.approx(0.7, abs=0.03)
    assert sustained.first_tflops > sustained.last_tflops
    assert report.verdict is Verdict.WARN
    (reason,) = report.reasons_at_least(Severity.WARN)
    assert reason.code is ReasonCode.SUSTAINED_DROP
    assert reason.metric == "sustained.bf16"
    assert "with no thermal or power reason reported" in reason.message
    assert "70% of the burst median" in reason.message


def test_a_sag_with_a_thermal_reason_is_a_thermal_throttle(monkeypatch: pytest.MonkeyPatch) -> None:
    from accelerators.bench.runner import _sustained

    telemetry = _Telemetry(("sw_thermal_slowdown",))
    original = _sustained.gemm_session

    def heat_up(ctx: Any, state: Any, dtype: str) -> Any:
        telemetry.hot.set()  # the sustained phase starts: the GPU heats up
        return original(ctx, state, dtype)

    monkeypatch.setattr(_sustained, "gemm_session", heat_up)
    report = _run(FakeDevice(throttle_after_s=1.0, throttle_factor=0.6), sample=telemetry)
    sustained = report.devices[0].sustained
    assert sustained is not None
    assert "sw_thermal_slowdown" in sustained.reasons_seen
    assert sustained.sm_clock_last_mhz == 1400
    codes = {r.code for r in report.reasons_at_least(Severity.WARN)}
    assert ReasonCode.THERMAL_THROTTLE in codes
    assert ReasonCode.SUSTAINED_DROP not in codes
    throttle = next(r for r in report.reasons if r.code is ReasonCode.THERMAL_THROTTLE)
    assert "with sw_thermal_slowdown reported" in throttle.message


def _heated(monkeypatch: pytest.MonkeyPatch, reasons: tuple[str, ...]) -> _Telemetry:
    """Telemetry that reports ``reasons`` from the start of the sustained phase."""
    from accelerators.bench.runner import _sustained

    telemetry = _Telemetry(reasons)
    original = _sustained.gemm_session

    def heat_up(ctx: Any, state: Any, dtype: str) -> Any:
        telemetry.hot.set()
        return original(ctx, state, dtype)

    monkeypatch.setattr(_sustained, "gemm_session", heat_up)
    return telemetry


def test_a_board_holding_its_power_limit_is_info_not_a_throttle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As measured on an H200 (docs/gpu-validation.md): bf16 back to back held 89 % of its
    burst with only sw_power_cap reported. That is the board at its 700 W, not a fault."""
    telemetry = _heated(monkeypatch, ("sw_power_cap",))
    report = _run(FakeDevice(throttle_after_s=1.0, throttle_factor=0.88), sample=telemetry)
    sustained = report.devices[0].sustained
    assert sustained is not None
    assert sustained.ratio == pytest.approx(0.88, abs=0.03)
    assert report.verdict is Verdict.PASS, report.reasons
    (reason,) = [r for r in report.reasons if r.metric == "sustained.bf16"]
    assert reason.code is ReasonCode.SUSTAINED_DROP
    assert reason.severity is Severity.INFO
    assert "held by the board's power limit (sw_power_cap" in reason.message
    assert reason.threshold == pytest.approx(0.80)


def test_a_drop_deeper_than_power_capping_explains_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    telemetry = _heated(monkeypatch, ("sw_power_cap",))
    report = _run(FakeDevice(throttle_after_s=1.0, throttle_factor=0.65), sample=telemetry)
    assert report.verdict is Verdict.WARN
    (reason,) = report.reasons_at_least(Severity.WARN)
    assert reason.code is ReasonCode.SUSTAINED_DROP
    assert "further than power capping (sw_power_cap) explains" in reason.message


def test_a_hardware_slowdown_with_the_power_cap_is_a_thermal_throttle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    telemetry = _heated(monkeypatch, ("sw_power_cap", "hw_slowdown"))
    report = _run(FakeDevice(throttle_after_s=1.0, throttle_factor=0.88), sample=telemetry)
    codes = {r.code for r in report.reasons_at_least(Severity.WARN)}
    assert ReasonCode.THERMAL_THROTTLE in codes


def test_quick_has_no_sustained_phase_and_standard_has_one() -> None:
    assert get_profile("quick").sustained_s == 0
    assert get_profile("standard").sustained_s > 0
    assert get_profile("full").sustained_s > get_profile("standard").sustained_s
    report = _run(FakeDevice(), profile="quick")
    assert report.devices[0].sustained is None


def test_cpus_have_no_sustained_phase() -> None:
    profile = dataclasses.replace(
        get_profile("quick").scaled(0.3), sustained_s=1.0, cpu_dtypes=("fp32",), stream=False
    )
    report = run(
        None,
        profile,
        backend=FakeBackend([FakeDevice.cpu()]),
        detected=fake_detected(None),  # type: ignore[arg-type]
    )
    assert report.devices[0].sustained is None
