"""The bench history in PostgreSQL, against a real server (``postgres_server`` in conftest:
initdb and pg_ctl in a temporary directory; skipped only where the binaries are absent, and
``.ci/run`` installs them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from accelerators.bench import (
    AcceleratorGateError,
    BenchReport,
    Query,
    ReasonCode,
    gate,
    open_store,
    run,
)
from accelerators.bench.history._postgres import PostgresStore
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected
from accelerators.bench.testing._fault_servers import FaultServer
from accelerators.errors import AcceleratorError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _short_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACCELERATORS_BENCH_HISTORY_DEADLINE", "3")
    monkeypatch.delenv("ACCELERATORS_BENCH_HISTORY", raising=False)


def _gate(history: Any, node: str = "pg-node") -> BenchReport:
    os.environ["NODE_NAME"] = node
    try:
        return gate(
            "H100-SXM",
            history=history,
            backend=FakeBackend([FakeDevice()]),
            detected=fake_detected(),
        )
    except AcceleratorGateError as exc:
        return exc.report
    finally:
        del os.environ["NODE_NAME"]


def _history_reasons(report: BenchReport) -> list[str]:
    return [r.message for r in report.reasons if r.code.value.startswith("history")]


def _sql(url: str, statement: str) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        cursor = connection.execute(statement)
        return cursor.fetchall() if cursor.description else []


def test_a_gate_appends_to_postgresql_and_reads_its_baseline_back(postgres_url: str) -> None:
    store = open_store(postgres_url)
    assert isinstance(store, PostgresStore)
    for node in ("a", "b", "c"):
        assert _history_reasons(_gate(postgres_url, node)) == []
    # The same tables as SQLite's, owned and versioned.
    meta = dict(_sql(postgres_url, "SELECT key, value FROM bench_history_meta"))
    assert meta == {"owner": "accelerators.bench.history", "schema_version": "1"}
    read = store.query(Query(accelerators=("H100-SXM",)))
    assert [s.node for s in read.summaries] == ["c", "b", "a"]  # newest first
    assert read.skipped == []
    assert [r["node"] for r in store.reports()] == ["a", "b", "c"]
    report = BenchReport.model_validate(next(iter(store.reports())))
    assert report.node == "a"
    # A fourth gate's baseline comes from the three before it: the fleet median of 3 nodes.
    fourth = _gate(postgres_url, "d")
    tf32 = next(g for g in fourth.gemm if g.dtype == "tf32")  # an unconfirmed band
    assert tf32.band_confidence == "fleet"
    assert "fleet median of 3 H100-SXM nodes" in (tf32.band_source or "")


def test_the_environment_and_the_cli_name_a_postgresql_history(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    typer_testing = pytest.importorskip("typer.testing")
    from accelerators.cli import _bench, build_app

    monkeypatch.setenv("ACCELERATORS_BENCH_HISTORY", postgres_url)
    _gate(None)  # history=None: the environment's
    monkeypatch.setattr(
        _bench,
        "_run_benchmark",
        lambda **kw: run(backend=FakeBackend([FakeDevice()]), detected=fake_detected(), **kw),
    )
    result = typer_testing.CliRunner().invoke(build_app(), ["bench", "--expect", "H100-SXM", "-q"])
    assert result.exit_code == 0, result.output
    out = typer_testing.CliRunner().invoke(
        build_app(), ["bench", "history", "--store", postgres_url, "--json"]
    )
    assert out.exit_code == 0, out.output
    rows = [r for r in json.loads(out.stdout) if r["metric"] == "gemm.bf16"]
    assert len(rows) == 2
    assert "pg-node" in {r["node"] for r in rows}
    assert _sql(postgres_url, "SELECT count(*) FROM bench_history_reports") == [(2,)]


def test_the_gates_query_is_served_by_an_index(postgres_url: str) -> None:
    import psycopg

    _gate(postgres_url)
    with psycopg.connect(postgres_url) as connection:
        for kind in ("seqscan", "bitmapscan", "sort"):  # a table of 1 row: plan as for 10^6
            connection.execute(f"SET enable_{kind} = off")
        rows = connection.execute(
            "EXPLAIN SELECT report_id FROM bench_history_summaries WHERE accelerator = "
            "'H100-SXM' ORDER BY started_us DESC, report_id DESC, accelerator DESC LIMIT 513"
        ).fetchall()
    plan = "\n".join(row[0] for row in rows)
    assert "bench_history_by_accelerator" in plan, plan
    assert "Sort" not in plan, plan  # read in index order: the LIMIT stops the scan


def test_a_table_it_does_not_own_is_refused_and_left_alone(postgres_url: str) -> None:
    _sql(postgres_url, "CREATE TABLE bench_history_reports (id int, mine text)")
    _sql(postgres_url, "INSERT INTO bench_history_reports VALUES (1, 'keep me')")
    report = _gate(postgres_url)
    assert report.verdict.value == "pass"
    (read, append) = _history_reasons(report)
    assert "did not create" in read
    assert "did not create" in append
    assert _sql(postgres_url, "SELECT * FROM bench_history_reports") == [(1, "keep me")]
    assert _sql(postgres_url, "SELECT to_regclass('bench_history_summaries')") == [(None,)]


def test_a_locked_table_costs_one_deadline_and_leaves_no_thread(postgres_url: str) -> None:
    import psycopg

    _gate(postgres_url)  # the tables exist
    locker = psycopg.connect(postgres_url)
    locker.execute("LOCK TABLE bench_history_summaries IN ACCESS EXCLUSIVE MODE")
    try:
        threads = threading.active_count()
        start = time.perf_counter()
        report = _gate(postgres_url)
        spent = time.perf_counter() - start
    finally:
        locker.rollback()
        locker.close()
    assert report.verdict.value == "pass"
    read, append = _history_reasons(report)
    assert "did not answer within 3 s" in read
    assert "not appended" in append
    assert "may" not in append
    assert spent < 3 + 2.0, spent  # one budget for the read and the append, not two
    assert threading.active_count() == threads


def test_a_server_that_never_answers_ends_at_the_connect_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("psycopg")
    monkeypatch.setenv("ACCELERATORS_BENCH_HISTORY_CONNECT_TIMEOUT", "1")
    with FaultServer("hang", lifetime_s=30) as server:
        url = f"postgresql://bench:s3cr3t@127.0.0.1:{server.port}/fleet"
        start = time.perf_counter()
        report = _gate(url)
        spent = time.perf_counter() - start
    assert report.verdict.value == "pass"
    text = report.model_dump_json()
    assert "s3cr3t" not in text
    assert "bench:***@127.0.0.1" in text
    assert len(_history_reasons(report)) == 2
    # libpq's 2 s floor for the connect, within the budget, and a loaded 2-core host's
    # scheduling (a project CI run: 5.7 s); hanging on, it would last the server's 30 s
    assert spent < 3 + 2.0 + 3.0, spent


def test_without_psycopg_the_history_says_what_to_install(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['psycopg'] = None\n"
        "from accelerators.bench.history._open import open_store\n"
        "from accelerators.bench.history._store import Query\n"
        "try:\n"
        "    open_store('postgresql://u@127.0.0.1:1/db').query(Query())\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "AcceleratorError" in out.stdout
    assert 'pip install "accelerators[postgres]"' in out.stdout


_WRITER = r"""
import json, sys
from accelerators.bench.history._postgres import PostgresStore
store = PostgresStore({url!r})
data = json.loads(open({template!r}).read())
for i in range({count}):
    data["host"] = "{tag}-%d" % i
    data["started_at"] = "2026-11-01T00:00:00.%06d+00:00" % i
    store.append_json(data)
    print("ok", i, flush=True)
