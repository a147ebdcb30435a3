"""The instance and price tables: data checks, spec parsing of instance names, costs."""

from __future__ import annotations

import datetime as dt
import math
from types import SimpleNamespace

import pytest

from accelerators import AcceleratorSpec, catalog
from accelerators.catalog import _instances
from accelerators.catalog._spellings import known_spellings
from accelerators.errors import AcceleratorError, UnknownAcceleratorError
from accelerators.sizing import (
    SizingError,
    cost_of_throughput,
    estimate_cost,
    instances,
    unit_price,
)

ROWS = _instances.instances()
SHIPPED_TODAY = dt.date(2026, 11, 28)


def _resolves(name: str) -> bool:
    try:
        catalog.get(name)
    except UnknownAcceleratorError:
        return False
    return True


def test_every_row_names_a_catalog_accelerator() -> None:
    unresolved = {row.accelerator for row in ROWS if not _resolves(row.accelerator)}
    assert not unresolved, unresolved
    for row in ROWS:
        if row.partition is not None:
            acc = catalog.get(row.accelerator)
            assert row.partition in acc.partitions, row.name
            if acc.device_class == "tpu":  # a TPU host: its slice has as many chips as the row
                assert acc.tpu_topology(row.partition).chips == row.count


def test_the_tables_cover_the_issue_families() -> None:
    names = {row.name for row in ROWS}
    for prefix in (
        "p4d.",
        "p4de.",
        "p5.",
        "p5e.",
        "p5en.",
        "p6-b200.",
        "g4dn.",
        "g5.",
        "g5g.",
        "g6.",
        "g6e.",
        "trn1.",
        "trn1n.",
        "trn2.",
        "inf1.",
        "inf2.",
        "a2-highgpu",
        "a2-ultragpu",
        "a3-highgpu",
        "a3-megagpu",
        "a3-ultragpu",
        "a4-",
        "g2-",
        "ct5lp-",
        "ct5p-",
        "ct6e-",
        "Standard_ND96asr",
        "Standard_ND96isr_H100",
        "Standard_ND96isr_H200",
        "Standard_ND96isr_MI300X",
        "Standard_NC24ads_A100",
        "Standard_NC40ads_H100",
        # issue 21: every accelerated EC2 family, SageMaker, GCP A4X/G4/TPU7x, Azure NV,
        # OCI, Lambda, Scaleway, RunPod, Vast.ai and Paperspace
        "p3dn.",
        "p6-b300.",
        "g6f.",
        "g7e.",
        "dl1.",
        "dl2q.",
        "g4ad.",
        "ml.g4dn.",
        "ml.p5.",
        "a4x-highgpu",
        "g4-standard",
        "tpu7x-",
        "Standard_NV6ads_A10",
        "Standard_ND128isr_NDR_GB200",
        "BM.GPU.H100",
        "gpu_8x_h100",
        "H100-SXM-8",
        "NVIDIA H100 80GB HBM3",
        "RTX 4090",
        "A100-80Gx8",
    ):
        assert any(n.startswith(prefix) for n in names), prefix
    assert {row.cloud for row in ROWS} == set(_instances.CLOUDS)
    fractions = {row.name: row.count for row in ROWS if row.count < 1}
    assert fractions["g6f.large"] == 0.125
    assert fractions["Standard_NV6ads_A10_v5"] == pytest.approx(1 / 6)


def test_every_row_has_a_source_with_a_date() -> None:
    instance_sources, price_sources = _instances.instance_sources(), _instances.price_sources()
    for row in ROWS:
        assert instance_sources[row.source].retrieved <= SHIPPED_TODAY
        assert instance_sources[row.source].url or row.confidence == "unconfirmed"
    for price in _instances.prices():
        assert price_sources[price.source].url, price
        assert price.date <= SHIPPED_TODAY
        assert _instances.get_instance(price.instance) is not None
    kinds = {(p.cloud, p.kind) for p in _instances.prices()}
    assert {
        ("aws", "on-demand"),
        ("gcp", "spot"),
        ("azure", "on-demand"),
        ("hf", "on-demand"),
    } <= kinds


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("p5.48xlarge", "H100-SXM:8"),
        ("P5.48XLARGE", "H100-SXM:8"),
        ("p4de.24xlarge", "A100-80GB:8"),
        ("a3-highgpu-8g", "H100-SXM:8"),
        ("Standard_ND96isr_MI300X_v5", "MI300X:8"),
        ("ct5lp-hightpu-4t", "TPU-V5E@2x2:4"),
        ("trn2.48xlarge", "TRAINIUM2:16"),
        ("p5.48xlarge | a3-ultragpu-8g", "H100-SXM:8 | H200-SXM:8"),
    ],
)
def test_instance_names_parse_as_specs(name: str, expected: str) -> None:
    assert str(AcceleratorSpec.parse(name)) == expected


