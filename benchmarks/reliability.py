"""Reliability counts: hostile input, broken history stores and faulty endpoints against the
gate, the history, the spec parser, the pod merge, the report writers and the caches.

Every row runs real code paths (``bench.gate`` on the fake backend, SQLite files, a local moto
S3 server, misbehaving endpoints on 127.0.0.1, writer processes killed with SIGKILL, the CLI)
and counts:

* **tried**: inputs or scenarios run;
* **crashes**: an exception other than our documented ones (``AcceleratorError``, and the
  ``AcceleratorGateError`` of a failing gate), or a traceback from the CLI;
* **wrong**: a result that is wrong although nothing crashed: a changed gate verdict, an
  accepted input that should be refused, a file replaced instead of written, a tampered
  cache used, a secret printed, raw control characters printed;
* **lost**: history records that were stored (committed, or acknowledged to the writer)
  and are gone afterwards;
* **worst s**: the worst delay the history adds to one gate (history rows; the fastest of 3
  gates without a history, run just before, subtracted), else the slowest single input.

Scenarios that may hang run in a child process killed after ``--cap`` seconds: a capped
figure is printed as ``>=CAP``.

    python benchmarks/reliability.py                 # about 2-4 minutes on 2 vCPUs
    python benchmarks/reliability.py --cap 700       # let a hanging endpoint run its course
    python benchmarks/reliability.py --json out.json --pods 2000 --specs 5000

Compare the table from one release to the next: every count but "tried" should be 0.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import os
import random
import re
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from accelerators.errors import AcceleratorError  # noqa: E402

PY = sys.executable


@dataclass
class Row:
    name: str
    tried: int = 0
    crashes: int = 0
    wrong: int = 0
    lost: int = 0
    worst_s: float = 0.0
    capped: bool = False
    notes: list[str] = field(default_factory=list)

    def crash(self, what: str) -> None:
        self.crashes += 1
        self.note(f"crash: {what}")

    def bad(self, what: str) -> None:
        self.wrong += 1
        self.note(f"wrong: {what}")

    def note(self, text: str) -> None:
        if len(self.notes) < 500:
            self.notes.append(text[:160])

    def shown(self, limit: int = 8) -> list[str]:
        """Up to ``limit`` notes, one per kind of finding first (their first words)."""
        kinds: dict[str, str] = {}
        for text in self.notes:
            kinds.setdefault(re.sub(r"'[^']*'|\"[^\"]*\"|[\d.,]+", "", text)[:50], text)
        picked = list(kinds.values())[:limit]
        return picked + [t for t in self.notes if t not in picked][: limit - len(picked)]

    def time(self, seconds: float) -> None:
        self.worst_s = max(self.worst_s, seconds)


# ------------------------------------------------------------------------------ fixtures
def _fake_kwargs(device: Any = None) -> dict[str, Any]:
    from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

    return {"backend": FakeBackend([device or FakeDevice()]), "detected": fake_detected()}


def healthy_json(node: str = "node-a", day: int = 0) -> dict[str, Any]:
    from accelerators.bench import run

    report = run("H100", **_fake_kwargs())
    data = report.model_dump(mode="json")
    data["node"] = node
    data["started_at"] = f"2026-11-{1 + day:02d}T00:00:00+00:00"
    return data


def gate_verdict(history: Any, device: Any = None) -> tuple[str, Any]:
    """``(verdict, report)`` of a fake-H100 gate with ``history``; a failing gate too."""
    from accelerators.bench import AcceleratorGateError, gate

    try:
        report = gate("H100", history=history, **_fake_kwargs(device))
    except AcceleratorGateError as exc:
        report = exc.report
    return report.verdict.value, report


def base_gate_s() -> float:
    """The fastest of 3 gates without a history: what a delay is measured against."""
    spent = []
    for _ in range(3):
        start = time.perf_counter()
        gate_verdict(False)
        spent.append(time.perf_counter() - start)
    return min(spent)


def _bodies(base: dict[str, Any]) -> list[tuple[str, str | bytes]]:
    """Corrupt history records, as the text a row or object holds."""

    def edited(fn: Callable[[dict[str, Any]], None]) -> str:
        data = copy.deepcopy(base)
        fn(data)
        return json.dumps(data)

    def device(fn: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
        return lambda d: fn(d["devices"][0])

    def gemm(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
        return device(lambda dev: dev["gemm"][1].__setitem__(key, value))

    text = json.dumps(base)
    return [
        ("a list", "[]"),
        ("null", "null"),
        ("a number", "42"),
        ("a string", '"report"'),
        ("an empty object", "{}"),
        ("no started_at", edited(lambda d: d.pop("started_at"))),
        ("a naive timestamp", edited(lambda d: d.__setitem__("started_at", "2026-11-02T00:00:00"))),
        ("started_at not a date", edited(lambda d: d.__setitem__("started_at", "yesterday"))),
        ("started_at a number", edited(lambda d: d.__setitem__("started_at", 1767225600))),
        ("a 5,000-digit index", text.replace('"index": 0', '"index": ' + "9" * 5000, 1)),
        ("index a string", edited(device(lambda dev: dev.__setitem__("index", "zero")))),
        ("devices a string", edited(lambda d: d.__setitem__("devices", "H100"))),
        ("a device a list", edited(lambda d: d.__setitem__("devices", [[1, 2]]))),
        ("gemm an object", edited(device(lambda dev: dev.__setitem__("gemm", {"dtype": "x"})))),
        ("a gemm entry null", edited(device(lambda dev: dev.__setitem__("gemm", [None])))),
        ("a gemm entry without dtype", edited(device(lambda dev: dev["gemm"][1].pop("dtype")))),
        ("tflops a string", edited(gemm("median_tflops", "fast"))),
        ("tflops NaN", edited(gemm("median_tflops", float("nan")))),
        ("tflops Infinity", edited(gemm("median_tflops", float("inf")))),
        ("tflops negative", edited(gemm("median_tflops", -350.0))),
        ("tflops 1e308", edited(gemm("median_tflops", 1e308))),
        ("tflops true", edited(gemm("median_tflops", True))),
        ("node an object", edited(lambda d: d.__setitem__("node", {"a": 1}))),
        ("verdict a list", edited(lambda d: d.__setitem__("verdict", ["pass"]))),
        ("not JSON", "{not json"),
        ("truncated", text[: len(text) // 2]),
        ("nested 100,000 deep", "[" * 100_000 + "]" * 100_000),
        ("binary", b"\x00\xff\xfe" * 100),
        ("TEXT that is not UTF-8", NotUtf8(b'{"\xff"}')),
    ]


class NotUtf8(bytes):
    """Bytes a SQLite row holds as TEXT (``CAST(x'...' AS TEXT)``), though not UTF-8."""


# --------------------------------------------------------------------- history: SQLite
def _sqlite_with(path: Path, rows: list[str | bytes]) -> None:
    connection = sqlite3.connect(path)
    with connection:
        connection.executescript(
            "CREATE TABLE IF NOT EXISTS reports (id INTEGER PRIMARY KEY AUTOINCREMENT, "
            "started_at TEXT NOT NULL, node TEXT NOT NULL, accelerator TEXT, verdict TEXT NOT "
            "NULL, report TEXT NOT NULL); CREATE INDEX IF NOT EXISTS reports_node ON reports "
            "(node, started_at);"
        )
        for i, body in enumerate(rows):
            value = "CAST(? AS TEXT)" if isinstance(body, NotUtf8) else "?"
            connection.execute(
                "INSERT INTO reports (started_at, node, accelerator, verdict, report) "
                f"VALUES (?, ?, ?, ?, {value})",
                (f"2026-11-{1 + i:02d}T00:00:00+00:00", f"n{i}", "H100-SXM", "pass", body),
            )
    connection.close()


def _sqlite_count(path: Path) -> int:
    """Reports in a history file of either layout (one written as releases before the
    summaries wrote it is migrated by its first gate)."""
    connection = sqlite3.connect(path)
    try:
        tables = {n for (n,) in connection.execute("SELECT name FROM sqlite_master")}
        table = "bench_history_reports" if "bench_history_reports" in tables else "reports"
        return int(connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        connection.close()


def check_sqlite_rows(row: Row, work: Path) -> None:
    healthy = [json.dumps(healthy_json(f"n{i}", i)) for i in range(3)]
    base = base_gate_s()
    for label, body in _bodies(healthy_json("bad", 5)):
        row.tried += 1
        path = work / f"rows-{row.tried}.sqlite"
        _sqlite_with(path, [*healthy, body])
        start = time.perf_counter()
        try:
            verdict, _ = gate_verdict(path)
        except Exception as exc:
            row.crash(f"gate, row {label}: {type(exc).__name__}: {str(exc)[:60]}")
        else:
            if verdict != "pass":
                row.bad(f"gate, row {label}: verdict {verdict}")
        row.time(time.perf_counter() - start - base)
        after = _sqlite_count(path)
        if after < 4:
            row.lost += 4 - after
        # the two commands that read the history
        for args in (
            ["bench", "history", "--store", str(path)],
            ["bench", "history", "--store", str(path), "--json"],
        ):
            row.tried += 1
            code, _output, exc = _cli(args)
            if exc is not None and not isinstance(exc, SystemExit):
                row.crash(f"bench history, row {label}: {type(exc).__name__}")
            elif code != 0:
                row.bad(f"bench history, row {label}: exit {code}")


# ------------------------------------------------------------------------- history: S3
@contextlib.contextmanager
def moto_server() -> Iterator[str | None]:
    try:
        from moto.server import ThreadedMotoServer
    except ImportError:
        yield None
        return
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


def _aws_env(endpoint: str) -> dict[str, str]:
    return {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }


def check_s3_objects(row: Row, endpoint: str | None) -> None:
    if endpoint is None:
        row.note("moto not installed: skipped")
        return
    import boto3

    os.environ.update(_aws_env(endpoint))
    client = boto3.client("s3")
    bucket = "reliability"
    client.create_bucket(Bucket=bucket)
    bodies = [*_bodies(healthy_json("bad", 5)), ("a 20 MB object", b" " * (20 << 20) + b"{}")]
    base = base_gate_s()
    from accelerators.bench.history._s3 import S3Store

    for number, (label, body) in enumerate(bodies):
        row.tried += 1
        prefix = f"case{number}"
        store = S3Store(bucket, prefix)
        for i in range(3):
            store.append_json(healthy_json(f"n{i}", i))
        # In the folder a gate reads: the H100's, the day of the healthy records.
        folder = f"{prefix}/history-v1/summaries/H100-SXM/2026-11-02/"
        raw = body.encode() if isinstance(body, str) else body
        client.put_object(
            Bucket=bucket, Key=f"{folder}20261102T000001.000000Z_bad_0.json", Body=raw
        )
        start = time.perf_counter()
        try:
            verdict, _ = gate_verdict(f"s3://{bucket}/{prefix}")
        except Exception as exc:
            row.crash(f"gate, object {label}: {type(exc).__name__}: {str(exc)[:60]}")
        else:
            if verdict != "pass":
                row.bad(f"gate, object {label}: verdict {verdict}")
        row.time(time.perf_counter() - start - base)
        listed = [
            o["Key"]
            for o in client.list_objects_v2(Bucket=bucket, Prefix=f"{prefix}/").get("Contents", [])
            if "~rollup-" not in o["Key"]
        ]
        row.lost += max(0, 2 * 4 + 1 - len(listed))  # 3 healthy + this gate's, and the bad one


# --------------------------------------------------------------- history: fleet poisoning
def check_poisoning(row: Row, work: Path) -> None:
    from accelerators.bench.testing import FakeDevice

    def store_with(records: list[dict[str, Any]]) -> Path:
        path = work / f"poison-{row.tried}.sqlite"
        _sqlite_with(path, [json.dumps(r) for r in records])
        return path

    def claiming(
        node: str, index: int, tflops: float | None, gbps: float | None, day: int
    ) -> dict[str, Any]:
        data = healthy_json(node, day)
        for dev in data["devices"]:
            dev["index"] = index
            for g in dev["gemm"]:
                if tflops is not None:
                    g["median_tflops"] = g["tflops"] = tflops
            for m in dev["memory"]:
                if gbps is not None:
                    m["median_gbps"] = m["gbps"] = gbps
        return data

    high = [
        ("5 nodes claim 5,000 TFLOPS", [claiming(f"p{i}", 0, 5000.0, None, i) for i in range(5)]),
        (
            "1 node, 5 devices claim 5,000 TFLOPS",
            [claiming("p0", i, 5000.0, None, i) for i in range(5)],
        ),
        ("3 nodes claim 1,500 TFLOPS", [claiming(f"p{i}", 0, 1500.0, None, i) for i in range(3)]),
        ("5 nodes claim 10 PB/s", [claiming(f"p{i}", 0, None, 1e7, i) for i in range(5)]),
    ]
    for label, records in high:
        row.tried += 1
        verdict, report = gate_verdict(store_with(records))
        if verdict != "pass":
            worst = min(
                (r.message for r in report.reasons if r.severity.value != "info"),
                key=len,
                default="",
            )
            row.bad(f"healthy H100, {label}: {verdict} ({worst[:70]})")
    # A device slow only where the band is unconfirmed (tf32, fp16): a warning without history.
    slow = FakeDevice(
        gemm_tflops={"fp32": 40.0, "tf32": 40.0, "bf16": 800.0, "fp16": 80.0, "fp8": 1420.0}
    )
    alone, _ = gate_verdict(False, slow)
    row.tried += 1
    low = [claiming(f"p{i}", 0, 10.0, None, i) for i in range(5)]
    verdict, _ = gate_verdict(store_with(low), slow)
    if verdict == "pass":
        row.bad(f"tf32/fp16 at 8 % of peak, 5 nodes claim 10 TFLOPS: pass (alone: {alone})")


# -------------------------------------------------------------- history: faulty endpoints
_CHILD_GATE = r"""
import json, sys, time
sys.path.insert(0, {root!r})
from accelerators.bench import AcceleratorGateError, gate
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected
def once(history):
    start = time.perf_counter()
    try:
        report = gate("H100", history=history, backend=FakeBackend([FakeDevice()]),
                      detected=fake_detected())
    except AcceleratorGateError as exc:
        report = exc.report
    return time.perf_counter() - start, report
