"""``dags/flyte_finetune.py``: plan by the job, gate the plan's choice, train where it passed.

One test runs the workflow locally end to end (the real plan, the real quick gate on this
machine's CPU, training on the CPU); the others compile the ``@dynamic`` nodes as a cluster
pod does, read what the plan's choice becomes in the serialised overrides, and schedule the
pods propeller builds from them (``placement_oracle``) on nodes as Karpenter labels them: the
template's pods run on EKS through Karpenter (``PLATFORM``), and its plan keeps what
Karpenter can place.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import flyte_finetune
import placement_oracle as oracle
import pytest
from flyte_helpers import SETTINGS, override_pod_spec, required_terms, serialize, validate_pod_spec
from flytekit import FlyteContextManager
from flytekit.core.context_manager import ExecutionState
from flytekit.core.type_engine import TypeEngine
from flytekit.models.task import Resources as ResourceModel
from flytekitplugins.accelerators import GateResult, last_gate_deck, last_gate_result

from accelerators import AcceleratorSpec
from accelerators.sizing import InfeasibleJobError, finetune_choice, plan_finetune

GPU = ResourceModel.ResourceName.GPU
HOSTNAME = "kubernetes.io/hostname"
PLATFORM = flyte_finetune.PLATFORM
_GPU_NAME = "karpenter.k8s.aws/instance-gpu-name"
_GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}


def _ec2_node(name: str, instance_type: str, gpu: str, count: int, device: str) -> oracle.Node:
    """A node Karpenter launched: its well-known labels (karpenter-provider-aws
    ``pkg/apis/v1/labels.go``; ``instance-gpu-name`` is EC2's GPU name in lower case), the
    NodePool's GPU taint, and the device a container on it gets."""
    labels = {
        HOSTNAME: name,
        "node.kubernetes.io/instance-type": instance_type,
        "karpenter.sh/nodepool": "gpu",
        _GPU_NAME: gpu,
        "karpenter.k8s.aws/instance-gpu-manufacturer": "nvidia",
        "karpenter.k8s.aws/instance-gpu-count": str(count),
    }
    allocatable = {"cpu": "3920m", "memory": "14Gi", "nvidia.com/gpu": str(count)}
    return oracle.Node(name, labels, allocatable, (_GPU_TAINT,), device=device)


#: An EKS cluster's GPU nodes as Karpenter labels them: the EC2 types the plan's choices run on
#: (g6 L4, g4dn T4, g6e L40S), an 8 x H100 p5 and a CPU node. None carries propeller's default
#: ``k8s.amazonaws.com/accelerator`` label: a pod placed for platform ``flyte`` lands nowhere.
KARPENTER_NODES = (
    _ec2_node("ip-10-0-1-11.ec2.internal", "g6.xlarge", "l4", 1, "L4"),
    _ec2_node("ip-10-0-1-12.ec2.internal", "g4dn.xlarge", "t4", 1, "T4"),
    _ec2_node("ip-10-0-1-13.ec2.internal", "g6e.xlarge", "l40s", 1, "L40S"),
    _ec2_node("ip-10-0-1-14.ec2.internal", "g4dn.xlarge", "t4", 1, "T4"),
    _ec2_node("ip-10-0-2-21.ec2.internal", "p5.48xlarge", "h100", 8, "H100-SXM"),
    oracle.Node(
        "ip-10-0-3-31.ec2.internal",
        {HOSTNAME: "ip-10-0-3-31.ec2.internal", "node.kubernetes.io/instance-type": "m7i.xlarge"},
        {"cpu": "3920m", "memory": "14Gi"},
    ),
)


def test_the_workflow_plans_gates_and_trains_locally() -> None:
    result = flyte_finetune.finetune(tokens=2e7, budget_usd=5.0, steps=10)
    # the shared parameters' defaults, on the template's platform
    expected = plan_finetune(tokens=2e7, budget_usd=5.0, platform=PLATFORM)
    assert expected.best is not None
    assert PLATFORM == "karpenter"
    assert expected.best.cloud == "aws"  # Karpenter's nodes are EC2 instances
    chosen = result.plan
    assert chosen.spec == str(expected.fallbacks(3))
    assert chosen.usd == expected.best.usd
    assert chosen.usd <= 5.0
    # the device count travels with the plan (the Airflow template gives it to torchrun)
    assert chosen.devices == expected.best.devices
    assert chosen.startup_min == expected.best.startup.minutes > 0
    assert chosen.tokens_per_s == expected.best.tokens_per_s > 0
    assert "hf" in chosen.clouds  # every cloud with prices was considered, and said
    assert chosen.platform.startswith("karpenter (its nodes are aws instances): ")
    gate = last_gate_result(chosen.spec)
    assert gate is not None
    assert gate.local  # the plan's choice is not on this machine: the CPU stands in
    assert gate.expected == chosen.spec
    assert f"{chosen.spec} is not on this machine" in result.gate_note
    # the headline says the planned device was not checked, before any verdict
    assert result.gate_headline == gate.headline
    assert gate.headline.startswith("not checked: this machine has ")
    assert (result.gate_verdict, result.gate_device) == (gate.verdict, gate.device)
    measured = {g.dtype: round(g.tflops, 3) for g in gate.report().gemm}
    assert result.gate_tflops == measured
    assert measured  # the gate's figures reach the training task
    assert result.device == "cpu"
    assert result.final_loss < result.first_loss
    # the plan task's Deck shows the ranking
    ctx = FlyteContextManager.current_context()
    decks = [d for d in ctx.user_space_params.decks if d.name == "Plan"]
    assert decks
    page = decks[-1].html
    assert expected.summary() in page
    assert expected.best.throughput.detail in page
    # the gate's Deck file was written, found and logged; it opens on the gate's tab
    deck = last_gate_deck(chosen.spec)
    assert deck is not None
    assert deck == last_gate_deck()
    written = Path(deck).read_text(encoding="utf-8")
    tabs = written.split('<li onclick="handleLinkClick(this)">')[1:]
    assert tabs[0].startswith("Accelerator gate</li>")
    assert any(t.startswith("Timeline</li>") for t in tabs[1:])
    assert gate.headline.replace("'", "&#x27;") in written


def test_the_plan_result_matches_the_shared_plan_and_carries_the_device_count() -> None:
    job = flyte_finetune.plan_job(
        model_config={},
        method="lora",
        tokens=5e7,
        epochs=1.0,
        budget_usd=200.0,
        deadline_h=12.0,
        clouds=[],
        rank_by="cost",
        startup_min=None,
    )
    expected = finetune_choice(
        plan_finetune("", "lora", 5e7, 1.0, 200.0, 12.0, [], "cost", None, platform=PLATFORM)
    )
    assert {k: getattr(job, k) for k in expected} == expected
    assert job.devices >= 1


def test_a_job_nothing_holds_fails_the_plan_task_naming_the_binding_constraint() -> None:
    config = {
        "model_type": "llama",
        "vocab_size": 32000,
        "hidden_size": 8192,
        "intermediate_size": 28672,
        "num_hidden_layers": 80,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
    }
    with pytest.raises(InfeasibleJobError, match=r"the cheapest option that fits costs \$"):
        flyte_finetune.plan_job(
            model_config=config,
            method="full",
            tokens=2e7,
            epochs=1.0,
            budget_usd=5.0,
            deadline_h=0.5,
            clouds=[],
            rank_by="cost",
            startup_min=None,
        )


def _dispatch(dynamic_task: Any, inputs: dict[str, Any], hints: dict[str, type]) -> Any:
    """Compile a ``@dynamic`` as a cluster pod does (TASK_EXECUTION)."""
    ctx = FlyteContextManager.current_context()
    with FlyteContextManager.with_context(ctx.with_serialization_settings(SETTINGS)) as ctx:
        state = ctx.execution_state.with_params(mode=ExecutionState.Mode.TASK_EXECUTION)
        with FlyteContextManager.with_context(ctx.with_execution_state(state)) as ctx:
            literals = TypeEngine.dict_to_literal_map(ctx, inputs, type_hints=hints)
            return dynamic_task.dispatch_execute(ctx, literals)


def _planned(**kwargs: Any) -> flyte_finetune.FinetunePlan:
    job = plan_finetune(flyte_finetune.MODEL_CONFIG, "full", 2e7, platform=PLATFORM, **kwargs)
    return flyte_finetune.FinetunePlan(**finetune_choice(job), plan_json=json.dumps(job.to_dict()))


def _placement(compiled: Any, node: Any) -> tuple[dict[str, Any], list[str], str | None]:
    """The pod spec a compiled node gets, its GPU count and its accelerator device: from the
    node's overrides, else from the task template the node runs (a gate node carries its
    placement in its own task, so that chained overrides cannot drop it)."""
    overrides = node.task_node.overrides
    [template] = [t for t in compiled.tasks if t.id == node.task_node.reference_id]
    if overrides is not None and overrides.pod_template is not None:
        pod_spec = override_pod_spec(overrides)
    else:
        pod_spec = dict(template.k8s_pod.pod_spec)
    limits = [e.value for e in (overrides.resources.limits if overrides.resources else [])]
    if not limits:
        primary = next(c for c in pod_spec["containers"] if c["name"] == "primary")
        found = primary.get("resources", {}).get("limits", {})
        limits = [v for k, v in found.items() if k in ("gpu", "nvidia.com/gpu")]
    extended = overrides.extended_resources or template.extended_resources
    device = extended.gpu_accelerator.device if extended and extended.gpu_accelerator else None
    return pod_spec, limits, device or None


def _propeller_pods(compiled: Any) -> list[tuple[str, dict[str, Any]]]:
    """``(task name, pod spec)`` propeller builds for each node of a compiled ``@dynamic``."""
    return oracle.dynamic_job(compiled).pods("dynamic")


def test_the_gate_node_asks_for_the_plans_alternatives() -> None:
    job = _planned()
    alternatives = AcceleratorSpec.parse(job.spec).alternatives
    assert len(alternatives) == 3  # three single-device alternatives one pod can ask for
    compiled = _dispatch(
        flyte_finetune.gate_then_train,
        {"job": job, "steps": 3},
        {"job": flyte_finetune.FinetunePlan, "steps": int},
    )
    gate_node = compiled.nodes[0]
    assert "gate" in gate_node.task_node.reference_id.name
    pod_spec, limits, device = _placement(compiled, gate_node)
    assert limits == ["1"]
    assert device is None  # no propeller device label: Karpenter's labels select
    validate_pod_spec(pod_spec)
    # propeller's pod lands on the nodes of the plan's alternatives, and on no other
    [pod] = [p for n, p in _propeller_pods(compiled) if n == gate_node.task_node.reference_id.name]
    landed = oracle.lands_on(pod, KARPENTER_NODES)
    wanted = {a.accelerator.name for a in alternatives if a.accelerator is not None}
    assert {n.device for n in KARPENTER_NODES if n.name in landed} == wanted
    for node in KARPENTER_NODES:
        assert (node.name in landed) == oracle.gate_accepts(job.spec, node), node.name


def test_training_gets_the_alternative_the_gate_matched_on_its_node() -> None:
    job = _planned()
    # the gate matched the plan's last alternative (not its first) on the node it ran on
    last = AcceleratorSpec.parse(job.spec).alternatives[-1]
    assert last != AcceleratorSpec.parse(job.spec).alternatives[0]
    [node_of_last, *_] = [
        n for n in KARPENTER_NODES if n.device and oracle.gate_accepts(str(last), n)
    ]
    gate = GateResult(
        verdict="pass",
        expected=job.spec,
        checked=job.spec,
        local=False,
        expected_present=True,
        node=node_of_last.name,
        host="gate-pod",
        device=f"1 x {last}",
        matched=str(last),
    )
    compiled = _dispatch(
        flyte_finetune.train_on_gated_node,
        {"gate_result": gate, "job": job, "steps": 3},
        {"gate_result": GateResult, "job": flyte_finetune.FinetunePlan, "steps": int},
    )
    [node] = compiled.nodes
    pod_spec, limits, device = _placement(compiled, node)
    assert device is None
    assert limits == ["1"]
    [term] = required_terms(pod_spec)
    assert {"key": HOSTNAME, "operator": "In", "values": [node_of_last.name]} in term
    validate_pod_spec(pod_spec)
    # propeller's pod lands on the gate's node only: not on another node of the same device
    [(_, pod)] = _propeller_pods(compiled)
    assert oracle.lands_on(pod, KARPENTER_NODES) == [node_of_last.name]


def test_a_flyte_labelled_placement_would_land_on_no_karpenter_node() -> None:
    """Why the template places on ``PLATFORM``: propeller's default labels are not on nodes
    Karpenter launches, so the same plan placed for platform ``flyte`` stays Pending."""
    job = _planned()
    compiled = _dispatch(
        flyte_finetune.gate_then_train,
        {"job": job, "steps": 3},
        {"job": flyte_finetune.FinetunePlan, "steps": int},
    )
    gate_name = compiled.nodes[0].task_node.reference_id.name
    [placed] = [p for n, p in _propeller_pods(compiled) if n == gate_name]
    assert oracle.lands_on(placed, KARPENTER_NODES)
    from flytekit import task
    from flytekitplugins.accelerators import task_args

    @task(**task_args(job.spec, platform="flyte"))
    def on_flyte_labels() -> None:
        pass

    [template] = oracle.registered(on_flyte_labels, SETTINGS).tasks.values()
    assert oracle.lands_on(oracle.propeller_pod(template), KARPENTER_NODES) == []


def test_the_workflow_serialises() -> None:
    spec = serialize(flyte_finetune.finetune)
    assert spec.to_flyte_idl().SerializeToString()
    assert [n.id for n in spec.template.nodes][:1] == ["n0"]
