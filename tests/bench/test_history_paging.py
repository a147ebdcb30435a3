"""A store's full read (``reports()``: what ``accelerators bench history`` and a migration
walk) pages through the whole history, in SQLite and in PostgreSQL: a page boundary inside a
run of equal start times loses nothing, repeats nothing and keeps the order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from accelerators.bench import open_store, run
from accelerators.bench.history import _sql
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

#: (host, started_at) in the order appended: ties on started_at across page boundaries, and
#: rows appended out of time order.
_ROWS = [
    ("n5", "2026-11-05T00:00:00+00:00"),
    ("n1", "2026-11-01T00:00:00+00:00"),
    ("n2a", "2026-11-02T00:00:00+00:00"),
    ("n2b", "2026-11-02T00:00:00+00:00"),
    ("n2c", "2026-11-02T00:00:00+00:00"),
    ("n2d", "2026-11-02T00:00:00+00:00"),
    ("n3", "2026-11-03T00:00:00+00:00"),
    ("n4a", "2026-11-04T00:00:00+00:00"),
    ("n4b", "2026-11-04T00:00:00+00:00"),
    ("n6", "2026-11-06T00:00:00+00:00"),
    ("n0", "2026-10-31T00:00:00+00:00"),
]
_OLDEST_FIRST = ["n0", "n1", "n2a", "n2b", "n2c", "n2d", "n3", "n4a", "n4b", "n5", "n6"]


@pytest.fixture(scope="module")
def healthy() -> dict[str, Any]:
    return run(
        "H100-SXM", backend=FakeBackend([FakeDevice()]), detected=fake_detected()
    ).model_dump(mode="json")


def _fill_and_read(location: str, healthy: dict[str, Any]) -> list[str]:
    store = open_store(location)
    for host, started in _ROWS:
        store.append_json({**healthy, "host": host, "started_at": started})
    return [r["host"] for r in open_store(location).reports()]


@pytest.mark.parametrize("page", [1, 2, 3, 200])
def test_sqlite_reads_every_page(
    page: int, healthy: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_sql, "_PAGE", page)
    assert _fill_and_read(str(tmp_path / "history.sqlite"), healthy) == _OLDEST_FIRST


@pytest.mark.parametrize("page", [1, 3])
def test_postgresql_reads_every_page(
    page: int, healthy: dict[str, Any], postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_sql, "_PAGE", page)
    assert _fill_and_read(postgres_url, healthy) == _OLDEST_FIRST
