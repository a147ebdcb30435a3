"""Plans across the market: every priced cloud ranked, by region and kind, each price dated and
sourced, and only what can be rented alone."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from accelerators.catalog import _instances
from accelerators.cli import build_app
from accelerators.sizing import SizingError, plan
from accelerators.sizing._prices import best_per_cloud

SEVEN = {"aws", "gcp", "azure", "oci", "lambda", "runpod", "paperspace"}


@pytest.fixture(autouse=True)
def _no_history(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ACCELERATORS_BENCH_HISTORY", raising=False)


def test_a_7b_lora_ranks_options_of_at_least_five_clouds() -> None:
    job = plan(7e9, "lora", tokens=1e8)
    clouds = {o.cloud for o in job.options}
    assert len(clouds & SEVEN) >= 5, clouds
    assert clouds >= SEVEN  # every one of the seven prices something that holds 16 GB


def test_every_rented_option_names_its_price_date_source_and_kind() -> None:
    job = plan(8e9, "full", tokens=1e8)
    for option in job.options:
        assert option.price is not None
        assert option.price.date is not None
        assert option.price.source
        assert option.price.kind == "on-demand"
        assert option.cost_basis
        assert str(option.price.date) in option.cost_basis
        assert option.instances >= 1  # whole instances (or whole RunPod devices)
        rows = [
            r for r in _instances.instances_named(str(option.instance)) if r.cloud == option.cloud
        ]
        assert rows
        assert rows[0].count >= 1


def test_a_region_prices_every_option_there_and_spot_uses_spot_prices() -> None:
    job = plan(7e9, "lora", tokens=1e8, clouds=["gcp"], region="us-central1")
    assert job.options
    assert {o.price.region for o in job.options if o.price} == {"us-central1"}
    spot = plan(7e9, "lora", tokens=1e8, clouds=["gcp"], region="us-central1", kind="spot")
    assert {o.price.kind for o in spot.options if o.price} == {"spot"}
    on_demand = {o.instance: o.usd_per_hour for o in job.options if o.usd_per_hour}
    compared = 0
    for option in spot.options:
        if option.usd_per_hour is not None and option.instance in on_demand:
            assert option.usd_per_hour < on_demand[option.instance]  # spot is cheaper here
            compared += 1
    assert compared


def test_an_unknown_region_is_refused_with_a_hint() -> None:
    with pytest.raises(SizingError, match="region"):
        plan(7e9, "lora", tokens=1e8, clouds=["gcp"], region="mars-north1")


def test_the_best_option_of_each_cloud_in_rank_order() -> None:
    opts = [
        SimpleNamespace(rank=1, cloud="runpod", spec="B200", usd=9.14),
        SimpleNamespace(rank=2, cloud="runpod", spec="B300", usd=10.49),
        SimpleNamespace(rank=3, cloud="gcp", spec="B200:8", usd=10.85),
        SimpleNamespace(rank=4, cloud=None, spec="L4", usd=None),
    ]
    assert best_per_cloud(opts) == (
        "best of each of 2 clouds: runpod #1 B200 $9.14, gcp #3 B200:8 $10.85"
    )
    assert best_per_cloud(opts[:2]) is None


def test_the_plan_command_prints_the_best_of_each_cloud() -> None:
    result = CliRunner().invoke(
        build_app(),
        ["plan", "--params", "7e9", "--method", "lora", "--tokens", "1e8", "--no-history"],
    )
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # the console wraps long lines
    line = text[text.index("best of each of") :].split(" more: ")[0]
    assert all(f" {cloud} #" in line for cloud in SEVEN), line


def test_instances_names_the_cheapest_region_of_each_cloud() -> None:
    result = CliRunner().invoke(build_app(), ["instances", "H100-SXM:8"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    section = text[text.index("Cheapest per cloud") :]
    for cloud in ("aws", "gcp", "azure", "oci", "lambda", "runpod", "paperspace"):
        assert f" {cloud} " in section, cloud
    assert "p5.48xlarge in us-east-1 (2025-11-30, aws-vantage)" in section


@pytest.mark.parametrize(
    ("params", "method", "tokens"), [(70e9, "qlora", 2e7), (8e9, "full", 1e8), (7e9, "lora", 1e8)]
)
def test_training_plans_leave_inference_only_parts_out_and_say_why(
    params: float, method: str, tokens: float
) -> None:
    # AWS ships training software for Trainium only (Neuron's PyTorch page): an Inf1 or Inf2
    # instance cannot run a fine-tune, however cheap its hours look
    job = plan(params, method, tokens=tokens, history=False, clouds=["aws"])
    assert job.options
    ranked = {o.spec.accelerator.name for o in job.options if o.spec.accelerator}
    assert not ranked & {"INFERENTIA1", "INFERENTIA2"}
    assert ranked & {"TRAINIUM1", "TRAINIUM2"} or method == "qlora"  # Trainium still trains
    left = {e.where: e.reason for e in job.excluded if e.reason.startswith("inference only")}
    assert {w.split()[1].split(".")[0] for w in left} == {"inf1", "inf2"}
    assert all("aws-neuron-pytorch" in reason for reason in left.values())


def test_the_plan_command_counts_inference_only_parts_among_what_it_left_out() -> None:
    result = CliRunner().invoke(
        build_app(),
        ["plan", "--params", "8e9", "--method", "full", "--tokens", "1e8", "--no-history"],
    )
    assert result.exit_code == 0, result.output
    assert "inference only" in " ".join(result.output.split())
    assert "INFERENTIA" not in result.output.split("left out")[0]


def test_inference_sizing_still_offers_inference_only_parts() -> None:
    from accelerators.sizing import ModelShape, estimate_memory, recommend

    shape = ModelShape.like(7e9)
    serving = [str(r.spec) for r in recommend(shape, vendors=["aws"], top=None)]
    assert any(s.startswith("INFERENTIA") for s in serving)
    tuning = recommend(estimate_memory(shape, method="lora"), vendors=["aws"], top=None)
    assert tuning
    assert not any(str(r.spec).startswith("INFERENTIA") for r in tuning)


def test_the_catalog_sources_which_parts_are_inference_only() -> None:
    from accelerators import catalog

    only = {a.name for a in catalog.all() if not a.trains}
    # AWS's Inferentia and FuriosaAI's RNGD and Warboy ("optimized for ... inference")
    assert only == {"INFERENTIA1", "INFERENTIA2", "RNGD", "WARBOY"}
    for name in only:
        workloads = catalog.get(name).workloads
        assert workloads is not None
        assert workloads.value == ("inference",)
        assert workloads.source in catalog.sources()
    # a T4 or a Qualcomm AI 100 trains: NVIDIA's GPUs and Qualcomm's own fine-tuning
    # (efficient-transformers, --device qaic) say so
    assert catalog.get("T4").trains
    assert catalog.get("AI100").trains
