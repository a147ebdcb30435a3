"""The bench history on S3: one JSON object per report under a prefix (boto3, imported here).

Keys are ``<prefix>/<node>/<started_at>-<random>.json``: nodes never write the same key, so
a fleet appends without locks, and listing one node's prefix reads only its runs.
Credentials, region and endpoint come from boto3's usual chain (``AWS_ENDPOINT_URL`` for
MinIO, moto or another S3-compatible server).

Every request has short connect and read timeouts and a bounded number of attempts, and a
whole read or append stops at the store's deadline (:class:`~._history.Limits`): an endpoint
that accepts connections and never answers costs a gate seconds, not minutes. Objects are
fetched 8 at a time; one larger than :data:`~._history.MAX_RECORD_BYTES` is skipped unread.
Errors name the store, never a password in the endpoint URL (:func:`~accelerators._text.redact`).
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from accelerators._text import redact
from accelerators.bench.history._check import BadRecord
from accelerators.bench.history._store import (
    MAX_RECORD_BYTES,
    HistoryStore,
    Limits,
    checked,
    decode,
)
from accelerators.errors import AcceleratorError

__all__ = ["S3Store"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_FETCHERS = 8


class S3Store(HistoryStore):
    """Reports as objects under ``s3://bucket/prefix``."""

    def __init__(
        self, bucket: str, prefix: str = "", *, client: Any = None, limits: Limits | None = None
    ):
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.location = f"s3://{bucket}/{self.prefix}".rstrip("/")
        self.limits = limits or Limits.from_env()
        self._client = client
        self._lock = threading.Lock()

    @classmethod
    def from_url(cls, url: str, *, client: Any = None, limits: Limits | None = None) -> S3Store:
        """``s3://bucket/prefix`` to a store.

        :raises AcceleratorError: the URL has no bucket.
        """
        rest = url.removeprefix("s3://")
        bucket, _, prefix = rest.partition("/")
        if not bucket:
            raise AcceleratorError(
                f"Expected the bench history as s3://bucket/prefix, got {url!r} (no bucket)"
            )
        return cls(bucket, prefix, client=client, limits=limits)

    @property
    def client(self) -> Any:
        with self._lock:  # a read left behind at its deadline may still be making one
            return self._make_client()

    def _make_client(self) -> Any:
        if self._client is None:
            try:
                import boto3
                from botocore.config import Config
            except ImportError as exc:
                raise AcceleratorError(
                    f"The bench history {self.location} needs boto3: "
                    'pip install "accelerators[aws]"'
                ) from exc
            limits = self.limits
            config = Config(
                connect_timeout=limits.connect_timeout_s,
                read_timeout=limits.read_timeout_s,
                retries={"total_max_attempts": limits.attempts, "mode": "standard"},
                max_pool_connections=_FETCHERS + 2,
            )
            try:  # its own session: boto3's default one is not safe across threads
                self._client = boto3.Session().client("s3", config=config)
            except Exception as exc:  # a bad region or endpoint in the environment
                raise self._error("open", exc) from exc
        return self._client

    def _key(self, *parts: str) -> str:
        return "/".join(p for p in (self.prefix, *parts) if p)

    def _error(self, what: str, exc: BaseException) -> AcceleratorError:
        return AcceleratorError(
            f"Cannot {what} the bench history {self.location}: {redact(str(exc))}"
        )

    def append_json(self, data: dict[str, Any]) -> None:
        checked(data)
        node = _UNSAFE.sub("_", str(data.get("node") or data.get("host") or "unknown"))[:128]
        stamp = _UNSAFE.sub("_", str(data["started_at"]))[:64]
        key = self._key(node, f"{stamp}-{uuid.uuid4().hex[:8]}.json")
        body = json.dumps(data, separators=(",", ":")).encode("utf-8")
        client = self.client
        try:
            client.put_object(
                Bucket=self.bucket, Key=key, Body=body, ContentType="application/json"
            )
        except Exception as exc:  # botocore raises many types; all mean "not stored"
            raise self._error("write", exc) from exc

    def reports(self) -> Iterator[dict[str, Any]]:
        for _, data in self.entries():
            if isinstance(data, dict):
                yield data

    def entries(self) -> Iterator[tuple[str, object]]:
        end = time.monotonic() + self.limits.deadline_s
        client = self.client
        found: list[tuple[str, object]] = []
        keys: list[str] = []
        prefix = self._key() + "/" if self.prefix else ""
        try:
            pages = client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix
            )
            for page in pages:
                self._in_time(end)
                for item in page.get("Contents", ()):
                    key = str(item.get("Key", ""))
                    if not key.endswith(".json"):
                        continue
                    where = f"s3://{self.bucket}/{key}"
                    size = item.get("Size")
                    if isinstance(size, int) and size > MAX_RECORD_BYTES:
                        found.append((where, BadRecord(f"{size:,} bytes, more than a report")))
                    else:
                        keys.append(key)
            found += self._fetch(keys, end)
        except AcceleratorError:
            raise
        except Exception as exc:
            raise self._error("read", exc) from exc
        found.sort(key=_started)
        yield from found

    def _fetch(self, keys: list[str], end: float) -> list[tuple[str, object]]:
        """Every key's decoded body, ``_FETCHERS`` at a time, until ``end``."""
        client = self.client

        def get(key: str) -> tuple[str, object]:
            body = client.get_object(Bucket=self.bucket, Key=key)["Body"]
            return f"s3://{self.bucket}/{key}", decode(body.read(MAX_RECORD_BYTES + 1))

        out: list[tuple[str, object]] = []
        pool = ThreadPoolExecutor(max_workers=_FETCHERS, thread_name_prefix="accelerators-s3")
        try:
            pending: set[Future[tuple[str, object]]] = {pool.submit(get, k) for k in keys}
            while pending:
                done, pending = wait(
                    pending, timeout=self._in_time(end), return_when=FIRST_COMPLETED
                )
                out += [future.result() for future in done]
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        return out

    def _in_time(self, end: float) -> float:
        """Seconds left before ``end``; past it, the read stops with an error."""
        left = end - time.monotonic()
        if left <= 0:
            raise AcceleratorError(
                f"Cannot read the bench history {self.location}: not read within its "
                f"{self.limits.deadline_s:g} s deadline"
            )
        return left


def _started(entry: tuple[str, object]) -> tuple[str, str]:
    """Oldest first; records of the same time in key order (as listed)."""
    data = entry[1]
    started = data.get("started_at") if isinstance(data, dict) else None
    return (started if isinstance(started, str) else "", entry[0])
