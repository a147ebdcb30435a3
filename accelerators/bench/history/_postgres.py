"""The bench history in PostgreSQL: the database an Airflow or Flyte deployment already runs.

``postgresql://user@host:5432/db`` (any libpq URI; ``PGPASSWORD``, ``~/.pgpass`` and the
other libpq variables apply) in ``history=``, ``--history`` or ``ACCELERATORS_BENCH_HISTORY``.
The tables, statements and indexes are the SQLite store's (:mod:`._schema`, :mod:`._sql`),
created by the first append under an advisory lock; other tables of the database are
never touched. psycopg 3 is imported when the store is first used (extra ``[postgres]``).

**Pooled connections, no background threads.** A process keeps up to :data:`POOL_SIZE` idle
connections per database and reuses them (an Airflow worker or a notebook runs many gates);
a connection is opened in the caller's thread, when one is needed, within the deadline
(libpq's ``connect_timeout``, at least 2 s). A pool that connects from worker threads would
leave them retrying past a gate's deadline when the server hangs.

**The deadline.** Each session sets ``statement_timeout`` to the time left (a lock held by
another transaction is waited for no longer), and a :func:`~._deadline.watchdog` shuts the
connection's socket down at the deadline, so a server that stops answering ends the call
with an error. A commit that was sent but not answered is :class:`~._store.Unconfirmed`:
the report may be stored, and the gate says so rather than "not appended".
"""

from __future__ import annotations

import contextlib
import math
import os
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from accelerators._text import printable, redact
from accelerators.bench.history._deadline import Deadline, watchdog
from accelerators.bench.history._schema import META, POSTGRES, REPORTS, SUMMARIES, Db, prepare
from accelerators.bench.history._sql import INSERT_REPORT, SqlStore
from accelerators.bench.history._store import Limits, Unconfirmed
from accelerators.errors import AcceleratorError

__all__ = ["POOL_SIZE", "SCHEMES", "PostgresStore"]

#: URL schemes this store takes (libpq's).
SCHEMES = ("postgresql://", "postgres://")
#: Idle connections kept per database and process.
POOL_SIZE = 4
#: An idle connection older than this is closed instead of reused (servers drop them).
_IDLE_S = 60.0


class PostgresStore(SqlStore):
    """Reports in a PostgreSQL database."""

    _backfill_on_read = False  # no older layout: a read is one round trip fewer

    def __init__(self, url: str, *, limits: Limits | None = None) -> None:
        if not url.startswith(SCHEMES):
            raise AcceleratorError(
                f"Expected a postgresql://user@host/db URL, got '{printable(redact(url), 80)}'"
            )
        self.url = url
        self.location = printable(redact(url))
        self.limits = limits or Limits.from_env()

    def warm(self) -> None:
        with contextlib.suppress(AcceleratorError):  # a session says it, with the store
            _psycopg(self.location)

    @contextmanager
    def _session(self, deadline: Deadline, *, write: bool) -> Iterator[Db | None]:
        psycopg = _psycopg(self.location)
        pool = _pool(self.url)
        what = "write" if write else "read"
        try:
            connection = pool.take(deadline, self.limits.connect_timeout_s)
        except psycopg.Error as exc:
            if deadline.expired:
                raise deadline.error(self.location) from exc
            raise AcceleratorError(
                f"Cannot open the bench history {self.location}: {_message(exc)}"
            ) from exc
        db = _Postgres(connection, _ms(deadline))
        healthy = False
        try:
            with watchdog(deadline, lambda: _shut(connection)):
                if not pool.ready:
                    if not prepare(db, self.location, create=write):
                        healthy = True
                        yield None
                        return
                    pool.ready = True
                yield db
            healthy = True
        except psycopg.Error as exc:
            pool.ready = False
            if db.committing and getattr(exc, "sqlstate", None) is None:
                raise Unconfirmed(
                    f"The bench history {self.location} did not confirm the commit "
                    f"({_message(exc)}): the report may be stored"
                ) from exc
            if deadline.expired or isinstance(exc, psycopg.errors.QueryCanceled):
                raise deadline.error(self.location) from exc
            raise AcceleratorError(
                f"Cannot {what} the bench history {self.location}: {_message(exc)}"
            ) from exc
        finally:
            pool.give(connection, healthy)


