"""The bench history at a fleet's scale, side by side in one run (issue 29).

1. **A gate's history step** (its baseline read and its append) with 10^3 to 10^6 stored
   reports, for SQLite and PostgreSQL (a real server, started here) and, for 10^3 and 10^4,
   S3 on a local moto server: the step's time (median of ``--repeats`` gates, each in the same
   fresh process, alternating with gates that keep no history), what it adds to the gate
   (with minus without), and the Python memory it allocates at its peak (tracemalloc, one
   more gate). The history is a synthetic fleet filled in bulk (``_history_fill.py``); each
   gate is a real ``bench.gate`` on the fake backend's H100, as a node of that fleet.
2. **Concurrent writers**: 8, 32 and 64 processes, each running real gates against one
   SQLite file or one PostgreSQL database, with and without ``kill -9`` at random moments:
   gates run (each one acknowledged after it returned), reports stored, reports lost (said
   stored, not there), false "not appended" messages (said not appended, but there),
   "may not have been appended" messages, and SQLite's ``integrity_check``.

    python benchmarks/history_scale.py                 # 10^3..10^6; ~15-25 min on 2 vCPUs
    python benchmarks/history_scale.py --quick         # 10^3, 4 writers: about a minute
    python benchmarks/history_scale.py --sizes 1000,10000 --writers 8 --json out.json

Goals: a step of at most 50 ms at 10^6 reports on a quiet machine (at most 1 s on the shared
2-vCPU VM at any size), its report always stored; 0 lost and 0 false messages at 64 writers.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _history_fill import fill_postgres, fill_s3, fill_sqlite  # noqa: E402
from _host import describe_host  # noqa: E402

_MEASURE = r"""
import json, os, statistics, sys, time, tracemalloc
from accelerators.bench import AcceleratorGateError, gate
from accelerators.bench.history import _record
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

history, repeats = sys.argv[1], int(sys.argv[2])
os.environ["NODE_NAME"] = "gpu-node-0000"  # a node of the fleet: its own runs are there too
spent, peaks, medians = [], [], []
read, record = _record.HistoryStep.read, _record.HistoryStep.record
traced = False

def timed(fn):
    def wrapper(self, *args, **kwargs):
        if traced:
            base = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
        start = time.perf_counter()
        out = fn(self, *args, **kwargs)
        spent[-1] += time.perf_counter() - start
        if traced:
            peaks.append(tracemalloc.get_traced_memory()[1] - base)
        if fn is read:
            medians.append(len(out[0]))
        return out
    return wrapper

_record.HistoryStep.read, _record.HistoryStep.record = timed(read), timed(record)

def one(where):
    spent.append(0.0)
    start = time.perf_counter()
    try:
        report = gate("H100", history=where, backend=FakeBackend([FakeDevice()]),
                      detected=fake_detected())
    except AcceleratorGateError as exc:
        report = exc.report
    return time.perf_counter() - start, report

one(False); one(False)
steps, plain, timed_gates, notes = [], [], [], []
for first in range(repeats):
    plain.append(one(False)[0])
    seconds, report = one(history)
    steps.append(spent[-1]); timed_gates.append(seconds)
    notes += [r.message for r in report.reasons if r.code.value.startswith("history")]
tracemalloc.start(); traced = True
one(history)
print(json.dumps({
    "first_ms": steps[0] * 1e3, "step_ms": statistics.median(steps) * 1e3,
    "added_ms": (statistics.median(timed_gates) - statistics.median(plain)) * 1e3,
    "peak_mib": max(peaks) / 2**20, "fleet_medians": medians[-1], "notes": notes[:3],
}))
"""

_WRITER = r"""
import json, os, sys
from accelerators.bench import AcceleratorGateError, gate
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

history, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
for number in range(count):
    node = f"{tag}-{number}"
    os.environ["NODE_NAME"] = node
    try:
        report = gate("H100", history=history, backend=FakeBackend([FakeDevice()]),
                      detected=fake_detected())
    except AcceleratorGateError as exc:
        report = exc.report
    said = [r.message for r in report.reasons if "appended" in r.message]
    status = ("maybe" if any("may not have been appended" in m for m in said)
              else "absent" if said else "stored")
    print(json.dumps({"node": node, "status": status, "said": said[:1]}), flush=True)