def test_every_instance_name_reads_as_its_row() -> None:
    """A name that is also a catalog spelling (Hugging Face flavors, RunPod's and Vast.ai's
    GPU types are what drivers print) must mean the same as its row; where two clouds spell
    one name in different cases (Hugging Face's ``a100x8``, Paperspace's ``A100x8``), each
    exact spelling reads as its own row."""
    spellings = {s.casefold() for s in known_spellings()}
    assert any(row.name.casefold() in spellings and row.cloud == "runpod" for row in ROWS)
    for row in ROWS:
        parsed = AcceleratorSpec.parse(row.name)
        assert parsed.accelerator is not None, row.name
        # Both data files must agree: the row's model and count and what the grammar reads.
        assert parsed.accelerator.model == catalog.get(row.accelerator).model, row.name
        assert parsed.count == pytest.approx(row.count), row.name
        assert parsed.partition == row.partition, row.name


def test_an_instance_whose_accelerator_the_catalog_lacks_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every shipped row resolves (see above), so the error path gets a row from a newer table.
    row = _instances.get_instance("inf1.xlarge")
    assert row is not None
    assert AcceleratorSpec.parse("inf1.24xlarge") == AcceleratorSpec.parse("INFERENTIA1:16")
    future = row.model_copy(update={"name": "inf9.xlarge", "accelerator": "INFERENTIA9"})
    monkeypatch.setattr(
        _instances, "get_instance", lambda name: future if name == "inf9.xlarge" else None
    )
    with pytest.raises(UnknownAcceleratorError, match=r"inf9\.xlarge.*INFERENTIA9.*does not list"):
        AcceleratorSpec.parse("inf9.xlarge")


def test_instances_lists_the_hosts_of_a_spec() -> None:
    aws = instances("H100-SXM:8", cloud="aws")
    assert aws[0].instance.name == "p5.48xlarge"
    assert aws[0].needed == 1
    assert str(aws[0].spec) == "H100-SXM:8"
    everywhere = {o.instance.cloud for o in instances("H100-SXM:8")}
    assert {"aws", "gcp", "azure"} <= everywhere
    assert [o.instance.name for o in instances("TPU-V5E@2x2:4")] == ["ct5lp-hightpu-4t"]
    with pytest.raises(SizingError, match="did you mean 'aws'"):
        instances("H100-SXM", cloud="awz")
    with pytest.raises(AcceleratorError):
        instances("H1OO:8")


def _price(name: str, kind: str = "on-demand") -> float:
    return min(p.usd_per_hour for p in _instances.prices() if p.instance == name and p.kind == kind)


def test_estimate_cost_pays_for_whole_instances() -> None:
    p5 = _price("p5.48xlarge")
    eight = estimate_cost("H100-SXM:8", 10, cloud="aws")
    assert (eight.instance, eight.instances_needed) == ("p5.48xlarge", 1)
    assert eight.usd == pytest.approx(10 * p5)
    sixteen = estimate_cost("H100-SXM:16", 10, cloud="aws")
    assert sixteen.instances_needed == 2
    assert sixteen.usd == pytest.approx(20 * p5)
    one = estimate_cost("H100-SXM", 1, cloud="aws")  # the one-GPU p5.4xlarge, not an eighth of p5
    assert (one.instance, one.instances_needed) == ("p5.4xlarge", 1)
    assert one.usd == pytest.approx(_price("p5.4xlarge"))
    hf = estimate_cost("H200-SXM:2", 3, cloud="hf")
    assert (hf.instance, hf.usd) == ("h200x2", pytest.approx(3 * _price("h200x2")))
    assert hf.price.source == "hf-jobs-pricing"
    assert hf.price.date == dt.date(2026, 11, 23)