once(False)
base, _ = once(False)
import threading
threads = threading.active_count()
spent, report = once({history!r})
print(json.dumps({{"delay": spent - base, "verdict": report.verdict.value,
                   "json": report.model_dump_json(),
                   "threads_left": threading.active_count() - threads}}))
"""

_CHILD_CLI = r"""
import sys
sys.path.insert(0, {root!r})
from typer.testing import CliRunner
from accelerators.bench import run
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected
from accelerators.cli import _bench, build_app
_bench._run_benchmark = lambda **kw: run(backend=FakeBackend([FakeDevice()]),
    detected=fake_detected(), **{{k: v for k, v in kw.items() if k != "progress"}})
result = CliRunner().invoke(build_app(), ["bench", "--expect", "H100", "--history",
                                          {history!r}, "-q", "--json", {out!r}])
print("EXIT", result.exit_code, repr(result.exception)[:200])
"""


def _child(code: str, env: dict[str, str], cap: float) -> tuple[str | None, float, bool]:
    """Run ``code`` in a fresh interpreter: (stdout or None, seconds, killed at the cap)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [PY, "-c", code],
        env={**os.environ, **env},
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=cap)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None, time.perf_counter() - start, True
    return out, time.perf_counter() - start, False


def check_endpoints(row: Row, cap: float, work: Path) -> None:
    from accelerators.bench.testing._fault_servers import FaultServer, refused_url

    secret = "s3cr3t-pw"
    cases: list[tuple[str, Callable[[], contextlib.AbstractContextManager[str]]]] = []

    @contextlib.contextmanager
    def serving(mode: str) -> Iterator[str]:
        with FaultServer(mode, lifetime_s=cap + 30, delay_s=0.3) as server:
            yield server.url

    @contextlib.contextmanager
    def refused(userinfo: str = "") -> Iterator[str]:
        url = refused_url()
        yield url.replace("http://", f"http://{userinfo}") if userinfo else url

    cases = [
        ("hanging endpoint", lambda: serving("hang")),
        ("dripping endpoint", lambda: serving("drip")),
        ("HTTP 500", lambda: serving("500")),
        ("HTTP 503", lambda: serving("503")),
        ("refused connection", refused),
        ("bad credentials (403)", lambda: serving("403")),
        ("password in AWS_ENDPOINT_URL", lambda: refused(f"user:{secret}@")),
    ]
    history = "s3://fleet-bench/prod"
    for label, make in cases:
        row.tried += 1
        with make() as url:
            env = _aws_env(url)
            out, _spent, killed = _child(
                _CHILD_GATE.format(root=str(ROOT), history=history), env, cap
            )
        if killed:
            row.capped = True
            row.time(cap)
            row.bad(f"gate, {label}: still running after {cap:.0f} s (killed)")
        elif out is None or not out.strip().startswith("{"):
            row.crash(f"gate, {label}: no result")
        else:
            result = json.loads(out.strip().splitlines()[-1])
            row.time(result["delay"])
            if result["verdict"] != "pass":
                row.bad(f"gate, {label}: verdict {result['verdict']}")
            if secret in result["json"]:
                row.bad(f"gate, {label}: the password is in the report")
            if result["threads_left"] > 0:
                row.bad(f"gate, {label}: {result['threads_left']} threads left running")
        if label in ("hanging endpoint", "dripping endpoint"):
            continue  # the CLI appends the same way; one capped run is enough
        row.tried += 1
        out_json = work / f"cli-{row.tried}.json"
        with make() as url:
            out, _spent, killed = _child(
                _CHILD_CLI.format(root=str(ROOT), history=history, out=str(out_json)),
                _aws_env(url),
                cap,
            )
        text = out or ""
        if killed:
            row.capped = True
            row.bad(f"accelerators bench, {label}: killed at the cap")
        elif "EXIT 0" not in text:
            code = text.split("EXIT", 1)[-1].strip()[:80] if "EXIT" in text else "no exit"
            row.bad(f"accelerators bench, {label}: exit {code}")
        with contextlib.suppress(OSError):
            if secret in out_json.read_text():
                row.bad(f"accelerators bench, {label}: the password is in the JSON")