class _Postgres:
    """A :class:`~._schema.Db` on one psycopg connection (autocommit; explicit BEGIN)."""

    dialect = POSTGRES

    def __init__(self, connection: Any, timeout_ms: str) -> None:
        self.connection = connection
        self.committing = False
        self._open = False
        self._timeout: str | None = timeout_ms  # sent with the session's first statement

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        values = list(params) or None
        if self._timeout is None:
            return self.connection.execute(_sql(sql), values)
        # The session's statement_timeout travels with its first statement: one round trip.
        timeout, self._timeout = self._timeout, None
        with self.connection.pipeline():
            self.connection.execute("SELECT set_config('statement_timeout', %s, false)", [timeout])
            return self.connection.execute(_sql(sql), values)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cursor = self._execute(sql, params)
        return cursor.fetchall() if cursor.description is not None else []

    def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._execute(sql, params)

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            with self.connection.cursor() as cursor:
                cursor.executemany(_sql(sql), [list(r) for r in rows])

    def insert_id(self, sql: str, params: Sequence[Any]) -> int:
        (row,) = self.rows(f"{sql} RETURNING id", params)
        return int(row[0])

    def append(self, report: Sequence[Any], summaries: Sequence[Sequence[Any]]) -> int:
        """One statement (its own transaction, in autocommit): the report, then its summaries
        from the id it was given; with the session's timeout, one round trip in all."""
        values = ", ".join(["(?, ?::bigint, ?, ?, ?)"] * len(summaries))
        sql = (
            f"WITH report AS ({INSERT_REPORT} RETURNING id) "
            f"INSERT INTO {SUMMARIES} (report_id, accelerator, started_us, node, verdict, "
            "figures) SELECT report.id, v.accelerator, v.started_us, v.node, v.verdict, "
            f"v.figures FROM report, (VALUES {values}) AS v(accelerator, started_us, node, "
            "verdict, figures) RETURNING report_id"
        )
        self.committing = True  # the statement is its transaction: no answer, maybe stored
        rows = self.rows(sql, [*report, *(value for row in summaries for value in row)])
        self.committing = False
        return int(rows[0][0])

    @contextmanager
    def write(self) -> Iterator[None]:
        if self._open:
            yield
            return
        self.connection.execute("BEGIN")
        self._open = True
        try:
            yield
        except BaseException:
            self._open = False
            self.connection.execute("ROLLBACK")
            raise
        self.committing = True  # from here, no answer means "maybe stored"
        self.connection.execute("COMMIT")
        self.committing = self._open = False

    def lock(self) -> None:
        """Serialise schema changes between processes (for this transaction)."""
        self.run("SELECT pg_advisory_xact_lock(?)", (_LOCK_KEY,))

    def tables(self) -> set[str]:
        names = ", ".join(f"'{n}'" for n in (META, REPORTS, SUMMARIES))
        rows = self.rows(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = "
            f"current_schema() AND table_name IN ({names})"
        )
        return {str(name) for (name,) in rows}

    def columns(self, table: str) -> tuple[str, ...]:
        rows = self.rows(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = "
            "current_schema() AND table_name = ? ORDER BY ordinal_position",
            (table,),
        )
        return tuple(str(name) for (name,) in rows)


#: ``pg_advisory_xact_lock`` key of schema changes ("accelerators bench history").
_LOCK_KEY = 0x61636365_6C626E68 & 0x7FFFFFFFFFFFFFFF


class _Pool:
    """Idle connections to one database, reused newest first; nothing runs in between."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ready = False  # the schema was checked by a session of this process
        self._idle: list[tuple[Any, float]] = []
        self._lock = threading.Lock()

    def take(self, deadline: Deadline, connect_timeout_s: float) -> Any:
        psycopg = _psycopg(self.url)
        with self._lock:
            while self._idle:
                connection, since = self._idle.pop()
                if time.monotonic() - since < _IDLE_S and not connection.closed:
                    return connection
                connection.close()
        seconds = max(2, math.ceil(min(connect_timeout_s, deadline.left())))
        return psycopg.connect(
            self.url,
            autocommit=True,
            connect_timeout=seconds,
            application_name="accelerators-bench-history",
        )

    def give(self, connection: Any, healthy: bool) -> None:
        from psycopg.pq import TransactionStatus

        idle = connection.info.transaction_status == TransactionStatus.IDLE
        with self._lock:
            if healthy and idle and not connection.closed and len(self._idle) < POOL_SIZE:
                self._idle.append((connection, time.monotonic()))
                return
        connection.close()


_POOLS: dict[str, _Pool] = {}
_POOLS_LOCK = threading.Lock()


def _pool(url: str) -> _Pool:
    with _POOLS_LOCK:
        if url not in _POOLS:
            _POOLS[url] = _Pool(url)
        return _POOLS[url]


def _psycopg(location: str) -> Any:
    try:
        import psycopg
    except ImportError as exc:
        raise AcceleratorError(
            f'The bench history {location} needs psycopg 3: pip install "accelerators[postgres]"'
        ) from exc
    return psycopg


def _shut(connection: Any) -> None:
    """End whatever the connection is blocked on: shut its socket down (from the watchdog)."""
    try:
        duplicate = socket.socket(fileno=os.dup(connection.pgconn.socket))
    except Exception:  # already closed: nothing is blocked on it
        return
    try:
        duplicate.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        duplicate.close()


def _sql(text: str) -> str:
    return text.replace("?", "%s")


def _ms(deadline: Deadline) -> str:
    """The session's ``statement_timeout``: a little before the deadline, so that a statement
    held up by a lock is cancelled by the server (rolled back: known not stored) before the
    watchdog shuts the socket (which leaves the outcome unknown)."""
    left = deadline.left() * 1000
    return str(max(1, int(left - min(250.0, left / 5))))


def _message(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return printable(redact(first), 300)
