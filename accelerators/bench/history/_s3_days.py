"""The S3 history's keys, partitioned by accelerator and day, and how one day is read.

Under ``s3://bucket/prefix/history-v1/``:

* ``reports/<accelerator>/<YYYY-MM-DD>/<name>.json.zlib``: each full report, compressed;
* ``summaries/<accelerator>/<YYYY-MM-DD>/<name>.json``: its summary, a few hundred bytes
  (:mod:`._summary`), with the report's key;
* ``summaries/<accelerator>/<YYYY-MM-DD>/~rollup-<...>.json``: many summaries of that day in
  one object, written by a reader that had to fetch them one by one (:func:`read_day`).

``<name>`` is ``<UTC start, sortable>_<node>_<random>``: a day's keys list in time order,
and writers never collide, so a fleet appends without locks. A baseline lists the days of
its accelerator, newest first, and reads each day's roll-ups and the summaries no roll-up
holds yet (those of the last quarter hour, or late writers): O(days) requests in the steady
state, never a full report. The accelerator and node in keys are percent-encoded.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, unquote

from accelerators.bench.history._check import BadRecord, Bounds
from accelerators.bench.history._deadline import Deadline
from accelerators.bench.history._s3_client import FETCHERS
from accelerators.bench.history._summary import Summary, decode_summary, from_us

__all__ = [
    "LAYOUT",
    "DayRead",
    "Want",
    "day_of",
    "name_of",
    "read_day",
    "sku_of",
    "sku_part",
]

#: The layout's folder under the store's prefix.
LAYOUT = "history-v1"
_ROLLUP = "~rollup-"
#: A summary whose run started this long ago may go into a roll-up.
_SETTLE_S = 15 * 60
#: Summaries of a day still open that make a roll-up worth writing.
_ROLLUP_MIN = 16
#: Summaries fetched (and rolled up) at a time.
_CHUNK = 128
#: Time left that a roll-up's PUT still needs.
_WRITE_S = 0.05
#: A summary object larger than this is skipped unread.
_MAX_SUMMARY = 1 << 20
_UNSAFE = re.compile(r"[^A-Za-z0-9.-]+")


def sku_part(accelerator: str) -> str:
    """An accelerator's name as one key segment (reversible)."""
    return quote(accelerator or "-", safe="")


def sku_of(part: str) -> str:
    text = unquote(part)
    return "" if text == "-" else text


def day_of(started_us: int) -> str:
    return from_us(started_us).strftime("%Y-%m-%d")


def name_of(started_us: int, node: str) -> str:
    """``<start>_<node>_<random>``: sorts by time within a day; unique per writer."""
    stamp = from_us(started_us).strftime("%Y%m%dT%H%M%S.%fZ")
    return f"{stamp}_{_UNSAFE.sub('-', node)[:64]}_{uuid.uuid4().hex[:8]}"


def _started_of(name: str) -> float | None:
    """When a summary's run started, from its name (seconds since the epoch)."""
    try:
        stamp = datetime.strptime(name[:23], "%Y%m%dT%H%M%S.%fZ").replace(tzinfo=UTC)
    except ValueError:
        return None
    return stamp.timestamp()


@dataclass
class DayRead:
    """One day's summaries of one accelerator, newest first, and what was skipped.

    :ivar entries: every summary object read (from roll-ups or one by one), by name: a
        second read of the day for more (another query's nodes) starts from them.
    """

    summaries: list[Summary] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    records: int = 0
    entries: dict[str, Any] = field(default_factory=dict)


Get = Callable[[str], bytes]
Put = Callable[[str, bytes], None]
Delete = Callable[[str], None]


@dataclass(frozen=True)
class Want:
    """What a query needs of a day: its newest ``limit`` summaries (started before
    ``before_us``, when paging), and every summary of ``nodes`` (matched on the node in the
    key, before anything is fetched)."""

    limit: int
    nodes: frozenset[str] = frozenset()
    before_us: int | None = None

    def pick(self, names: list[str]) -> list[str]:
        """Of ``names`` (newest first), those to fetch."""
        if self.before_us is not None:
            names = [n for n in names if (_started_of(n) or 0) * 1e6 <= self.before_us]
        keys = {_UNSAFE.sub("-", n)[:64] for n in self.nodes}
        return [n for i, n in enumerate(names) if i < self.limit or _node_of(n) in keys]

    def union(self, other: Want) -> Want:
        """What both need (of the same page)."""
        return Want(max(self.limit, other.limit), self.nodes | other.nodes, self.before_us)

    def covers(self, other: Want) -> bool:
        """Whether what this want read holds all ``other`` needs."""
        return (
            self.before_us == other.before_us
            and self.limit >= other.limit
            and other.nodes <= self.nodes
        )


