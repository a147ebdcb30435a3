"""``plan()``: the job's FLOPs, the achievable rate (fleet or default), time, cost, ranking."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

import accelerators
from accelerators import catalog
from accelerators.catalog import _instances
from accelerators.sizing import (
    QLORA_SLOWDOWN,
    TRAINING_EFFICIENCY,
    ModelShape,
    SizingError,
    achievable,
    fleet_baseline,
    job_flops,
    plan,
    plan_html,
)
from accelerators.spec import AcceleratorSpec

DATA = Path(__file__).resolve().parents[1] / "data"
QWEN = DATA / "qwen2.5-0.5b-config.json"


# -- FLOPs ---------------------------------------------------------------------------------------
def test_full_training_is_six_n_d_plus_attention_without_recomputation() -> None:
    work = job_flops(ModelShape.from_params(7e9), method="full", tokens=1e9, checkpointing=False)
    # A bare count gets Llama 2 7B's shape, as plan(7e9) does: 32 layers of 32 heads x 128.
    attention = 12 * 32 * 32 * 128 * 4096
    assert work.model_flops == pytest.approx((6 * 7e9 + attention) * 1e9)
    assert work.hardware_flops == work.model_flops
    assert work.time_factor == 1
    assert any("Llama-2-7B shape" in note for note in work.notes)


def test_recomputation_adds_one_forward_pass_to_hardware_flops() -> None:
    shape = ModelShape.like(7e9)
    work = job_flops(shape, method="full", tokens=1e9, epochs=2, checkpointing=True)
    attention = 12 * 32 * 32 * 128 * 4096
    assert work.tokens == 2e9
    assert work.model_flops == pytest.approx((6 * 7e9 + attention) * 2e9)
    assert work.hardware_flops == pytest.approx((8 * 7e9 + attention * 4 / 3) * 2e9)


def test_attention_scores_follow_palm_appendix_b() -> None:
    shape = ModelShape.like(7e9)  # Llama 2 7B: 32 layers, 32 heads of 128
    work = job_flops(shape, method="full", tokens=1, seq_len=4096, checkpointing=False)
    assert work.per_token == pytest.approx(6 * shape.params + 12 * 32 * 32 * 128 * 4096)


def test_lora_drops_the_weight_gradient_and_qlora_stretches_time() -> None:
    shape = ModelShape.like(7e9)
    lora = job_flops(shape, method="lora", tokens=1e6, seq_len=4096, checkpointing=False)
    attention = 12 * 32 * 32 * 128 * 4096
    trainable = 2 * 32 * 16 * (4096 + 4096)  # rank 16 on W_q and W_v, 32 layers
    assert lora.per_token == pytest.approx(4 * shape.params + attention + 6 * trainable)
    qlora = job_flops(shape, method="qlora", tokens=1e6, seq_len=4096, checkpointing=False)
    assert qlora.time_factor == pytest.approx(3.83 / 2.36) == QLORA_SLOWDOWN
    assert qlora.per_token > lora.per_token  # adapters on every linear layer
    assert any("LitGPT" in note for note in qlora.notes)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "inference", "tokens": 1e6}, "not a training job"),
        ({"method": "lroa", "tokens": 1e6}, "did you mean 'lora'"),
        ({"method": "full", "tokens": 0}, "positive number for tokens"),
        ({"method": "full", "tokens": float("nan")}, "positive number for tokens"),
        ({"method": "lora", "tokens": 1e6, "epochs": -1}, "positive number for epochs"),
        ({"method": "lora", "tokens": "1e6"}, "positive number for tokens"),
    ],
)
def test_bad_job_input(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(SizingError, match=message):
        job_flops(ModelShape.from_params(1e9), **kwargs)


# -- achievable rate ----------------------------------------------------------------------------
def test_default_rate_is_the_peak_times_the_mamf_band() -> None:
    h100 = catalog.get("H100-SXM")
    rate = achievable(h100, "bf16")
    assert rate.source == "default"
    assert rate.achievable_tflops == pytest.approx(h100.tflops["bf16"] * 0.803)
    assert "MAMF" in rate.detail
    assert "H100-SXM band (source)" in rate.detail


def test_a_mig_slice_gets_its_share_of_the_device() -> None:
    a100 = catalog.get("A100-80GB")
    profile = a100.mig_profile("1g.10gb")
    assert profile is not None
    whole, part = achievable(a100, "bf16"), achievable(a100, "bf16", partition="1g.10gb")
    assert part.achievable_tflops == pytest.approx(whole.achievable_tflops * profile.sm_fraction)


def _bench_history(path: Path, bf16: float, *, nodes: tuple[str, ...]) -> None:
    """Real gate runs (fake H100 backend) appended to a SQLite bench history."""
    from accelerators.bench import run
    from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

    rates = {"bf16": bf16, "fp16": bf16, "fp32": 40.0, "tf32": 350.0, "fp8": 1420.0}
    for node in nodes:
        os.environ["NODE_NAME"] = node
        try:
            run(
                "H100-SXM",
                backend=FakeBackend([FakeDevice(gemm_tflops=rates)]),
                detected=fake_detected("H100-SXM"),
                history=path,
            )
        finally:
            os.environ.pop("NODE_NAME", None)


def test_the_fleet_baseline_replaces_the_default(tmp_path: Path) -> None:
    history = tmp_path / "history.sqlite"
    _bench_history(history, 700.0, nodes=("gpu-1", "gpu-2"))
    fleet = fleet_baseline(history)
    median, devices = fleet.medians[("H100-SXM", "gemm.bf16")]
    assert devices == 2
    assert 600 < median < 700  # the sustained median of what the fake device delivered
    rate = achievable(catalog.get("H100-SXM"), "bf16", fleet=fleet)
    assert rate.source == "fleet"
    assert rate.achievable_tflops == median
    assert "fleet median of 2 H100-SXM devices" in rate.detail

    with_fleet = plan(7e9, "lora", tokens=1e8, clouds=["aws"], history=history)
    without = plan(7e9, "lora", tokens=1e8, clouds=["aws"], history=False)
    assert with_fleet.fleet == str(history)
    assert without.fleet is None
    [fleet_option] = [o for o in with_fleet.options if o.instance == "p5.48xlarge"]
    [default_option] = [o for o in without.options if o.instance == "p5.48xlarge"]
    assert fleet_option.throughput.source == "fleet"
    assert default_option.throughput.source == "default"
    ratio = default_option.throughput.achievable_tflops / median
    assert fleet_option.train_hours == pytest.approx(default_option.train_hours * ratio)
    assert fleet_option.startup == default_option.startup  # the rate changes only the steps


def test_failed_runs_are_not_the_fleet(tmp_path: Path) -> None:
    history = tmp_path / "history.sqlite"
    _bench_history(history, 300.0, nodes=("slow-1",))  # far below the band: the gate fails
    assert fleet_baseline(history).rate("H100-SXM", "bf16") is None


def test_the_environment_names_the_history(tmp_path: Path, monkeypatch: Any) -> None:
    history = tmp_path / "env.sqlite"
    _bench_history(history, 700.0, nodes=("gpu-1",))
    monkeypatch.setenv("ACCELERATORS_BENCH_HISTORY", str(history))
    assert fleet_baseline(None).location == str(history)
    assert fleet_baseline(False).medians == {}
    monkeypatch.delenv("ACCELERATORS_BENCH_HISTORY")
    assert fleet_baseline(None).location is None


# -- time, cost and ranking -------------------------------------------------------------------
def test_time_and_cost_are_flops_over_rate_and_hours_times_price() -> None:
    job = plan(QWEN, "full", tokens=5e7, history=False)
    assert job.options
    for option in job.options:
        rate = option.devices * option.throughput.achievable_tflops * 1e12 * TRAINING_EFFICIENCY
        assert option.train_hours == pytest.approx(job.flops.hardware_flops / rate / 3600)
        assert option.hours == pytest.approx(option.train_hours + option.startup.hours)
        assert option.usd == pytest.approx(option.hours * option.usd_per_hour)
        assert option.tokens_per_s == pytest.approx(5e7 / (option.train_hours * 3600))


def test_rented_choices_are_whole_instances_with_a_price() -> None:
    job = plan(7e9, "lora", tokens=1e8, history=False)
    assert {o.ownership for o in job.options} == {"rent"}
    for option in job.options:
        # clouds may share a name in other casing (Paperspace A100x8, Hugging Face a100x8)
        [row] = [r for r in _instances.instances_named(option.instance) if r.cloud == option.cloud]
        assert option.devices == row.count * option.instances
        assert option.spec.count == option.devices
        # no MIG slice is rented; a TPU slice is a whole TPU VM
        assert option.spec.partition is None or option.spec.tpu_topology is not None
        assert option.price is not None
        assert option.price.instance == row.name
        assert option.price.cloud == row.cloud
        assert option.usd_per_hour == pytest.approx(option.price.usd_per_hour * option.instances)
        assert option.memory_per_device_gb <= option.capacity_gb * 0.9


def test_a_share_of_one_gpu_is_not_rented() -> None:
    # Azure's NVadsA10 v5 sizes carry 1/6 .. 1/2 of an A10; a fraction is not planned
    job = plan(0.5e9, "full", tokens=1e6, clouds=["azure"], history=False)
    fractions = [e for e in job.excluded if e.reason == "a fraction of one device"]
    assert fractions
    assert all(float(o.devices).is_integer() for o in job.options)


def test_ranked_by_cost_then_by_time() -> None:
    by_cost = plan(7e9, "lora", tokens=1e8, history=False)
    costs = [o.usd for o in by_cost.options]
    assert costs == sorted(costs, key=lambda c: float(f"{c:.3g}"))
    assert [o.rank for o in by_cost.options] == list(range(1, len(costs) + 1))
    by_time = plan(7e9, "lora", tokens=1e8, rank_by="time", history=False)
    hours = [o.hours for o in by_time.options]
    assert hours == sorted(hours, key=lambda h: float(f"{h:.3g}"))
    assert by_time.best is not None
    assert by_cost.best is not None
    assert by_time.best.hours < by_cost.best.hours


def test_cost_within_a_deadline_and_a_budget() -> None:
    free = plan(7e9, "lora", tokens=1e8, history=False)
    deadline = 1.0
    fast_enough = [o for o in free.options if o.hours <= deadline]
    assert fast_enough
    assert any(o.hours > deadline for o in free.options)
    timed = plan(7e9, "lora", tokens=1e8, deadline_h=deadline, history=False)
    assert timed.best is not None
    assert timed.best.usd == pytest.approx(min(o.usd for o in fast_enough))
    assert all(o.hours <= deadline for o in timed.options)
    assert any("past the deadline" in e.reason for e in timed.excluded)

    budget = 15.0
    capped = plan(7e9, "lora", tokens=1e8, budget_usd=budget, history=False)
    assert all(o.usd <= budget for o in capped.options)
    assert any(e.reason.startswith("over budget") for e in capped.excluded)
    assert len(capped.options) == sum(1 for o in free.options if o.usd <= budget)


def test_a_model_that_does_not_fit_one_device_is_sharded_over_a_real_instance() -> None:
    job = plan(7e9, "full", tokens=1e8, clouds=["aws", "gcp", "azure"], history=False)
    assert job.memory.total_gb > 80
    assert job.options
    assert any(o.sharded for o in job.options)
    for option in job.options:
        if option.capacity_gb * 0.9 < job.memory.total_gb:  # it does not fit one device
            assert option.sharded
            assert "FSDP" in option.layout
            assert option.devices > 1
        assert option.memory_per_device_gb <= option.capacity_gb * 0.9
    # on 8 x A100-40GB instances (320 GB each) 70B full fine-tuning needs several
    big = plan(70e9, "full", tokens=1e7, instances=["p4d.24xlarge"], history=False)
    assert big.best is not None
    assert big.best.instances > 1  # 70B full fine-tuning needs several 8-GPU instances
    assert any("cluster fabric" in note for note in big.best.notes)
    assert big.best.devices == 8 * big.best.instances


def test_fallbacks_are_the_next_choices_one_pod_can_ask_for() -> None:
    from accelerators.kubernetes import placement_problems, to_pod_fragment

    job = plan(7e9, "lora", tokens=1e8, clouds=["hf"], history=False)
    chain = job.fallbacks(3)
    first = job.options[0].spec
    same = [o.spec for o in job.options if o.spec.count == first.count]
    expected = list(dict.fromkeys(str(s) for s in same))[:3]
    assert [str(s) for s in chain.alternatives] == expected
    assert len(expected) == 3
    assert AcceleratorSpec.parse(str(chain)) == chain
    assert not placement_problems(chain, platform="flyte")  # one pod asks for all of them
    fragment = to_pod_fragment(chain, platform="flyte")
    assert fragment["resources"]["limits"] == {"nvidia.com/gpu": str(first.count)}


def test_the_plan_is_json() -> None:
    job = plan(QWEN, "full", tokens=5e7, budget_usd=5, history=False)
    data = json.loads(json.dumps(job.to_dict()))
    assert data["method"] == "full"
    assert data["best"]["spec"] == str(job.best.spec)
    assert data["best"]["throughput"]["source"] == "default"
    assert data["model"]["params"] == ModelShape.from_hf_config(QWEN).params
    assert math.isclose(data["hardware_flops"], job.flops.hardware_flops)


# -- your own cluster ---------------------------------------------------------------------------
def test_mig_slices_come_only_from_an_inventory() -> None:
    cloud = plan(QWEN, "lora", tokens=1e7, history=False)
    assert all(o.spec.partition is None or o.spec.tpu_topology for o in cloud.options)
    owned = plan(QWEN, "lora", tokens=1e7, inventory=["A100-80GB@1g.10gb:7"], history=False)
    slices = [o for o in owned.options if o.ownership == "own"]
    assert len(slices) == 1
    [mine] = slices
    assert str(mine.spec) == "A100-80GB@1g.10gb"
    assert mine.layout == "MIG slice 1g.10gb"
    assert mine.devices == 1
    assert mine.throughput.partition == "1g.10gb"
    assert mine.cost_basis.startswith("opportunity cost")
    assert "1 of 7 slices" in mine.where
    assert {o.ownership for o in owned.options} == {"rent", "own"}
    only = plan(QWEN, "lora", tokens=1e7, scope="cluster", inventory=["A100-80GB@1g.10gb:7"])
    assert {o.ownership for o in only.options} == {"own"}


def test_the_old_names_where_and_kind_still_work_with_a_deprecation_warning() -> None:
    """Issue 34: ``plan(where=)`` was a scope while ``PlanOption.where`` is a place, and
    ``PlanOption.kind`` was rent/own while ``plan(kind=)`` is the price kind."""
    mig = ["A100-80GB@1g.10gb:7"]
    new = plan(QWEN, "lora", tokens=1e7, scope="cluster", inventory=mig, history=False)
    with pytest.warns(DeprecationWarning, match=r"plan\(where=\.\.\.\) is deprecated.*scope="):
        old = plan(QWEN, "lora", tokens=1e7, where="cluster", inventory=mig, history=False)
    assert old == new
    with pytest.raises(SizingError, match="give scope= only"):
        plan(QWEN, "lora", tokens=1e7, scope="cluster", where="cluster", inventory=mig)
    [option] = new.options
    with pytest.warns(DeprecationWarning, match=r"PlanOption\.kind is deprecated.*ownership"):
        assert option.kind == option.ownership == "own"
    assert "kind" not in option.to_dict()
    assert option.to_dict()["ownership"] == "own"


def test_your_own_rate_is_charged_pro_rata() -> None:
    job = plan(
        7e9,
        "lora",
        tokens=1e8,
        scope="cluster",
        history=False,
        inventory=[{"spec": "H100-SXM:8", "nodes": 2, "usd_per_hour": 16.0, "name": "pool-a"}],
    )
    [option] = job.options
    assert option.devices == 1  # the fewest devices that hold a 7B LoRA
    assert option.usd_per_hour == pytest.approx(2.0)
    assert option.where == "pool-a (1 of 16 devices)"


def test_a_slice_too_small_is_left_out_with_the_reason() -> None:
    job = plan(7e9, "full", tokens=1e7, scope="cluster", inventory=["A100@1g.5gb:7"])
    assert not job.options
    assert "a job cannot span MIG slices" in job.excluded[0].reason
    with pytest.raises(SizingError, match="No option for this job: nothing holds the job's"):
        job.fallbacks()


@pytest.mark.parametrize(
    ("labels", "spec"),
    [
        (
            {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count": "8"},
            "A100-80GB-SXM!:8",
        ),
        (
            {
                "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb",
                "nvidia.com/gpu.count": "56",
                "nvidia.com/mig.strategy": "single",
            },
            "A100-80GB@1g.10gb:56",
        ),
        (
            {
                "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB",
                "nvidia.com/mig.strategy": "mixed",
                "nvidia.com/mig-3g.40gb.count": "2",
                "nvidia.com/mig-1g.10gb.count": "0",
            },
            "A100-80GB@3g.40gb:2",
        ),
        (
            {
                "cloud.google.com/gke-accelerator": "nvidia-a100-80gb",
                "cloud.google.com/gke-gpu-partition-size": "1g.10gb",
                "cloud.google.com/gke-accelerator-count": "2",
            },
            "A100-80GB@1g.10gb:14",
        ),
        ({"cloud.google.com/gke-accelerator": "nvidia-l4"}, "L4"),
        (
            {
                "karpenter.k8s.aws/instance-gpu-name": "a100",
                "karpenter.k8s.aws/instance-gpu-count": "8",
                "karpenter.k8s.aws/instance-gpu-memory": "81920",
            },
            "A100-80GB:8",
        ),
    ],
)
def test_node_labels_are_an_inventory(labels: dict[str, str], spec: str) -> None:
    from accelerators.sizing import owned_nodes

    [owned] = owned_nodes([{"metadata": {"name": "node-1", "labels": labels}}])
    assert str(owned.spec) == spec
    assert owned.name == "node-1"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rank_by": "fastest"}, r"Unknown rank_by 'fastest'"),
        ({"scope": "cluster"}, r"scope='cluster' plans on nodes you own: give inventory="),
        ({"scope": "all"}, r"scope='all' plans on nodes you own: give inventory="),
        ({"scope": "clod"}, r"Unknown scope 'clod'.*did you mean 'cloud'"),
        (
            {"scope": "cloud", "inventory": ["H100-SXM:8"]},
            r"inventory= was given with scope='cloud'",
        ),
        ({"clouds": ["awz"]}, r"Unknown cloud 'awz'.*did you mean 'aws'"),
        ({"budget_usd": -5}, r"positive budget_usd"),
        ({"deadline_h": float("inf")}, r"positive deadline_h"),
        ({"efficiency": 1.5}, r"efficiency in \(0, 1\]"),
        ({"kind": "reserved"}, r"Unknown kind 'reserved'"),
        ({"inventory": ["H100-SXM | A100"]}, r"inventory\[0\]: a node holds one named accelerator"),
        ({"inventory": [{"spec": "H100-SXM:8", "nodes": 0}]}, r"positive integer for nodes"),
        ({"inventory": [{"gpu": "H100-SXM"}]}, r"inventory\[0\]: expected a spec, node labels"),
        ({"inventory": [{"example.com/zone": "a"}]}, r"no accelerator label"),
        ({"inventory": ["H10O:8"]}, r"inventory\[0\]: .*H10O"),
    ],
)
def test_bad_plan_input_names_it(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(SizingError, match=message):
        plan(7e9, "lora", tokens=1e8, history=False, **kwargs)


def test_bad_models() -> None:
    with pytest.raises(SizingError, match="Expected a model"):
        plan([7e9], "lora", tokens=1e8)
    with pytest.raises(SizingError, match=r"Cannot read a Hugging Face config\.json"):
        plan("/nonexistent/config.json", "lora", tokens=1e8)
    assert plan("7e9", "lora", tokens=1e8, history=False).model.params == 7_000_000_000


def test_callable_constants_and_plan_agree() -> None:
    job = plan(70e9, "qlora", tokens=1e7, clouds=["hf"], history=False)
    assert job.best is not None
    assert job.best.spec == accelerators.H200(count=job.best.devices)


def test_the_plan_as_html() -> None:
    job = plan(QWEN, "full", tokens=5e7, budget_usd=5, history=False)
    page = plan_html(job, top=3)
    assert page.startswith("<h3>Plan: ")
    assert page.count("<tr>") == 1 + 3  # header and the first three choices
    best = job.best
    assert best is not None
    assert f'<td style="padding:2px 8px;border-bottom:1px solid #ddd">{best.where}</td>' in page
    assert best.throughput.detail in page
    assert "budget $5.00" in page
    assert "<script" not in page
