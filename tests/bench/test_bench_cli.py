"""``accelerators bench``: exit codes, tables, --json, --plot, --device, with a fake backend."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

typer_testing = pytest.importorskip("typer.testing")

from accelerators.bench import BenchReport, run  # noqa: E402
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected  # noqa: E402
from accelerators.cli import _bench, build_app  # noqa: E402


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Route the command to a fake H100 (or an A100 when --expect says A100:fake)."""
    seen: list[dict[str, Any]] = []

    def fake_run(**kwargs: Any) -> BenchReport:
        seen.append(dict(kwargs))
        kwargs.pop("devices", None)
        progress = kwargs.get("progress")
        if progress is not None:
            progress(0.5, "GEMM bf16")
        return run(
            backend=FakeBackend([FakeDevice()]),
            detected=fake_detected("H100-SXM"),  # type: ignore[arg-type]
            **kwargs,
        )

    monkeypatch.setattr(_bench, "_run_benchmark", fake_run)
    return seen


def _invoke(*args: str) -> Any:
    return typer_testing.CliRunner().invoke(build_app(), ["bench", *args])


def test_pass_exits_0_and_prints_tables(calls: list[dict[str, Any]]) -> None:
    result = _invoke("--expect", "H100")
    assert result.exit_code == 0, result.output
    assert "GEMM" in result.output
    assert "triad" in result.output
    assert "PASS" in result.output
    assert calls[0]["expect"] == "H100"
    assert calls[0]["profile"] == "quick"
    assert calls[0]["devices"] is None


def test_fail_exits_1_with_every_reason(calls: list[dict[str, Any]]) -> None:
    result = _invoke("--expect", "A100")
    assert result.exit_code == 1
    assert "wrong_accelerator" in result.output
    assert "FAIL" in result.output


def test_bad_input_exits_2(calls: list[dict[str, Any]]) -> None:
    assert _invoke("--expect", "H10").exit_code == 2
    assert _invoke("--profile", "fast").exit_code == 2
    assert _invoke("--device", "x").exit_code == 2
    assert _invoke("--device", "cpu,0").exit_code == 2
    assert _invoke("--json", "/no/such/dir/report.json").exit_code == 2


def test_json_is_written_and_round_trips(calls: list[dict[str, Any]], tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    result = _invoke("--json", str(target), "--profile", "standard")
    assert result.exit_code == 0, result.output
    report = BenchReport.model_validate_json(target.read_text())
    assert report.profile == "standard"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_json_to_stdout(calls: list[dict[str, Any]]) -> None:
    result = _invoke("--json", "-")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["verdict"] == "pass"


def test_plot_writes_a_png(calls: list[dict[str, Any]], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "report.png"
    result = _invoke("--plot", str(target), "--quiet")
    assert result.exit_code == 0, result.output
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("args", "devices"),
    [
        (["--device", "0,1"], [0, 1]),
        (["--device", "1", "--device", "0"], [0, 1]),
        (["--device", "cpu"], "cpu"),
        (["--device", "all"], None),
    ],
)
def test_device_selection(calls: list[dict[str, Any]], args: list[str], devices: object) -> None:
    assert _invoke(*args, "-q").exit_code == 0
    assert calls[-1]["devices"] == devices