def read_day(
    folder: str,
    keys: dict[str, int],
    store: tuple[Get, Put, Delete],
    want: Want,
    url: Callable[[str], str],
    deadline: Deadline,
    bounds: dict[str, Bounds],
    known: dict[str, Any] | None = None,
) -> DayRead:
    """One day: its roll-ups, then the summaries ``want`` asks for that none holds (fetched
    :data:`FETCHERS` at a time, :data:`_CHUNK` per round). The settled ones of each round
    become a roll-up when there are enough; four roll-ups or more are merged into one (best
    effort: only speed is at stake).

    :param folder: ``.../summaries/<sku>/<day>/``.
    :param keys: every key listed in ``folder`` with its size.
    :param store: how to get, put and delete an object by key.
    :param known: the entries an earlier read of the day in this batch found (its roll-ups
        are then not fetched again).
    :raises AcceleratorError: a request failed, or the deadline passed.
    """
    get, put, delete = store
    rollups = [k for k in keys if k[len(folder) :].startswith(_ROLLUP)]
    names = {k[len(folder) : -len(".json")]: k for k in keys if k not in rollups}
    held: dict[str, Any] = dict(known or {})
    for body in _fetch([] if known is not None else rollups, get):
        for entry in _entries(body):
            held.setdefault(entry[0], entry[1])
    missing = [n for n in want.pick(sorted(names, reverse=True)) if n not in held]
    fetched: dict[str, Any] = {}
    for start in range(0, len(missing), _CHUNK):
        # A chunk at a time, each rolled up once fetched: a read cut short by its deadline
        # still leaves the next one less to fetch.
        chunk = missing[start : start + _CHUNK]
        small = [n for n in chunk if keys[names[n]] <= _MAX_SUMMARY]
        bodies = _fetch([names[n] for n in small], get)
        got = {n: _loaded(b) for n, b in zip(small, bodies, strict=True)}
        for name in chunk:
            size = keys[names[name]]
            got.setdefault(name, {"problem": f"{size:,} bytes, more than a summary"})
        fetched.update(got)
        settled = _settled(folder, sorted(got))
        if settled and deadline.left() > _WRITE_S:
            _write(folder, {n: got[n] for n in settled}, put)
    out = DayRead(entries={**held, **fetched})
    for name in sorted(set(held) | set(fetched), reverse=True):
        where = url(names.get(name) or f"{folder}{name}.json")
        out.records += 1
        try:
            out.summaries.append(_summary(where, name, held.get(name, fetched.get(name)), bounds))
        except BadRecord as exc:
            out.skipped.append(f"{where}: {exc}")
    if known is None and len(rollups) >= 4 and deadline.left() > _WRITE_S:  # merge them
        _write(folder, held, put)
        for key in rollups:
            with contextlib.suppress(Exception):
                delete(key)
    return out


def _node_of(name: str) -> str:
    """The node part of ``<stamp>_<node>_<random>``."""
    return name[24:].rpartition("_")[0]


def _settled(folder: str, names: list[str]) -> list[str]:
    """Those of ``names`` that may go into a roll-up: started more than :data:`_SETTLE_S`
    ago; none unless there are :data:`_ROLLUP_MIN`, or the whole day has settled."""
    now = time.time()
    settled = [n for n in names if (_started_of(n) or now) < now - _SETTLE_S]
    if len(settled) < _ROLLUP_MIN and now < _day_end(folder) + _SETTLE_S:
        return []
    return settled


def _write(folder: str, entries: dict[str, Any], put: Put) -> None:
    if not entries:
        return
    body = json.dumps(
        {"summaries": [[n, entries[n]] for n in sorted(entries)]}, separators=(",", ":")
    ).encode("utf-8")
    key = f"{folder}{_ROLLUP}{max(entries)}-{uuid.uuid4().hex[:8]}.json"
    with contextlib.suppress(Exception):  # a roll-up only saves later reads time
        put(key, body)


def _summary(where: str, name: str, data: object, bounds: dict[str, Bounds]) -> Summary:
    if not isinstance(data, dict):
        raise BadRecord(f"a {type(data).__name__}, not a summary")
    if "problem" in data:
        raise BadRecord(str(data["problem"])[:300])
    return decode_summary(
        where,
        data.get("started_us"),
        data.get("node"),
        data.get("accelerator"),
        data.get("verdict"),
        data,
        bounds,
        name,
    )


def _loaded(body: bytes) -> Any:
    """A summary object's JSON, or a ``problem`` entry saying why it is not one."""
    try:
        data = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        return {"problem": "not UTF-8 text"}
    except (ValueError, RecursionError):
        return {"problem": "not JSON"}
    return data if isinstance(data, dict) else {"problem": f"a {type(data).__name__}"}


def _entries(body: bytes) -> list[list[Any]]:
    """A roll-up's ``[name, summary]`` pairs (a damaged roll-up holds none: its summaries are
    then fetched one by one again)."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return []
    entries = data.get("summaries") if isinstance(data, dict) else None
    return [e for e in entries or () if isinstance(e, list) and len(e) == 2 and _is_name(e[0])]


def _is_name(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) < 200


def _day_end(folder: str) -> float:
    day = folder.rstrip("/").rsplit("/", 1)[-1]
    try:
        start = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=UTC).timestamp()
    except ValueError:
        return float("inf")
    return start + 86_400


def _fetch(keys: Iterable[str], get: Get) -> list[bytes]:
    """Every key's body, in order, :data:`FETCHERS` at a time (the pool is joined: requests
    blocked past the deadline end when the client shuts their sockets)."""
    keys = list(keys)
    if len(keys) <= 1:
        return [get(k) for k in keys]
    pool = ThreadPoolExecutor(max_workers=FETCHERS, thread_name_prefix="accelerators-s3")
    try:
        futures = [pool.submit(get, k) for k in keys]
        return [f.result() for f in futures]
    finally:  # on a failure, what has not started never does
        pool.shutdown(wait=True, cancel_futures=True)
