"""A CPU's memory bandwidth is judged against this node's own history (no datasheet for a
VM), and a bandwidth hog is named as contention, not as a slow device."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from accelerators.bench import MemoryResult, Reason, ReasonCode, Severity, Verdict, run
from accelerators.bench.device._contention import busy_reasons
from accelerators.bench.expect._bands import ContentionPolicy
from accelerators.bench.history._baseline import OWN_BAND
from accelerators.bench.history._sqlite import SqliteStore
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

_KERNELS = ("copy", "scale", "add", "triad", "dot")


def _cpu_run(gbps: float, baseline: SqliteStore | None = None) -> object:
    # fp32 at 90 % of the 144 GFLOPS peak of the fake host: GEMM passes, bandwidth is judged.
    device = FakeDevice.cpu(
        bandwidth_gbps=dict.fromkeys(_KERNELS, gbps), gemm_tflops={"fp32": 0.13, "bf16": 0.002}
    )
    return run(
        None,
        devices="cpu",
        backend=FakeBackend([device]),
        detected=fake_detected(None),
        baseline=baseline,
    )


def test_triad_is_judged_against_the_nodes_own_earlier_runs(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "history.sqlite")
    first = _cpu_run(20.0, store)
    triad = next(m for m in first.memory if m.kernel == "triad")  # type: ignore[attr-defined]
    assert triad.expected_gbps is None  # no history yet: measured only
    for _ in range(3):
        store.append(_cpu_run(20.0))  # type: ignore[arg-type]
    healthy = _cpu_run(20.0, store)
    assert healthy.verdict is Verdict.PASS  # type: ignore[attr-defined]
    triad = next(m for m in healthy.memory if m.kernel == "triad")  # type: ignore[attr-defined]
    assert triad.expected_gbps is not None
    assert triad.expected_gbps == pytest.approx(OWN_BAND * triad.median_gbps)  # same rate
    assert triad.band_confidence == "history"
    assert "this node's 3 earlier runs" in triad.band_source
    # A bandwidth hog halves triad: slow against its own history, a warning (no datasheet).
    cut = _cpu_run(10.0, store)
    slow = [r for r in cut.reasons if r.code is ReasonCode.MEMORY_SLOW]  # type: ignore[attr-defined]
    assert "memory.triad" in {r.metric for r in slow}
    assert all(r.severity is Severity.WARN for r in slow)


def test_a_busy_node_names_memory_bandwidth_contention() -> None:
    result = MemoryResult(kernel="triad", device_index=0, gbps=10.5, median_gbps=10.0)
    slow = Reason(
        code=ReasonCode.MEMORY_SLOW,
        severity=Severity.WARN,
        device_index=0,
        metric="memory.triad",
        message="device 0: triad bandwidth sustains 10 GB/s, 56% of the expected 18 GB/s",
    )
    found = {"cpus": 2.0, "others_cpu": 0.5, "steal": 0.0, "load_1m": 1.4}
    (reason,) = busy_reasons([slow], found, [result], ContentionPolicy())
    assert reason.code is ReasonCode.NODE_BUSY
    assert reason.message.startswith(
        "inconclusive: node busy - memory bandwidth shared with other processes: "
        "other processes used 50% of the 2 CPUs"
    )


def test_an_unjudgeable_figure_is_named_even_when_not_slow() -> None:
    result = MemoryResult(
        kernel="triad",
        device_index=0,
        gbps=20.0,
        median_gbps=19.0,
        reruns=2,
        unjudged="median 40% of the best-of-3, below 70%",
    )
    (reason,) = busy_reasons([], {}, [result], ContentionPolicy())
    assert (reason.code, reason.severity) == (ReasonCode.NODE_BUSY, Severity.INFO)
    assert "memory.triad not judgeable" in reason.message
    assert "after 2 rerun(s)" in reason.message


def _cpufreq_at(tmp_path: Path, mhz: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """cpufreq files that report ``mhz`` as every CPU's maximum: the fake host's clock is then
    a ceiling (``max_boost``)."""
    for cpu in ("cpu0", "cpu1"):
        folder = tmp_path / "sys" / cpu / "cpufreq"
        folder.mkdir(parents=True)
        (folder / "cpuinfo_max_freq").write_text(f"{int(mhz * 1000)}\n", encoding="ascii")
    monkeypatch.setattr(
        "accelerators.bench.expect._cpu_peak.CPUFREQ_GLOB",
        str(tmp_path / "sys" / "cpu[0-9]*" / "cpufreq" / "cpuinfo_max_freq"),
    )


def test_own_history_fills_only_missing_bands_from_passing_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _cpufreq_at(tmp_path, 2250.0, monkeypatch)  # the fake host's clock: a ceiling
    store = SqliteStore(tmp_path / "history.sqlite")
    for _ in range(3):
        store.append(_cpu_run(20.0))  # type: ignore[arg-type]
    report = _cpu_run(20.0, store)
    fp32 = next(g for g in report.gemm if g.dtype == "fp32")  # type: ignore[attr-defined]
    assert fp32.band_confidence == "unconfirmed"  # a band from a ceiling's peak stays
    assert fp32.expected_tflops == fp32.peak_tflops * fp32.band_fraction
    # Runs that did not pass (an inconclusive, disturbed run) are not a baseline.
    other = SqliteStore(tmp_path / "warned.sqlite")
    for _ in range(3):
        warned = _cpu_run(20.0)
        devices = tuple(
            d.model_copy(update={"verdict": Verdict.WARN})
            for d in warned.devices  # type: ignore[attr-defined]
        )
        other.append(warned.model_copy(update={"verdict": Verdict.WARN, "devices": devices}))  # type: ignore[attr-defined]
    again = _cpu_run(20.0, other)
    triad = next(m for m in again.memory if m.kernel == "triad")  # type: ignore[attr-defined]
    assert triad.expected_gbps is None


def test_a_band_from_a_floor_clock_gives_way_to_the_nodes_own_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No cpufreq (a VM): the peak rests on the TSC clock, a floor. 0.10 TFLOPS is 69 % of the
    # fake host's 144 GFLOPS peak: below its band of 85 %, so it warns with no history.
    monkeypatch.setattr(
        "accelerators.bench.expect._cpu_peak.CPUFREQ_GLOB",
        str(tmp_path / "none" / "cpuinfo_max_freq"),
    )

    def gemm_run(tflops: float, baseline: SqliteStore | None = None) -> object:
        device = FakeDevice.cpu(
            bandwidth_gbps=dict.fromkeys(_KERNELS, 20.0),
            gemm_tflops={"fp32": tflops, "bf16": 0.002},
        )
        return run(
            None,
            devices="cpu",
            backend=FakeBackend([device]),
            detected=fake_detected(None),
            baseline=baseline,
        )

    def slow_reasons(report: object) -> list[Reason]:
        return [r for r in report.reasons if r.code is ReasonCode.GEMM_SLOW]  # type: ignore[attr-defined]

    (floor_slow,) = slow_reasons(gemm_run(0.10))
    assert floor_slow.severity is Severity.WARN
    # In the tables' unit (GFLOPS for a CPU), with the table's "% peak": 100 / 144 = 69 %.
    assert re.search(r"sustains (99\.9\d|100) GFLOPS", floor_slow.message)
    assert "69% of the 144 GFLOPS peak" in floor_slow.message
    store = SqliteStore(tmp_path / "history.sqlite")
    for _ in range(3):
        store.append(gemm_run(0.12))  # type: ignore[arg-type]  # passing runs: the baseline
    usual = gemm_run(0.10, store)
    fp32 = next(g for g in usual.gemm if g.dtype == "fp32")  # type: ignore[attr-defined]
    assert fp32.band_confidence == "history"
    assert "instead of a band from a floor peak" in (fp32.band_source or "")
    assert fp32.expected_tflops == pytest.approx(OWN_BAND * 0.12, rel=0.05)
    assert slow_reasons(usual) == []  # 83 % of its own median: fine
    # Half of its usual rate still warns, judged against its own history.
    (reason,) = slow_reasons(gemm_run(0.05, store))
    assert reason.severity is Severity.WARN
    assert "3 earlier runs" in reason.message


def test_a_rate_above_a_floor_peak_quotes_the_peak_in_the_tables_unit() -> None:
    from accelerators.bench import GemmResult
    from accelerators.bench.expect._cpu_peak import peak_reasons

    result = GemmResult(
        dtype="fp32",
        device_index=0,
        m=512,
        n=512,
        k=512,
        tflops=0.170,
        median_tflops=0.165,
        peak_tflops=0.144,
    )
    (reason,) = peak_reasons([result], ceiling=False)
    assert reason.severity is Severity.INFO
    assert "of its 144 GFLOPS peak" in reason.message
