"""The history at a fleet's scale (issue 29): a gate's read that does not grow with the
history, one deadline and no thread left behind, a bad row that costs a count, and a file
that is not a history left alone.

Nothing here times anything: the history's work is counted in SQLite virtual-machine steps
(a progress handler on every connection), which grow with the rows a statement visits and
not with the machine's load. ``benchmarks/history_scale.py`` measures the time.
"""

from __future__ import annotations

import copy
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from bench_helpers import fake_aws

from accelerators.bench import (
    AcceleratorGateError,
    BenchReport,
    HistoryStore,
    ReasonCode,
    gate,
    open_store,
    run,
)
from accelerators.bench.history._store import Limits
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected


@pytest.fixture(autouse=True)
def _limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACCELERATORS_BENCH_HISTORY_DEADLINE", "2")
    monkeypatch.delenv("ACCELERATORS_BENCH_HISTORY", raising=False)
    monkeypatch.setenv("NODE_NAME", "gate-node")


def _gate(history: Any, device: FakeDevice | None = None) -> BenchReport:
    try:
        return gate(
            "H100-SXM",
            history=history,
            backend=FakeBackend([device or FakeDevice()]),
            detected=fake_detected(),
        )
    except AcceleratorGateError as exc:
        return exc.report


def _cpu_report() -> dict[str, Any]:
    report = run(backend=FakeBackend([FakeDevice.cpu()]), detected=fake_detected(None))
    return report.model_dump(mode="json")


def _h100_report() -> dict[str, Any]:
    report = run("H100-SXM", backend=FakeBackend([FakeDevice()]), detected=fake_detected())
    return report.model_dump(mode="json")


def _fill(path: Path, template: dict[str, Any], count: int) -> None:
    """``count`` reports of 40 nodes, one an hour up to now, through the store's own append."""
    store = open_store(path)
    start = datetime.now(UTC) - timedelta(hours=count)
    for number in range(count):
        data = copy.deepcopy(template)
        data["node"] = f"node-{number % 40}"
        data["started_at"] = (start + timedelta(hours=number)).isoformat()
        store.append_json(data)


def _copy(path: Path) -> Path:
    """A consistent copy of a history (SQLite's backup): a file no connection has opened."""
    copy_ = path.with_name(f"copy-{time.monotonic_ns()}-{path.name}")
    source, target = sqlite3.connect(path), sqlite3.connect(copy_)
    source.backup(target)
    source.close()
    target.close()
    return copy_


class _Counting(sqlite3.Connection):
    """A connection that counts the virtual-machine steps of everything it runs (and still
    calls the progress handler its owner sets)."""

    steps = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._handler: Callable[[], Any] | None = None
        super().set_progress_handler(self._tick, 100)

    def _tick(self) -> int:
        _Counting.steps += 100
        return bool(self._handler()) if self._handler is not None else 0

    def set_progress_handler(self, handler: Callable[[], Any] | None, n: int) -> None:  # type: ignore[override]
        self._handler = handler


