"""The whole path on the real CPU: detect, torch, shape search, stream, checks, report.

The budgets are scaled down (a few seconds in all); nothing here asserts on speed.
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from accelerators import current
from accelerators.bench import PROFILES, BenchReport, ReasonCode, Verdict, gate, run


@pytest.fixture(scope="module")
def report() -> BenchReport:
    return run(None, PROFILES["quick"].scaled(0.25), devices="cpu")


def test_the_cpu_run_measures_and_checks_everything(report: BenchReport) -> None:
    assert report.verdict is not Verdict.FAIL, report.reasons
    assert report.device.kind == "cpu"
    assert report.device.count == 1
    assert report.profile == "quick"
    gemm = {g.dtype: g for g in report.gemm}
    assert set(gemm) == {"fp32", "bf16"}
    for g in gemm.values():
        assert g.status == "measured"
        assert g.correct
        assert g.tflops
        assert g.median_tflops
        assert g.m
        assert g.n
        assert g.k
        assert g.tflops >= g.median_tflops
        assert g.threads is not None
        assert g.samples_s
    memory = {m.kernel: m for m in report.memory}
    llc = current().cpu.l3_bytes or 0
    # quick runs on a CPU only the kernels its verdict reads; each is checked.
    assert set(memory) == {"copy", "triad"}
    for m in memory.values():
        assert m.correct
        assert m.gbps
        assert m.gbps > 0
        assert m.array_bytes is not None
        assert m.array_bytes >= 4 * llc  # STREAM's rule: at least 4x the last-level cache
    assert not any(r.code is ReasonCode.MISCOMPARE for r in report.reasons)


def test_the_cpu_run_records_its_thread_choice(report: BenchReport) -> None:
    workloads = {t.workload: t for t in report.devices[0].threads}
    assert {"gemm.fp32", "gemm.bf16", "stream"} <= set(workloads)
    for g in report.devices[0].gemm:
        assert g.threads == workloads[f"gemm.{g.dtype}"].threads
        assert g.judged_on in ("all-core", "per-core")
        if len(workloads[f"gemm.{g.dtype}"].rates) > 1:  # more than one thread count here
            assert g.all_core_tflops
            assert g.per_core_tflops


def test_the_cpu_peak_rests_on_a_measured_clock(report: BenchReport) -> None:
    """On x86-64 Linux the peak's clock is measured (the add chain), the reported one a floor."""
    import platform
    import sys

    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the add chain runs on x86-64 Linux")
    clocks = report.devices[0].clocks_mhz
    assert {"peak", "measured", "reported"} <= set(clocks)
    assert clocks["peak"] >= clocks["reported"]  # the reported clock is the floor
    fp32 = next(g for g in report.devices[0].gemm if g.dtype == "fp32")
    if fp32.peak_tflops is not None:
        assert "dependent-add chain" in (fp32.peak_note or "")
        # The report keeps the clock to 0.1 MHz, the note prints the measured one whole: a
        # clock of 3692.53 is 3692.5 in the report (3692 at .0f) and 3693 MHz in the note.
        shown = {f"{clocks['peak'] + d:.0f} MHz" for d in (-0.05, 0.05)}
        assert any(s in (fp32.peak_note or "") for s in shown), (shown, fp32.peak_note)


def test_the_cpu_report_round_trips(report: BenchReport) -> None:
    assert BenchReport.model_validate_json(report.model_dump_json()) == report


def test_gate_on_the_cpu_with_nothing_expected_does_not_raise() -> None:
    profile = PROFILES["quick"].scaled(0.1)
    assert gate(None, profile, devices="cpu").verdict is not Verdict.FAIL
