"""The bench history in one SQLite file: the embedded default, safe for a host's processes.

* **WAL** (write-ahead log): readers never block the writer nor each other, so a gate's
  baseline read cannot hold up another gate's append; a writer killed mid-transaction
  leaves the file intact (its transaction is simply not there).
* **Short transactions**: an append is ``BEGIN IMMEDIATE``, two inserts, ``COMMIT``
  (``synchronous=NORMAL``: no fsync per commit; a killed writer loses nothing committed,
  a power cut at most the last commits); a lock held by another writer is waited for
  (``busy_timeout``, set before each statement to the time left) at most until the deadline.
* **The deadline, in the caller's thread**: a progress handler stops any statement still
  running at the deadline (``interrupted``: the transaction is rolled back, so an append is
  stored or not, never in between); nothing is left running after the call.
* **Bad bytes are data**: text columns are read as bytes and decoded per row, so one row
  whose text is not UTF-8 is a skipped row, not an unreadable history.

A file that is not a history is refused unchanged (:mod:`._schema`); one that does not exist
is created by the first append, never by a read.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from accelerators._text import printable
from accelerators.bench.history._deadline import Deadline
from accelerators.bench.history._schema import SQLITE, Db, Dialect, prepare
from accelerators.bench.history._sql import SqlStore, append_rows
from accelerators.bench.history._store import Limits
from accelerators.errors import AcceleratorError

__all__ = ["SqliteStore"]

#: How long to wait before trying the switch to write-ahead logging again (:meth:`_Sqlite.wal`).
_WAL_RETRY_S = 0.01
#: SQLite virtual-machine steps between two looks at the deadline (~a millisecond).
_STEPS = 5000


class SqliteStore(SqlStore):
    """Reports in one SQLite file; safe for several processes of one host (WAL, locking)."""

    def __init__(self, path: str | os.PathLike[str], *, limits: Limits | None = None):
        self.path = Path(path)
        self.location = printable(str(self.path))
        self.limits = limits or Limits.from_env()

    @contextmanager
    def _session(self, deadline: Deadline, *, write: bool) -> Iterator[Db | None]:
        if not write and not self.path.exists():
            yield None
            return
        what = "write" if write else "read"
        opened = _open(self.path, self.location, deadline, write=write)
        connection, fresh = opened.connection, opened.fresh
        end = deadline.end
        connection.set_progress_handler(lambda: time.monotonic() >= end, _STEPS)
        db = _Sqlite(connection, deadline)
        healthy = False
        try:
            if fresh:  # a file of our own: write-ahead logging before anything is in it
                db.wal()
            # Every session: another process may have migrated, or replaced, the file.
            if not prepare(db, self.location, create=write):
                healthy = True
                yield None
                return
            if write:
                db.wal()
            yield db
            healthy = True
        except sqlite3.Error as exc:
            if "interrupted" in str(exc):  # our progress handler stopped it at the deadline
                raise deadline.error(self.location) from exc
            if deadline.expired:  # e.g. "database is locked", tried until the deadline
                raise deadline.error(self.location, str(exc)) from exc
            raise AcceleratorError(
                f"Cannot {what} the bench history {self.location}: {exc}"
            ) from exc
        finally:
            connection.set_progress_handler(None, _STEPS)
            opened.release(healthy)


class _Opened:
    """This process's connection to one file, kept between sessions: closing the last
    connection to a WAL file checkpoints it (an fsync), so a gate's read and append, or an
    Airflow worker's many gates, share one. One session uses it at a time."""

    def __init__(self, connection: sqlite3.Connection, identity: tuple[int, int], fresh: bool):
        self.connection = connection
        self.identity = identity
        self.fresh = fresh
        self.lock = threading.Lock()
        self.key: tuple[int, str] = (0, "")

    def release(self, healthy: bool) -> None:
        self.fresh = False
        if not healthy:  # whatever went wrong, the next session starts afresh
            with _OPENED_LOCK:
                if _OPENED.get(self.key) is self:
                    del _OPENED[self.key]
            self.connection.close()
        self.lock.release()


