"""The live AWS refresh, run with boto3 against a local moto server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from accelerators import catalog
from accelerators.catalog import _instances
from accelerators.sizing import SizingError, all_prices, aws, estimate_cost, instances

boto3 = pytest.importorskip("boto3")
moto_server = pytest.importorskip("moto.server")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    port = _free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture(scope="module")
def live(endpoint: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[aws.AwsRefresh, Path]:
    """One refresh for the tests that only read its result, cached in its own directory."""
    directory = tmp_path_factory.mktemp("live-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ACCELERATORS_CACHE_DIR", str(directory))
        session = boto3.Session(
            aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
        )
        return aws.refresh("us-east-1", endpoint_url=endpoint, session=session), directory


@pytest.fixture
def session() -> object:
    return boto3.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
    )


def test_refresh_writes_a_timestamped_cache_of_instances_and_spot_prices(
    endpoint: str, session: object, private_cache: Path
) -> None:
    result = aws.refresh("us-east-1", endpoint_url=endpoint, session=session)
    assert result.source == "live"
    assert result.fetched_at is not None
    assert result.path == private_cache / "aws-us-east-1.json"
    payload = json.loads(result.path.read_text(encoding="utf-8"))
    assert payload["region"] == "us-east-1"
    assert payload["fetched_at"] == result.fetched_at.isoformat()
    names = {row.name for row in result.instances}
    assert {"p5.48xlarge", "g5.xlarge", "trn1.32xlarge", "inf2.xlarge"} <= names
    assert all(n.split(".")[0] in aws.FAMILIES for n in names)
    assert result.spot
    assert all(p.kind == "spot" and p.cloud == "aws" for p in result.spot)
    assert {p.instance for p in result.spot} <= names
    assert aws.cached_instances() == tuple(sorted(result.instances, key=lambda r: r.name))
    assert set(aws.cached_prices()) == set(result.spot)


def test_the_api_agrees_with_every_shipped_aws_row(live: tuple[aws.AwsRefresh, Path]) -> None:
    live_rows = {r.name: r for r in live[0].instances}
    for row in _instances.instances("aws"):
        if row.name not in live_rows:
            continue  # moto's copy may lag AWS; the shipped row stays
        api = live_rows[row.name]
        assert api.count == row.count, row.name
        shipped_model = catalog.get(row.accelerator).model
        assert api.accelerator == shipped_model, (row.name, api.accelerator, shipped_model)
    checked = [r.name for r in _instances.instances("aws") if r.name in live_rows]
    assert len(checked) >= 25


def test_cached_spot_prices_feed_costs_and_instance_listings(
    live: tuple[aws.AwsRefresh, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(SizingError, match="No spot price"):
        estimate_cost("L40S", 2, cloud="aws", kind="spot")
    result, directory = live
    monkeypatch.setenv("ACCELERATORS_CACHE_DIR", str(directory))
    spot = estimate_cost("L40S", 2, cloud="aws", kind="spot")
    quoted = [p for p in result.spot if p.instance == spot.instance]
    assert spot.price in quoted
    assert spot.price.source == "aws-api"
    assert spot.usd == pytest.approx(
        2 * spot.instances_needed * min(p.usd_per_hour for p in quoted)
    )
    assert set(result.spot) <= set(all_prices())
    listed = {o.instance.name for o in instances("L40S", cloud="aws")}
    assert {r.name for r in result.instances if r.accelerator == "L40S"} <= listed


def test_without_credentials_the_shipped_table_is_used_and_said(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    result = aws.refresh("us-east-1", session=boto3.Session(region_name="us-east-1"))
    assert result.source == "shipped"
    assert "No AWS credentials" in result.message
    assert result.path is None
    assert not result.instances
    assert aws.cached_prices() == ()


def test_a_damaged_cache_is_ignored(private_cache: Path) -> None:
    private_cache.mkdir(parents=True)
    (private_cache / "aws-us-east-1.json").write_text("{broken", encoding="utf-8")
    wrong = {
        "version": 1,
        "fetched_at": "2026-11-23T00:00:00+00:00",
        "instances": [{"name": 3}],
        "spot": [{"cloud": "aws", "usd_per_hour": -1}, "x"],
    }
    (private_cache / "aws-eu-west-1.json").write_text(json.dumps(wrong), encoding="utf-8")
    assert aws.cached_prices() == ()
    assert aws.cached_instances() == ()


def test_importing_sizing_loads_no_boto3() -> None:
    code = (
        "import accelerators.sizing, sys; print('boto3' in sys.modules, 'botocore' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_refresh_never_writes_through_a_planted_link(
    endpoint: str, session: object, private_cache: Path, tmp_path: Path
) -> None:
    private_cache.mkdir(mode=0o700, parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    (private_cache / "aws-us-east-1.tmp").symlink_to(victim)  # the old fixed temporary name
    result = aws.refresh("us-east-1", endpoint_url=endpoint, session=session)
    assert victim.read_text(encoding="utf-8") == "precious"
    assert result.path == private_cache / "aws-us-east-1.json"
    assert json.loads(result.path.read_text(encoding="utf-8"))["region"] == "us-east-1"


def test_refresh_with_the_cache_off_writes_nothing(
    endpoint: str, session: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ACCELERATORS_CACHE_DIR", "off")
    result = aws.refresh("us-east-1", endpoint_url=endpoint, session=session)
    assert result.source == "live"
    assert result.path is None
    assert "not cached" in result.message
    assert list(tmp_path.iterdir()) == []
