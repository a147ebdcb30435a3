"""A history of gate runs: append every report, read back each device's figures over time.

Two stores behind one interface, chosen by :func:`accelerators.bench.history._open.open_store`:

* a local SQLite file (default: ``bench-history.sqlite`` in the user data directory:
  ``platformdirs.user_data_dir("accelerators")`` when platformdirs is installed, else
  ``$XDG_DATA_HOME/accelerators`` or ``~/.local/share/accelerators``), or a path you name;
* an S3 prefix, ``s3://bucket/prefix``, one JSON object per report (boto3, imported only
  there: :mod:`accelerators.bench.history._s3`), for a fleet whose nodes share nothing else.

Reports are stored whole (their JSON); reading flattens them into :class:`Figure` rows with
plain ``json`` (no pydantic), so a fleet's history of thousands of runs reads quickly.
The figure kept per kernel is the *sustained* one: the median of the timed calls.

Every record is checked as it is read (:mod:`accelerators.bench.history._check`): one that is
malformed or physically impossible is skipped and named in :attr:`HistoryRead.skipped`, never
used. How long a store may take is bounded by :class:`Limits` (from the environment by
default), so a slow or hanging store cannot hold up a gate.
"""

from __future__ import annotations

import json
import os
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from accelerators._text import quote
from accelerators.bench.history._check import BadRecord, Figure, figures_of
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
    "SqliteStore",
    "figures_of",
]

#: A stored report larger than this is skipped unread (an 8-GPU report is about 1.2 MB).
MAX_RECORD_BYTES = 16 << 20

_SCHEMA = """
CREATE TABLE IF NOT EXISTS reports (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at TEXT NOT NULL,
    node TEXT NOT NULL,
    accelerator TEXT,
    verdict TEXT NOT NULL,
    report TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS reports_node ON reports (node, started_at);
"""

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

    :ivar deadline_s: the most one read or one append may take in all; after it the gate goes
        on without the history (an ``info`` reason says so). Also SQLite's lock wait.
    :ivar connect_timeout_s: S3: to open a connection.
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


@dataclass
class HistoryRead:
    """What a read of the history found: the figures of its good records, and the others.

    :ivar skipped: one line per record that was not used, naming it and what is wrong.
    """

    figures: list[Figure] = field(default_factory=list)
    records: int = 0
    skipped: list[str] = field(default_factory=list)


class HistoryStore(ABC):
    """Where reports go. :meth:`append` one report; :meth:`read` every figure back.

    A store of your own implements :meth:`append_json` and :meth:`reports` (or
    :meth:`entries`, to name its records in messages).
    """

    #: Where the store lives, for messages (a path or an ``s3://`` URL).
    location: str
    #: How long it may take (:meth:`Limits.from_env` unless given).
    limits: Limits = Limits()

    @abstractmethod
    def append_json(self, data: dict[str, Any]) -> None:
        """Store one report given as its JSON-mode dict."""

    @abstractmethod
    def reports(self) -> Iterator[dict[str, Any]]:
        """Every stored report as a JSON-mode dict, oldest first."""

    def node_reports(self, node: str, limit: int) -> list[dict[str, Any]]:
        """The latest ``limit`` reports of ``node`` (its ``node``, else its ``host``), oldest
        first. Stores with an index on the node override this scan of every report."""
        mine = [d for d in self.reports() if str(d.get("node") or d.get("host")) == node]
        return [d for d in mine if usable(d)][-limit:] if limit > 0 else []

    def entries(self) -> Iterator[tuple[str, object]]:
        """``(where, decoded record)`` for every stored record; a record that could not even
        be decoded comes as a :class:`BadRecord`. Default: :meth:`reports`, numbered."""
        for number, data in enumerate(self.reports(), 1):
            yield f"report {number}", data

    def append(self, report: BenchReport) -> None:
        """Store ``report``.

        :raises AcceleratorError: the store cannot be written, or a figure of the report is
            physically impossible (:class:`~accelerators.bench.history._check.BadRecord`).
        """
        data = report.model_dump(mode="json")
        checked(data)
        self.append_json(data)

    def read(self) -> HistoryRead:
        """Every good record's figures; the others named in :attr:`HistoryRead.skipped`.

        :raises AcceleratorError: the store cannot be read at all.
        """
        out = HistoryRead()
        for where, data in self.entries():
            out.records += 1
            try:
                if isinstance(data, BadRecord):
                    raise data
                out.figures.extend(figures_of(data))
            except BadRecord as exc:
                out.skipped.append(f"{where}: {exc}")
        return out

    def figures(self) -> list[Figure]:
        """Every figure of every good record (:meth:`read` without what it skipped)."""
        return self.read().figures


