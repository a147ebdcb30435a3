"""The shipped price table is generated from dated, reduced copies of public price tables
(``scripts/instance_tables/price_tables.py``); these tests hold it to its sources, to published
list prices from other sources, and to the coverage it reached."""

from __future__ import annotations

import dataclasses
import datetime as dt
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from accelerators.catalog import _instances
from accelerators.cli import build_app

ROOT = Path(__file__).resolve().parents[1]
TABLES = ROOT / "scripts" / "instance_tables"


def _load(name: str, file: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, TABLES / file)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


generate = _load("instance_tables_generate", "generate.py")
price_tables = sys.modules["price_tables"]


def test_the_shipped_price_table_is_what_the_generator_makes() -> None:
    shipped = (ROOT / "accelerators" / "data" / "prices.toml").read_text(encoding="utf-8")
    assert shipped == generate.render_prices(), (
        "prices.toml and its sources disagree: run python scripts/instance_tables/generate.py"
    )


def test_every_source_names_its_commit_or_page_and_its_date() -> None:
    for source in price_tables.load_price_sources().values():
        assert source.meta["url"].startswith("https://"), source.key
        dt.date.fromisoformat(source.meta["retrieved"])
        if "github.com" in source.meta["url"] and "/blob/" in source.meta["url"]:
            commit = source.meta["url"].split("/blob/")[1].split("/")[0]
            assert len(commit) == 40, source.key  # a full commit, not a branch


def _gcp(rows: list[tuple[str, str, str, str, str]]) -> Any:
    source = price_tables.PriceSource(
        "gcp-test",
        {"title": "t", "url": "https://x", "retrieved": "2026-11-28", "cloud": "gcp"},
        tuple(
            {"item": i, "count": c, "region": r, "usd_per_hour": u, "spot_usd_per_hour": s}
            for i, c, r, u, s in rows
        ),
    )
    machine = [{"cloud": "gcp", "name": "a2-highgpu-1g", "accelerator": "A100-40GB", "count": 1}]
    return price_tables.price_rows({"gcp-test": source}, machine)


def test_a_gcp_machine_is_its_host_plus_its_gpus() -> None:
    # the trap: the a2-highgpu-1g row alone prices the host VM (0.74 USD/h), not what a user pays
    rows = _gcp(
        [
            ("a2-highgpu-1g", "-", "us-central1", "0.73948", "0.36975"),
            ("gpu:A100", "1", "us-central1", "2.93391", "1.4341"),
        ]
    )
    on_demand = [r for r in rows if r.kind == "on-demand"]
    assert [(r.region, r.usd) for r in on_demand] == [("us-central1", 3.67339)]
    assert "host VM + 1 x A100 GPU" in (on_demand[0].note or "")
    assert on_demand[0].confidence == "derived"
    spot = [r for r in rows if r.kind == "spot"]
    assert spot[0].usd == pytest.approx(0.36975 + 1.4341)


def test_gcp_figures_of_another_sku_are_left_out() -> None:
    regions = ["us-east4", "us-east5", "europe-west4", "us-central1"]
    gpu = [
        ("gpu:A100", "1", r, u, "1.0")
        for r, u in zip(regions, ("2.9", "3.1", "3.2", "1.6"), strict=True)
    ]
    gpu.append(("gpu:A100", "1", "asia-east1", "3.0", "3.5"))  # spot above on-demand
    host = [("a2-highgpu-1g", "-", r, "0.7", "0.3") for r in (*regions, "asia-east1")]
    rows = _gcp(host + gpu)
    kept = {r.region for r in rows if r.kind == "on-demand"}
    assert "us-central1" not in kept  # 1.6 is under 0.6 of the others
    assert "asia-east1" not in kept
    assert min(r.usd for r in rows if r.kind == "on-demand") == pytest.approx(3.6)