@pytest.fixture
def vm_steps(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[[], object]], int]:
    connect = sqlite3.connect

    def counting(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        return connect(*args, **kwargs, factory=_Counting)

    def measure(work: Callable[[], object]) -> int:
        monkeypatch.setattr(sqlite3, "connect", counting)
        _Counting.steps = 0
        try:
            work()
        finally:
            monkeypatch.setattr(sqlite3, "connect", connect)
        return _Counting.steps

    return measure


# ------------------------------------------------------------------- 1: what a gate reads
def test_a_gates_history_step_costs_the_same_at_four_times_the_history(
    tmp_path: Path, vm_steps: Callable[[Callable[[], object]], int]
) -> None:
    template = _cpu_report()
    small, large = tmp_path / "small.sqlite", tmp_path / "large.sqlite"
    _fill(small, template, 600)  # more than the 512 summaries a baseline reads, and ...
    _fill(large, template, 2400)  # ... four times as many

    def cpu_gate(path: Path) -> BenchReport:
        return run(
            backend=FakeBackend([FakeDevice.cpu()]), detected=fake_detected(None), history=path
        )

    vm_steps(lambda: cpu_gate(_copy(small)))  # warm: a process's first gate loads the catalog
    few = vm_steps(lambda: cpu_gate(_copy(small)))
    many = vm_steps(lambda: cpu_gate(_copy(large)))
    # Reading the whole history made it ~4x; reading the newest summaries through an index
    # keeps it flat (the baseline needs at most 512 of the SKU and 64 of the node).
    assert many < 1.25 * few, (few, many)


def test_the_gates_statements_are_served_by_indexes(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    _fill(path, _h100_report(), 3)
    connection = sqlite3.connect(path)
    for where in ("accelerator = 'H100-SXM'", "node = 'n'"):
        plan = " / ".join(
            str(row[-1])
            for row in connection.execute(
                "EXPLAIN QUERY PLAN SELECT report_id, figures FROM bench_history_summaries "
                f"WHERE {where} ORDER BY started_us DESC, report_id DESC, accelerator DESC "
                "LIMIT 513"
            )
        )
        assert "USING INDEX bench_history_by_" in plan, plan
        assert "TEMP B-TREE" not in plan, plan  # in index order: the LIMIT ends the scan
    connection.close()


# -------------------------------------------- 2: one deadline, no thread left, no false news
def test_a_reader_does_not_block_the_gates_append(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    _fill(path, _h100_report(), 3)
    reader = sqlite3.connect(path)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM sqlite_master").fetchall()  # a read lock, held
    try:
        report = _gate(path)
    finally:
        reader.close()
    assert [r.message for r in report.reasons if r.code.value.startswith("history")] == []
    (mode,) = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()
    assert mode == "wal"
    assert len(list(open_store(path).reports())) == 4


class _SlowStore(HistoryStore):
    """A store of one's own that takes longer than the deadline, and then stores."""

    location = "slow"
    limits = Limits(deadline_s=1.0)

    def __init__(self) -> None:
        self.stored: list[dict[str, Any]] = []

    def append_json(self, data: dict[str, Any]) -> None:
        time.sleep(1.5)
        self.stored.append(data)

    def reports(self) -> Iterator[dict[str, Any]]:
        yield from self.stored


def test_a_report_that_is_stored_is_never_announced_as_not_appended() -> None:
    store = _SlowStore()
    report = _gate(store)
    time.sleep(1.0)  # anything left running in the background has finished by now
    said = [r.message for r in report.reasons if "not appended" in r.message]
    assert len(store.stored) == 1
    assert said == []


def test_one_deadline_for_the_read_and_the_append_and_no_thread_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("boto3")
    from accelerators.bench.testing._fault_servers import FaultServer

    fake_aws(monkeypatch)
    monkeypatch.setenv("ACCELERATORS_BENCH_HISTORY_READ_TIMEOUT", "30")  # only the deadline
    _gate(False)
    before = {t.ident for t in threading.enumerate()}
    with FaultServer("hang", lifetime_s=60) as server:
        monkeypatch.setenv("AWS_ENDPOINT_URL", server.url)
        start = time.perf_counter()
        report = _gate("s3://fleet/prod")
        spent = time.perf_counter() - start
        left = [t.name for t in threading.enumerate() if t.ident not in before]
    assert report.verdict.value == "pass"
    notes = [r.message for r in report.reasons if r.code is ReasonCode.HISTORY_UNAVAILABLE]
    assert len(notes) == 2
    assert spent < 2 + 1.5, spent  # the read and the append share the 2 s
    assert [n for n in left if not n.startswith("fault-")] == []  # the server's own aside


def test_a_request_that_connects_just_after_the_deadline_is_shut_as_it_connects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The race behind a CI run's 33 s gate: a request passes the ``before-send`` check an
    instant before the deadline, the watchdog fires and shuts the sockets it knows, and the
    request then connects a socket that nobody shuts and waits out the read timeout. Here the
    watchdog's end is called by hand between the two, so the race is taken every time."""
    pytest.importorskip("boto3")
    from botocore.exceptions import ConnectionClosedError

    from accelerators.bench.history._deadline import Deadline
    from accelerators.bench.history._s3_client import DeadlineClient
    from accelerators.bench.history._store import Limits
    from accelerators.bench.testing._fault_servers import FaultServer

    fake_aws(monkeypatch)
    io = DeadlineClient("s3://fleet/prod", Limits(read_timeout_s=30, attempts=1))
    with FaultServer("hang", lifetime_s=60) as server:
        monkeypatch.setenv("AWS_ENDPOINT_URL", server.url)
        with io.within(Deadline(20)) as client:
            io._shut()  # the watchdog fires before this request has a socket
            start = time.perf_counter()
            with pytest.raises(ConnectionClosedError) as raised:
                client.get_object(Bucket="fleet", Key="prod/x.json")
            spent = time.perf_counter() - start
    assert spent < 5, (spent, raised.value)  # not the 30 s read timeout
    assert io.sent == 1


# ------------------------------------------------------------------ 3: a bad row is a count
def _v0_file(path: Path, bodies: list[str | bytes], raw_sql: str = "") -> None:
    """A history as releases before the summaries wrote it: one ``reports`` table."""
    connection = sqlite3.connect(path)
    with connection:
        connection.execute(
            "CREATE TABLE reports (id INTEGER PRIMARY KEY AUTOINCREMENT, started_at TEXT NOT "
            "NULL, node TEXT NOT NULL, accelerator TEXT, verdict TEXT NOT NULL, report TEXT "
            "NOT NULL)"
        )
        connection.execute("CREATE INDEX reports_node ON reports (node, started_at)")
        for body in bodies:
            connection.execute(
                "INSERT INTO reports (started_at, node, accelerator, verdict, report) "
                "VALUES ('2026-11-09T00:00:00+00:00', 'x', 'H100-SXM', 'pass', ?)",
                (body,),
            )
        if raw_sql:
            connection.execute(raw_sql)
    connection.close()


def _fleet_bodies(count: int) -> list[str | bytes]:
    template = _h100_report()
    bodies: list[str | bytes] = []
    for number in range(count):
        data = copy.deepcopy(template)
        data["node"] = f"n{number}"
        data["started_at"] = f"2026-11-0{1 + number}T00:00:00+00:00"
        bodies.append(json.dumps(data))
    return bodies


NOT_UTF8 = (
    "INSERT INTO reports (started_at, node, accelerator, verdict, report) VALUES "
    "('2026-11-08T00:00:00+00:00', 'x', 'H100-SXM', 'pass', CAST(x'7b22ff227d' AS TEXT))"
)


def test_a_row_whose_text_is_not_utf8_costs_a_count(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    _v0_file(path, _fleet_bodies(3), NOT_UTF8)
    report = _gate(path)
    assert report.verdict.value == "pass"
    codes = [r.code for r in report.reasons if r.code.value.startswith("history")]
    assert codes == [ReasonCode.HISTORY_SKIPPED]  # the baseline was read; this gate appended
    (skipped,) = [r.message for r in report.reasons if r.code is ReasonCode.HISTORY_SKIPPED]
    assert "skipped 1 record" in skipped
    assert "not UTF-8" in skipped
    tf32 = next(g for g in report.gemm if g.dtype == "tf32")
    assert tf32.band_confidence == "fleet"  # the 3 good nodes still make the baseline


def test_bench_history_reads_past_a_row_that_is_not_utf8(tmp_path: Path) -> None:
    typer_testing = pytest.importorskip("typer.testing")
    from accelerators.cli import build_app

    path = tmp_path / "h.sqlite"
    _v0_file(path, _fleet_bodies(3), NOT_UTF8)
    result = typer_testing.CliRunner().invoke(
        build_app(), ["bench", "history", "--store", str(path), "--json"]
    )
    assert result.exit_code == 0, result.output
    assert {r["node"] for r in json.loads(result.stdout)} == {"n0", "n1", "n2"}
    assert "skipped 1 records" in result.stderr


def test_a_summary_row_with_bad_bytes_costs_a_count(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    _fill(path, _h100_report(), 4)
    connection = sqlite3.connect(path)
    with connection:
        connection.execute(
            "UPDATE bench_history_summaries SET node = CAST(x'6eff' AS TEXT) WHERE report_id = 2"
        )
    connection.close()
    report = _gate(path)
    (skipped,) = [r.message for r in report.reasons if r.code is ReasonCode.HISTORY_SKIPPED]
    assert "row 2: its node is not UTF-8 text" in skipped


# ------------------------------------------------------------- 5: schema, and foreign files
def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_an_unrelated_sqlite_file_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        connection.execute("INSERT INTO users (name) VALUES ('ada')")
    connection.close()
    before = _digest(path)
    report = _gate(path)
    assert report.verdict.value == "pass"
    notes = [r.message for r in report.reasons if r.code is ReasonCode.HISTORY_UNAVAILABLE]
    assert len(notes) == 2
    assert all("tables it does not own (users)" in n for n in notes)
    assert _digest(path) == before
    assert not Path(f"{path}-wal").exists()


def test_an_older_history_is_migrated_and_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    bodies = _fleet_bodies(3)
    _v0_file(path, bodies)
    report = _gate(path)
    assert [r.message for r in report.reasons if r.code.value.startswith("history")] == []
    connection = sqlite3.connect(path)
    meta = dict(connection.execute("SELECT key, value FROM bench_history_meta"))
    tables = {n for (n,) in connection.execute("SELECT name FROM sqlite_master")}
    connection.close()
    assert meta == {"owner": "accelerators.bench.history", "schema_version": "1"}
    assert "reports" not in tables
    stored = list(open_store(path).reports())
    assert [json.dumps(r) for r in stored[:3]] == [json.dumps(json.loads(b)) for b in bodies]
    assert stored[3]["node"] == "gate-node"


def test_a_history_written_by_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    _fill(path, _h100_report(), 1)
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("UPDATE bench_history_meta SET value = '7' WHERE key = 'schema_version'")
    connection.close()
    before = _dump(path)
    notes = [r.message for r in _gate(path).reasons if r.code.value.startswith("history")]
    assert len(notes) == 2
    assert all("schema version 7, written by a newer accelerators" in n for n in notes)
    assert _dump(path) == before  # the same rows (a WAL file's pages may be checkpointed)


def _dump(path: Path) -> str:
    connection = sqlite3.connect(path)
    try:
        return "\n".join(connection.iterdump())
    finally:
        connection.close()


def test_the_newest_first_fleet_median_is_the_fleet_median() -> None:
    import random

    from accelerators.bench.history._fleet import fleet_medians, newest_medians
    from accelerators.bench.history._summary import Summary

    rng = random.Random(29)
    summaries = [
        Summary(
            f"row {n}",
            1_000_000 * (500 - n),
            f"node-{rng.randrange(7)}",
            rng.choice(["H100-SXM", "MI300X"]),
            "pass",
            tuple(
                {"index": i, "gemm": {"bf16": rng.uniform(500, 900)}, "memory": {}}
                for i in range(rng.randrange(1, 3))
            ),
        )
        for n in range(200)
    ]  # newest first, as a store returns them
    figures = [f for s in summaries for f in s.figures()]
    assert newest_medians(summaries) == fleet_medians(figures)
