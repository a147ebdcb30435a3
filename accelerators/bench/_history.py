"""A history of gate runs: append every report, read back each device's figures over time.

Two stores behind one interface, chosen by :func:`accelerators.bench._stores.open_store`:

* a local SQLite file (default: ``bench-history.sqlite`` in the user data directory:
  ``platformdirs.user_data_dir("accelerators")`` when platformdirs is installed, else
  ``$XDG_DATA_HOME/accelerators`` or ``~/.local/share/accelerators``), or a path you name;
* an S3 prefix, ``s3://bucket/prefix``, one JSON object per report (boto3, imported only
  there: :mod:`accelerators.bench._history_s3`), for a fleet whose nodes share nothing else.

Reports are stored whole (their JSON); reading flattens them into :class:`Figure` rows with
plain ``json`` (no pydantic), so a fleet's history of thousands of runs reads quickly.
The figure kept per kernel is the *sustained* one: the median of the timed calls.
"""

from __future__ import annotations

import json
import os
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelerators.errors import AcceleratorError

if TYPE_CHECKING:
    from accelerators.bench._report import BenchReport

__all__ = [
    "Figure",
    "HistoryStore",
    "SqliteStore",
    "figures_of",
]

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


@dataclass(frozen=True)
class Figure:
    """One sustained figure of one device in one run.

    :ivar node: the Kubernetes node (``report.node``) or else the host name.
    :ivar sku: the catalog name of the device, or its reported name when not in the catalog.
    :ivar metric: ``gemm.<dtype>`` (unit ``tflops``) or ``memory.<kernel>`` (unit ``gbps``).
    :ivar value: the median rate of the timed calls (the best call's when no median).
    """

    started_at: datetime
    node: str
    device_index: int
    sku: str
    metric: str
    value: float
    unit: str
    verdict: str


class HistoryStore(ABC):
    """Where reports go. :meth:`append` one report; :meth:`figures` read every figure back."""

    #: Where the store lives, for messages (a path or an ``s3://`` URL).
    location: str

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
        return mine[-limit:] if limit > 0 else []

    def append(self, report: BenchReport) -> None:
        """Store ``report``.

        :raises AcceleratorError: the store cannot be written.
        """
        self.append_json(report.model_dump(mode="json"))

    def figures(self) -> list[Figure]:
        """Every figure of every stored report, oldest first."""
        return [f for data in self.reports() for f in figures_of(data)]


def figures_of(data: dict[str, Any]) -> Iterator[Figure]:
    """The sustained figures of one report given as a JSON-mode dict."""
    started = datetime.fromisoformat(str(data["started_at"]))
    node = str(data.get("node") or data.get("host") or "unknown")
    for device in data.get("devices") or ():
        sku = str(device.get("accelerator") or device.get("name") or "unknown")
        if device.get("is_mig") and device.get("mig_profile"):
            sku += f"@{device['mig_profile']}"
        index = int(device.get("index", 0))
        verdict = str(device.get("verdict", data.get("verdict", "")))
        for g in device.get("gemm") or ():
            value = g.get("median_tflops") or g.get("tflops")
            if value:
                yield Figure(
                    started, node, index, sku, f"gemm.{g['dtype']}", value, "tflops", verdict
                )
        for m in device.get("memory") or ():
            value = m.get("median_gbps") or m.get("gbps")
            if value:
                yield Figure(
                    started, node, index, sku, f"memory.{m['kernel']}", value, "gbps", verdict
                )


class SqliteStore(HistoryStore):
    """Reports in one SQLite file; safe for several processes of one host (SQLite locking)."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self.location = str(self.path)

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=30)
            connection.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise AcceleratorError(
                f"Cannot open the bench history {self.location!r}: {exc}"
            ) from exc
        return connection

    def append_json(self, data: dict[str, Any]) -> None:
        connection = self._connect()
        try:
            with connection:
                connection.execute(
                    "INSERT INTO reports (started_at, node, accelerator, verdict, report) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (
                        str(data["started_at"]),
                        str(data.get("node") or data.get("host") or "unknown"),
                        (data.get("device") or {}).get("accelerator"),
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
        return [json.loads(text) for (text,) in reversed(rows)]

    def reports(self) -> Iterator[dict[str, Any]]:
        if not self.path.exists():
            return
        connection = self._connect()
        try:
            rows = connection.execute("SELECT report FROM reports ORDER BY started_at, id")
            for (text,) in rows:
                yield json.loads(text)
        except sqlite3.Error as exc:
            raise AcceleratorError(
                f"Cannot read the bench history {self.location!r}: {exc}"
            ) from exc
        finally:
            connection.close()
