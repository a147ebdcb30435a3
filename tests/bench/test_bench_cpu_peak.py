"""The CPU peak's clock and ISA are detected, never assumed; a rate above the peak is flagged."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from accelerators.bench import GemmResult, ReasonCode, Severity, Verdict, run
from accelerators.bench.expect import _cpu_peak
from accelerators.bench.expect._cpu_peak import ABOVE_PEAK, cpu_clock, isa_of, peak_reasons
from accelerators.bench.expect._peaks import cpu_gemm_peak
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected


def _cpu(**changes: object) -> object:
    cpu = fake_detected(None).cpu  # type: ignore[attr-defined]
    return dataclasses.replace(cpu, **changes)


def _cpufreq(tmp_path: Path, khz: list[int]) -> str:
    for index, value in enumerate(khz):
        folder = tmp_path / f"cpu{index}" / "cpufreq"
        folder.mkdir(parents=True)
        (folder / "cpuinfo_max_freq").write_text(f"{value}\n")
    return str(tmp_path / "cpu[0-9]*" / "cpufreq" / "cpuinfo_max_freq")


def test_the_clock_kind_comes_from_where_the_clock_was_read(tmp_path: Path) -> None:
    pattern = _cpufreq(tmp_path, [3_500_000, 3_700_000])
    boosted = cpu_clock(_cpu(max_mhz=3700.0), cpufreq_glob=pattern)  # type: ignore[arg-type]
    assert (boosted.kind, boosted.ceiling) == ("max_boost", True)
    # A clock that is not cpufreq's maximum (a VM's TSC rate) is no ceiling.
    tsc = cpu_clock(_cpu(max_mhz=2250.0), cpufreq_glob=pattern)  # type: ignore[arg-type]
    assert (tsc.kind, tsc.ceiling) == ("current", False)
    assert "TSC" in tsc.describe()
    named = _cpu(max_mhz=2450.0, model_name="AMD EPYC 7763 64-Core Processor @ 2.45GHz")
    assert cpu_clock(named, cpufreq_glob=str(tmp_path / "none")).kind == "nominal"  # type: ignore[arg-type]
    assert cpu_clock(_cpu(max_mhz=None)).kind == "unknown"  # type: ignore[arg-type]


def test_isa_is_read_from_the_flags() -> None:
    assert isa_of({"avx", "avx2", "fma", "avx512f", "avx512_bf16"}) == (
        "AVX-512 (512-bit FMA), AVX512_BF16"
    )
    assert isa_of({"avx", "avx2", "fma"}) == "AVX2 + FMA (256-bit)"
    assert isa_of({"avx2", "fma", "avx512f", "amx_bf16"}).endswith("AMX-BF16")
    assert isa_of({"sse4_2"}) == "no AVX (SSE only)"
    assert isa_of(()) == "no CPU flags reported"


def test_the_cpu_peak_note_names_the_isa_and_the_clock() -> None:
    peak = cpu_gemm_peak(_cpu(), "fp32")  # type: ignore[arg-type]
    assert peak is not None
    assert peak.value == pytest.approx(32 * 2 * 2250e6 / 1e12)
    assert "ISA: AVX2 + FMA (256-bit)" in (peak.note or "")
    assert "the peak is a floor" in (peak.note or "")
    zen5 = _cpu(family=26, flags=frozenset({"avx", "avx2", "fma", "avx512f"}))
    assert cpu_gemm_peak(zen5, "fp32").value == pytest.approx(64 * 2 * 2250e6 / 1e12)  # type: ignore[arg-type,union-attr]


def _result(rate: float, peak: float, samples: tuple[float, ...] = ()) -> GemmResult:
    return GemmResult(
        dtype="fp32",
        device_index=0,
        m=1000,
        n=1000,
        k=1000,
        tflops=rate,
        median_tflops=rate,
        peak_tflops=peak,
        samples_s=samples,
    )


def test_a_rate_above_the_peak_is_flagged_by_what_the_peak_rests_on() -> None:
    above = _result(0.17, 0.144)  # 118 %, the figure issue 11 saw pass silently
    (warn,) = peak_reasons([above], ceiling=True)
    assert (warn.code, warn.severity) == (ReasonCode.PEAK_UNRELIABLE, Severity.WARN)
    assert "118%" in warn.message
    assert warn.value == pytest.approx(0.17 / 0.144)
    (info,) = peak_reasons([above], ceiling=False)
    assert info.severity is Severity.INFO
    assert "floor" in info.message
    assert peak_reasons([_result(0.144 * ABOVE_PEAK * 0.99, 0.144)], ceiling=True) == []


def test_one_lucky_call_above_the_peak_is_not_enough() -> None:
    flops = 2e9
    # Median 0.10 TFLOPS; one call at 0.2 TFLOPS, the rest at 0.1: the best-of-3 is 0.1.
    samples = (flops / 0.2e12, flops / 0.1e12, flops / 0.1e12, flops / 0.1e12)
    assert peak_reasons([_result(0.10, 0.144, samples)], ceiling=True) == []


def test_an_end_to_end_cpu_run_above_its_peak_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    device = FakeDevice.cpu(gemm_tflops={"fp32": 0.17, "bf16": 0.002})
    report = run(None, devices="cpu", backend=FakeBackend([device]), detected=fake_detected(None))
    flagged = [r for r in report.reasons if r.code is ReasonCode.PEAK_UNRELIABLE]
    assert [r.metric for r in flagged] == ["gemm.fp32"]
    assert flagged[0].severity is Severity.INFO  # the fake's 2250 MHz is no ceiling
    assert report.verdict is Verdict.PASS
    # With cpufreq reporting that clock as the maximum, the peak is a ceiling: a warning.
    monkeypatch.setattr(_cpu_peak, "CPUFREQ_GLOB", _cpufreq(tmp_path, [2_250_000, 2_250_000]))
    again = run(None, devices="cpu", backend=FakeBackend([device]), detected=fake_detected(None))
    assert any(
        r.code is ReasonCode.PEAK_UNRELIABLE and r.severity is Severity.WARN for r in again.reasons
    )
    assert again.verdict is Verdict.WARN


def test_a_gpu_above_its_datasheet_peak_warns() -> None:
    rates = {"fp32": 80.0, "tf32": 360.0, "bf16": 800.0, "fp16": 800.0, "fp8": 1420.0}
    report = run(
        "H100-SXM",
        backend=FakeBackend([FakeDevice(gemm_tflops=rates)]),
        detected=fake_detected("H100-SXM"),
    )
    flagged = [r for r in report.reasons if r.code is ReasonCode.PEAK_UNRELIABLE]
    assert [(r.metric, r.severity) for r in flagged] == [("gemm.fp32", Severity.WARN)]
