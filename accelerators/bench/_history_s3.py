"""The bench history on S3: one JSON object per report under a prefix (boto3, imported here).

Keys are ``<prefix>/<node>/<started_at>-<random>.json``: nodes never write the same key, so
a fleet appends without locks, and listing one node's prefix reads only its runs.
Credentials, region and endpoint come from boto3's usual chain (``AWS_ENDPOINT_URL`` for
MinIO, moto or another S3-compatible server).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

from accelerators.bench._history import HistoryStore
from accelerators.errors import AcceleratorError

__all__ = ["S3Store"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class S3Store(HistoryStore):
    """Reports as objects under ``s3://bucket/prefix``."""

    def __init__(self, bucket: str, prefix: str = "", *, client: Any = None):
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.location = f"s3://{bucket}/{self.prefix}".rstrip("/")
        self._client = client

    @classmethod
    def from_url(cls, url: str, *, client: Any = None) -> S3Store:
        """``s3://bucket/prefix`` to a store.

        :raises AcceleratorError: the URL has no bucket.
        """
        rest = url.removeprefix("s3://")
        bucket, _, prefix = rest.partition("/")
        if not bucket:
            raise AcceleratorError(
                f"Expected the bench history as s3://bucket/prefix, got {url!r} (no bucket)"
            )
        return cls(bucket, prefix, client=client)

    @property
    def client(self) -> Any:
        if self._client is None:
            try:
                import boto3
            except ImportError as exc:
                raise AcceleratorError(
                    f"The bench history {self.location} needs boto3: "
                    'pip install "accelerators[aws]"'
                ) from exc
            self._client = boto3.client("s3")
        return self._client

    def _key(self, *parts: str) -> str:
        return "/".join(p for p in (self.prefix, *parts) if p)

    def append_json(self, data: dict[str, Any]) -> None:
        node = _UNSAFE.sub("_", str(data.get("node") or data.get("host") or "unknown"))
        stamp = _UNSAFE.sub("_", str(data["started_at"]))
        key = self._key(node, f"{stamp}-{uuid.uuid4().hex[:8]}.json")
        body = json.dumps(data, separators=(",", ":")).encode("utf-8")
        try:
            self.client.put_object(
                Bucket=self.bucket, Key=key, Body=body, ContentType="application/json"
            )
        except Exception as exc:  # botocore raises many types; all mean "not stored"
            raise AcceleratorError(
                f"Cannot write the bench history {self.location}: {exc}"
            ) from exc

    def reports(self) -> Iterator[dict[str, Any]]:
        prefix = self._key() + "/" if self.prefix else ""
        found: list[dict[str, Any]] = []
        try:
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix
            )
            for page in pages:
                for item in page.get("Contents", ()):
                    if not item["Key"].endswith(".json"):
                        continue
                    body = self.client.get_object(Bucket=self.bucket, Key=item["Key"])["Body"]
                    found.append(json.loads(body.read()))
        except AcceleratorError:
            raise
        except Exception as exc:
            raise AcceleratorError(f"Cannot read the bench history {self.location}: {exc}") from exc
        found.sort(key=lambda data: str(data.get("started_at", "")))
        yield from found