# ------------------------------------------------ history: foreign files, locks, PostgreSQL
def check_stores(row: Row, cap: float, work: Path) -> None:
    """A file that is not a history, one of the first layout, a history locked by another
    writer, and PostgreSQL that never answers, refuses, or has its table locked."""
    import hashlib

    from accelerators.bench.testing._fault_servers import FaultServer, refused_url
    from accelerators.bench.testing._postgres_server import PostgresServer, binaries

    def digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    row.tried += 1
    foreign = work / "app.db"
    connection = sqlite3.connect(foreign)
    with connection:
        connection.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    connection.close()
    before = digest(foreign)
    verdict, report = gate_verdict(foreign)
    if verdict != "pass" or digest(foreign) != before:
        row.bad(f"an unrelated SQLite file: verdict {verdict}, changed {digest(foreign) != before}")
    row.tried += 1
    old = work / "first-layout.sqlite"
    _sqlite_with(old, [json.dumps(healthy_json(f"n{i}", i)) for i in range(3)])
    gate_verdict(old)
    row.lost += max(0, 4 - _sqlite_count(old))
    # Another writer holds the lock through the whole gate: "not appended" must be true.
    row.tried += 1
    locked = work / "locked.sqlite"
    gate_verdict(locked)
    holder = sqlite3.connect(locked, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        start = time.perf_counter()
        _, report = gate_verdict(locked)
        row.time(time.perf_counter() - start - base_gate_s())
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    said = any("was not appended" in r.message for r in report.reasons)
    if said and _sqlite_count(locked) != 1:
        row.bad("a locked SQLite history: 'not appended', yet the report is there")
    cases: list[tuple[str, Callable[[], contextlib.AbstractContextManager[str]]]] = []

    @contextlib.contextmanager
    def hanging() -> Iterator[str]:
        with FaultServer("hang", lifetime_s=cap + 30) as server:
            yield f"postgresql://bench:s3cr3t@127.0.0.1:{server.port}/fleet"

    @contextlib.contextmanager
    def refused() -> Iterator[str]:
        yield refused_url().replace("http://", "postgresql://bench:s3cr3t@") + "/fleet"

    cases = [("PostgreSQL that never answers", hanging), ("PostgreSQL refused", refused)]
    for label, make in cases:
        row.tried += 1
        with make() as url:
            out, _spent, killed = _child(_CHILD_GATE.format(root=str(ROOT), history=url), {}, cap)
        if killed or out is None or not out.strip().startswith("{"):
            row.bad(f"gate, {label}: {'killed at the cap' if killed else 'no result'}")
            continue
        result = json.loads(out.strip().splitlines()[-1])
        row.time(result["delay"])
        if result["verdict"] != "pass" or "s3cr3t" in result["json"]:
            row.bad(f"gate, {label}: verdict {result['verdict']} or the password printed")
        if result["threads_left"] > 0:
            row.bad(f"gate, {label}: {result['threads_left']} threads left running")
    if binaries() is None:
        row.note("PostgreSQL's initdb/pg_ctl not installed: no real-server case")
        return
    import psycopg

    with PostgresServer() as server:
        url = server.database("locked")
        gate_verdict(url)
        row.tried += 1
        locker = psycopg.connect(url)
        locker.execute("LOCK TABLE bench_history_summaries IN ACCESS EXCLUSIVE MODE")
        try:
            start = time.perf_counter()
            verdict, report = gate_verdict(url)
            row.time(time.perf_counter() - start - base_gate_s())
        finally:
            locker.rollback()
            locker.close()
        with psycopg.connect(url) as connection:
            (count,) = connection.execute("SELECT count(*) FROM bench_history_reports").fetchone()
        said = any("was not appended" in r.message for r in report.reasons)
        if verdict != "pass" or (said and count != 1):
            row.bad(f"a locked PostgreSQL table: verdict {verdict}, said {said}, {count} rows")


# ------------------------------------------------------- history: concurrent and killed writers
_CHILD_WRITER = r"""
import json, sys
sys.path.insert(0, {root!r})
from accelerators.bench.history._sqlite import SqliteStore
store = SqliteStore({path!r})
data = json.load(open({template!r}))
for i in range({count}):
    data["node"] = "{tag}"
    data["started_at"] = "2026-11-01T00:00:%02d.%06d+00:00" % (i % 60, i)
    data["host"] = "{tag}-%d" % i
    store.append_json(data)
    print("ok", i, flush=True)
"""


def check_writers(row: Row, work: Path) -> None:
    template = work / "template.json"
    template.write_text(json.dumps(healthy_json()))
    # 8 concurrent writers x 25 reports
    path = work / "concurrent.sqlite"
    procs = [
        subprocess.Popen(
            [
                PY,
                "-c",
                _CHILD_WRITER.format(
                    root=str(ROOT), path=str(path), template=str(template), count=25, tag=f"w{w}"
                ),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(8)
    ]
    acknowledged = 0
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        acknowledged += out.count("ok ")
        if proc.returncode != 0:
            row.crash(f"concurrent writer: {err.strip().splitlines()[-1][:100] if err else '?'}")
    row.tried += 8 * 25
    present = _sqlite_count(path)
    row.lost += max(0, acknowledged - present)
    # kill -9 writers mid-append, 3 rounds of 4: each is killed at a random moment after its
    # first acknowledged append (a slow start on a loaded host must not make a round empty)
    path = work / "killed.sqlite"
    rng = random.Random(7)
    acknowledged = 0
    for _ in range(3):
        procs = [
            subprocess.Popen(
                [
                    PY,
                    "-c",
                    _CHILD_WRITER.format(
                        root=str(ROOT),
                        path=str(path),
                        template=str(template),
                        count=100000,
                        tag=f"k{w}",
                    ),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            for w in range(4)
        ]
        first = 0
        for proc in procs:
            assert proc.stdout is not None
            line = proc.stdout.readline()  # blocks until its first append is acknowledged
            first += line.startswith("ok ")
        time.sleep(0.2 + rng.random())
        for proc in procs:
            os.kill(proc.pid, signal.SIGKILL)
        for proc in procs:
            out, _ = proc.communicate()
            acknowledged += sum(
                1 for text in out.splitlines() if len(text.split()) == 2 and text.startswith("ok ")
            )
        acknowledged += first
        row.tried += 4
    present = _sqlite_count(path)
    row.lost += max(0, acknowledged - present)
    connection = sqlite3.connect(path)
    check = connection.execute("PRAGMA integrity_check").fetchone()[0]
    connection.close()
    if check != "ok":
        row.bad(f"killed writers: integrity_check {check}")
    row.tried += 1
    try:
        verdict, _ = gate_verdict(path)
    except Exception as exc:
        row.crash(f"gate after kill -9: {type(exc).__name__}")
    else:
        if verdict != "pass":
            row.bad(f"gate after kill -9: {verdict}")
    row.note(f"{acknowledged} acknowledged appends from killed writers, {present} rows")


# ------------------------------------------------------------------------------- specs
_PIECES = [
    "H100",
    "A100",
    "a100",
    "80GB",
    "40gb",
    ":",
    "8",
    "0.5",
    "@",
    "1g.10gb",
    "3g.40gb",
    "|",
    ",",
    "!",
    "+",
    " ",
    "nvidia",
    "tesla",
    "-",
    ".",
    "x",
    "v5e",
    "2x2",
    "tpu",
    "shared",
    "MI300X",
    "any",
    "B200+",
    "9007199254740992.5",
    "9007199254740993",
    "1e9",
    "00",
    "\x1b[2J",
    "\x00",
    "\u202e",
    "\t",
    "\n",
    "\u0663",
    "\uff28100",
    "$",
    "(",
    ")",
    "*",
    "GB",
    "TB",
    "A100-80GB",
    "NVIDIA A100-SXM4-80GB",
    "l4",
    "gpu",
]


def _bad_text(message: str) -> str | None:
    for ch in message:
        if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            return repr(ch)
    return None


def check_specs(row: Row, count: int, seed: int) -> None:
    from decimal import Decimal, InvalidOperation

    from accelerators import AcceleratorSpec

    rng = random.Random(seed)
    inputs: list[str] = []
    for i in range(count):
        if i % 3 == 0:
            inputs.append("".join(chr(rng.randrange(0, 0x3000)) for _ in range(rng.randrange(30))))
        else:
            inputs.append("".join(rng.choice(_PIECES) for _ in range(rng.randrange(1, 7))))
    inputs += [
        f"H100:{c}"
        for c in (
            "9007199254740992.5",
            "9007199254740993",
            "4503599627370496.5",
            "0.1",
            "1" + "0" * 30,
            "8.0000000000000001",
        )
    ]
    inputs += ["H100\x1b[2J", "H100:\x1b]0;owned\x07", "A100@\u202egb01.g1"]
    for text in inputs:
        row.tried += 1
        start = time.perf_counter()
        try:
            spec = AcceleratorSpec.parse(text)
        except AcceleratorError as exc:
            shown = _bad_text(str(exc))
            if shown is not None:
                row.bad(f"{text[:30]!r}: the message prints {shown}")
        except Exception as exc:
            row.crash(f"{text[:40]!r}: {type(exc).__name__}: {str(exc)[:60]}")
        else:
            count_text = text.rpartition(":")[2]
            try:
                exact = Decimal(count_text)
            except InvalidOperation:
                exact = None
            if (
                exact is not None
                and spec.count is not None
                and Decimal(str(spec.count)) != exact
                and (exact == int(exact) or Decimal(repr(float(spec.count))) != exact)
            ):
                row.bad(f"{text[:40]!r} accepted as count {spec.count}")
        row.time(time.perf_counter() - start)
    # A 2 MB spec: refused quickly, in a child to see its memory.
    code = (
        f"import resource, sys, time; sys.path.insert(0, {str(ROOT)!r})\n"
        "from accelerators import AcceleratorSpec\n"
        "t = time.perf_counter()\n"
        "try:\n    AcceleratorSpec.parse('H100 ' * 400000)\nexcept Exception as e:\n"
        "    kind = type(e).__name__\n"
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, kind)"
    )
    row.tried += 1
    out, _spent, killed = _child(code, {}, 120)
    if killed or out is None or not out.strip():
        row.bad("2 MB spec: no answer in 120 s")
    else:
        seconds, rss_kb, kind = out.split()
        row.time(float(seconds))
        if float(seconds) > 1.0 or int(rss_kb) > 400_000:
            row.bad(f"2 MB spec: {float(seconds):.1f} s, {int(rss_kb) // 1024} MB peak ({kind})")


# -------------------------------------------------------------------------------- pods
_SPECS = [
    "H100:8",
    "A100@1g.10gb",
    "T4",
    "H100:8 | A100-80GB:8",
    "MI300X:2",
    "trn1",
    "v5e@2x2",
    "L4:0.5",
    "40GB+",
]


def _hostile_pod(rng: random.Random) -> dict[str, Any]:
    junk = [None, 0, 7, "x", "", [], {}, [None], {"a": None}, True, 1.5, ["a"], {"k": []}]
    main = {"name": "main", "image": "busybox"}
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [main]},
    }
    spec = pod["spec"]
    for _ in range(rng.randrange(1, 4)):
        choice = rng.randrange(14)
        if choice == 0:
            spec["affinity"] = {"nodeAffinity": rng.choice(junk)}
        elif choice == 1:
            spec["affinity"] = rng.choice(junk)
        elif choice == 2:
            spec["affinity"] = {
                "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": rng.choice(junk)}
            }
        elif choice == 3:
            spec["affinity"] = {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            rng.choice(junk),
                            {"matchExpressions": rng.choice(junk)},
                        ]
                    }
                }
            }
        elif choice == 4:
            spec["nodeSelector"] = rng.choice(junk)
        elif choice == 5:
            spec["tolerations"] = rng.choice(junk)
        elif choice == 6:
            main["resources"] = rng.choice(junk)
        elif choice == 7:
            main["resources"] = {"limits": rng.choice(junk), "requests": rng.choice(junk)}
        elif choice == 8:
            spec["containers"] = rng.choice(junk)
        elif choice == 9:
            spec["containers"] = [
                main,
                {
                    "name": "side",
                    "image": "x",
                    "resources": {
                        "limits": {
                            rng.choice(["nvidia.com/gpu", "amd.com/gpu", "google.com/tpu"]): "1"
                        }
                    },
                },
            ]
        elif choice == 10:
            spec["runtimeClassName"] = rng.choice(junk)
        elif choice == 11:
            spec["resourceClaims"] = rng.choice(junk)
        elif choice == 12:
            spec["affinity"] = {
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": rng.choice(junk)
                }
            }
        else:
            spec["initContainers"] = rng.choice(junk)
    return pod


