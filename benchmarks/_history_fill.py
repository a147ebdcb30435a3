"""A synthetic fleet's bench history, filled fast: 10^6 reports in about a minute on 2 vCPUs.

The fleet is 1,000 single-GPU nodes (7 in 10 H100-SXM, 2 A100-80GB-SXM, 1 MI300X), gating
2,000 times a day (the issue's "1,000-node fleet gating a few pipelines a day"); report ``k``
(``k = 0`` the newest) started ``k x 43.2 s`` before the fill. Each node has a level within a
few per cent of its SKU's (70 % of the datasheet's dense TFLOPS per dtype, 85 % of its
bandwidth per kernel), each run 1 % noise; 2 % of the runs warn, 0.5 % fail. Each summary is
what :func:`accelerators.bench.history._summary.summarize` writes for such a report.

The full report beside each summary is a small compressed stub (a gate never reads full
reports; at ~130 KB each, 10^6 real ones would not fit the development VM's disk).
SQLite and PostgreSQL are filled by bulk inserts (one transaction, ``executemany``; ``COPY``)
through the same tables the stores use; S3 by 16 concurrent PUTs of the summary objects.
"""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from accelerators.bench.history._summary import encode, from_us
from accelerators.catalog import _store

__all__ = ["GAP_US", "ID_TOP", "STUB", "Row", "fill_postgres", "fill_s3", "fill_sqlite", "rows"]

NODES = 1000
#: Microseconds between two reports of the fleet (2,000 a day).
GAP_US = 43_200_000
#: The id of the newest synthetic report.
ID_TOP = 1_000_000_000
STUB = zlib.compress(b'{"stub": "a synthetic report: its summary is what the benchmark reads"}')
_SKUS = ("H100-SXM",) * 7 + ("A100-80GB-SXM",) * 2 + ("MI300X",)
_KERNELS = ("copy", "scale", "add", "triad", "dot")
_DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8")

Row = tuple[int, int, str, str, str, str]  # id, started_us, node, accelerator, verdict, json


def _levels() -> dict[str, dict[str, dict[str, float]]]:
    out: dict[str, dict[str, dict[str, float]]] = {}
    for sku in set(_SKUS):
        acc = _store.by_exact_name(sku)
        if acc is None:
            raise SystemExit(f"{sku} is not in the catalog")
        gemm = {d: 0.7 * v for d, v in acc.tflops.items() if d in _DTYPES}
        memory = dict.fromkeys(_KERNELS, 0.85 * acc.bandwidth_tbps * 1000)
        out[sku] = {"gemm": gemm, "memory": memory}
    return out


def rows(start: int, stop: int, now_us: int, seed: int = 29) -> Iterator[Row]:
    """Reports ``start`` to ``stop - 1`` of the fleet (``0``: the newest), with ids
    ``ID_TOP - k``: newer reports have larger ids, older ones added later never meet an id
    taken, and the gates' own appends come after ``ID_TOP``."""
    levels = _levels()
    node_rng = random.Random(seed)
    factor = [node_rng.gauss(1.0, 0.02) for _ in range(NODES)]
    rng = random.Random(seed * 1_000_003 + start)
    for k in range(start, stop):
        node = k % NODES
        sku = _SKUS[node % len(_SKUS)]
        level = factor[node]
        draw = rng.random()
        verdict = "fail" if draw < 0.005 else "warn" if draw < 0.025 else "pass"
        base = levels[sku]
        device: dict[str, Any] = {
            "index": 0,
            "verdict": verdict,
            "gemm": {d: round(v * level * rng.gauss(1, 0.01), 4) for d, v in base["gemm"].items()},
            "memory": {
                m: round(v * level * rng.gauss(1, 0.01), 2) for m, v in base["memory"].items()
            },
        }
        yield (
            ID_TOP - k,
            now_us - k * GAP_US,
            f"gpu-node-{node:04d}",
            sku,
            verdict,
            encode([device]),
        )


def _iso(micros: int) -> str:
    return from_us(micros).isoformat()


def fill_sqlite(path: str, start: int, stop: int, now_us: int) -> float:
    """Add reports ``start..stop`` to the SQLite history at ``path``; seconds taken."""
    import sqlite3

    began = time.perf_counter()
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("BEGIN IMMEDIATE")
    batch: list[Row] = []
    for row in rows(start, stop, now_us):
        batch.append(row)
        if len(batch) == 50_000:
            _sqlite_batch(connection, batch)
            batch = []
    _sqlite_batch(connection, batch)
    connection.execute("COMMIT")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    return time.perf_counter() - began


def _sqlite_batch(connection: Any, batch: list[Row]) -> None:
    connection.executemany(
        "INSERT INTO bench_history_reports (id, started_at, node, accelerator, verdict, report, "
        "summarized) VALUES (?, ?, ?, ?, ?, ?, 1)",
        [(i, _iso(t), n, a, v, STUB) for i, t, n, a, v, _ in batch],
    )
    connection.executemany(
        "INSERT INTO bench_history_summaries (report_id, accelerator, started_us, node, "
        "verdict, figures, problem) VALUES (?, ?, ?, ?, ?, ?, NULL)",
        [(i, a, t, n, v, s) for i, t, n, a, v, s in batch],
    )


def fill_postgres(url: str, start: int, stop: int, now_us: int) -> float:
    """Add reports ``start..stop`` to the PostgreSQL history at ``url`` (``COPY``)."""
    import psycopg

    began = time.perf_counter()
    with psycopg.connect(url) as connection:
        with connection.cursor() as cursor:
            reports = (
                "COPY bench_history_reports (id, started_at, node, accelerator, verdict, "
                "report, summarized) FROM STDIN"
            )
            summaries = (
                "COPY bench_history_summaries (report_id, accelerator, started_us, node, "
                "verdict, figures) FROM STDIN"
            )
            with cursor.copy(reports) as copy:
                for i, t, n, a, v, _ in rows(start, stop, now_us):
                    copy.write_row((i, _iso(t), n, a, v, STUB, 1))
            with cursor.copy(summaries) as copy:
                for i, t, n, a, v, s in rows(start, stop, now_us):
                    copy.write_row((i, a, t, n, v, s))
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence('bench_history_reports', 'id'), "
                "(SELECT max(id) FROM bench_history_reports))"
            )
        connection.commit()
        connection.autocommit = True
        connection.execute("ANALYZE bench_history_reports")
        connection.execute("ANALYZE bench_history_summaries")
    return time.perf_counter() - began


def fill_s3(client: Any, bucket: str, prefix: str, start: int, stop: int, now_us: int) -> float:
    """Put the summary objects of reports ``start..stop`` under ``s3://bucket/prefix``."""
    import json

    from accelerators.bench.history._s3_days import LAYOUT, day_of, name_of, sku_part

    began = time.perf_counter()

    def put(row: Row) -> None:
        _, started, node, sku, verdict, text = row
        name, day = name_of(started, node), day_of(started)
        body = {
            "node": node,
            "started_us": started,
            "accelerator": sku,
            "verdict": verdict,
            "report": f"{prefix}/{LAYOUT}/reports/{sku_part(sku)}/{day}/{name}.json.zlib",
            **json.loads(text),
        }
        key = f"{prefix}/{LAYOUT}/summaries/{sku_part(sku)}/{day}/{name}.json"
        client.put_object(Bucket=bucket, Key=key, Body=json.dumps(body).encode())

    with ThreadPoolExecutor(max_workers=16) as pool:
        list(pool.map(put, rows(start, stop, now_us)))
    return time.perf_counter() - began
