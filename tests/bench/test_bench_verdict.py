"""Verdicts and reasons on fake devices: each fault gives the right reason, health gives none."""

from __future__ import annotations

import pickle

import pytest

from accelerators.bench import (
    AcceleratorGateError,
    BenchReport,
    ReasonCode,
    Severity,
    Verdict,
    gate,
    run,
)
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected
from accelerators.errors import AcceleratorError

H100_MIG_FRACTION = 16 / 132  # 1g.10gb: the 16 SMs a 1g slice reports of the GPU's 132


def _run(expect: object, devices: list[FakeDevice] | None = None, **detected_kwargs: object):
    accelerator = detected_kwargs.pop("accelerator", "H100-SXM")
    count = len(devices) if devices else 1
    detected = fake_detected(accelerator, count=count, **detected_kwargs)  # type: ignore[arg-type]
    backend = FakeBackend(devices or [FakeDevice()])
    return run(expect, backend=backend, detected=detected)  # type: ignore[arg-type]


def _codes(report: BenchReport, severity: Severity | None = None) -> set[ReasonCode]:
    return {r.code for r in report.reasons if severity is None or r.severity is severity}


def test_a_healthy_device_passes_without_alarm() -> None:
    report = _run("H100-SXM")
    assert report.verdict is Verdict.PASS
    assert not report.reasons_at_least(Severity.WARN)
    assert [g.dtype for g in report.gemm] == ["fp32", "tf32", "bf16", "fp16", "fp8"]
    assert [m.kernel for m in report.memory] == ["copy", "scale", "add", "triad", "dot"]
    bf16 = next(g for g in report.gemm if g.dtype == "bf16")
    assert bf16.peak_tflops == pytest.approx(989.5)
    assert bf16.expected_tflops == pytest.approx(989.5 * 0.803)
    assert bf16.band_source == "mamf-finder"
    assert bf16.correct
    triad = next(m for m in report.memory if m.kernel == "triad")
    assert triad.peak_gbps == pytest.approx(3350)
    assert triad.expected_gbps == pytest.approx(3350 * 0.887)
    assert report.matched == "H100-SXM"


def test_nothing_expected_and_a_healthy_device_passes() -> None:
    assert _run(None).verdict is Verdict.PASS


# -- identity ------------------------------------------------------------------------------
def test_asked_for_h100_got_a100_fails() -> None:
    report = _run("H100-SXM", accelerator="A100-40GB-SXM")
    assert report.verdict is Verdict.FAIL
    reason = next(r for r in report.reasons if r.code is ReasonCode.WRONG_ACCELERATOR)
    assert "H100-SXM" in reason.message
    assert "A100-40GB-SXM" in reason.message
    assert reason.device_index == 0
    assert ReasonCode.TOO_FEW_DEVICES in _codes(report)


def test_a_model_name_accepts_every_sku_of_the_model_but_an_exact_one_does_not() -> None:
    assert _run("A100-40GB", accelerator="A100-40GB-PCIE").verdict is not Verdict.FAIL
    exact = _run("A100-40GB-SXM!", accelerator="A100-40GB-PCIE")
    assert ReasonCode.WRONG_ACCELERATOR in _codes(exact, Severity.FAIL)


def test_a_mig_slice_where_a_whole_gpu_was_asked_for_fails() -> None:
    fast_slice = FakeDevice(gemm_tflops={"bf16": 800 * H100_MIG_FRACTION})
    report = _run("H100-SXM", [fast_slice], mig_profile="1g.10gb")
    assert report.verdict is Verdict.FAIL
    reason = next(r for r in report.reasons if r.code is ReasonCode.MIG_SLICE)
    assert "1g.10gb" in reason.message


def test_the_expected_mig_slice_passes_with_scaled_peaks() -> None:
    slice_ = FakeDevice(
        compute_units=16,
        gemm_tflops={"bf16": 800 * H100_MIG_FRACTION, "fp16": 800 * H100_MIG_FRACTION},
        bandwidth_gbps=dict.fromkeys(("copy", "scale", "add", "triad", "dot"), 3000 / 8),
    )
    report = _run("H100-SXM@1g.10gb", [slice_], mig_profile="1g.10gb")
    assert report.verdict is Verdict.PASS, report.reasons
    bf16 = next(g for g in report.gemm if g.dtype == "bf16")
    assert bf16.peak_tflops == pytest.approx(989.5 * H100_MIG_FRACTION)
    assert bf16.peak_confidence == "derived"
    triad = next(m for m in report.memory if m.kernel == "triad")
    assert triad.peak_gbps == pytest.approx(3350 / 8)  # one of eight memory slices