def _requested(pod: dict[str, Any], key: str) -> int:
    total = 0
    spec = pod.get("spec") or {}
    for container in spec.get("containers") or []:
        limits = ((container or {}).get("resources") or {}).get("limits") or {}
        value = limits.get(key)
        if value is not None:
            with contextlib.suppress(TypeError, ValueError):
                total += int(value)
    return total


def check_pods(row: Row, count: int, seed: int) -> None:
    from accelerators.kubernetes import apply_to_pod, platforms, to_pod_fragment

    rng = random.Random(seed)
    names = platforms()
    for _ in range(count):
        pod = _hostile_pod(rng)
        platform = rng.choice(names)
        text = rng.choice(_SPECS)
        try:
            fragment = to_pod_fragment(text, platform=platform)
        except AcceleratorError:
            continue
        row.tried += 1
        before = copy.deepcopy(pod)
        start = time.perf_counter()
        try:
            out = apply_to_pod(pod, text, platform=platform)
        except AcceleratorError:
            out = None
        except Exception as exc:
            row.crash(f"{platform} {text}: {type(exc).__name__}: {str(exc)[:70]}")
            out = None
        row.time(time.perf_counter() - start)
        if pod != before:
            row.bad(f"{platform} {text}: the input pod was changed")
        if out is not None:
            for key, value in (fragment.get("resources", {}).get("limits") or {}).items():
                if _requested(out, key) != int(value):
                    row.bad(
                        f"{platform} {text}: the pod asks for {_requested(out, key)} {key}, "
                        f"the spec for {value}"
                    )
    # existing nodeSelectorTerms: 1,000 then 10,000 (linear: ~10x the time; quadratic: ~100x)
    spent = {}
    for n in (100, 1_000, 10_000):
        terms = [
            {"matchExpressions": [{"key": f"zone-{i}", "operator": "In", "values": ["a"]}]}
            for i in range(n)
        ]
        pod = {
            "spec": {
                "containers": [{"name": "main"}],
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": terms
                        }
                    }
                },
            }
        }
        row.tried += 1
        start = time.perf_counter()
        try:
            apply_to_pod(pod, "H100:8", platform="flyte")
        except Exception as exc:
            row.crash(f"{n:,} terms: {type(exc).__name__}")
        spent[n] = time.perf_counter() - start
    row.time(spent[10_000])
    if spent[10_000] > 30 * spent[1_000] + 0.05:
        row.bad(
            f"merging into 10,000 nodeSelectorTerms takes {spent[10_000]:.1f} s, "
            f"{spent[10_000] / spent[1_000]:.0f}x the time of 1,000"
        )


