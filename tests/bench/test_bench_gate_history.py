"""Every gate run can append its report to a bench history: named in code, or for a whole
deployment through ``ACCELERATORS_BENCH_HISTORY`` (the Flyte and Airflow gates, the CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelerators.bench import (
    HISTORY_ENV,
    AcceleratorGateError,
    ReasonCode,
    Severity,
    gate,
    open_store,
    run,
)
from accelerators.bench.history._open import default_history_path, history_store
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected
from accelerators.errors import AcceleratorError


def _fake(sku: str = "H100-SXM") -> dict[str, object]:
    return {"backend": FakeBackend([FakeDevice()]), "detected": fake_detected(sku)}


def test_gate_appends_to_the_history_the_environment_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "fleet" / "history.sqlite"
    monkeypatch.setenv(HISTORY_ENV, str(path))
    report = gate("H100-SXM", **_fake())  # type: ignore[arg-type]
    (stored,) = open_store(path).reports()
    assert stored["started_at"] == report.model_dump(mode="json")["started_at"]
    assert stored["verdict"] == "pass"
    # history=False records nothing, whatever the environment says.
    gate("H100-SXM", history=False, **_fake())  # type: ignore[arg-type]
    assert len(list(open_store(path).reports())) == 1


def test_a_failed_gate_is_recorded_before_it_raises(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    a100 = FakeDevice(  # an A100's own rates: its figures must be possible for an A100
        name="NVIDIA A100-SXM4-80GB",
        gemm_tflops={"fp32": 18.0, "tf32": 140.0, "bf16": 280.0, "fp16": 280.0},
        bandwidth_gbps=dict.fromkeys(("copy", "scale", "add", "triad", "dot"), 1800.0),
    )
    fake = {"backend": FakeBackend([a100]), "detected": fake_detected("A100-80GB-SXM")}
    with pytest.raises(AcceleratorGateError) as raised:
        gate("H100-SXM", history=path, **fake)  # type: ignore[arg-type]
    (stored,) = open_store(path).reports()
    assert stored["verdict"] == "fail" == raised.value.report.verdict.value


def test_run_records_nothing_unless_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "history.sqlite"
    monkeypatch.setenv(HISTORY_ENV, str(path))
    run("H100-SXM", **_fake())  # type: ignore[arg-type]  # run's default: history=False
    assert not path.exists()
    run("H100-SXM", history=None, **_fake())  # type: ignore[arg-type]
    assert len(list(open_store(path).reports())) == 1


def test_an_unwritable_history_is_a_reason_not_a_failed_gate(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    report = gate("H100-SXM", history=blocker / "history.sqlite", **_fake())  # type: ignore[arg-type]
    assert report.verdict.value == "pass"
    (note,) = [r for r in report.reasons if r.code is ReasonCode.HISTORY_UNAVAILABLE]
    assert note.severity is Severity.INFO
    assert "this report was not appended" in note.message
    assert str(blocker) in note.message


def test_a_bad_history_location_is_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HISTORY_ENV, "ftp://nowhere/prefix")
    with pytest.raises(AcceleratorError, match=rf"'ftp://nowhere/prefix' \({HISTORY_ENV}\)"):
        gate("H100-SXM", **_fake())  # type: ignore[arg-type]
    monkeypatch.setenv(HISTORY_ENV, "  ")
    assert history_store(None) is None


def test_history_true_is_the_environments_store_else_the_default_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HISTORY_ENV, str(tmp_path / "fleet.sqlite"))
    named = history_store(True)
    assert named is not None
    assert named.location == str(tmp_path / "fleet.sqlite")
    monkeypatch.delenv(HISTORY_ENV)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    fallback = history_store(True)
    assert fallback is not None
    assert fallback.location == str(default_history_path())


def test_the_history_is_the_baseline_of_the_next_run(tmp_path: Path) -> None:
    # A CPU's bandwidth has no datasheet: after 3 recorded runs it is judged against them.
    path = tmp_path / "history.sqlite"
    cpu = {"devices": "cpu", "detected": fake_detected(None)}

    def device() -> FakeBackend:  # fp32 at 90 % of the fake host's peak: a passing run
        return FakeBackend([FakeDevice.cpu(gemm_tflops={"fp32": 0.13, "bf16": 0.002})])

    for _ in range(3):
        assert run(None, backend=device(), history=path, **cpu).verdict.value == "pass"  # type: ignore[arg-type]
    report = run(None, backend=device(), history=path, **cpu)  # type: ignore[arg-type]
    triad = next(m for m in report.memory if m.kernel == "triad")
    assert triad.band_confidence == "history"
    assert len(list(open_store(path).reports())) == 4
