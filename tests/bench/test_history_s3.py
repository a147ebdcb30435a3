"""The S3 history at a fleet's scale, on a local moto server: keys by accelerator and day, a
baseline that lists and reads O(days) small objects (never a full report), roll-ups, and the
first layout's objects moved into this one."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from bench_helpers import fake_aws

from accelerators.bench import Query, run
from accelerators.bench.history._s3 import S3Store
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected


@pytest.fixture
def bucket(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    import boto3

    fake_aws(monkeypatch, s3_endpoint)
    name = f"scale-{datetime.now(UTC).strftime('%H%M%S%f')}"
    boto3.client("s3").create_bucket(Bucket=name)
    return name


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    report = run("H100-SXM", backend=FakeBackend([FakeDevice()]), detected=fake_detected())
    return report.model_dump(mode="json")


def _fill(store: S3Store, template: dict[str, Any], per_day: int, days: int) -> None:
    """``per_day`` reports a day over ``days`` days that ended at least two days ago."""
    last = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
    for day in range(days):
        for number in range(per_day):
            data = copy.deepcopy(template)
            data["node"] = f"node-{number}"
            started = last - timedelta(days=2 + day, minutes=number)
            data["started_at"] = started.isoformat()
            store.append_json(data)


class _Requests:
    """Every request the store's client sends: ``(operation, key)``."""

    def __init__(self, store: S3Store) -> None:
        self.sent: list[tuple[str, str]] = []
        store.client.meta.events.register("before-parameter-build.s3", self._seen)

    def _seen(self, model: Any, params: dict[str, Any], **_: Any) -> None:
        self.sent.append((model.name, str(params.get("Key") or params.get("Prefix") or "")))

    def count(self) -> int:
        return len(self.sent)


def _baseline_requests(store: S3Store) -> tuple[int, list[tuple[str, str]]]:
    requests = _Requests(store)
    read = store.queries(
        [Query(accelerators=("H100-SXM",), limit=512), Query(nodes=("node-0",), limit=64)]
    )
    assert read[0].skipped == []
    return requests.count(), requests.sent


def test_a_baseline_reads_o_days_small_objects_whatever_the_reports_per_day(
    bucket: str, template: dict[str, Any]
) -> None:
    few, many = S3Store(bucket, "few"), S3Store(bucket, "many")
    _fill(few, template, per_day=3, days=4)
    _fill(many, template, per_day=12, days=4)
    _baseline_requests(few)  # the first reader of a settled day rolls it up
    _baseline_requests(many)
    requests_few, _ = _baseline_requests(few)
    requests_many, sent = _baseline_requests(many)
    # The days' listing, then per day its listing and its roll-up: 1 + 2 x 4.
    assert requests_few == requests_many == 1 + 2 * 4, sent
    assert not [key for _, key in sent if "/reports/" in key]  # never a full report
    assert len(many.query(Query(limit=1000)).summaries) == 48


def test_a_query_pages_newest_first(bucket: str, template: dict[str, Any]) -> None:
    store = S3Store(bucket, "pages")
    _fill(store, template, per_day=3, days=3)
    pages = list(store.pages(Query(accelerators=("H100-SXM",), limit=100), page=4))
    times = [s.started_us for page in pages for s in page.summaries]
    assert [len(p.summaries) for p in pages] == [4, 4, 1]
    assert times == sorted(times, reverse=True)
    assert len(set(times)) == 9


def test_the_first_layouts_objects_are_moved_by_migrate(
    bucket: str, template: dict[str, Any]
) -> None:
    import boto3

    client = boto3.client("s3")
    for number in range(3):
        data = {**copy.deepcopy(template), "node": f"old-{number}"}
        key = f"legacy/old-{number}/2026-11-0{number + 1}T00-00-00-abcd.json"
        client.put_object(Bucket=bucket, Key=key, Body=json.dumps(data).encode())
    client.put_object(Bucket=bucket, Key="legacy/broken/x.json", Body=b"{not json")
    store = S3Store(bucket, "legacy")
    assert store.query().summaries == []  # a gate never scans the first layout
    assert len(list(store.reports())) == 3  # ... but its reports are still there to read
    assert store.migrate() == 3
    assert sorted(s.node for s in store.query().summaries) == ["old-0", "old-1", "old-2"]
    keys = [o["Key"] for o in client.list_objects_v2(Bucket=bucket, Prefix="legacy/")["Contents"]]
    assert [k for k in keys if "history-v1" not in k] == ["legacy/broken/x.json"]  # kept