@pytest.mark.parametrize(("profile", "sms"), [("1g.10gb", 16), ("4g.40gb", 64)])
def test_healthy_h100_slices_pass_against_the_sms_they_report(profile: str, sms: int) -> None:
    # A healthy slice runs at the whole GPU's rate per SM; nominal g/7 peaks put it at 85 %.
    # (fp32 is left out: the fake's wave model leaves a 16-SM slice short of its planted fp32.)
    share = sms / 132
    tensor = {d: r for d, r in FakeDevice().gemm_tflops.items() if d != "fp32"}
    # The slice's bandwidth is its memory slices' share (1 or 4 of 8): a fake streaming at
    # the whole GPU's rate would be above its peak (peak_unreliable).
    memory_share = int(profile[0]) / 8
    slice_ = FakeDevice(
        compute_units=sms,
        gemm_tflops={d: r * share for d, r in tensor.items()},
        bandwidth_gbps={k: v * memory_share for k, v in FakeDevice().bandwidth_gbps.items()},
        memory_bytes=40 << 30,
    )
    report = _run(f"H100-SXM@{profile}", [slice_], mig_profile=profile)
    assert report.verdict is Verdict.PASS, report.reasons
    assert not report.reasons_at_least(Severity.WARN)
    bf16 = next(g for g in report.gemm if g.dtype == "bf16")
    assert bf16.peak_tflops == pytest.approx(989.5 * share)


def test_another_mig_profile_or_a_whole_gpu_fails_a_partition_request() -> None:
    other = _run("H100-SXM@1g.10gb", mig_profile="2g.20gb")
    assert ReasonCode.WRONG_PARTITION in _codes(other, Severity.FAIL)
    whole = _run("H100-SXM@1g.10gb")
    assert ReasonCode.WRONG_PARTITION in _codes(whole, Severity.FAIL)
    assert "whole GPU" in next(
        r.message for r in whole.reasons if r.code is ReasonCode.WRONG_PARTITION
    )


def test_too_few_devices_fails() -> None:
    report = _run("H100-SXM:8", [FakeDevice(), FakeDevice()])
    reason = next(r for r in report.reasons if r.code is ReasonCode.TOO_FEW_DEVICES)
    assert reason.severity is Severity.FAIL
    assert (reason.value, reason.threshold) == (2, 8)


def test_more_devices_than_asked_is_informational() -> None:
    report = _run("H100-SXM", [FakeDevice(), FakeDevice()])
    assert report.verdict is Verdict.PASS
    assert ReasonCode.EXTRA_DEVICES in _codes(report, Severity.INFO)


def test_a_fallback_that_matches_passes_and_says_which() -> None:
    report = _run(["H100-SXM", "A100-40GB"], accelerator="A100-40GB-SXM")
    assert report.verdict is not Verdict.FAIL
    assert report.matched == "A100-40GB"
    assert ReasonCode.FALLBACK_MATCHED in _codes(report, Severity.INFO)


def test_no_fallback_matching_reports_the_preferred_alternative() -> None:
    report = _run(["H100-SXM", "B200"], accelerator="A100-40GB-SXM")
    reason = next(r for r in report.reasons if r.code is ReasonCode.WRONG_ACCELERATOR)
    assert "no fallback matched either" in reason.message


def test_no_accelerator_when_one_is_expected_fails_without_benchmarking() -> None:
    backend = FakeBackend([FakeDevice()])
    report = run("H100-SXM", backend=backend, detected=fake_detected(None))  # type: ignore[arg-type]
    assert report.verdict is Verdict.FAIL
    assert ReasonCode.NO_ACCELERATOR in _codes(report, Severity.FAIL)
    assert backend.calls == {}
    assert report.devices == ()
    assert report.device.count == 0


