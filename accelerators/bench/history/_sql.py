"""What the SQLite and PostgreSQL histories share: the same statements on the same tables.

An append is one short transaction: the compressed report and its summaries
(:mod:`._summary`), committed together or not at all. A query reads summaries only, newest
first, through an index (:mod:`._schema`): one statement per accelerator or node asked for,
``LIMIT``-ed, continuing after the last row of the previous page (keyset paging), so its cost
is the rows it returns, not the rows the history holds. Reports not summarised yet (from an
older layout, or rows another program inserted) are summarised by :func:`backfill`, newest
first and a batch at a time, within what the deadline leaves; one that cannot be is kept as a
``problem`` row: counted by every read that meets it, parsed never again.

A subclass opens a :class:`~._schema.Db` session (:meth:`SqlStore._session`) within a
:class:`~._deadline.Deadline`.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from accelerators.bench.history._check import BadRecord, Bounds
from accelerators.bench.history._deadline import Deadline
from accelerators.bench.history._schema import REPORTS, SUMMARIES, Db
from accelerators.bench.history._store import (
    HistoryRead,
    HistoryStore,
    Query,
    compressed,
    decode,
    sort_key,
)
from accelerators.bench.history._summary import Summarized, decode_summary, summarize, to_us
from accelerators.errors import AcceleratorError

__all__ = ["INSERT_REPORT", "INSERT_SUMMARY", "SqlStore", "append_rows", "backfill"]

#: Reports summarised per transaction by :func:`backfill`.
_BATCH = 64
#: Full reports read per session by :meth:`SqlStore.entries`.
_PAGE = 200
_COLUMNS = "report_id, accelerator, started_us, node, verdict, figures, problem"
_ORDER = "ORDER BY started_us DESC, report_id DESC, accelerator DESC"


class SqlStore(HistoryStore):
    """The history in SQL tables (:mod:`._schema`); subclasses open the sessions."""

    #: Whether a read first summarises a few reports that have no summary (an older
    #: layout's: SQLite files of releases before the summaries; appends do it always).
    _backfill_on_read = True

    @abstractmethod
    def _session(self, deadline: Deadline, *, write: bool) -> AbstractContextManager[Db | None]:
        """A session within ``deadline`` (``None``: a read of a history that holds nothing).

        :raises AcceleratorError: the store cannot be opened, is not ours, or the deadline
            passed (:class:`~._deadline.HistoryTimeout`).
        """

    # ---------------------------------------------------------------------------- writing
    def append_json(self, data: dict[str, Any]) -> None:
        made = summarize(data)  # the store's deadline starts when the store is asked
        self.warm()
        self._insert(data, made, self.limits.deadline())

    def append_within(self, data: dict[str, Any], deadline: Deadline) -> None:
        self._insert(data, summarize(data), deadline)

    def _insert(self, data: dict[str, Any], made: Summarized, deadline: Deadline) -> None:
        """One transaction: the compressed report and its summaries."""
        blob = compressed(data)
        started = datetime.fromisoformat(str(data["started_at"])).isoformat()
        with self._session(deadline, write=True) as session:
            db = _opened(session, self.location)
            db.append(
                (started, made.node, made.rows[0][0], made.verdict, blob),
                [(sku, made.started_us, made.node, made.verdict, text) for sku, text in made.rows],
            )
            # Stored. Older reports not summarised yet: a few, while time is plentiful.
            if deadline.left() > deadline.seconds / 2:
                backfill(db, Deadline(min(0.25, deadline.left() / 4)))

    # ---------------------------------------------------------------------------- reading
    def query(self, query: Query | None = None, *, deadline: Deadline | None = None) -> HistoryRead:
        (read,) = self.queries([query or Query()], deadline=deadline)
        return read

    def queries(
        self, queries: list[Query], *, deadline: Deadline | None = None
    ) -> list[HistoryRead]:
        if deadline is None:
            self.warm()
            deadline = self.limits.deadline()
        with self._session(deadline, write=False) as db:
            if db is None:
                return [HistoryRead() for _ in queries]
            if self._backfill_on_read:
                backfill(db, Deadline(deadline.left() / 4))
            return [self._answer(db, q) for q in queries]

    def _answer(self, db: Db, query: Query) -> HistoryRead:
        reads = [self._select(db, query, where) for where in _splits(query)]
        if len(reads) == 1:
            return reads[0]
        out = HistoryRead()
        for read in reads:
            out = out.merged(read, query.limit)
        return out

    def _select(self, db: Db, query: Query, where: list[tuple[str, Any]]) -> HistoryRead:
        clauses = [f"{column} ?" for column, _ in where]
        params: list[Any] = [value for _, value in where]
        if query.since is not None:
            clauses.append("started_us >= ?")
            params.append(to_us(query.since))
        if query.before is not None:
            clauses.append("(started_us, report_id, accelerator) < (?, ?, ?)")
            started, order, accelerator = sort_key(query.before)
            params += [started, int(order), accelerator]
        sql = f"SELECT {_COLUMNS} FROM {SUMMARIES}"
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        rows = db.rows(f"{sql} {_ORDER} LIMIT ?", [*params, query.limit + 1])
        out = HistoryRead(records=min(len(rows), query.limit), more=len(rows) > query.limit)
        bounds: dict[str, Bounds] = {}
        for report_id, sku, started_us, node, verdict, figures, problem in rows[: query.limit]:
            where_ = f"row {report_id}"
            try:
                if problem is not None:
                    raise BadRecord(_text(problem))
                out.summaries.append(
                    decode_summary(
                        where_, started_us, node, sku, verdict, figures, bounds, _order(report_id)
                    )
                )
            except BadRecord as exc:
                out.skipped.append(f"{where_}: {exc}")
        return out

    def reports(self) -> Iterator[dict[str, Any]]:
        for _, data in self.entries():
            if isinstance(data, dict):
                yield data

    def entries(self) -> Iterator[tuple[str, object]]:
        """Every full report, oldest first, read :data:`_PAGE` at a time (a short session
        each, within the store's deadline each)."""
        last: int | None = None  # the id of the last row read: its own started_at is
        # compared in the database (a row's TEXT comes back as bytes from SQLite, and a
        # bytes parameter would be a BLOB, which sorts after every TEXT)
        while True:
            with self._session(self.limits.deadline(), write=False) as db:
                if db is None:
                    return
                after = (
                    ""
                    if last is None
                    else f"WHERE (started_at, id) > ((SELECT started_at FROM {REPORTS} "
                    "WHERE id = ?), ?) "
                )
                rows = db.rows(
                    f"SELECT id, started_at, report FROM {REPORTS} {after}"
                    "ORDER BY started_at, id LIMIT ?",
                    [*(() if last is None else (last, last)), _PAGE],
                )
            for report_id, _, report in rows:
                yield f"row {report_id}", decode(report)
            if len(rows) < _PAGE:
                return
            last = rows[-1][0]

    def migrate(self, deadline: Deadline | None = None) -> int:
        """Summarise every report that has no summary yet (an older layout's, or a row
        another program inserted), within ``deadline``; how many were. Reads do it too, a
        little at a time (:func:`backfill`)."""
        with self._session(deadline or self.limits.deadline(), write=False) as db:
            return 0 if db is None else backfill(db, deadline or self.limits.deadline())


#: The statements of an append, as :func:`append_rows` runs them.
INSERT_REPORT = (
    f"INSERT INTO {REPORTS} (started_at, node, accelerator, verdict, report, summarized) "
    "VALUES (?, ?, ?, ?, ?, 1)"
)
INSERT_SUMMARY = f"INSERT INTO {SUMMARIES} ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, NULL)"


def append_rows(db: Db, report: tuple[Any, ...], summaries: list[tuple[Any, ...]]) -> int:
    """A report and its summaries in one write transaction; the report's id."""
    with db.write():
        report_id = db.insert_id(INSERT_REPORT, report)
        db.many(INSERT_SUMMARY, [(report_id, *row) for row in summaries])
    return report_id


def _splits(query: Query) -> list[list[tuple[str, Any]]]:
    """One indexed statement per accelerator and node asked for, each ``[(clause, value)]``."""
    accelerators = [[("accelerator =", a)] for a in query.accelerators] or [[]]
    nodes = [[("node =", n)] for n in query.nodes] or [[]]
    return [a + n for a in accelerators for n in nodes]


def _opened(db: Db | None, location: str) -> Db:
    """A write session's database (one is always opened, or created, for a write)."""
    if db is None:
        raise AcceleratorError(f"Cannot open the bench history {location}")
    return db


def _order(report_id: int) -> str:
    return f"{int(report_id):020d}"


def _text(value: object) -> str:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def backfill(db: Db, deadline: Deadline) -> int:
    """Summarise reports that have none yet, newest first, :data:`_BATCH` per transaction,
    until none is left or ``deadline`` passes; how many were. Never raises for a report
    (one that cannot be summarised becomes a ``problem`` row) nor for the deadline."""
    done = 0
    while not deadline.expired:
        rows = db.rows(
            f"SELECT id, started_at, node, accelerator, report FROM {REPORTS} "
            "WHERE summarized = 0 ORDER BY id DESC LIMIT ?",
            (_BATCH,),
        )
        if not rows:
            break
        values: list[tuple[Any, ...]] = []
        for report_id, started, node, accelerator, report in rows:
            data = decode(report)
            try:
                if isinstance(data, BadRecord):
                    raise data
                if not isinstance(data, dict):
                    raise BadRecord(f"a {type(data).__name__}, not a JSON object")
                made = summarize(data)
                values += [
                    (report_id, sku, made.started_us, made.node, made.verdict, text, None)
                    for sku, text in made.rows
                ]
            except BadRecord as exc:
                when = _micros(started)
                values.append(
                    (report_id, _text(accelerator or ""), when, _text(node), "", None, str(exc))
                )
        with db.write():
            db.many(
                f"INSERT INTO {SUMMARIES} ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                [tuple(_plain(v) for v in row) for row in values],
            )
            db.many(f"UPDATE {REPORTS} SET summarized = 1 WHERE id = ?", [(r[0],) for r in rows])
        done += len(rows)
    return done


def _plain(value: object) -> object:
    """A value as a column takes it: text that is not UTF-8 escaped, not raised over."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")[:1000]
    return value


def _micros(started: object) -> int:
    try:
        return to_us(datetime.fromisoformat(_text(started)))
    except (TypeError, ValueError):
        return 0
