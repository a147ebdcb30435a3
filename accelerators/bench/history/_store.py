"""A history of gate runs: append every report, read back the summaries a query asks for.

Three stores behind one interface, chosen by :func:`accelerators.bench.history._open.open_store`:

* a local SQLite file (default: ``bench-history.sqlite`` in the user data directory:
  ``platformdirs.user_data_dir("accelerators")`` when platformdirs is installed, else
  ``$XDG_DATA_HOME/accelerators`` or ``~/.local/share/accelerators``), or a path you name
  (:mod:`._sqlite`);
* a PostgreSQL database, ``postgresql://user@host/db`` (psycopg 3, imported only there:
  :mod:`._postgres`), for a fleet that already runs one (Airflow's, Flyte's);
* an S3 prefix, ``s3://bucket/prefix`` (boto3, imported only there: :mod:`._s3`), for a
  fleet whose nodes share nothing else.

Each keeps every report whole (compressed) and, beside it, a compact summary per accelerator
(:mod:`._summary`) indexed by accelerator, node and time. Reading is a :class:`Query`: the
newest summaries of some accelerators or nodes, since a time, a page at a time; a gate's
baseline reads the newest few hundred of its own SKU and node, so its cost does not grow
with the history (:mod:`._record`). Every summary is checked as it is read; one that is
malformed or physically impossible is counted and named in :attr:`HistoryRead.skipped`,
never used. How long a store may take is bounded by :class:`Limits` and, per operation, a
:class:`~._deadline.Deadline`.
"""

from __future__ import annotations

import heapq
import itertools
import json
import os
import zlib
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeGuard

from accelerators._text import quote
from accelerators.bench.history._check import BadRecord, Bounds, Figure, figures_of
from accelerators.bench.history._deadline import Deadline
from accelerators.bench.history._summary import Summary, decode_summary, summarize, to_us
from accelerators.errors import AcceleratorError

if TYPE_CHECKING:
    from accelerators.bench.report._models import BenchReport

__all__ = [
    "LIMIT_ENVS",
    "MAX_RECORD_BYTES",
    "Figure",
    "HistoryRead",
    "HistoryStore",
    "Limits",
    "Query",
    "Unconfirmed",
    "checked",
    "decode",
    "figures_of",
    "usable",
]

#: A stored report larger than this is skipped unread (an 8-GPU report is about 1.2 MB).
MAX_RECORD_BYTES = 16 << 20

#: The environment variables behind :class:`Limits` (seconds, and S3 attempts per request).
LIMIT_ENVS = {
    "deadline_s": "ACCELERATORS_BENCH_HISTORY_DEADLINE",
    "connect_timeout_s": "ACCELERATORS_BENCH_HISTORY_CONNECT_TIMEOUT",
    "read_timeout_s": "ACCELERATORS_BENCH_HISTORY_READ_TIMEOUT",
    "attempts": "ACCELERATORS_BENCH_HISTORY_ATTEMPTS",
}


@dataclass(frozen=True)
class Limits:
    """How long the history may take, so that it fits in the gate's own time budget.

    :ivar deadline_s: the most a gate's whole history step (its baseline read and its append
        together) may take; a read or append called on its own gets it too. Past it the gate
        goes on without the history (an ``info`` reason says so).
    :ivar connect_timeout_s: S3 and PostgreSQL: to open a connection.
    :ivar read_timeout_s: S3: to wait for an answer on an open connection.
    :ivar attempts: S3: tries per request, the first included (botocore's standard retries).
    """

    deadline_s: float = 5.0
    connect_timeout_s: float = 2.0
    read_timeout_s: float = 3.0
    attempts: int = 2

    @classmethod
    def from_env(cls) -> Limits:
        """The defaults, overridden by :data:`LIMIT_ENVS` that are set.

        :raises AcceleratorError: a value that is not a positive number (attempts: 1 to 10).
        """
        values: dict[str, Any] = {}
        for name, env in LIMIT_ENVS.items():
            text = os.environ.get(env, "").strip()
            if not text:
                continue
            try:
                value = int(text) if name == "attempts" else float(text)
            except ValueError:
                value = -1
            if name == "attempts" and not 1 <= value <= 10:
                raise AcceleratorError(
                    f"{env}: expected a whole number of attempts from 1 to 10, got {quote(text)}"
                )
            if not 0 < value <= 3600:
                raise AcceleratorError(
                    f"{env}: expected seconds, a number above 0 and at most 3600, got {quote(text)}"
                )
            values[name] = value
        return cls(**values)

    def deadline(self) -> Deadline:
        """A deadline of :attr:`deadline_s` from now."""
        return Deadline(self.deadline_s)