def check_options(row: Row) -> None:
    from accelerators.kubernetes import get_platform, platforms, to_dra_fragment, to_pod_fragment
    from accelerators.kubernetes._platform import COMMON_OPTIONS

    values: list[Any] = [
        None,
        0,
        -1,
        1.5,
        True,
        "",
        "x",
        [],
        [1],
        ["a"],
        {},
        {"a": 1},
        {1: 2},
        ("a",),
        object(),
        b"x",
        {"key": None},
        [{"key": 1}],
        {"gpu": ["x", 1]},
    ]
    specs = {
        "neuron": "trn1",
        "gke": "H100:8",
        "amd": "MI300X",
        "gaudi": "Gaudi3",
        "intel": "Max-1550",
    }
    for platform in platforms():
        text = specs.get(platform, "H100:8")
        own = type(get_platform(platform)).options
        for option in (*COMMON_OPTIONS, *own):
            for value in values:
                row.tried += 1
                try:
                    fragment = to_pod_fragment(text, platform=platform, **{option: value})
                    json.dumps(fragment)
                    _check_strings(fragment)
                except AcceleratorError:
                    continue
                except _NotAString as exc:
                    row.bad(f"{platform} {option}={value!r}: {exc}")
                except Exception as exc:
                    row.crash(f"{platform} {option}={value!r}: {type(exc).__name__}")
        if platform == "nvidia":
            for option in ("claim_name", "claim_template_name", "gpu_device_class"):
                for value in values:
                    row.tried += 1
                    try:
                        to_dra_fragment(text, platform=platform, **{option: value})
                    except AcceleratorError:
                        continue
                    except Exception as exc:
                        row.crash(f"dra {option}={value!r}: {type(exc).__name__}")