_OPENED: dict[tuple[int, str], _Opened] = {}
_OPENED_LOCK = threading.Lock()


def _open(path: Path, location: str, deadline: Deadline, *, write: bool) -> _Opened:
    """The process's connection to ``path`` (opened, or created for a write, when there is
    none, or the file was replaced), locked for one session.

    :raises AcceleratorError: the file cannot be opened; the deadline passed while another
        session of this process used it.
    """
    key = (os.getpid(), os.path.realpath(path))  # a forked child never uses its parent's
    fresh = write and not path.exists()
    try:
        if write:
            path.parent.mkdir(parents=True, exist_ok=True)
        with _OPENED_LOCK:
            opened = _OPENED.get(key)
            if opened is not None and (fresh or opened.identity != _identity(path)):
                del _OPENED[key]  # the file was deleted or replaced: not ours any more
                opened = None
            if opened is None:
                connection = sqlite3.connect(
                    path,
                    timeout=max(deadline.left(), 0.001),
                    isolation_level=None,  # autocommit: transactions are ours
                    check_same_thread=False,
                )
                connection.text_factory = bytes  # decoded per row: a bad row is skipped
                try:
                    # With WAL, a commit is durable against a killed process without an
                    # fsync each (the last commits may be lost on power loss, never the file).
                    connection.execute("PRAGMA synchronous = NORMAL")
                except sqlite3.Error:
                    connection.close()  # not a database
                    raise
                opened = _OPENED[key] = _Opened(connection, _identity(path), fresh)
                opened.key = key
    except (OSError, sqlite3.Error) as exc:
        raise AcceleratorError(f"Cannot open the bench history {location}: {exc}") from exc
    if not opened.lock.acquire(timeout=deadline.left()):
        raise deadline.error(location)
    return opened


def _identity(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_dev, stat.st_ino


class _Sqlite:
    """A :class:`~._schema.Db` on one SQLite connection."""

    dialect: Dialect = SQLITE

    def __init__(self, connection: sqlite3.Connection, deadline: Deadline) -> None:
        self.connection = connection
        self.deadline = deadline

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        # A lock held by another process is waited for until the deadline, not longer: the
        # connection's timeout would allow each statement as long again.
        left = max(1, int(self.deadline.left() * 1000))
        self.connection.execute(f"PRAGMA busy_timeout = {left}")
        return self.connection.execute(sql, params)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._execute(sql, params).fetchall()

    def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._execute(sql, params)

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._execute("SELECT 1")
        self.connection.executemany(sql, rows)

    def insert_id(self, sql: str, params: Sequence[Any]) -> int:
        return int(self._execute(sql, params).lastrowid or 0)

    def append(self, report: Sequence[Any], summaries: Sequence[Sequence[Any]]) -> int:
        return append_rows(self, tuple(report), [tuple(s) for s in summaries])

    @contextmanager
    def write(self) -> Iterator[None]:
        if self.connection.in_transaction:  # a migration inside a backfill's transaction
            yield
            return
        self._execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.connection.rollback()  # nothing to do when the error already ended it
            raise
        self._execute("COMMIT")

    def lock(self) -> None:
        """``BEGIN IMMEDIATE`` already holds the file's write lock."""

    def tables(self) -> set[str]:
        rows = self.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
        return {bytes(name).decode("utf-8", "replace") for (name,) in rows}

    def columns(self, table: str) -> tuple[str, ...]:
        rows = self.rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", (table,))
        return tuple(bytes(name).decode("utf-8", "replace") for (name,) in rows)

    def wal(self) -> None:
        """Write-ahead logging, once per file (the mode is kept in the file).

        SQLite can refuse the switch with "database is locked" while other processes'
        connections open the new file (several gates creating one history together): the
        switch is tried again, briefly apart, until it is done or the deadline passes."""
        while True:
            try:
                (mode,) = self._execute("PRAGMA journal_mode").fetchone()
                if bytes(mode).lower() != b"wal":
                    self._execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or self.deadline.left() <= _WAL_RETRY_S:
                    raise
                time.sleep(_WAL_RETRY_S)
