"""The bench history on S3: a report and its summary per object, by accelerator and day.

The layout (:mod:`._s3_days`) lets a fleet append without locks (every writer its own keys)
and a gate read its baseline from the days of its own accelerator, newest first, in small
summary objects and roll-ups of them: never every report. Every request has short connect
and read timeouts and a bounded number of attempts, and a whole read or append ends at its
deadline, in the caller's thread, with nothing left running (:mod:`._s3_client`). Errors name
the store, never a password in the endpoint URL (:func:`~accelerators._text.redact`).

Objects of the first layout (``<prefix>/<node>/<started_at>-<random>.json``, one full report
each, releases before the summaries) are not read by queries; ``accelerators bench history
--migrate`` (:meth:`S3Store.migrate`) moves them into this layout.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from accelerators._text import printable
from accelerators.bench.history._check import BadRecord, Bounds
from accelerators.bench.history._deadline import Deadline
from accelerators.bench.history._s3_client import DeadlineClient
from accelerators.bench.history._s3_days import (
    LAYOUT,
    DayRead,
    Want,
    day_of,
    name_of,
    read_day,
    sku_of,
    sku_part,
)
from accelerators.bench.history._store import (
    MAX_RECORD_BYTES,
    HistoryRead,
    HistoryStore,
    Limits,
    Query,
    Unconfirmed,
    compressed,
    decode,
)
from accelerators.bench.history._summary import day_start, summarize
from accelerators.errors import AcceleratorError

__all__ = ["MAX_DAYS", "S3Store"]

#: Errors that say a request never reached the server (nothing can have been stored).
_UNSENT = ("EndpointConnectionError", "ConnectTimeoutError", "HistoryTimeout")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
#: Days a query without ``since`` reads at most (of those that have reports), newest first:
#: a small fleet's 512 newest reports may span months, and each day costs requests.
MAX_DAYS = 31


class S3Store(HistoryStore):
    """Reports as objects under ``s3://bucket/prefix``."""

    def __init__(
        self, bucket: str, prefix: str = "", *, client: Any = None, limits: Limits | None = None
    ):
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.location = printable(f"s3://{bucket}/{self.prefix}".rstrip("/"))
        self.limits = limits or Limits.from_env()
        self._io = DeadlineClient(self.location, self.limits, client)

    @classmethod
    def from_url(cls, url: str, *, client: Any = None, limits: Limits | None = None) -> S3Store:
        """``s3://bucket/prefix`` to a store.

        :raises AcceleratorError: the URL has no bucket.
        """
        rest = url.removeprefix("s3://")
        bucket, _, prefix = rest.partition("/")
        if not bucket:
            raise AcceleratorError(
                f"Expected the bench history as s3://bucket/prefix, got '{printable(url, 80)}' "
                "(no bucket)"
            )
        return cls(bucket, prefix, client=client, limits=limits)

    @property
    def client(self) -> Any:
        """The boto3 client (made on first use)."""
        return self._io.client

    def warm(self) -> None:
        with contextlib.suppress(AcceleratorError):  # a request says it, with the store
            self._io.client  # noqa: B018 - boto3 imported and the client made

    def _key(self, *parts: str) -> str:
        return "/".join(p for p in (self.prefix, *parts) if p)

    def _url(self, key: str) -> str:
        return printable(f"s3://{self.bucket}/{key}")

    # ---------------------------------------------------------------------------- writing
    def append_json(self, data: dict[str, Any]) -> None:
        self.append_within(data, self.limits.deadline())

    def append_within(self, data: dict[str, Any], deadline: Deadline) -> None:
        made = summarize(data)  # BadRecord for a report the history cannot use
        name, day = name_of(made.started_us, made.node), day_of(made.started_us)
        report = self._key(LAYOUT, "reports", sku_part(made.rows[0][0]), day, f"{name}.json.zlib")
        with self._io.within(deadline) as client:
            try:
                client.put_object(Bucket=self.bucket, Key=report, Body=compressed(data))
            except Exception as exc:  # no summary yet: the history does not hold it
                raise self._io.error("write", exc, deadline) from exc
            for sku, text in made.rows:
                body = {
                    "node": made.node,
                    "started_us": made.started_us,
                    "accelerator": sku,
                    "verdict": made.verdict,
                    "report": report,
                    **json.loads(text),
                }
                key = self._key(LAYOUT, "summaries", sku_part(sku), day, f"{name}.json")
                sent = self._io.sent
                try:
                    client.put_object(
                        Bucket=self.bucket,
                        Key=key,
                        Body=json.dumps(body, separators=(",", ":")).encode(),
                        ContentType="application/json",
                    )
                except Exception as exc:
                    raise self._put_error(exc, deadline, self._io.sent - sent) from exc

    def _put_error(self, exc: BaseException, deadline: Deadline, attempts: int) -> AcceleratorError:
        """Known not stored: the server refused it (4xx), or one attempt never reached it;
        else (no answer, 5xx, retries) it may be stored: :class:`Unconfirmed`."""
        status = getattr(exc, "response", {}).get("ResponseMetadata", {}).get("HTTPStatusCode")
        unsent = type(exc).__name__ in _UNSENT and attempts <= 1
        if unsent or (isinstance(status, int) and 400 <= status < 500):
            return self._io.error("write", exc, deadline)
        return Unconfirmed(
            f"The bench history {self.location} did not confirm the report's summary "
            f"({type(exc).__name__}): it may be stored"
        )

    # ---------------------------------------------------------------------------- reading
    def query(self, query: Query | None = None, *, deadline: Deadline | None = None) -> HistoryRead:
        (read,) = self.queries([query or Query()], deadline=deadline)
        return read

    def queries(
        self, queries: list[Query], *, deadline: Deadline | None = None
    ) -> list[HistoryRead]:
        """Each query walks the days of its accelerators newest first: a query by node only,
        beside queries by accelerator (a gate's), the days they read; alone, every
        accelerator's."""
        deadline = deadline or self.limits.deadline()
        named = sorted({a for q in queries for a in q.accelerators})
        cache = _Cache()
        with self._io.within(deadline) as client:
            try:
                every = named or [sku_of(p) for p in self._folders(client, "summaries/")]
                return [
                    self._walk(client, list(q.accelerators) or every, q, cache, deadline)
                    if q.accelerators or not named
                    # A query by node beside queries by accelerator (a gate's own runs beside
                    # its fleet's): the days those read, no others. Each day costs requests.
                    else self._walk(client, named, q, cache, deadline, walked=True)
                    for q in queries
                ]
            except Exception as exc:
                raise self._io.error("read", exc, deadline) from exc

    def _walk(
        self,
        client: Any,
        skus: list[str],
        query: Query,
        cache: _Cache,
        deadline: Deadline,
        *,
        walked: bool = False,
    ) -> HistoryRead:
        out = HistoryRead()
        for sku in skus:
            read = HistoryRead()
            if sku not in cache.folders:
                cache.folders[sku] = self._folders(client, f"summaries/{sku_part(sku)}/")
            days = sorted((d for d in cache.folders[sku] if _DAY.fullmatch(d)), reverse=True)
            if query.before is not None:
                days = [d for d in days if day_start(d) <= query.before.started_us]
            if query.since is not None:
                days = [d for d in days if d >= query.since.strftime("%Y-%m-%d")]
            else:  # O(days): the newest days that have reports, not every day there was
                read.more = len(days) > MAX_DAYS
                days = days[:MAX_DAYS]
            if walked:
                days = [d for d in days if (sku, d) in cache.days]
            for day in days:
                # What this query still needs of the day: the newest it lacks (none for a
                # query by node), and its nodes' summaries (found by the key, unfetched).
                need = 0 if query.nodes else query.limit + 1 - len(read.summaries)
                before = query.before.started_us if query.before is not None else None
                want = Want(need, frozenset(query.nodes), before)
                cached = cache.days.get((sku, day))
                if cached is not None and not cached[0].covers(want):
                    want = cached[0].union(want)  # read again, for both: listed once
                if cached is None or not cached[0].covers(want):
                    known = cached[1].entries if cached is not None else None
                    found = self._day(client, sku, day, want, cache, deadline, known)
                    cache.days[sku, day] = (want, found)
                found = cache.days[sku, day][1]
                read.records += found.records
                read.skipped += found.skipped
                read.summaries += [s for s in found.summaries if query.matches(s)]
                if len(read.summaries) > query.limit:
                    read.more = True
                    break
            read.summaries = read.summaries[: query.limit]
            out = out.merged(read, query.limit)
        return out

    def _day(
        self,
        client: Any,
        sku: str,
        day: str,
        want: Want,
        cache: _Cache,
        deadline: Deadline,
        known: dict[str, Any] | None = None,
    ) -> DayRead:
        folder = self._key(LAYOUT, "summaries", sku_part(sku), day) + "/"

        def put(key: str, body: bytes) -> None:
            client.put_object(Bucket=self.bucket, Key=key, Body=body)

        def delete(key: str) -> None:
            client.delete_object(Bucket=self.bucket, Key=key)

        if (sku, day) not in cache.listings:
            cache.listings[sku, day] = self._list(client, folder)
        keys = cache.listings[sku, day]
        calls = (self._getter(client), put, delete)
        return read_day(folder, keys, calls, want, self._url, deadline, cache.bounds, known)

    def _getter(self, client: Any) -> Any:
        def get(key: str) -> bytes:
            try:
                body = client.get_object(Bucket=self.bucket, Key=key)["Body"]
            except Exception as exc:  # a roll-up merged away since it was listed: empty
                code = getattr(exc, "response", {}).get("Error", {}).get("Code")
                if code in ("NoSuchKey", "404"):
                    return b""
                raise
            try:
                return bytes(body.read(MAX_RECORD_BYTES + 1))
            finally:
                body.close()

        return get

    def _list(self, client: Any, prefix: str) -> dict[str, int]:
        """Every key under ``prefix`` with its size."""
        found: dict[str, int] = {}
        pages = client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix)
        for page in pages:
            for item in page.get("Contents", ()):
                size = item.get("Size")
                found[str(item.get("Key", ""))] = size if isinstance(size, int) else 0
        return found

    def _folders(self, client: Any, under: str) -> list[str]:
        """The folder names right under ``<prefix>/history-v1/<under>``."""
        prefix = self._key(LAYOUT, under.rstrip("/")) + "/"
        paginator = client.get_paginator("list_objects_v2")
        names = []
        for page in paginator.paginate(Bucket=self.bucket, Prefix=prefix, Delimiter="/"):
            for common in page.get("CommonPrefixes", ()):
                names.append(str(common.get("Prefix", ""))[len(prefix) :].rstrip("/"))
        return names

    # ------------------------------------------------------------------ whole reports, layout
    def reports(self) -> Iterator[dict[str, Any]]:
        for _, data in self.entries():
            if isinstance(data, dict):
                yield data

    def entries(self) -> Iterator[tuple[str, object]]:
        """Every full report (this layout's and the first layout's), oldest first, within
        the store's deadline."""
        deadline = self.limits.deadline()
        with self._io.within(deadline) as client:
            try:
                keys = [
                    k
                    for k, size in self._list(client, self._key(LAYOUT, "reports") + "/").items()
                    if size <= MAX_RECORD_BYTES
                ]
                keys += self._legacy(client)
                get = self._getter(client)
                found = [(self._url(k), decode(get(k))) for k in keys]
            except Exception as exc:
                raise self._io.error("read", exc, deadline) from exc
        found.sort(key=_started)
        yield from found

    def _legacy(self, client: Any) -> list[str]:
        """Keys of the first layout (``<prefix>/<node>/...json``)."""
        top = self._key() + "/" if self.prefix else ""
        paginator = client.get_paginator("list_objects_v2")
        keys: list[str] = []
        for page in paginator.paginate(Bucket=self.bucket, Prefix=top, Delimiter="/"):
            for common in page.get("CommonPrefixes", ()):
                folder = str(common.get("Prefix", ""))
                if folder != f"{top}{LAYOUT}/":
                    keys += [k for k in self._list(client, folder) if k.endswith(".json")]
        return keys

    def migrate(self, deadline: Deadline | None = None) -> int:
        """Move the first layout's reports into this one (each stored anew, then its old
        object deleted; one that is not a usable report stays where it is); how many."""
        deadline = deadline or self.limits.deadline()
        moved = 0
        with self._io.within(deadline) as client:
            legacy = self._legacy(client)
            get = self._getter(client)
        for key in legacy:
            with self._io.within(deadline) as client:
                data = decode(get(key))
            if isinstance(data, BadRecord) or not isinstance(data, dict):
                continue
            try:
                self.append_within(data, deadline)
            except BadRecord:
                continue
            with self._io.within(deadline) as client:
                client.delete_object(Bucket=self.bucket, Key=key)
            moved += 1
        return moved


@dataclass
class _Cache:
    """What one batch of queries has read: each accelerator's days, each day's summaries."""

    folders: dict[str, list[str]] = field(default_factory=dict)
    listings: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    days: dict[tuple[str, str], tuple[Want, DayRead]] = field(default_factory=dict)
    bounds: dict[str, Bounds] = field(default_factory=dict)


def _started(entry: tuple[str, object]) -> tuple[str, str]:
    """Oldest first; records of the same time in key order (as listed)."""
    data = entry[1]
    started = data.get("started_at") if isinstance(data, dict) else None
    return (started if isinstance(started, str) else "", entry[0])