def test_an_unknown_device_warns_without_expectation_and_fails_with_one() -> None:
    unknown = {"per_device": [{"accelerator": None, "raw_name": "Mystery GPU 9000"}]}
    loose = _run(None, **unknown)
    assert ReasonCode.UNIDENTIFIED_DEVICE in _codes(loose, Severity.WARN)
    assert loose.verdict is Verdict.WARN
    assert all(g.peak_tflops is None for g in loose.gemm)
    strict = _run("H100-SXM", **unknown)
    assert ReasonCode.WRONG_ACCELERATOR in _codes(strict, Severity.FAIL)


def test_a_tpu_is_identified_but_not_benchmarked() -> None:
    report = run(None, detected=fake_detected("TPU-V5E"))  # type: ignore[arg-type]
    assert ReasonCode.NOT_BENCHMARKED in _codes(report, Severity.WARN)
    assert report.verdict is Verdict.WARN


# -- telemetry -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("reason", "severity"),
    [
        ("hw_thermal_slowdown", Severity.FAIL),
        ("hw_power_brake_slowdown", Severity.FAIL),
        ("sw_thermal_slowdown", Severity.WARN),
        ("sw_power_cap", Severity.INFO),
        ("unknown_0x400", Severity.WARN),
    ],
)
def test_throttle_reasons_read_under_load(reason: str, severity: Severity) -> None:
    detected = fake_detected("H100-SXM")
    under_load = fake_detected("H100-SXM", throttle_reasons=(reason,))
    report = run(
        "H100-SXM",
        backend=FakeBackend([FakeDevice()]),
        detected=detected,  # type: ignore[arg-type]
        sample=lambda: under_load,  # type: ignore[arg-type,return-value]
    )
    throttled = [r for r in report.reasons if r.code is ReasonCode.THROTTLED]
    assert [r.severity for r in throttled] == [severity]
    assert reason in throttled[0].message
    assert report.devices[0].throttle_reasons == (reason,)


def test_low_clocks_under_load_warn() -> None:
    hot = fake_detected("H100-SXM", clocks_mhz={"sm": 900.0, "sm_max": 1980.0})
    report = run(
        "H100-SXM",
        backend=FakeBackend([FakeDevice()]),
        detected=fake_detected("H100-SXM"),  # type: ignore[arg-type]
        sample=lambda: hot,  # type: ignore[arg-type,return-value]
    )
    reason = next(r for r in report.reasons if r.code is ReasonCode.CLOCKS_LOW)
    assert reason.severity is Severity.WARN
    assert reason.value == 900.0
    assert report.verdict is Verdict.WARN
    fine = fake_detected("H100-SXM", clocks_mhz={"sm": 1755.0, "sm_max": 1980.0})
    ok = run(
        "H100-SXM",
        backend=FakeBackend([FakeDevice()]),
        detected=fake_detected("H100-SXM"),  # type: ignore[arg-type]
        sample=lambda: fine,  # type: ignore[arg-type,return-value]
    )
    assert ok.verdict is Verdict.PASS


def test_ecc_errors_warn() -> None:
    report = _run("H100-SXM", ecc_errors=3)
    assert ReasonCode.ECC_ERRORS in _codes(report, Severity.WARN)


# -- measurements --------------------------------------------------------------------------
def test_a_gemm_miscompare_fails_whatever_the_speed() -> None:
    report = _run("H100-SXM", [FakeDevice(miscompare=frozenset({"bf16"}))])
    assert report.verdict is Verdict.FAIL
    reason = next(r for r in report.reasons if r.code is ReasonCode.MISCOMPARE)
    assert reason.metric == "gemm.bf16"
    assert not _codes(report) & {ReasonCode.GEMM_SLOW, ReasonCode.MEMORY_SLOW}
    assert next(g for g in report.gemm if g.dtype == "bf16").correct is False


def test_a_stream_miscompare_fails() -> None:
    report = _run("H100-SXM", [FakeDevice(miscompare=frozenset({"triad", "dot"}))])
    metrics = {r.metric for r in report.reasons if r.code is ReasonCode.MISCOMPARE}
    assert metrics == {"memory.triad", "memory.dot"}