class _NotAString(Exception):
    pass


def _check_strings(fragment: Any) -> None:
    """Kubernetes wants strings where a fragment has keys, values and names."""
    for key, value in (fragment.get("nodeSelector") or {}).items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise _NotAString(f"nodeSelector {key!r}: {value!r}")
    runtime = fragment.get("runtimeClassName")
    if runtime is not None and not isinstance(runtime, str):
        raise _NotAString(f"runtimeClassName {runtime!r}")
    for item in fragment.get("tolerations") or ():
        for name in ("key", "operator", "value", "effect"):
            if name in item and not isinstance(item[name], str):
                raise _NotAString(f"toleration {name} {item[name]!r}")
    node = (fragment.get("affinity") or {}).get("nodeAffinity") or {}
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    for term in required.get("nodeSelectorTerms") or ():
        for expr in term.get("matchExpressions") or ():
            if not isinstance(expr.get("key"), str) or not all(
                isinstance(v, str) for v in expr.get("values") or ()
            ):
                raise _NotAString(f"matchExpression {expr!r}")


# ----------------------------------------------------------------------- report writers
def check_writers_files(row: Row, work: Path) -> None:
    from accelerators.bench import BenchReport, html_report, plot_report, write_json
    from accelerators.bench.report._models import atomic_write

    report = BenchReport.model_validate(healthy_json())
    folder = work / "outputs"
    folder.mkdir()
    writers: list[tuple[str, Callable[[Path], object]]] = [
        ("--json", lambda p: write_json(report, p)),
        ("--plot", lambda p: plot_report(report, p)),
        ("--html", lambda p: atomic_write(p, html_report(report).encode())),
    ]
    for what, write in writers:
        real = folder / f"real{what}"
        real.write_text("old")
        link = folder / f"link{what}"
        link.symlink_to(real)
        row.tried += 1
        try:
            write(link)
        except AcceleratorError:
            pass
        except Exception as exc:
            row.crash(f"{what} through a symlink: {type(exc).__name__}")
        if not link.is_symlink():
            row.bad(f"{what}: the symlink was replaced by a file")
        fifo = folder / f"fifo{what}"
        os.mkfifo(fifo)
        threading.Thread(target=_drain, args=(fifo,), daemon=True).start()
        if not _write_special(row, what, write, fifo, stat.S_ISFIFO, "a FIFO"):
            with contextlib.suppress(OSError), open(fifo, "wb"):  # release the drain thread
                pass
        if os.geteuid() == 0:  # a private character device like /dev/null (never the real one)
            device = folder / f"null{what}"
            os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
            _write_special(row, what, write, device, stat.S_ISCHR, "a character device")
    for name in ("$\\undefinedmacro$", "GPU $x^{$", "$$", "a\\b_c^d", "<script>$\\frac$"):
        data = healthy_json()
        data["device"]["name"] = name
        data["device"]["accelerator"] = None
        for dev in data["devices"]:
            dev["name"] = name
            dev["accelerator"] = None
        hostile = BenchReport.model_validate(data)
        for what, make in (
            ("html_report", html_report),
            ("plot_report", lambda r: plot_report(r, folder / "math.png")),
        ):
            row.tried += 1
            try:
                make(hostile)
            except Exception as exc:
                row.crash(f"{what}, device {name!r}: {type(exc).__name__}")


