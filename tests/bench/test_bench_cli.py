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
    result = _invoke("--expect", "H100-SXM")
    assert result.exit_code == 0, result.output
    assert "GEMM" in result.output
    assert "triad" in result.output
    assert "PASS" in result.output
    assert calls[0]["expect"] == "H100-SXM"
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


# -- usage errors before measuring, -q on failure, --json -, percentages ------------------
@pytest.mark.parametrize(
    "args",
    [
        ["--plot", "-"],
        ["--json", "{tmp}"],  # a directory
        ["--plot", "{tmp}"],
        ["--html", "{tmp}/"],
        ["--json", "{tmp}/missing/report.json"],
        ["--html", "/proc/version"],  # exists, not writable
        ["--history", "ftp://host/x"],
        ["--instance", "p5.48xlarg"],  # a typo: did you mean p5.48xlarge
        ["--no-such-flag"],
    ],
)
def test_usage_errors_exit_2_before_measuring(
    calls: list[dict[str, Any]], tmp_path: Path, args: list[str]
) -> None:
    result = _invoke(*(a.replace("{tmp}", str(tmp_path)) for a in args))
    assert result.exit_code == 2, result.output
    assert calls == []  # nothing was measured


def test_quiet_failure_prints_the_verdict_and_reasons_on_stderr(
    calls: list[dict[str, Any]],
) -> None:
    result = _invoke("--expect", "A100", "-q")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "FAIL" in result.stderr
    assert "wrong_accelerator" in result.stderr


def test_json_dash_prints_only_the_report(calls: list[dict[str, Any]]) -> None:
    result = _invoke("--json", "-", "--expect", "A100")
    assert result.exit_code == 1
    report = BenchReport.model_validate_json(result.stdout)  # stdout is the report, whole
    assert report.verdict.value == "fail"
    assert "wrong_accelerator" in result.stderr


def test_html_report_is_written(calls: list[dict[str, Any]], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "report.html"
    result = _invoke("--html", str(target), "-q")
    assert result.exit_code == 0, result.output
    assert target.read_text().startswith("<!DOCTYPE html>")


def test_the_warning_quotes_the_tables_percentage(monkeypatch: pytest.MonkeyPatch) -> None:
    slow = FakeDevice(
        gemm_tflops={"fp32": 40.0, "tf32": 360.0, "bf16": 500.0, "fp16": 800.0, "fp8": 1420.0}
    )

    def fake_run(**kwargs: Any) -> BenchReport:
        kwargs.pop("devices", None)
        return run(backend=FakeBackend([slow]), detected=fake_detected("H100-SXM"), **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_bench, "_run_benchmark", fake_run)
    result = _invoke("--expect", "H100-SXM")
    bf16 = next(line for line in result.stdout.splitlines() if line.strip().startswith("bf16"))
    reason = next(line for line in result.stdout.splitlines() if "gemm_slow" in line)
    table_pct = next(cell for cell in bf16.split() if cell.endswith("%"))
    assert f"{table_pct} of the" in reason


def test_instance_prints_the_cost_of_the_measured_rate(calls: list[dict[str, Any]]) -> None:
    from accelerators.sizing import cost_of_throughput

    result = _invoke("--expect", "H100-SXM", "--instance", "p5.48xlarge")
    assert result.exit_code == 0, result.output
    assert calls  # the command measured (on the fake H100, whose figures are deterministic)
    same = run(
        backend=FakeBackend([FakeDevice()]),
        detected=fake_detected("H100-SXM"),  # type: ignore[arg-type]
        expect="H100-SXM",
    )
    cost = cost_of_throughput(same, "p5.48xlarge")
    flat = " ".join(result.output.split())
    assert "Cost on p5.48xlarge (aws on-demand" in flat
    assert f"${cost.usd_per_tflop_hour:.4f} per TFLOP-hour" in flat


def test_instance_without_a_price_says_so(calls: list[dict[str, Any]]) -> None:
    from accelerators.catalog._instances import instances, prices

    priced = {p.instance for p in prices()}
    unpriced = next(row.name for row in instances() if row.name not in priced)
    result = _invoke("--expect", "H100-SXM", "--instance", unpriced)
    assert result.exit_code == 0, result.output
    assert f"Cost on {unpriced}: not known" in " ".join(result.output.split())


def test_tables_show_reruns_and_unjudged_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    busy = FakeDevice(busy_until_s=1e9, busy_share=0.7, busy_factor=2.5)

    def fake_run(**kwargs: Any) -> BenchReport:
        kwargs.pop("devices", None)
        return run(
            backend=FakeBackend([busy]),
            detected=fake_detected("H100-SXM"),  # type: ignore[arg-type]
            **kwargs,
        )

    monkeypatch.setattr(_bench, "_run_benchmark", fake_run)
    result = typer_testing.CliRunner().invoke(
        build_app(), ["bench", "--expect", "H100-SXM"], terminal_width=200
    )
    assert result.exit_code == 0, result.output  # inconclusive warns: the policy's severity
    assert "reruns" in result.output
    assert "2 !" in result.output  # re-measured twice, still too spread to judge
    assert "inconclusive: timings unsteady" in result.output


def test_a_cpu_run_shows_its_all_core_and_per_core_figures_and_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    device = FakeDevice.cpu(thread_speedup={1: 1.0, 2: 1.8})

    def fake_run(**kwargs: Any) -> BenchReport:
        kwargs.pop("devices", None)
        return run(backend=FakeBackend([device]), detected=fake_detected(None), **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_bench, "_run_benchmark", fake_run)
    result = typer_testing.CliRunner().invoke(
        build_app(), ["bench", "--device", "cpu"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    header = next(line for line in result.output.splitlines() if "m x n x k" in line)
    assert "all-core" in header
    assert "per-core" in header
    assert "CPU clock behind the peaks: 2250 MHz" in result.output
