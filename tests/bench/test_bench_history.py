"""The bench history: SQLite and S3 (a local moto server) stores, trends, flags and the CLI."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from bench_helpers import fake_aws

from accelerators.bench import BenchReport, open_store, run
from accelerators.bench.history._fleet import sparkline, trends
from accelerators.bench.history._open import default_history_path
from accelerators.bench.history._sqlite import SqliteStore
from accelerators.bench.history._store import Figure, figures_of
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected
from accelerators.errors import AcceleratorError

_DAY0 = datetime(2026, 11, 1, tzinfo=UTC)


def _report(node: str, day: int, bf16: float = 800.0, triad: float = 2970.0) -> BenchReport:
    device = FakeDevice(
        gemm_tflops={"fp32": 40.0, "tf32": 360.0, "bf16": bf16, "fp16": 800.0, "fp8": 1420.0},
        bandwidth_gbps={
            "copy": 2900.0,
            "scale": 2900.0,
            "add": 2970.0,
            "triad": triad,
            "dot": 3180.0,
        },
    )
    report = run("H100-SXM", backend=FakeBackend([device]), detected=fake_detected())
    return report.model_copy(update={"node": node, "started_at": _DAY0 + timedelta(days=day)})


@pytest.fixture(scope="module")
def healthy() -> BenchReport:
    return _report("node-a", 0)


def test_figures_are_the_sustained_rates(healthy: BenchReport) -> None:
    figures = list(figures_of(healthy.model_dump(mode="json")))
    by_metric = {f.metric: f for f in figures}
    bf16 = next(g for g in healthy.gemm if g.dtype == "bf16")
    assert by_metric["gemm.bf16"].value == bf16.median_tflops
    assert by_metric["gemm.bf16"].unit == "tflops"
    triad = next(m for m in healthy.memory if m.kernel == "triad")
    assert by_metric["memory.triad"].value == triad.median_gbps
    assert {f.node for f in figures} == {"node-a"}
    assert {f.sku for f in figures} == {"H100-SXM"}


def test_sqlite_round_trip(tmp_path: Path, healthy: BenchReport) -> None:
    store = open_store(tmp_path / "deep" / "history.sqlite")
    assert isinstance(store, SqliteStore)
    assert list(store.reports()) == []
    later = healthy.model_copy(update={"started_at": _DAY0 + timedelta(days=3)})
    store.append(later)
    store.append(healthy)
    reports = list(store.reports())
    assert [BenchReport.model_validate(r) for r in reports] == [healthy, later]  # oldest first
    assert len(store.figures()) == 2 * len(list(figures_of(reports[0])))


def test_default_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setitem(__import__("sys").modules, "platformdirs", None)  # as if not installed
    assert default_history_path() == tmp_path / "accelerators" / "bench-history.sqlite"


def test_bad_locations_are_named(tmp_path: Path, healthy: BenchReport) -> None:
    with pytest.raises(AcceleratorError, match=r"s3://bucket/prefix URL, got .ftp://x."):
        open_store("ftp://x")
    with pytest.raises(AcceleratorError, match="no bucket"):
        open_store("s3://")
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(AcceleratorError, match="Cannot open the bench history"):
        open_store(blocker / "history.sqlite").append(healthy)


def _figure(node: str, day: int, value: float, metric: str = "gemm.bf16") -> Figure:
    return Figure(_DAY0 + timedelta(days=day), node, 0, "H100-SXM", metric, value, "tflops", "pass")


def test_a_degrading_device_is_flagged_against_itself_and_the_fleet() -> None:
    figures = [_figure(f"n{i}", d, 800.0 + i) for i in range(5) for d in range(10)]
    figures += [
        _figure("n5", d, 800.0 if d < 6 else 800.0 * (1 - 0.05 * (d - 5))) for d in range(10)
    ]
    found = {t.node: t for t in trends(figures)}
    assert found["n5"].flags == ("below own median", "below fleet median")
    assert found["n5"].vs_own == pytest.approx(0.8)
    assert not any(found[f"n{i}"].flagged for i in range(5))
    # A 5 % drop is within the default 10 %, and flagged at 4 %.
    figures[-1] = _figure("n5", 9, 760.0)
    assert not {t.node: t for t in trends(figures)}["n5"].flagged
    assert {t.node: t for t in trends(figures, drop=0.04)}["n5"].flagged


def test_too_little_history_flags_nothing() -> None:
    figures = [_figure("n0", 0, 800.0), _figure("n0", 1, 400.0), _figure("n1", 1, 800.0)]
    (first, second) = trends(figures)
    assert first.own_median is None  # one earlier run is not a baseline
    assert first.fleet_median is None  # two devices are not a fleet
    assert not first.flagged
    assert not second.flagged


def test_metric_filter_and_sparkline() -> None:
    figures = [
        _figure("n0", d, 800.0 - d, m) for d in range(4) for m in ("gemm.bf16", "memory.triad")
    ]
    assert {t.metric for t in trends(figures, metrics=("memory.",))} == {"memory.triad"}
    assert sparkline([1, 2, 3, 4, 5, 6, 7, 8]) == "▁▂▃▄▅▆▇█"
    assert sparkline([5.0, 5.0]) == "▅▅"
    assert sparkline([]) == ""


# ------------------------------------------------------------------------ S3 (moto server)
@pytest.fixture
def s3_env(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    import boto3

    fake_aws(monkeypatch, s3_endpoint)
    bucket = f"bench-{datetime.now(UTC).strftime('%H%M%S%f')}"
    boto3.client("s3").create_bucket(Bucket=bucket)
    return bucket


def test_s3_store_keys_are_partitioned_by_accelerator_and_day(
    s3_env: str, healthy: BenchReport
) -> None:
    import boto3

    store = open_store(f"s3://{s3_env}/fleet/prod")
    assert store.location == f"s3://{s3_env}/fleet/prod"
    other = open_store(f"s3://{s3_env}/fleet/staging")
    store.append(healthy)
    store.append(healthy.model_copy(update={"node": "node-b", "started_at": _DAY0 + timedelta(1)}))
    other.append(healthy)
    listed = boto3.client("s3").list_objects_v2(Bucket=s3_env, Prefix="fleet/prod/")["Contents"]
    keys = sorted(o["Key"].removeprefix("fleet/prod/history-v1/") for o in listed)
    summaries = [k for k in keys if k.startswith("summaries/")]
    reports = [k for k in keys if k.startswith("reports/")]
    assert [k.split("/")[1:3] for k in summaries] == [
        ["H100-SXM", "2026-11-01"],
        ["H100-SXM", "2026-11-02"],
    ]
    assert [k.split("/")[1:3] for k in reports] == [k.split("/")[1:3] for k in summaries]
    assert all(k.endswith(".json") for k in summaries)
    assert [k.split("/")[3].split("_")[1] for k in summaries] == ["node-a", "node-b"]
    full = list(store.reports())
    assert [r["node"] for r in full] == ["node-a", "node-b"]
    assert BenchReport.model_validate(full[0]) == healthy
    read = store.query()
    assert [s.node for s in read.summaries] == ["node-b", "node-a"]  # newest first
    assert len(list(other.reports())) == 1


def test_s3_errors_are_accelerator_errors(s3_env: str, healthy: BenchReport) -> None:
    store = open_store(f"s3://{s3_env}-missing/x")
    with pytest.raises(AcceleratorError, match="Cannot write the bench history s3://"):
        store.append(healthy)
    with pytest.raises(AcceleratorError, match="Cannot read the bench history s3://"):
        list(store.reports())


# ------------------------------------------------------------------------------------ CLI
def _invoke(*args: str) -> Any:
    typer_testing = pytest.importorskip("typer.testing")
    from accelerators.cli import build_app

    return typer_testing.CliRunner().invoke(build_app(), ["bench", *args])


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fleet") / "history.sqlite"
    store = open_store(path)
    for day in range(5):
        for node in ("n0", "n1", "n2", "n3"):
            store.append(_report(node, day))
        store.append(_report("n4", day, bf16=800.0 * (1 - 0.06 * day)))
    return path


def test_history_command_flags_the_degrading_node(fleet: Path, tmp_path: Path) -> None:
    chart = tmp_path / "trend.png"
    result = _invoke(
        "history", "--store", str(fleet), "--metric", "gemm.bf16", "--chart", str(chart)
    )
    assert result.exit_code == 0, result.output
    assert "FLAGGED n4 device 0 (H100-SXM)" in result.output
    assert "FLAGGED n0" not in result.output
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _invoke("history", "--store", str(fleet), "--check").exit_code == 1


def test_history_json(fleet: Path) -> None:
    result = _invoke("history", "--store", str(fleet), "--json", "--flagged")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert {(r["node"], r["metric"]) for r in rows} == {("n4", "gemm.bf16")}
    assert rows[0]["runs"] == 5
    assert "below own median" in rows[0]["flags"]


def test_bench_appends_to_the_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, healthy: BenchReport
) -> None:
    from accelerators.cli import _bench

    monkeypatch.setattr(
        _bench,
        "_run_benchmark",
        lambda **kw: run(backend=FakeBackend([FakeDevice()]), detected=fake_detected(), **kw),
    )
    path = tmp_path / "h.sqlite"
    assert _invoke("--history", str(path), "-q").exit_code == 0
    assert _invoke("--history", str(path), "-q").exit_code == 0
    assert len(list(open_store(path).reports())) == 2
    assert _invoke("--history", "ftp://nowhere").exit_code == 2
    # A deployment-wide history: the environment names it, the command line need not.
    monkeypatch.setenv("ACCELERATORS_BENCH_HISTORY", str(path))
    assert _invoke("-q").exit_code == 0
    assert len(list(open_store(path).reports())) == 3


def test_the_fleet_median_is_the_expected_figure_where_the_band_is_unconfirmed(
    tmp_path: Path,
) -> None:
    from accelerators.bench import ReasonCode, Severity

    def cpu_run(fp32: float, baseline: object = None) -> BenchReport:
        device = FakeDevice.cpu(gemm_tflops={"fp32": fp32, "bf16": 0.002})
        return run(
            backend=FakeBackend([device]),
            detected=fake_detected(None),
            baseline=baseline,  # type: ignore[arg-type]
        )

    store = open_store(tmp_path / "fleet.sqlite")
    for node in ("a", "b", "c"):
        store.append(cpu_run(0.064).model_copy(update={"node": node}))
    slow_alone = cpu_run(0.030)
    slow = cpu_run(0.030, baseline=store)
    before = [r for r in slow_alone.reasons if r.code is ReasonCode.GEMM_SLOW]
    assert all(r.severity is not Severity.FAIL for r in before)  # the CPU band is unconfirmed
    (judged,) = [
        r for r in slow.reasons if r.code is ReasonCode.GEMM_SLOW and r.metric == "gemm.fp32"
    ]
    assert judged.severity is Severity.FAIL
    assert "fleet median of 3" in judged.message
    fp32 = next(g for g in slow.gemm if g.dtype == "fp32")
    assert fp32.band_confidence == "fleet"
    assert fp32.expected_tflops == pytest.approx(
        next(g.median_tflops for g in cpu_run(0.064).gemm if g.dtype == "fp32"), rel=0.05
    )
    healthy = cpu_run(0.064, baseline=str(tmp_path / "fleet.sqlite"))
    assert not [r for r in healthy.reasons if r.code is ReasonCode.GEMM_SLOW]


def test_history_command_filters_and_pages(fleet: Path) -> None:
    only = _invoke("history", "--store", str(fleet), "--node", "n4", "--json")
    assert only.exit_code == 0, only.output
    assert {r["node"] for r in json.loads(only.stdout)} == {"n4"}
    every = json.loads(_invoke("history", "--store", str(fleet), "--json").stdout)
    h100 = _invoke("history", "--store", str(fleet), "--accelerator", "H100-SXM", "--json")
    assert json.loads(h100.stdout) == every  # every node of the fleet is an H100
    assert len(every) > 8
    none = _invoke("history", "--store", str(fleet), "--accelerator", "MI300X", "--json")
    assert json.loads(none.stdout) == []
    page = _invoke("history", "--store", str(fleet), "--per-page", "4", "--page", "2", "--json")
    first = _invoke("history", "--store", str(fleet), "--per-page", "4", "--json")
    rows, head = json.loads(page.stdout), json.loads(first.stdout)
    assert len(rows) == len(head) == 4
    assert rows != head
    table = _invoke("history", "--store", str(fleet), "--per-page", "4")
    pages = -(-len(every) // 4)
    assert f"Page 1 of {pages} ({len(every)} trends): --page for more" in table.output
    newest = _invoke("history", "--store", str(fleet), "--reports", "5", "--json")
    assert {r["runs"] for r in json.loads(newest.stdout)} == {1}  # day 4 of each of 5 nodes
    cut = _invoke("history", "--store", str(fleet), "--reports", "5")
    assert "The newest 5 reports were read" in cut.output


def test_history_command_migrates_a_first_layout_file(tmp_path: Path, healthy: BenchReport) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite"
    connection = sqlite3.connect(path)
    with connection:
        connection.execute(
            "CREATE TABLE reports (id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT NOT "
            "NULL, node TEXT NOT NULL, accelerator TEXT, verdict TEXT NOT NULL, report TEXT "
            "NOT NULL)"
        )
        for node in ("a", "b", "c"):
            data = healthy.model_copy(update={"node": node}).model_dump_json()
            connection.execute(
                "INSERT INTO reports (started_at, node, accelerator, verdict, report) "
                "VALUES ('2026-11-01T00:00:00+00:00', ?, 'H100-SXM', 'pass', ?)",
                (node, data),
            )
    connection.close()
    result = _invoke("history", "--store", str(path), "--migrate", "--json")
    assert result.exit_code == 0, result.output
    assert "Migrated 3 records of an older layout" in result.stderr
    assert {r["node"] for r in json.loads(result.stdout)} == {"a", "b", "c"}