def _write_special(
    row: Row,
    what: str,
    write: Callable[[Path], object],
    path: Path,
    still: Callable[[int], bool],
    kind: str,
) -> bool:
    """Write into ``path`` (not a regular file); whether it is still ``kind`` afterwards."""
    row.tried += 1
    try:
        write(path)
    except (AcceleratorError, OSError):
        pass
    except Exception as exc:
        row.crash(f"{what} into {kind}: {type(exc).__name__}")
    if still(os.lstat(path).st_mode):
        return True
    row.bad(f"{what}: {kind} was replaced by a regular file")
    return False


def _drain(path: Path) -> None:
    with contextlib.suppress(OSError), open(path, "rb") as handle:
        handle.read()


# ------------------------------------------------------------------------------ caches
_CHILD_CATALOG = (
    "import sys; sys.path.insert(0, {root!r})\n"
    "from accelerators import catalog\n"
    "print(catalog.get('H100').memory_gb)\n"
)
_CHILD_TAMPER_BIN = (
    "import sys; sys.path.insert(0, {root!r})\n"
    "from accelerators import _datafiles\n"
    "from accelerators.catalog import _store, _trusted\n"
    "raw = _store._read_data()\n"
    "for acc in raw['accelerators']:\n"
    "    if acc['name'] == 'H100-SXM': acc['memory_gb']['value'] = 8\n"
    "blob = _trusted.to_blob(_store._validate(raw))\n"
    "key = _trusted.cache_key(_datafiles.data_bytes('accelerators.data', 'catalog.toml'))\n"
    "_datafiles.write_blob(_store._TRUSTED_NAME, key, blob)\n"
)


def check_caches(row: Row, work: Path) -> None:
    def memory(folder: Path) -> str:
        out, _, _ = _child(
            _CHILD_CATALOG.format(root=str(ROOT)), {"ACCELERATORS_CACHE_DIR": str(folder)}, 120
        )
        return (out or "").strip()

    # a JSON entry with the right shape and a wrong value
    folder = work / "cache-json"
    row.tried += 1
    memory(folder)
    for entry in folder.glob("catalog.toml.*.json"):
        data = json.loads(entry.read_text())
        for acc in data["accelerators"]:
            if acc["name"] == "H100-SXM":
                acc["memory_gb"]["value"] = 8
        entry.write_text(json.dumps(data))
    for entry in folder.glob("*.bin"):
        entry.unlink()
    if memory(folder) in ("8", "8.0"):
        row.bad("a tampered JSON cache entry was used (H100 with 8 GB)")
    row.tried += 1
    for entry in folder.glob("*.json"):
        entry.unlink()  # the JSON is gone: does the validated cache still say 8 GB?
    if memory(folder) in ("8", "8.0"):
        row.bad("the tampered figure persisted in the validated cache")
    # a .bin rewritten with a matching checksum
    folder = work / "cache-bin"
    row.tried += 1
    memory(folder)
    _child(_CHILD_TAMPER_BIN.format(root=str(ROOT)), {"ACCELERATORS_CACHE_DIR": str(folder)}, 120)
    if memory(folder) in ("8", "8.0"):
        row.bad("a .bin with a recomputed checksum was used unchecked (H100 with 8 GB)")
    # a cache directory others can write
    folder = work / "cache-shared"
    folder.mkdir(mode=0o777)
    os.chmod(folder, 0o777)
    row.tried += 1
    memory(folder)
    if any(folder.iterdir()):
        row.bad("a world-writable cache directory was used")
    # the mode of a new cache directory
    folder = work / "cache-new" / "accelerators"
    row.tried += 1
    memory(folder)
    if folder.exists() and stat.S_IMODE(folder.stat().st_mode) & 0o077:
        row.bad(f"a new cache directory is {oct(stat.S_IMODE(folder.stat().st_mode))}")