def test_a_gcp_whole_vm_transcription_is_read_as_is_and_g4_includes_its_gpus() -> None:
    # Google's G4 page gives whole-VM rates (GPUs included); such a source names ``instance``,
    # not ``item``, and is not summed with host or GPU rows
    source = price_tables.PriceSource(
        "gcp-page",
        {"title": "t", "url": "https://x", "retrieved": "2026-11-28", "cloud": "gcp"},
        ({"instance": "g4-standard-48", "region": "us-central1", "usd_per_hour": "4.49993"},),
    )
    g4 = {"cloud": "gcp", "name": "g4-standard-48", "accelerator": "RTX-PRO-6000", "count": 1}
    rows = price_tables.price_rows({"gcp-page": source}, [g4])
    assert [(r.region, r.usd, r.confidence) for r in rows] == [
        ("us-central1", 4.49993, "third-party")
    ]
    gcp = _instances.prices("gcp")
    shipped = {p.instance: p.usd_per_hour for p in gcp if p.kind == "on-demand"}
    # SkyPilot's v9 host-only row (3.40 USD/h for g4-standard-48) would understate it by a quarter
    assert shipped["g4-standard-48"] == pytest.approx(4.49993)
    assert shipped["g4-standard-384"] == pytest.approx(8 * 4.49993)


def test_cheapest_and_median_regions_are_named() -> None:
    rows = [r for r in _instances.prices("aws") if r.instance == "g5.xlarge"]
    cheapest = min(rows, key=lambda r: r.usd_per_hour)
    assert (cheapest.region, cheapest.usd_per_hour) == ("us-east-1", 1.006)
    assert "cheapest of" in (cheapest.note or "")
    median = [r for r in rows if r.note and "median of" in r.note]
    assert len(median) == 1
    assert median[0].region
    assert median[0].usd_per_hour > 1.006


def _list_prices() -> list[dict[str, str]]:
    lines = (ROOT / "tests" / "data" / "list_prices.tsv").read_text(encoding="utf-8")
    body = [line.split("\t") for line in lines.splitlines() if line and not line.startswith("#")]
    return [dict(zip(body[0], row, strict=True)) for row in body[1:]]


@pytest.mark.parametrize("listed", _list_prices(), ids=lambda d: f"{d['cloud']}-{d['instance']}")
def test_shipped_prices_have_the_magnitude_of_published_list_prices(
    listed: dict[str, str],
) -> None:
    rows = [
        r
        for r in _instances.prices(listed["cloud"])
        if r.instance == listed["instance"] and r.kind == "on-demand"
    ]
    assert rows, f"no shipped price for {listed['instance']}"
    cheapest = min(r.usd_per_hour for r in rows)
    ratio = cheapest / float(listed["usd_per_hour"])
    # whole instance, per hour, accelerators included: a host-only, per-GPU or monthly figure
    # is off by a factor of 3 to 700; regions and months move list prices by less than 1.5
    assert 1 / 1.5 < ratio < 1.5, (listed, cheapest)


def test_coverage_holds_what_the_sources_gave() -> None:
    instances = generate.instance_dicts()
    rows = price_tables.price_rows(price_tables.load_price_sources(), instances)
    cover = price_tables.coverage(rows, instances)
    floor = {"aws": 0.97, "gcp": 0.95, "oci": 1.0, "lambda": 1.0, "hf": 1.0, "azure": 0.78}
    floor |= {"runpod": 0.75, "paperspace": 1.0}
    for cloud, least in floor.items():
        have, total = cover[cloud]
        assert have / total >= least, (cloud, have, total)
    seven = ("aws", "gcp", "azure", "oci", "lambda", "runpod", "paperspace")
    have, total = (sum(cover[c][i] for c in seven) for i in (0, 1))
    assert have / total >= 0.90, (have, total)  # issue 31's goal for the seven named clouds