"""


def test_concurrent_writers_lose_nothing(postgres_url: str, tmp_path: Path) -> None:
    report = run("H100-SXM", backend=FakeBackend([FakeDevice()]), detected=fake_detected())
    template = tmp_path / "report.json"
    template.write_text(report.model_dump_json())
    _gate(postgres_url)  # the schema first: writers then race only to append
    code = _WRITER.format(url=postgres_url, template=str(template), count=5, tag="{tag}")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code.replace("{tag}", f"w{n}")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(8)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert out.count("ok ") == 5
    hosts = _sql(postgres_url, "SELECT count(DISTINCT report_id) FROM bench_history_summaries")
    assert hosts == [(41,)]


def test_a_bad_summary_row_costs_a_count(postgres_url: str) -> None:
    for node in ("a", "b"):
        _gate(postgres_url, node)
    _sql(
        postgres_url,
        "INSERT INTO bench_history_summaries (report_id, accelerator, started_us, node, "
        "verdict, figures) VALUES (999, 'H100-SXM', 9e15, 'x', 'pass', '{\"devices\": 7}')",
    )
    report = _gate(postgres_url, "c")
    (skipped,) = [r for r in report.reasons if r.code is ReasonCode.HISTORY_SKIPPED]
    assert "skipped 1 record" in skipped.message
    assert "row 999" in skipped.message


def test_an_unreachable_url_is_an_error_naming_the_store_without_its_password() -> None:
    store = open_store("postgresql://bench:hunter2@127.0.0.1:1/fleet")
    with pytest.raises(AcceleratorError) as raised:
        store.query()
    assert "hunter2" not in str(raised.value)
    assert "postgresql://bench:***@127.0.0.1:1/fleet" in str(raised.value)