class Unconfirmed(AcceleratorError):
    """An append whose outcome is unknown: the store stopped answering after the report was
    sent, so it may be stored or not (never reported as "not appended")."""


@dataclass(frozen=True)
class Query:
    """Which summaries to read: the newest first, at most ``limit``.

    :ivar accelerators: only these SKUs (catalog names, or a CPU's name); all when empty.
    :ivar nodes: only these nodes; all when empty.
    :ivar since: only runs that started at or after this time.
    :ivar before: only summaries older than this one (the last of the previous page).
    """

    accelerators: tuple[str, ...] = ()
    nodes: tuple[str, ...] = ()
    since: datetime | None = None
    before: Summary | None = None
    limit: int = 1000

    def matches(self, summary: Summary) -> bool:
        """Whether ``summary`` is one this query asks for (stores that scan use it)."""
        if self.accelerators and summary.accelerator not in self.accelerators:
            return False
        if self.nodes and summary.node not in self.nodes:
            return False
        if self.since is not None and summary.started_us < to_us(self.since):
            return False
        return self.before is None or sort_key(summary) < sort_key(self.before)


def sort_key(summary: Summary) -> tuple[int, str, str]:
    """How summaries are ordered (newest last): time, then the store's own order."""
    return summary.started_us, summary.order, summary.accelerator


@dataclass
class HistoryRead:
    """What a read of the history found, newest first: its good summaries, and the others.

    :ivar records: summaries (and records that could not be summarised) read.
    :ivar skipped: one line per record that was not used, naming it and what is wrong.
    :ivar more: the query's limit cut the read (older summaries remain).
    """

    summaries: list[Summary] = field(default_factory=list)
    records: int = 0
    skipped: list[str] = field(default_factory=list)
    more: bool = False

    @property
    def figures(self) -> list[Figure]:
        """Every figure of every good summary, oldest first."""
        return [f for s in reversed(self.summaries) for f in s.figures()]

    def merged(self, other: HistoryRead, limit: int) -> HistoryRead:
        """This read and ``other`` (another query's), newest first, at most ``limit``."""
        both = list(heapq.merge(self.summaries, other.summaries, key=sort_key, reverse=True))
        return HistoryRead(
            both[:limit],
            self.records + other.records,
            self.skipped + other.skipped,
            self.more or other.more or len(both) > limit,
        )


