"""recommend(): ranked specs that hold the workload, with headroom, price and reasons."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec, catalog
from accelerators.catalog import _instances
from accelerators.kubernetes import to_pod_fragment
from accelerators.sizing import ModelShape, SizingError, estimate_memory, recommend


def test_a_7b_model_in_bf16_gets_cheapest_first_and_each_result_holds_it() -> None:
    need = estimate_memory(ModelShape.like(7e9), dtype="bf16", seq_len=4096, batch=1)
    ranked = recommend(need, clouds=["hf"], min_headroom=0.1, top=None)
    assert ranked, "a 7B model must fit somewhere on Hugging Face Jobs"
    prices = [r.usd_per_hour for r in ranked if r.usd_per_hour is not None]
    assert prices == sorted(prices)
    for rec in ranked:
        assert rec.memory_needed_gb == pytest.approx(need.total_gb)
        assert rec.memory_needed_gb <= rec.capacity_gb * 0.9
        assert rec.headroom >= 0.1
        assert AcceleratorSpec.parse(str(rec.spec)) == rec.spec  # a real spec, round-trips
        assert f"{need.total_gb:.1f} GB" in rec.reason


def test_mig_and_tpu_slices_are_offered_where_they_fit() -> None:
    # a MIG slice nobody rents alone is a share of a node: offered only when shares are asked for
    rentable = recommend(memory_gb=8, top=None, min_headroom=0.1)
    assert "A100-40GB@1g.10gb" not in {str(r.spec) for r in rentable}
    assert all(r.price is None or r.price.instance for r in rentable)
    ranked = recommend(memory_gb=8, top=None, min_headroom=0.1, include_shares=True)
    specs = {str(r.spec) for r in ranked}
    assert "A100-40GB@1g.10gb" in specs
    assert any(r.parallelism.startswith("TPU slice") for r in ranked)
    mig = next(r for r in ranked if str(r.spec) == "A100-40GB@1g.10gb")
    assert mig.capacity_gb == catalog.get("A100-40GB").mig_profile("1g.10gb").memory_gb
    # The spec goes straight into the Kubernetes translators (and so to Flyte and Airflow).
    fragment = to_pod_fragment(mig.spec, platform="nvidia")
    assert "nvidia.com/mig-1g.10gb" in str(fragment)
    no_slices = recommend(memory_gb=8, partitions=False, top=None)
    assert not any("MIG" in r.parallelism for r in no_slices)


def test_a_70b_model_needs_tensor_parallelism_and_405b_pipeline_stages() -> None:
    seventy = recommend(ModelShape.like(70e9), dtype="bf16", vendors=["nvidia"], top=None)
    h100 = next(r for r in seventy if r.spec.accelerator.model == "H100-SXM")
    assert h100.spec.count == 4
    assert h100.parallelism == "tensor parallel x4"
    big = recommend(memory_gb=405e9 * 2 / 1e9 * 1.2, vendors=["nvidia"], top=None)
    h100_big = next(r for r in big if r.spec.accelerator.model == "H100-SXM")
    assert h100_big.spec.count == 16
    assert h100_big.parallelism == "tensor parallel x8, pipeline x2"


def test_filters_budget_vendor_cloud_and_dtype() -> None:
    cheap = recommend(memory_gb=20, budget_usd_per_hour=1.0, top=None)
    assert all(r.usd_per_hour is None or r.usd_per_hour <= 1.0 for r in cheap)
    assert any(
        "not checked against the budget" in r.reason for r in cheap if r.usd_per_hour is None
    )
    amd = recommend(memory_gb=100, vendors=["AMD"], top=None)
    assert amd
    assert {r.spec.accelerator.vendor for r in amd} == {"amd"}
    azure = recommend(memory_gb=100, clouds=["azure"], top=None)
    assert azure
    on_azure = {catalog.get(row.accelerator).model for row in _instances.instances("azure")}
    assert all(r.spec.accelerator.model in on_azure for r in azure)
    bf16 = {r.spec.accelerator.model for r in recommend(memory_gb=10, dtype="bf16", top=None)}
    assert "V100-16GB" not in bf16
    assert "T4" not in bf16
    fp16 = {r.spec.accelerator.model for r in recommend(memory_gb=10, dtype="fp16", top=None)}
    assert "T4" in fp16


def test_bad_input_raises_sizing_errors() -> None:
    with pytest.raises(SizingError, match="not both"):
        recommend()
    with pytest.raises(SizingError, match="not both"):
        recommend(ModelShape.like(7e9), memory_gb=10)
    with pytest.raises(SizingError, match="positive memory_gb"):
        recommend(memory_gb=-1)
    with pytest.raises(SizingError, match="did you mean 'nvidia'"):
        recommend(memory_gb=10, vendors=["nvidai"])
    with pytest.raises(SizingError, match="min_headroom"):
        recommend(memory_gb=10, min_headroom=1.5)
    with pytest.raises(SizingError, match="Expected a MemoryEstimate"):
        recommend("7B")  # type: ignore[arg-type]
    assert recommend(memory_gb=1e6) == ()  # nothing holds a petabyte