"""


def _env(deadline: float | None) -> dict[str, str]:
    """The gates' environment: no history settings of this shell's, and the history's
    ``deadline`` in seconds where ``--deadline`` gives one (None: the library's default)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACCELERATORS_BENCH_HISTORY")}
    env["PYTHONPATH"] = str(ROOT)
    if deadline is not None:
        env["ACCELERATORS_BENCH_HISTORY_DEADLINE"] = f"{deadline:g}"
    return env


def _load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def _template(started: str = "2020-01-01T00:00:00+00:00") -> dict[str, Any]:
    from accelerators.bench import run
    from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

    report = run("H100", backend=FakeBackend([FakeDevice()]), detected=fake_detected())
    data = report.model_dump(mode="json")
    data.update(node="benchmark-setup", started_at=started)
    return data


# -------------------------------------------------------------------------- 1. the step
def measure(history: str, repeats: int, deadline: float | None) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, history, str(repeats)],
        env=_env(deadline),
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"measuring {history}: {out.stderr[-2000:]}")
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "load": _load()}


def scale(args: argparse.Namespace, work: Path, stack: ExitStack) -> list[dict[str, Any]]:
    from accelerators.bench.history._open import open_store
    from accelerators.bench.history._summary import to_us
    from accelerators.bench.testing._postgres_server import PostgresServer, binaries

    now = to_us(datetime.now(UTC)) - 60_000_000
    backends: dict[str, tuple[str, Any]] = {"sqlite": (str(work / "scale.sqlite"), None)}
    if binaries() is not None:
        server = stack.enter_context(PostgresServer({"fsync": "on"}))
        backends["postgresql"] = (server.database("scale"), None)
    else:
        print("PostgreSQL's initdb/pg_ctl not found: no PostgreSQL rows", flush=True)
    s3 = _moto(stack)
    if s3 is not None:
        backends["s3"] = ("s3://history-scale/fleet", s3)
    results = []
    for name, (where, client) in backends.items():
        open_store(where).append_json(_template())  # the tables, and a first report
        done = 0
        for size in args.sizes:
            if name == "s3" and size > args.s3_max:
                continue
            if name == "sqlite":
                filled = fill_sqlite(where, done, size, now)
            elif name == "postgresql":
                filled = fill_postgres(where, done, size, now)
            else:
                filled = fill_s3(client, "history-scale", "fleet", done, size, now)
            done = size
            row = {
                "backend": name,
                "reports": size,
                "fill_s": filled,
                **measure(where, args.repeats, args.deadline),
            }
            results.append(row)
            print(
                f"  {name:10} {size:>9,} reports: step {row['step_ms']:7.1f} ms (first "
                f"{row['first_ms']:.1f}), adds {row['added_ms']:7.1f} ms, peak "
                f"{row['peak_mib']:.2f} MiB, {row['fleet_medians']} fleet medians; filled in "
                f"{filled:.1f} s; load {row['load']}",
                flush=True,
            )
    return results


def _moto(stack: ExitStack) -> Any:
    try:
        import boto3
        from moto.server import ThreadedMotoServer
    except ImportError:
        print("moto or boto3 not installed: no S3 rows", flush=True)
        return None
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    import logging

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    stack.callback(server.stop)
    os.environ.update(
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}",
        AWS_CONFIG_FILE=os.devnull,
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
    )
    from botocore.config import Config

    client = boto3.Session().client("s3", config=Config(max_pool_connections=32))
    client.create_bucket(Bucket="history-scale")
    return client


# -------------------------------------------------------------------- 2. concurrent writers
def writers(
    history: str, count: int, kill: bool, gates: int, seed: int, deadline: float | None
) -> dict[str, Any]:
    rng = random.Random(seed)
    start = time.perf_counter()
    runs = str(10_000 if kill else gates)
    tag = f"w{count}{'k' if kill else ''}"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, history, f"{tag}-{n}", runs],
            env=_env(deadline),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(count)
    ]
    lines: list[str] = []
    if kill:  # each killed at a random moment after its first acknowledged gate
        for proc in procs:
            assert proc.stdout is not None
            lines.append(proc.stdout.readline())
        deadline = time.monotonic() + 3.0
        for proc in sorted(procs, key=lambda _: rng.random()):
            time.sleep(max(0.0, min(rng.random() * 3.0 / count, deadline - time.monotonic())))
            os.kill(proc.pid, signal.SIGKILL)
    for proc in procs:
        out, err = proc.communicate(timeout=1800)
        lines += out.splitlines()
        if not kill and proc.returncode != 0:
            print(f"    writer failed: {err.strip().splitlines()[-1:]}", flush=True)
    said = [json.loads(line) for line in lines if line.strip().startswith("{")]
    present = _nodes(history)
    stored = [s for s in said if s["node"] in present]
    return {
        "writers": count,
        "kill": kill,
        "gates": len(said),
        "stored": len(stored),
        "lost": sum(1 for s in said if s["status"] == "stored" and s["node"] not in present),
        "false": sum(1 for s in said if s["status"] == "absent" and s["node"] in present),
        "maybe": sum(1 for s in said if s["status"] == "maybe"),
        "not_stored": sorted({m for s in said if s["node"] not in present for m in s["said"]})[:2],
        "rows": len(present),
        "integrity": _integrity(history),
        "seconds": time.perf_counter() - start,
        "load": _load(),
    }