@pytest.mark.parametrize(
    ("bf16_tflops", "severity"), [(400.0, Severity.FAIL), (690.0, Severity.WARN)]
)
def test_slow_gemm(bf16_tflops: float, severity: Severity) -> None:
    rates = dict(FakeDevice().gemm_tflops, bf16=bf16_tflops)
    report = _run("H100-SXM", [FakeDevice(gemm_tflops=rates)])
    reason = next(r for r in report.reasons if r.code is ReasonCode.GEMM_SLOW)
    assert reason.severity is severity
    assert reason.metric == "gemm.bf16"
    assert reason.threshold == pytest.approx(989.5 * 0.803)


def test_an_unconfirmed_band_warns_instead_of_failing() -> None:
    rates = dict(FakeDevice().gemm_tflops, tf32=100.0)  # the tf32 band is unconfirmed
    report = _run("H100-SXM", [FakeDevice(gemm_tflops=rates)])
    reason = next(r for r in report.reasons if r.code is ReasonCode.GEMM_SLOW)
    assert reason.severity is Severity.WARN
    assert "unconfirmed" in reason.message


def test_slow_memory_fails() -> None:
    slow = dict.fromkeys(("copy", "scale", "add", "triad", "dot"), 1500.0)
    report = _run("H100-SXM", [FakeDevice(bandwidth_gbps=slow)])
    assert ReasonCode.MEMORY_SLOW in _codes(report, Severity.FAIL)


def test_unsupported_dtypes_are_reported_not_failed() -> None:
    device = FakeDevice(unsupported={"fp8": "no fp8 tensor cores on this fake"})
    report = _run("H100-SXM", [device])
    fp8 = next(g for g in report.gemm if g.dtype == "fp8")
    assert fp8.status == "unsupported"
    assert ReasonCode.DTYPE_UNSUPPORTED in _codes(report, Severity.INFO)
    assert report.verdict is Verdict.PASS


def test_an_error_on_one_device_fails_it_and_the_others_are_still_measured() -> None:
    report = _run("H100-SXM:2", [FakeDevice(errors=frozenset({"gemm.bf16"})), FakeDevice()])
    error = next(r for r in report.reasons if r.code is ReasonCode.BENCH_ERROR)
    assert error.device_index == 0
    assert "planted error" in error.message
    assert report.verdict is Verdict.FAIL
    assert [g.dtype for g in report.devices[1].gemm] == ["fp32", "tf32", "bf16", "fp16", "fp8"]


# -- several devices -----------------------------------------------------------------------
def test_several_devices_gate_on_the_slowest() -> None:
    slow_rates = dict(FakeDevice().gemm_tflops, bf16=560.0)
    devices = [FakeDevice(), FakeDevice(gemm_tflops=slow_rates), FakeDevice()]
    report = _run("H100-SXM:3", devices)
    assert len(report.devices) == 3
    bf16 = next(g for g in report.gemm if g.dtype == "bf16")
    assert bf16.device_index == 1
    assert report.slowest_device == 1
    spread = next(r for r in report.reasons if r.code is ReasonCode.DEVICE_SPREAD)
    assert spread.device_index == 1
    assert spread.metric == "gemm.bf16"
    assert report.devices[0].verdict is Verdict.PASS
    assert report.devices[1].verdict is Verdict.FAIL
    assert report.verdict is Verdict.FAIL


# -- the gate ------------------------------------------------------------------------------
def test_gate_returns_a_passing_report() -> None:
    report = gate(
        "H100-SXM",
        backend=FakeBackend([FakeDevice()]),
        detected=fake_detected("H100-SXM"),  # type: ignore[arg-type]
    )
    assert report.verdict is Verdict.PASS


def test_gate_raises_with_the_report_on_fail() -> None:
    with pytest.raises(AcceleratorGateError) as info:
        gate(
            "H100-SXM",
            backend=FakeBackend([FakeDevice()]),
            detected=fake_detected("A100-40GB-SXM"),  # type: ignore[arg-type]
        )
    error = info.value
    assert isinstance(error, AcceleratorError)
    assert error.report.verdict is Verdict.FAIL
    assert "[wrong_accelerator]" in str(error)
    again = pickle.loads(pickle.dumps(error))
    assert str(again) == str(error)
    assert again.report == error.report


def test_an_invalid_expectation_is_bad_input() -> None:
    with pytest.raises(AcceleratorError, match="H10"):
        run("H10", backend=FakeBackend(), detected=fake_detected("H100-SXM"))  # type: ignore[arg-type]