def test_slices_are_charged_their_share_of_a_device() -> None:
    per_gpu = _price("a100x8") / 8
    slice_cost = estimate_cost("A100-80GB@3g.40gb", 1, cloud="hf")
    profile = catalog.get("A100-80GB").mig_profile("3g.40gb")
    share = max(profile.sm_fraction, profile.memory_slices / 8)
    assert slice_cost.usd_per_hour == pytest.approx(per_gpu * share)
    half = estimate_cost("L4:0.5", 1, cloud="hf")
    assert half.usd_per_hour == pytest.approx(_price("l4x1") / 2)


def test_estimate_cost_without_a_price_says_what_is_missing() -> None:
    with pytest.raises(SizingError, match=r"No on-demand price on gcp is known.*a4x-highgpu-4g"):
        estimate_cost("GB200:4", 1, cloud="gcp")
    with pytest.raises(SizingError, match=r"No spot price on aws in us-east-1 is known"):
        estimate_cost("H100-SXM:8", 1, cloud="aws", kind="spot", region="us-east-1")
    with pytest.raises(SizingError, match="No instance type on hf carries MI300X"):
        estimate_cost("MI300X", 1, cloud="hf")
    with pytest.raises(SizingError, match="hours"):
        estimate_cost("H100-SXM:8", -1)
    with pytest.raises(SizingError, match="kind"):
        estimate_cost("H100-SXM:8", 1, kind="reserved")


def test_unit_prices_divide_the_device_hour_by_datasheet_figures() -> None:
    unit = unit_price("H200-SXM", "bf16", cloud="hf")
    h200 = catalog.get("H200-SXM")
    assert unit.usd_per_device_hour == pytest.approx(_price("h200"))
    assert unit.usd_per_tflop_hour == pytest.approx(_price("h200") / h200.tflops["bf16"])
    assert unit.usd_per_gbps_hour == pytest.approx(_price("h200") / (h200.bandwidth_tbps * 1000))
    assert unit_price("H200-SXM", "int4", cloud="hf").usd_per_tflop_hour is None


def test_cost_of_throughput_from_a_number_and_from_a_bench_report() -> None:
    p5 = _price("p5.48xlarge")
    cost = cost_of_throughput(700.0, "p5.48xlarge", dtype="bf16")  # the cheapest region's price
    assert cost.usd_per_device_hour == pytest.approx(p5 / 8)
    assert cost.usd_per_tflop_hour == pytest.approx(p5 / 8 / 700)
    assert cost.usd_per_pflop == pytest.approx(p5 / 8 / (700 * 3600 / 1000))
    peak = catalog.get("H100-SXM").tflops["bf16"]
    assert cost.datasheet_usd_per_tflop_hour == pytest.approx(p5 / 8 / peak)
    from accelerators.bench import GemmResult

    gemm = tuple(
        GemmResult(dtype=dtype, device_index=i, tflops=rate)
        for i, (dtype, rate) in enumerate([("bf16", 650.0), ("bf16", 750.0), ("fp32", 50.0)])
    )
    from_report = cost_of_throughput(SimpleNamespace(gemm=gemm), "p5.48xlarge")
    assert from_report.measured_tflops == pytest.approx(700.0)  # bf16 by default
    with pytest.raises(SizingError, match=r"did you mean 'p5\.48xlarge'"):
        cost_of_throughput(700.0, "p5.48xlarg")
    with pytest.raises(SizingError, match="fp8 GEMM results"):
        cost_of_throughput(SimpleNamespace(gemm=gemm), "p5.48xlarge", dtype="fp8")
    with pytest.raises(SizingError, match="positive measured"):
        cost_of_throughput(math.inf, "p5.48xlarge")
    with pytest.raises(SizingError, match="No on-demand price"):
        cost_of_throughput(100.0, "p5e.48xlarge")  # no source prices it


def test_cost_of_throughput_reads_a_real_bench_report() -> None:
    from accelerators.bench import run
    from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

    report = run(
        "H100-SXM", backend=FakeBackend([FakeDevice()]), detected=fake_detected("H100-SXM")
    )
    bf16 = [g.tflops for g in report.gemm if g.dtype == "bf16" and g.tflops]
    cost = cost_of_throughput(report, "p5.48xlarge")
    assert cost.measured_tflops == pytest.approx(sum(bf16) / len(bf16))
    assert cost.usd_per_tflop_hour == pytest.approx(
        _price("p5.48xlarge") / 8 / cost.measured_tflops
    )
    fp8 = cost_of_throughput(report, "p5.48xlarge", dtype="fp8")
    assert fp8.usd_per_tflop_hour < cost.usd_per_tflop_hour
