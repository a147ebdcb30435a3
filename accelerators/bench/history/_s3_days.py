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
    """One day's summaries of one accelerator, newest first, and what was skipped."""

    summaries: list[Summary] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    records: int = 0


Get = Callable[[str], bytes]
Put = Callable[[str, bytes], None]


def read_day(
    folder: str,
    keys: dict[str, int],
    get: Get,
    put: Put,
    url: Callable[[str], str],
    deadline: Deadline,
    bounds: dict[str, Bounds],
) -> DayRead:
    """One day: its roll-ups, then the summaries none holds (fetched :data:`FETCHERS` at a
    time); a roll-up of those written when enough have settled (best effort).

    :param folder: ``.../summaries/<sku>/<day>/``.
    :param keys: every key listed in ``folder`` with its size.
    :raises AcceleratorError: a request failed, or the deadline passed.
    """
    rollups = [k for k in keys if k[len(folder) :].startswith(_ROLLUP)]
    names = {k[len(folder) : -len(".json")]: k for k in keys if k not in rollups}
    held: dict[str, Any] = {}
    for body in _fetch(rollups, get):
        for entry in _entries(body):
            held.setdefault(entry[0], entry)
    missing = sorted(n for n in names if n not in held)
    fetched: dict[str, Any] = {}
    small = [n for n in missing if keys[names[n]] <= _MAX_SUMMARY]
    for name, body in zip(small, _fetch([names[n] for n in small], get), strict=True):
        fetched[name] = _loaded(body)
    for name in missing:
        if name not in fetched:
            fetched[name] = {"problem": f"{keys[names[name]]:,} bytes, more than a summary"}
    out = DayRead()
    for name in sorted(names, reverse=True):
        entry = held.get(name) or [name, fetched.get(name)]
        out.records += 1
        try:
            out.summaries.append(_summary(url(names[name]), name, entry[1], bounds))
        except BadRecord as exc:
            out.skipped.append(f"{url(names[name])}: {exc}")
    _roll_up(folder, missing, fetched, put, deadline)
    return out


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


def _roll_up(
    folder: str, missing: list[str], fetched: dict[str, Any], put: Put, deadline: Deadline
) -> None:
    """Write the settled summaries of ``missing`` as one roll-up, when there are enough
    (any, once the whole day has settled) and time is left; a failure only costs speed."""
    now = time.time()
    settled = [n for n in missing if (_started_of(n) or now) < now - _SETTLE_S]
    day_end = _day_end(folder)
    if not settled or (len(settled) < _ROLLUP_MIN and now < day_end + _SETTLE_S):
        return
    if deadline.left() < deadline.seconds / 4:
        return
    body = json.dumps(
        {"summaries": [[n, fetched[n]] for n in settled]}, separators=(",", ":")
    ).encode("utf-8")
    key = f"{folder}{_ROLLUP}{settled[-1]}-{uuid.uuid4().hex[:8]}.json"
    try:
        put(key, body)
    except Exception:
        return


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