def test_the_audit_flags_rows_older_than_the_limit(capsys: pytest.CaptureFixture[str]) -> None:
    rows = price_tables.price_rows(price_tables.load_price_sources(), generate.instance_dicts())
    today = dt.date(2026, 11, 28)
    old = price_tables.stale(rows, 300, today)
    assert old
    assert all(r.date < "2026-02-01" for r in old)  # the 2025-11-30 AWS figures
    assert not price_tables.stale(rows, 400, today)
    young = [dataclasses.replace(r, date="2026-11-27") for r in rows]
    assert not price_tables.stale(young, 1, today)
    assert generate.main(["--audit", "100000"]) == 0
    assert generate.main(["--audit", "0"]) == 1
    assert "older than 0 days" in capsys.readouterr().out


def test_a_price_source_without_a_cloud_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.tsv").write_text(
        "# title: t\n# url: https://x\n# retrieved: 2026-01-01\ninstance\tregion\n", "utf-8"
    )
    with pytest.raises(SystemExit, match="cloud"):
        price_tables.load_price_sources(tmp_path)


SEVEN = ("aws", "gcp", "azure", "oci", "lambda", "runpod", "paperspace")


def test_every_unpriced_row_of_the_seven_clouds_says_why() -> None:
    on_demand = [r for r in _instances.prices() if r.kind == "on-demand"]
    priced = {(r.cloud, r.instance.casefold()) for r in on_demand}
    why = {(u.cloud, u.instance.casefold()): u.reason for u in _instances.unpriced()}
    for row in _instances.instances():
        key = (row.cloud, row.name.casefold())
        if row.cloud in SEVEN and key not in priced:
            assert why.get(key), f"{row.cloud} {row.name}: no price and no recorded reason"
        assert not (key in priced and key in why), f"{row.name} is priced and unpriced"


def test_a_reason_for_a_priced_or_unknown_row_is_refused() -> None:
    instances = generate.instance_dicts()
    rows = price_tables.price_rows(price_tables.load_price_sources(), instances)
    priced = price_tables.Unpriced("aws", "p5.48xlarge", "a reason")
    with pytest.raises(SystemExit, match="has an on-demand price"):
        price_tables.check_unpriced([priced], rows, instances)
    unknown = price_tables.Unpriced("azure", "Standard_NX1_v9", "a reason")
    with pytest.raises(SystemExit, match="not an instance row"):
        price_tables.check_unpriced([unknown], rows, instances)


def test_the_loader_refuses_a_row_both_priced_and_unpriced() -> None:
    price = _instances.prices("aws")[0]
    with pytest.raises(ValueError, match="priced and unpriced"):
        _instances._PriceFile(
            schema_version=1,
            table_version="t",
            sources={price.source: _instances.price_sources()[price.source]},
            price=(price,),
            unpriced=(_instances.Unpriced(cloud="aws", instance=price.instance, reason="r"),),
        )


def test_azure_partial_rtx_pro_6000_sizes_are_priced_as_the_share_they_sell() -> None:
    # the Resource SKUs call NC36lds one GPU; it is a quarter of one (24 of 96 GB)
    row = _instances.get_instance("Standard_NC36lds_xl_RTXPRO6000BSE_v6")
    assert row is not None
    assert row.count == 0.25
    assert row.confidence == "unconfirmed"
    price = min(
        p.usd_per_hour
        for p in _instances.prices("azure")
        if p.instance == row.name and p.kind == "on-demand"
    )
    assert price == pytest.approx(1.243)
    h200 = [p for p in _instances.prices("azure") if p.instance == "Standard_ND96isr_H200_v5"]
    assert [(p.region, p.usd_per_hour, str(p.date)) for p in h200] == [
        ("eastus2", 84.8, "2026-10-07")
    ]


def test_prices_coverage_prints_the_reasons() -> None:
    result = CliRunner().invoke(build_app(), ["prices", "coverage"])
    assert result.exit_code == 0, result.output
    assert "Why the other rows have no price" in result.output
    assert "does not say which V100" in result.output
    as_json = CliRunner().invoke(build_app(), ["prices", "coverage", "--json"])
    runpod = json.loads(as_json.output)["runpod"]
    assert runpod["priced"] >= 34
    assert any(u["instance"] == "Tesla V100-SXM2-32GB" for u in runpod["unpriced"])
