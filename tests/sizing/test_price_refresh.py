"""The live price refreshers (Azure Retail Prices, GCP Cloud Billing Catalog, AWS Price List),
each run against a local server on 127.0.0.1 answering in the API's own shape: paging,
throttling (429/503 with retry), malformed answers, and the cache plans read first."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from tests.sizing.price_server import Answer, serve

from accelerators.sizing import SizingError, azure, estimate_cost, gcp, instances, plan
from accelerators.sizing._prices import all_prices


def _azure_item(sku: str, price: float, **extra: Any) -> dict[str, Any]:
    short = sku.removeprefix("Standard_").replace("_", " ")
    item = {
        "currencyCode": "USD",
        "retailPrice": price,
        "unitPrice": price,
        "armRegionName": "eastus",
        "location": "US East",
        "meterName": short,
        "productName": "Virtual Machines NCads A100 v4 Series",
        "skuName": short,
        "serviceName": "Virtual Machines",
        "unitOfMeasure": "1 Hour",
        "type": "Consumption",
        "armSkuName": sku,
    }
    return item | extra


def test_azure_pages_retries_and_caches_what_plans_read() -> None:
    sleeps: list[float] = []
    calls = {"n": 0}

    def answer(path: str, body: bytes, headers: dict[str, str]) -> Answer:
        calls["n"] += 1
        if calls["n"] == 1:
            return 429, {"Retry-After": "2"}, {"error": "throttled"}
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)
        if "page" not in query:
            wanted = "Standard_NC24ads_A100_v4" in query["$filter"][0]
            items = [_azure_item("Standard_NC24ads_A100_v4", 3.1)] if wanted else []
            items.append(  # Windows and Low Priority lines are not Linux pay-as-you-go
                _azure_item("Standard_NC24ads_A100_v4", 1.0, productName="Virtual Machines Windows")
            )
            link = f"{script.base}/prices?page=2" if wanted else None
            return 200, {}, {"Items": items, "NextPageLink": link, "Count": len(items)}
        spot = _azure_item("Standard_NC24ads_A100_v4", 0.9, meterName="NC24ads A100 v4 Spot")
        low = _azure_item("Standard_NC24ads_A100_v4", 0.5, meterName="NC24ads A100 v4 Low Priority")
        return 200, {}, {"Items": [spot, low], "NextPageLink": None}

    with serve(answer) as script:
        result = azure.refresh("eastus", base_url=f"{script.base}/prices", sleep=sleeps.append)
    assert sleeps == [2.0]  # the 429's Retry-After was honoured, then the query went on
    assert result.source == "live"
    got = {(p.instance, p.kind): p.usd_per_hour for p in result.prices}
    assert got == {
        ("Standard_NC24ads_A100_v4", "on-demand"): 3.1,
        ("Standard_NC24ads_A100_v4", "spot"): 0.9,
    }
    assert result.path is not None
    assert json.loads(result.path.read_text())["cloud"] == "azure"
    # the cache comes before the shipped table for that instance, and says so
    cost = estimate_cost("A100-80GB-PCIE", 1, "azure")
    assert (cost.instance, cost.usd_per_hour) == ("Standard_NC24ads_A100_v4", 3.1)
    assert cost.price.source == "azure-retail-api"
    shipped = [p for p in all_prices() if p.instance == "Standard_NC24ads_A100_v4"]
    assert {p.source for p in shipped} == {"azure-retail-api"}
    job = plan(
        7e9,
        "lora",
        tokens=1e7,
        clouds=["azure"],
        history=False,
        instances=["Standard_NC24ads_A100_v4"],
    )
    assert job.best is not None
    assert "azure-retail-api" in job.best.cost_basis


def test_azure_refuses_malformed_answers_and_foreign_next_pages() -> None:
    with (
        serve(lambda p, b, h: (200, {}, {"items": []})) as script,
        pytest.raises(SizingError, match="without Items"),
    ):
        azure.refresh("eastus", base_url=script.base, sleep=lambda s: None)
    with (
        serve(lambda p, b, h: (200, {}, b"<html>maintenance</html>")) as script,
        pytest.raises(SizingError, match="not JSON"),
    ):
        azure.refresh("eastus", base_url=script.base, sleep=lambda s: None)
    link = {"Items": [], "NextPageLink": "https://elsewhere.example/prices?page=2"}
    with (
        serve(lambda p, b, h: (200, {}, link)) as script,
        pytest.raises(SizingError, match=r"off 127\.0\.0\.1"),
    ):
        azure.refresh("eastus", base_url=script.base, sleep=lambda s: None)
    with pytest.raises(SizingError, match="Azure region"):
        azure.refresh("east us; rm -rf /")


def test_azure_gives_up_after_bounded_retries() -> None:
    sleeps: list[float] = []
    with (
        serve(lambda p, b, h: (503, {}, {"error": "busy"})) as script,
        pytest.raises(SizingError, match="HTTP 503"),
    ):
        azure.refresh("eastus", base_url=script.base, sleep=sleeps.append)
    assert sleeps == [1.0, 2.0, 4.0, 8.0]  # four retries, doubling, then the error


def _sku(description: str, usd: float, usage: str = "OnDemand") -> dict[str, Any]:
    units, nanos = int(usd), round((usd - int(usd)) * 1e9)
    return {
        "name": "services/6F81-5844-456A/skus/X",
        "description": description,
        "category": {"resourceFamily": "Compute", "resourceGroup": "GPU", "usageType": usage},
        "serviceRegions": ["us-central1"],
        "pricingInfo": [
            {
                "pricingExpression": {
                    "usageUnit": "h",
                    "tieredRates": [
                        {"unitPrice": {"currencyCode": "USD", "units": str(units), "nanos": nanos}}
                    ],
                }
            }
        ],
    }


def test_gcp_sums_host_and_gpu_skus_across_pages() -> None:
    first = [
        _sku("A2 Instance Core running in Americas", 0.031611),
        _sku("A2 Instance Ram running in Americas", 0.004237),
        _sku("Spot Preemptible A2 Instance Core running in Americas", 0.01, "Preemptible"),
    ]
    second = [
        _sku("Nvidia Tesla A100 GPU running in Americas", 2.933908),
        _sku("Spot Preemptible A2 Instance Ram running in Americas", 0.002, "Preemptible"),
        {"description": "garbled"},
    ]
    calls = {"n": 0}

    def answer(path: str, body: bytes, headers: dict[str, str]) -> Answer:
        calls["n"] += 1
        if calls["n"] == 2:
            return 503, {}, {"error": {"code": 503}}
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)
        assert query["key"] == ["k3y"]
        if "pageToken" not in query:
            return 200, {}, {"skus": first, "nextPageToken": "p2"}
        return 200, {}, {"skus": second, "nextPageToken": ""}

    sleeps: list[float] = []
    with serve(answer) as script:
        result = gcp.refresh(
            "us-central1", api_key="k3y", base_url=script.base, sleep=sleeps.append
        )
    assert sleeps == [1.0]
    a2 = {p.kind: p for p in result.prices if p.instance == "a2-highgpu-1g"}
    # 12 vCPUs and 85 GiB of host, plus the GPU GCP bills apart: the list price, 3.67 USD/h
    assert a2["on-demand"].usd_per_hour == pytest.approx(12 * 0.031611 + 85 * 0.004237 + 2.933908)
    assert a2["on-demand"].usd_per_hour == pytest.approx(3.673, abs=0.001)
    assert "spot" not in a2  # no spot GPU SKU in the answer: no spot price made up
    assert result.skipped >= 1
    assert "keep shipped prices" in result.message
    cost = estimate_cost("A100-40GB", 1, "gcp", region="us-central1")
    assert cost.price.source == "gcp-billing-api"


def test_gcp_masks_the_key_in_errors_and_asks_nothing_without_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with (
        serve(lambda p, b, h: (403, {}, {"error": {"message": "API key not valid"}})) as script,
        pytest.raises(SizingError) as caught,
    ):
        gcp.refresh("us-central1", api_key="s3cr3t", base_url=script.base)
    assert "s3cr3t" not in str(caught.value)
    assert "key=***" in str(caught.value)
    monkeypatch.delenv(gcp.KEY_VARIABLE, raising=False)
    result = gcp.refresh("us-central1")
    assert result.source == "shipped"
    assert "No GCP API key" in result.message
    with (
        serve(lambda p, b, h: (200, {}, {"skus": "none"})) as script,
        pytest.raises(SizingError, match="without skus"),
    ):
        gcp.refresh("us-central1", api_key="k", base_url=script.base)


def _aws_product(name: str, usd: str) -> str:
    term = {
        "priceDimensions": {
            "D": {"unit": "Hrs", "pricePerUnit": {"USD": usd}, "description": f"{name} Linux"}
        }
    }
    return json.dumps(
        {
            "product": {"attributes": {"instanceType": name, "regionCode": "us-east-1"}},
            "terms": {"OnDemand": {"T": term}},
        }
    )


def test_aws_on_demand_from_the_price_list_api_pages_and_retries(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    boto3 = pytest.importorskip("boto3")
    from accelerators.sizing._aws_pricing import on_demand_prices

    calls = {"n": 0}

    def answer(path: str, body: bytes, headers: dict[str, str]) -> Answer:
        calls["n"] += 1
        assert headers["x-amz-target"] == "AWSPriceListService.GetProducts"
        request = json.loads(body)
        if calls["n"] == 1:
            return 400, {}, {"__type": "ThrottlingException", "message": "Rate exceeded"}
        family = {f["Field"]: f["Value"] for f in request["Filters"]}["instanceFamily"]
        if family != "GPU instance":
            return 200, {}, {"PriceList": [], "FormatVersion": "aws_v1"}
        if "NextToken" not in request:
            products = [_aws_product("p5.48xlarge", "55.0400000000"), "{not json"]
            return 200, {}, {"PriceList": products, "NextToken": "n2", "FormatVersion": "aws_v1"}
        return 200, {}, {"PriceList": [_aws_product("g5.xlarge", "1.0060000000")]}

    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "3")
    session = boto3.Session(
        aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1"
    )
    with serve(answer) as script:
        prices, garbled = on_demand_prices(
            session, "us-east-1", {"p5.48xlarge", "g5.xlarge"}, endpoint_url=script.base
        )
    assert {(p.instance, p.usd_per_hour) for p in prices} == {
        ("p5.48xlarge", 55.04),
        ("g5.xlarge", 1.006),
    }
    assert garbled == 1
    assert all(p.source == "aws-pricing-api" and p.region == "us-east-1" for p in prices)
    assert calls["n"] == 4  # throttled once and retried, two GPU pages, one empty ASIC answer


def test_instances_shows_the_cached_price_first(private_cache: Path) -> None:
    items = [_azure_item("Standard_NC24ads_A100_v4", 2.5)]
    with serve(lambda p, b, h: (200, {}, {"Items": items, "NextPageLink": None})) as script:
        azure.refresh("eastus", sizes=["Standard_NC24ads_A100_v4"], base_url=script.base)
    [offer] = [o for o in instances("A100-80GB-PCIE", "azure") if o.instance.count == 1]
    price = offer.price()
    assert price is not None
    assert (price.usd_per_hour, price.source) == (2.5, "azure-retail-api")


def test_the_aws_refresh_caches_spot_and_on_demand_prices(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    boto3 = pytest.importorskip("boto3")
    moto_server = pytest.importorskip("moto.server")
    from accelerators.sizing import aws

    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        product = {"PriceList": [_aws_product("p5.48xlarge", "55.04")]}
        with serve(lambda p, b, h: (200, {}, product)) as pricing:
            session = boto3.Session(
                aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1"
            )
            result = aws.refresh(
                "us-east-1",
                endpoint_url=f"http://{host}:{port}",
                session=session,
                pricing_endpoint_url=pricing.base,
            )
    finally:
        server.stop()
    assert [(p.instance, p.kind) for p in result.on_demand] == [("p5.48xlarge", "on-demand")]
    assert "1 on-demand prices" in result.message
    cost = estimate_cost("H100-SXM:8", 1, "aws", region="us-east-1")
    assert (cost.instance, cost.price.source) == ("p5.48xlarge", "aws-pricing-api")