def _accelerator(data: dict[str, Any]) -> str | None:
    device = data.get("device")
    name = device.get("accelerator") if isinstance(device, dict) else None
    return name if isinstance(name, str) else None


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
    """A stored record's JSON text as data, or a :class:`BadRecord` saying why it is not."""
    if isinstance(text, bytes | bytearray | memoryview):
        try:
            text = bytes(text).decode("utf-8")
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


class SqliteStore(HistoryStore):
    """Reports in one SQLite file; safe for several processes of one host (SQLite locking)."""

    def __init__(self, path: str | os.PathLike[str], *, limits: Limits | None = None):
        self.path = Path(path)
        self.location = str(self.path)
        self.limits = limits or Limits.from_env()

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=self.limits.deadline_s)
            connection.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise AcceleratorError(
                f"Cannot open the bench history {self.location!r}: {exc}"
            ) from exc
        return connection

    def append_json(self, data: dict[str, Any]) -> None:
        checked(data)
        connection = self._connect()
        try:
            with connection:
                connection.execute(
                    "INSERT INTO reports (started_at, node, accelerator, verdict, report) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (
                        str(data["started_at"]),
                        str(data.get("node") or data.get("host") or "unknown"),
                        _accelerator(data),
                        str(data.get("verdict")),
                        json.dumps(data, separators=(",", ":")),
                    ),
                )
        except sqlite3.Error as exc:
            raise AcceleratorError(
                f"Cannot write the bench history {self.location!r}: {exc}"
            ) from exc
        finally:
            connection.close()

    def node_reports(self, node: str, limit: int) -> list[dict[str, Any]]:
        if not self.path.exists() or limit <= 0:
            return []
        connection = self._connect()
        try:
            rows = connection.execute(
                "SELECT report FROM reports WHERE node = ? ORDER BY started_at DESC, id DESC "
                "LIMIT ?",
                (node, limit),
            ).fetchall()
        except sqlite3.Error as exc:
            raise AcceleratorError(
                f"Cannot read the bench history {self.location!r}: {exc}"
            ) from exc
        finally:
            connection.close()
        # A damaged or impossible row is skipped here, as every reader of the history does.
        return [d for d in (decode(text) for (text,) in reversed(rows)) if usable(d)]

    def reports(self) -> Iterator[dict[str, Any]]:
        for _, data in self.entries():
            if isinstance(data, dict):
                yield data

    def entries(self) -> Iterator[tuple[str, object]]:
        if not self.path.exists():
            return
        connection = self._connect()
        try:
            rows = connection.execute(
                "SELECT id, CASE WHEN length(report) > ? THEN length(report) ELSE report END "
                "FROM reports ORDER BY started_at, id",
                (MAX_RECORD_BYTES,),
            )
            for number, text in rows:
                if isinstance(text, int):  # only its length was read: too large to be a report
                    yield f"row {number}", BadRecord(f"{text:,} characters, more than a report")
                else:
                    yield f"row {number}", decode(text)
        except sqlite3.Error as exc:
            raise AcceleratorError(
                f"Cannot read the bench history {self.location!r}: {exc}"
            ) from exc
        finally:
            connection.close()