def _nodes(history: str) -> set[str]:
    query = "SELECT node FROM bench_history_summaries"
    if history.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(history) as connection:
            return {str(n) for (n,) in connection.execute(query)}
    connection = sqlite3.connect(history)
    try:
        return {str(n) for (n,) in connection.execute(query)}
    finally:
        connection.close()


def _integrity(history: str) -> str:
    if history.startswith("postgresql://"):
        return "n/a (server)"
    connection = sqlite3.connect(history)
    try:
        return str(connection.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        connection.close()


def concurrency(args: argparse.Namespace, work: Path, stack: ExitStack) -> list[dict[str, Any]]:
    from accelerators.bench.history._open import open_store
    from accelerators.bench.testing._postgres_server import PostgresServer, binaries

    server = stack.enter_context(PostgresServer({"fsync": "on"})) if binaries() else None
    results = []
    for count in args.writers:
        for kill in (False, True):
            targets = [("sqlite", str(work / f"writers-{count}-{kill}.sqlite"))]
            if server is not None:
                targets.append(("postgresql", server.database(f"w{count}{'k' if kill else ''}")))
            for name, where in targets:
                open_store(where).append_json(_template())
                row = {
                    "backend": name,
                    **writers(where, count, kill, args.gates, count, args.deadline),
                }
                results.append(row)
                print(
                    f"  {name:10} {count:>2} writers{' kill -9' if kill else '        '}: "
                    f"{row['gates']} gates run, {row['stored']} stored, {row['lost']} lost, "
                    f"{row['false']} false 'not appended', {row['maybe']} 'may not', "
                    f"integrity {row['integrity']}; {row['seconds']:.0f} s, load {row['load']}"
                    + (f"; not stored: {row['not_stored']}" if row["not_stored"] else ""),
                    flush=True,
                )
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10^3 reports, 4 writers")
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--s3-max", type=int, default=10_000, help="largest S3 history")
    parser.add_argument("--writers", default="8,32,64")
    parser.add_argument("--gates", type=int, default=3, help="gates per writer without kill")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--deadline",
        type=float,
        help="the history's deadline in the gates, s (default: the library's; a test that "
        "checks what is stored, not how fast, gives a loaded host more)",
    )
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.writers, args.repeats, args.s3_max = "1000", "4", 2, 1000
    args.sizes = [int(float(s)) for s in str(args.sizes).split(",")]
    args.writers = [int(w) for w in str(args.writers).split(",")]
    print(describe_host(), flush=True)
    print(f"load {_load()} at the start (1/5/15 min); {time.strftime('%Y-%m-%d %H:%M')}")
    with tempfile.TemporaryDirectory(prefix="history-scale-") as folder, ExitStack() as stack:
        work = Path(folder)
        print("1. a gate's history step (read + append) by stored reports", flush=True)
        steps = scale(args, work, stack)
        print("2. concurrent writers (real gates), with and without kill -9", flush=True)
        crowd = concurrency(args, work, stack)
    _table(steps, crowd)
    if args.json:
        args.json.write_text(json.dumps({"steps": steps, "writers": crowd}, indent=2))
    return 0


def _table(steps: list[dict[str, Any]], crowd: list[dict[str, Any]]) -> None:
    backends = list(dict.fromkeys(r["backend"] for r in steps))
    print("\nhistory step of one gate, ms (median) / added to the gate, ms / peak MiB")
    print(f"{'reports':>10}" + "".join(f"{b:>28}" for b in backends))
    for size in sorted({r["reports"] for r in steps}):
        cells = []
        for backend in backends:
            row = next((r for r in steps if r["backend"] == backend and r["reports"] == size), None)
            cells.append(
                f"{row['step_ms']:8.1f} /{row['added_ms']:7.1f} /{row['peak_mib']:5.2f}"
                if row
                else "-"
            )
        print(f"{size:>10,}" + "".join(f"{c:>28}" for c in cells))
    print("\nwriters   kill   backend     gates  stored  lost  false  may-not  integrity")
    for r in crowd:
        print(
            f"{r['writers']:>7}  {'yes' if r['kill'] else 'no':>5}  {r['backend']:<10} "
            f"{r['gates']:>6}  {r['stored']:>6}  {r['lost']:>4}  {r['false']:>5}  "
            f"{r['maybe']:>7}  {r['integrity']}"
        )
    print(
        f"\nworst step {max((r['step_ms'] for r in steps), default=0):.1f} ms; "
        f"lost {sum(r['lost'] for r in crowd)}, false messages {sum(r['false'] for r in crowd)}"
    )


if __name__ == "__main__":
    sys.exit(main())