# ------------------------------------------------------------------------ command line
@contextlib.contextmanager
def _env(**values: str) -> Iterator[None]:
    """The environment with ``values`` set, put back afterwards."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _cli(args: list[str], **env: str) -> tuple[int, str, BaseException | None]:
    from typer.testing import CliRunner

    from accelerators.cli import build_app

    with _env(**env):
        result = CliRunner().invoke(build_app(), args)
    exc = result.exception
    if isinstance(exc, SystemExit):
        exc = None
    return result.exit_code, result.output, exc


def check_cli(row: Row, work: Path, endpoint: str | None) -> None:
    row.tried += 1
    code, output, exc = _cli(["parse", "H100\x1b[2J"])
    if exc is not None:
        row.crash(f"parse ESC: {type(exc).__name__}")
    elif "\x1b" in output:
        row.bad("`accelerators parse $'H100\\x1b[2J'` prints the escape sequence")
    for top in ("-1", "0"):
        row.tried += 1
        code, output, exc = _cli(["recommend", "--memory-gb", "40", "--top", top, "--json"])
        if exc is not None:
            row.crash(f"recommend --top {top}: {type(exc).__name__}")
        elif code != 2:
            row.bad(f"recommend --top {top}: exit {code}, not bad input")
    # bench history --chart without matplotlib
    row.tried += 1
    store = work / "chart.sqlite"
    _sqlite_with(store, [json.dumps(healthy_json())])
    code_text = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); sys.modules['matplotlib'] = None\n"
        "from typer.testing import CliRunner\nfrom accelerators.cli import build_app\n"
        f"r = CliRunner().invoke(build_app(), ['bench', 'history', '--store', {str(store)!r}, "
        f"'--chart', {str(work / 'c.png')!r}])\n"
        "print('EXIT', r.exit_code, type(r.exception).__name__)"
    )
    out, _, _ = _child(code_text, {}, 120)
    if "EXIT 2" not in (out or ""):
        row.crash(f"bench history --chart without matplotlib: {(out or '').strip()[:80]}")
    # flyte check on a file that exits while it is imported
    row.tried += 1
    exiting = work / "exits.py"
    exiting.write_text("raise SystemExit(0)\n")
    code, output, exc = _cli(["flyte", "check", str(exiting)])
    if code == 0:
        row.bad("flyte check on a file that raises SystemExit(0): exit 0, nothing checked")
    # sizing: ACCELERATORS_CACHE_DIR=off, a symlinked temporary file, a bad region
    from accelerators.sizing import aws

    row.tried += 1
    with _env(ACCELERATORS_CACHE_DIR="off"):
        where = aws.cache_dir()
    if where is not None and Path(where).name == "off":
        row.bad("ACCELERATORS_CACHE_DIR=off: the AWS cache goes to ./off/")
    if endpoint is not None:
        row.tried += 1
        folder = work / "aws-cache"
        folder.mkdir()
        victim = work / "victim.txt"
        victim.write_text("precious")
        (folder / "aws-us-east-1.tmp").symlink_to(victim)
        with _env(ACCELERATORS_CACHE_DIR=str(folder)):
            try:
                aws.refresh("us-east-1", endpoint_url=endpoint)
            except Exception as exc:
                row.note(f"aws refresh on moto: {type(exc).__name__}: {str(exc)[:60]}")
        if victim.read_text() != "precious":
            row.bad("sizing/aws.py wrote through a symlinked .tmp file")
    for region in ("bad region", "../../../tmp/x"):
        row.tried += 1
        code, output, exc = _cli(
            ["instances", "H100", "--refresh", "--region", region],
            AWS_ACCESS_KEY_ID="x",
            AWS_SECRET_ACCESS_KEY="y",
            AWS_ENDPOINT_URL=refused_endpoint(),
        )
        if exc is not None:
            row.crash(f"instances --refresh --region {region!r}: {type(exc).__name__}")
        elif code != 2:
            row.bad(f"instances --refresh --region {region!r}: exit {code}")


def refused_endpoint() -> str:
    from accelerators.bench.testing._fault_servers import refused_url

    return refused_url()


# ------------------------------------------------------------------------------- main
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cap", type=float, default=90.0, help="seconds before a child is killed")
    parser.add_argument("--specs", type=int, default=20000, help="fuzzed spec strings")
    parser.add_argument("--pods", type=int, default=5000, help="hostile pods")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--json", type=Path, help="write the rows as JSON")
    parser.add_argument(
        "--only", action="append", default=[], metavar="TEXT", help="checks whose name has TEXT"
    )
    args = parser.parse_args()
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's request log
    started = time.perf_counter()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="reliability-") as tmp, moto_server() as endpoint:
        work = Path(tmp)
        os.environ["ACCELERATORS_CACHE_DIR"] = str(work / "main-cache")
        os.environ.pop("ACCELERATORS_BENCH_HISTORY", None)
        steps: list[tuple[str, Callable[[Row], None]]] = [
            ("history: corrupt SQLite rows", lambda r: check_sqlite_rows(r, work)),
            ("history: corrupt S3 objects", lambda r: check_s3_objects(r, endpoint)),
            ("history: fleet poisoning", lambda r: check_poisoning(r, work)),
            ("history: faulty S3 endpoints", lambda r: check_endpoints(r, args.cap, work)),
            ("history: foreign, locked, PostgreSQL", lambda r: check_stores(r, args.cap, work)),
            ("history: concurrent, kill -9", lambda r: check_writers(r, work)),
            ("specs: fuzzed text", lambda r: check_specs(r, args.specs, args.seed)),
            ("pods: hostile pods", lambda r: check_pods(r, args.pods, args.seed)),
            ("pods: platform options", check_options),
            ("reports: targets, math text", lambda r: check_writers_files(r, work)),
            ("caches: tampered, shared", lambda r: check_caches(r, work)),
            ("cli: smaller items", lambda r: check_cli(r, work, endpoint)),
        ]
        for name, step in steps:
            if args.only and not any(text in name for text in args.only):
                continue
            row = Row(name)
            t0 = time.perf_counter()
            try:
                step(row)
            except Exception as exc:
                row.crash(f"the check itself: {type(exc).__name__}: {str(exc)[:80]}")
            print(f"  {name}: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
            rows.append(row)
    _print(rows, args.cap)
    print(
        f"\n{time.perf_counter() - started:.0f} s in all; python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs"
    )
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1))
    return 0


def _print(rows: list[Row], cap: float) -> None:
    header = f"{'check':<32}{'tried':>7}{'crashes':>9}{'wrong':>7}{'lost':>6}{'worst s':>9}"
    print(header)
    print("-" * len(header))
    for r in rows:
        worst = f">={cap:.0f}" if r.capped else f"{r.worst_s:.2f}"
        print(f"{r.name:<32}{r.tried:>7}{r.crashes:>9}{r.wrong:>7}{r.lost:>6}{worst:>9}")
    total = Row(
        "total", *(sum(getattr(r, k) for r in rows) for k in ("tried", "crashes", "wrong", "lost"))
    )
    history = [r for r in rows if r.name.startswith("history")]
    worst = max((r.worst_s for r in history), default=0.0)
    capped = any(r.capped for r in history)
    print("-" * len(header))
    print(f"{'total':<32}{total.tried:>7}{total.crashes:>9}{total.wrong:>7}{total.lost:>6}")
    shown = f">={cap:.0f}" if capped else f"{worst:.1f}"
    print(f"worst-case gate delay from the history: {shown} s")
    print("\nfirst findings per check:")
    for r in rows:
        for note in r.shown():
            print(f"  {r.name}: {note}")


if __name__ == "__main__":
    sys.exit(main())
