"""A busy node makes slow figures inconclusive ("node busy"), never a slow device."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelerators.bench import GemmResult, Reason, ReasonCode, Severity
from accelerators.bench.device._contention import CpuSnapshot, busy_reasons, conditions, snapshot
from accelerators.bench.expect._bands import ContentionPolicy

_POLICY = ContentionPolicy()


def _slow(median: float = 0.05, best: float = 0.06) -> tuple[Reason, GemmResult]:
    result = GemmResult(dtype="fp32", device_index=0, tflops=best, median_tflops=median)
    reason = Reason(
        code=ReasonCode.GEMM_SLOW,
        severity=Severity.FAIL,
        device_index=0,
        metric="gemm.fp32",
        message="device 0: fp32 GEMM sustains 0.05 TFLOPS, 40% of the peak",
    )
    return reason, result


def test_snapshot_reads_proc_stat(tmp_path: Path) -> None:
    stat = tmp_path / "stat"
    stat.write_text("cpu  100 0 50 800 10 0 0 40 0 0\ncpu0 1 2 3\n")
    taken = snapshot(str(stat))
    assert taken is not None
    assert taken.busy_s > 0
    assert taken.steal_s == pytest.approx(taken.total_s * 40 / 1000)
    assert snapshot(str(tmp_path / "missing")) is None
    (tmp_path / "bad").write_text("intr 1 2 3\n")
    assert snapshot(str(tmp_path / "bad")) is None


def test_a_snapshot_can_count_waited_children_as_its_own(tmp_path: Path) -> None:
    # GIVEN a child that spends CPU time and is waited for
    import subprocess
    import sys

    stat = tmp_path / "stat"
    stat.write_text("cpu  100 0 50 800 10 0 0 40 0 0\n")
    before_own = snapshot(str(stat))
    before_all = snapshot(str(stat), children=True)
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass",
        ],
        check=True,
    )
    after_own = snapshot(str(stat))
    after_all = snapshot(str(stat), children=True)
    assert None not in (before_own, before_all, after_own, after_all)
    # THEN only the snapshot asked to counts the child's CPU time as this process's
    own = after_own.own_s - before_own.own_s  # type: ignore[union-attr]
    with_children = after_all.own_s - before_all.own_s  # type: ignore[union-attr]
    assert with_children - own >= 0.25


def test_conditions_subtract_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    before = CpuSnapshot(wall_s=0, busy_s=0, steal_s=0, total_s=0, own_s=0)
    # 10 s on 2 CPUs: 16 CPU-s busy, 9 of them ours -> others used 7 / 20 = 35 %.
    after = CpuSnapshot(wall_s=10, busy_s=16, steal_s=1, total_s=20, own_s=9)
    found = conditions(before, after)
    assert found["others_cpu"] == pytest.approx(0.35)
    assert found["steal"] == pytest.approx(0.05)
    assert found["cpus"] == 2
    assert conditions(None, after) == {}


def test_a_slow_figure_on_a_busy_node_names_the_node() -> None:
    reason, result = _slow()
    found = {"others_cpu": 0.6, "steal": 0.0, "cpus": 2.0, "load_1m": 3.0}
    (rewritten,) = busy_reasons([reason], found, [result], _POLICY)
    assert rewritten.code is ReasonCode.NODE_BUSY
    assert rewritten.severity is Severity.WARN
    assert rewritten.message.startswith("inconclusive: node busy - other processes used 60%")


def test_unstable_samples_alone_make_it_inconclusive() -> None:
    reason, result = _slow(median=0.02, best=0.06)  # median a third of best: a hog came and went
    (rewritten,) = busy_reasons([reason], {"others_cpu": 0.0, "steal": 0.0}, [result], _POLICY)
    assert rewritten.code is ReasonCode.NODE_BUSY
    assert "unstable (median 33% of best)" in rewritten.message


def test_a_quiet_node_keeps_the_slow_verdict() -> None:
    reason, result = _slow()
    assert busy_reasons([reason], {"others_cpu": 0.05, "steal": 0.0}, [result], _POLICY) == [reason]


def test_policy_severity_info_lets_a_busy_run_pass() -> None:
    reason, result = _slow()
    policy = ContentionPolicy(severity="info")
    (rewritten,) = busy_reasons([reason], {"others_cpu": 0.9}, [result], policy)
    assert rewritten.severity is Severity.INFO


def test_a_busy_node_with_good_figures_is_still_named() -> None:
    (named,) = busy_reasons([], {"others_cpu": 0.5, "steal": 0.0, "cpus": 2.0}, [], _POLICY)
    assert named.code is ReasonCode.NODE_BUSY
    assert named.severity is Severity.INFO