class HistoryStore(ABC):
    """Where reports go. :meth:`append` one report; :meth:`query` summaries back.

    A store of your own implements :meth:`append_json` and :meth:`reports` (or
    :meth:`entries`, to name its records in messages); its queries then scan every report
    (the built-in stores answer them from indexes), and it bounds its own time.
    """

    #: Where the store lives, for messages (a path, an ``s3://`` or ``postgresql://`` URL,
    #: control characters escaped and passwords masked).
    location: str
    #: How long it may take (:meth:`Limits.from_env` unless given).
    limits: Limits = Limits()

    @abstractmethod
    def append_json(self, data: dict[str, Any]) -> None:
        """Store one report given as its JSON-mode dict."""

    @abstractmethod
    def reports(self) -> Iterator[dict[str, Any]]:
        """Every stored report as a JSON-mode dict, oldest first."""

    def entries(self) -> Iterator[tuple[str, object]]:
        """``(where, decoded record)`` for every stored full report; a record that could not
        even be decoded comes as a :class:`BadRecord`. Default: :meth:`reports`, numbered."""
        for number, data in enumerate(self.reports(), 1):
            yield f"report {number}", data

    def warm(self) -> None:
        """Load what the store needs (a driver, a client) ahead of its first deadline: local
        work, not the store's answer (a gate calls it before its history budget starts).
        Default: nothing to load."""
        return

    def append(self, report: BenchReport, *, deadline: Deadline | None = None) -> None:
        """Store ``report`` within ``deadline`` (default: :attr:`limits`' deadline).

        :raises AcceleratorError: the store cannot be written, or a figure of the report is
            physically impossible (:class:`~accelerators.bench.history._check.BadRecord`);
            :class:`Unconfirmed` when it may have been stored all the same.
        """
        data = report.model_dump(mode="json")
        checked(data)
        self.append_within(data, deadline or self.limits.deadline())

    def append_within(self, data: dict[str, Any], deadline: Deadline) -> None:
        """:meth:`append_json` within ``deadline`` (the built-in stores keep to it)."""
        self.append_json(data)

    def query(self, query: Query | None = None, *, deadline: Deadline | None = None) -> HistoryRead:
        """The summaries ``query`` asks for (default: the newest 1,000), newest first.

        This default summarises every stored report (its cost grows with the history); the
        built-in stores answer from their indexes.

        :raises AcceleratorError: the store cannot be read at all, or not within
            ``deadline`` (default: :attr:`limits`' deadline).
        """
        query = query or Query()
        deadline = deadline or self.limits.deadline()
        found: list[Summary] = []
        out = HistoryRead()
        bounds: dict[str, Bounds] = {}
        for where, data in self.entries():
            deadline.check(self.location)
            out.records += 1
            try:
                if isinstance(data, BadRecord):
                    raise data
                made = summarize(_mapping(data))
                for accelerator, text in made.rows:
                    summary = decode_summary(
                        where, made.started_us, made.node, accelerator, made.verdict, text, bounds
                    )
                    if query.matches(summary):
                        found.append(summary)
            except BadRecord as exc:
                out.skipped.append(f"{where}: {exc}")
        found.sort(key=sort_key, reverse=True)
        out.summaries, out.more = found[: query.limit], len(found) > query.limit
        return out

    def queries(
        self, queries: list[Query], *, deadline: Deadline | None = None
    ) -> list[HistoryRead]:
        """Several queries within one deadline (the SQL stores answer them in one session)."""
        deadline = deadline or self.limits.deadline()
        return [self.query(q, deadline=deadline) for q in queries]

    def migrate(self, deadline: Deadline | None = None) -> int:
        """Bring records of an older layout into the current one, within ``deadline``; how
        many were (``accelerators bench history --migrate``). Default: none to bring."""
        return 0

    def read(self, query: Query | None = None) -> HistoryRead:
        """:meth:`query` (kept for callers of earlier versions)."""
        return self.query(query)

    def figures(self, query: Query | None = None) -> list[Figure]:
        """The figures of the summaries ``query`` asks for, oldest first."""
        return self.query(query).figures

    def pages(
        self, query: Query, *, page: int = 1000, deadline: Deadline | None = None
    ) -> Iterator[HistoryRead]:
        """``query`` read a page of ``page`` summaries at a time, newest first, until its
        limit: each page is one indexed read, continuing where the last one stopped."""
        deadline = deadline or self.limits.deadline()
        left = query.limit
        before = query.before
        for _ in itertools.count():
            size = min(page, left)
            if size <= 0:
                return
            step = Query(query.accelerators, query.nodes, query.since, before, size)
            read = self.query(step, deadline=deadline)
            yield read
            left -= len(read.summaries)
            if not read.more or not read.summaries:
                return
            before = read.summaries[-1]


def _mapping(data: object) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise BadRecord(f"a {type(data).__name__}, not a JSON object")
    return data


def usable(data: object) -> TypeGuard[dict[str, Any]]:
    """Whether ``data`` is a report the history can use (:func:`checked` does not raise)."""
    try:
        checked(data)
    except BadRecord:
        return False
    return True


def checked(data: object) -> None:
    """Raise :class:`BadRecord` unless ``data`` is a report the history can use."""
    figures_of(data)


def decode(text: object) -> object:
    """A stored record (JSON text, or a compressed report as the stores write it) as data,
    or a :class:`BadRecord` saying why it is not."""
    if isinstance(text, bytes | bytearray | memoryview):
        raw = bytes(text)
        if raw[:1] == b"x":  # a zlib stream: how the stores keep full reports
            try:
                inflater = zlib.decompressobj()
                raw = inflater.decompress(raw, MAX_RECORD_BYTES + 1)
            except zlib.error:
                return BadRecord("not a compressed report")
            if len(raw) > MAX_RECORD_BYTES or inflater.unconsumed_tail:
                return BadRecord(f"more than a report ({MAX_RECORD_BYTES:,} bytes) uncompressed")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return BadRecord("not UTF-8 text")
    if not isinstance(text, str):
        return BadRecord(f"a {type(text).__name__}, not JSON text")
    if len(text) > MAX_RECORD_BYTES:
        return BadRecord(f"{len(text):,} characters, more than a report ({MAX_RECORD_BYTES:,})")
    try:
        return json.loads(text)
    except RecursionError:
        return BadRecord("JSON nested too deep")
    except ValueError as exc:
        return BadRecord(f"not JSON ({str(exc)[:80]})")


def compressed(data: dict[str, Any]) -> bytes:
    """A report as the stores keep it: compact JSON, zlib-compressed (~30 x smaller)."""
    return zlib.compress(json.dumps(data, separators=(",", ":")).encode("utf-8"), 6)
