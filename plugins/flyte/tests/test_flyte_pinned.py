"""Issue 28 items 2 and 3: ``pinned`` after a gate node.

2. The trainer gets what the trainer asks for; the gate's device only picks among the trainer's
   alternatives (and must be one of them).
3. A multi-node job (kfpytorch builds every replica from the node's pod template) pinned to one
   hostname can never start; the linter flags that form, ``pinned(..., task=)`` refuses it, and
   a gate in each replica's pod (``accelerator_task(spec, task_config=Elastic(...))``) proves
   every node instead.

Dynamic workflows are compiled as a cluster pod compiles them; their ``DynamicJobSpec`` goes
through the placement oracle (``placement_oracle``, ``job_oracle``).
"""

from __future__ import annotations

import warnings
from typing import Any

import composition_cases as cases
import job_oracle
import placement_oracle as oracle
import pytest
from flytekitplugins.accelerators import GateResult, check, flyte2_pinned, pinned, run_gate

from accelerators import AcceleratorError, AcceleratorGateError, AcceleratorSpec

warnings.simplefilter("ignore", UserWarning)


def _gate(spec: str, sku: str, node: str) -> GateResult:
    """A gate node's result in a cluster: ``spec`` checked on fake ``sku`` devices on ``node``."""
    devices = AcceleratorSpec.parse(spec).devices_needed
    result = run_gate(spec, local=False, run=cases.on(sku, devices=devices))
    result.node = node
    return result


def _device(args: dict[str, Any]) -> dict[str, str]:
    [container] = args["pod_template"].pod_spec.containers
    return {k: v for k, v in container.resources.limits.items() if k not in ("cpu", "memory")}


def _dynamic_pods(dynamic: Any, result: GateResult) -> list[job_oracle.Replica]:
    job = cases.compile_dynamic(
        dynamic, {"gate_result": result, "a": 1}, {"gate_result": GateResult, "a": int}
    )
    registered = oracle.dynamic_job(job)
    [node] = registered.nodes("dynamic")
    task = registered.tasks[node.task_node.reference_id.name]
    return job_oracle.job_pods(task, node.task_node.overrides)


# -- item 2 ----------------------------------------------------------------------------------------
def test_item2_a_one_gpu_gate_gives_the_trainer_its_eight_gpus() -> None:
    result = _gate("H100-SXM:1", "H100-SXM", "h100-whole")
    assert result.matched  # the gate matched its alternative; that must not shrink the trainer
    args = pinned("H100-SXM:8", result)
    assert _device(args) == {"gpu": "8"}
    assert args["accelerator"].name == "H100.unpartitioned"


def test_item2_the_gates_device_picks_among_the_trainers_alternatives() -> None:
    result = _gate("H100-SXM:1 | A100-80GB:1", "A100-80GB-SXM", "a100-80gb")
    args = pinned("H100-SXM:8 | A100-80GB:8", result)
    assert args["accelerator"].name == "A100_80GB.unpartitioned"
    assert _device(args) == {"gpu": "8"}
    flyte2 = flyte2_pinned("H100-SXM:8 | A100-80GB:8", result)
    assert (flyte2["resources"].gpu.device, flyte2["resources"].gpu.quantity) == (
        "nvidia-a100-80gb",
        8,
    )


def test_item2_a_device_none_of_the_trainers_alternatives_is_refused() -> None:
    result = _gate("L4 | H100-SXM", "L4", "l4")
    with pytest.raises(AcceleratorError, match=r"found L4, which is none of 'H100-SXM:8'"):
        pinned("H100-SXM:8", result)
    with pytest.raises(AcceleratorError, match="none of"):
        flyte2_pinned("H100-SXM:8", result)


def test_item2_in_the_cluster_the_trainer_lands_on_the_gates_node_with_its_count() -> None:
    [replica] = _dynamic_pods(
        cases.trainer_after_gate, _gate("H100-SXM:1", "H100-SXM", "h100-whole")
    )
    assert oracle.lands_on(replica.pod) == ["h100-whole"]
    assert oracle.device_request(replica.pod) == {"nvidia.com/gpu": "8"}
    assert replica.pod["containers"][0]["resources"]["requests"]["cpu"] == "16"  # task= kept it


# -- item 3 ----------------------------------------------------------------------------------------
def test_item3_a_pinned_multi_node_job_can_never_start() -> None:
    result = _gate("H100-SXM:8", "H100-SXM", "h100-whole-0")
    replicas = _dynamic_pods(cases.elastic_pinned, result)
    assert [(r.role, r.count) for r in replicas] == [("worker", 2)]
    placed = job_oracle.place_job(replicas, job_oracle.pool("h100-whole", 2))
    assert placed == [("worker-0", "h100-whole-0"), ("worker-1", "")]  # Pending for ever


def test_item3_pinned_refuses_a_multi_node_task_and_the_linter_flags_the_form() -> None:
    result = _gate("H100-SXM:8", "H100-SXM", "h100-whole-0")
    with pytest.raises(AcceleratorError, match=r"runs 2 pods.*others stay Pending"):
        pinned("H100-SXM:8", result, task=cases.elastic_plain)
    [finding] = [f for f in check(cases.pinned_job) if f.code == "pinned-multi-node"]
    assert "Elastic runs 2 pods" in finding.message
    assert "accelerator_task(spec, task_config=...)" in finding.message


def test_item3_a_gate_in_each_replicas_pod_proves_every_node(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from flytekitplugins.accelerators import _tasks

    [worker] = job_oracle.job_pods(
        oracle.registered(cases.elastic_gated, cases.SETTINGS).task("elastic_gated")
    )
    nodes = job_oracle.pool("h100-whole", 1) + job_oracle.pool("h200-whole", 1)
    placed = job_oracle.place_job([worker], nodes)
    assert [n for _, n in placed] == ["h100-whole-0", ""]  # the H200 node is not an H100 one
    # each replica pod runs the gate first, on its own node's devices (the pod's env)
    monkeypatch.setattr(_tasks, "is_local_execution", lambda: False)
    for name, value in oracle.env(worker.pod, "pytorch").items():
        if isinstance(value, str):
            monkeypatch.setenv(name, value)
    for node, sku, ok in (("h100-whole-0", "H100-SXM", True), ("h100-whole-1", "H200-SXM", False)):
        monkeypatch.setenv("NODE_NAME", node)
        monkeypatch.setattr(_tasks, "run_gate", _on_node(sku))
        if ok:
            assert _tasks.gate_first(cases.elastic_gated.gate).node == node
        else:
            with pytest.raises(AcceleratorGateError, match="wrong_accelerator"):
                _tasks.gate_first(cases.elastic_gated.gate)


def _on_node(sku: str) -> Any:
    def gate(expect: Any, **kwargs: Any) -> GateResult:
        kwargs.update(local=False, run=cases.on(sku, devices=8))
        return run_gate(expect, **kwargs)

    return gate
