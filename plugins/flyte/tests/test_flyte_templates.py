"""The templates in ``dags/`` run locally end to end (the real gate on this machine's CPU),
serialise with flytekit's own translator, and pin guarded tasks to the gate's node.

Four tests run the real quick gate (about 10 s each here); the rest serialise only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import flyte_fallback
import flyte_mig_inference
import flyte_training
from flyte_helpers import (
    SETTINGS,
    override_pod_spec,
    primary,
    required_terms,
    serialize,
    template_pod_spec,
    validate_pod_spec,
)
from flytekit.core.context_manager import ExecutionState, FlyteContextManager
from flytekit.core.type_engine import TypeEngine
from flytekit.models.task import Resources as ResourceModel
from flytekitplugins.accelerators import GateResult, last_gate_result
from flytekitplugins.accelerators._tasks import _GATE_PROCESS_CACHE

ROOT = Path(__file__).resolve().parents[3]
GPU = ResourceModel.ResourceName.GPU
HOSTNAME = "kubernetes.io/hostname"
NODE_ENV = {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}


# -- local runs, end to end -------------------------------------------------------------------
def test_training_runs_gate_first_and_its_report_reaches_training() -> None:
    result = flyte_training.training(epochs=15)
    gate = last_gate_result()
    assert gate is not None
    # the training task received the gate's own result
    assert (result.gate_verdict, result.gate_host, result.gate_device) == (
        gate.verdict,
        gate.host,
        gate.device,
    )
    assert gate.passed
    assert gate.local
    assert gate.expected == "H100"
    assert "H100 is not on this machine" in result.gate_note
    assert result.final_loss < result.first_loss
    assert result.device == "cpu"
    # the gate is the workflow's first node and training depends on it
    first, second = flyte_training.training.nodes
    assert first.flyte_entity.name.endswith("benchmark_gate")
    assert first in second.upstream_nodes


def test_mig_inference_gates_in_each_pod_once_per_local_process() -> None:
    _GATE_PROCESS_CACHE.clear()
    summary = flyte_mig_inference.batch_inference(batches=3, size=8)
    assert summary.startswith("3 batches, 24 scores")
    gate = last_gate_result(flyte_mig_inference.SLICE)
    assert gate is not None
    assert gate.expected == "A100-40GB@1g.5gb"
    assert list(_GATE_PROCESS_CACHE) == [("A100-40GB@1g.5gb", "quick")]


def test_fallback_runs_with_the_gate_result() -> None:
    result = flyte_fallback.fallback_finetune(steps=5)
    gate = last_gate_result("H100 | A100-80GB")
    assert gate is not None
    assert result.gate_verdict == gate.verdict
    assert result.gate_matched == ""  # locally neither alternative is present
    assert result.steps == 5


def test_pyflyte_run_executes_the_training_template() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "plugins/flyte")])}
    pyflyte = Path(sys.executable).with_name("pyflyte")
    done = subprocess.run(
        [str(pyflyte), "run", "dags/flyte_training.py", "training", "--epochs", "5"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "TrainResult(" in done.stdout
    assert "gate_verdict='pass'" in done.stdout or "gate_verdict='warn'" in done.stdout


# -- serialised: what a cluster receives --------------------------------------------------------
def _dispatch(dynamic_task: Any, inputs: dict[str, Any], hints: dict[str, type]) -> Any:
    """Compile a ``@dynamic`` as it is compiled in a cluster pod (TASK_EXECUTION)."""
    ctx = FlyteContextManager.current_context()
    with FlyteContextManager.with_context(ctx.with_serialization_settings(SETTINGS)) as ctx:
        state = ctx.execution_state.with_params(mode=ExecutionState.Mode.TASK_EXECUTION)
        with FlyteContextManager.with_context(ctx.with_execution_state(state)) as ctx:
            literals = TypeEngine.dict_to_literal_map(ctx, inputs, type_hints=hints)
            return dynamic_task.dispatch_execute(ctx, literals)


def _cluster_gate(expected: str, matched: str = "") -> GateResult:
    return GateResult(
        verdict="pass",
        expected=expected,
        checked=expected,
        local=False,
        expected_present=True,
        node="gpu-node-7",
        host="training-pod",
        device="1 x H100-SXM",
        matched=matched,
    )


def test_training_is_pinned_to_the_gates_node_in_the_serialised_pod_spec() -> None:
    job = _dispatch(
        flyte_training.train_on_gated_node,
        {"gate_result": _cluster_gate("H100"), "epochs": 3},
        {"gate_result": GateResult, "epochs": int},
    )
    [node] = job.nodes
    overrides = node.task_node.overrides
    assert overrides.extended_resources.gpu_accelerator.device == "nvidia-h100"
    assert [e.value for e in overrides.resources.limits if e.name == GPU] == ["1"]
    pod_spec = override_pod_spec(overrides)
    assert required_terms(pod_spec) == [
        [{"key": HOSTNAME, "operator": "In", "values": ["gpu-node-7"]}]
    ]
    validate_pod_spec(pod_spec)


def test_fallback_pins_the_matched_alternative_to_the_gates_node() -> None:
    job = _dispatch(
        flyte_fallback.finetune_on_gated_node,
        {"gate_result": _cluster_gate("H100 | A100-80GB", matched="A100-80GB"), "steps": 2},
        {"gate_result": GateResult, "steps": int},
    )
    overrides = job.nodes[0].task_node.overrides
    assert overrides.extended_resources.gpu_accelerator.device == "nvidia-a100-80gb"
    terms = required_terms(override_pod_spec(overrides))
    assert terms == [[{"key": HOSTNAME, "operator": "In", "values": ["gpu-node-7"]}]]


def test_gate_nodes_run_on_the_guarded_accelerator_and_read_their_node_name() -> None:
    spec = serialize(flyte_training.training)
    gate_node = spec.template.nodes[0]
    overrides = gate_node.task_node.overrides
    assert overrides.extended_resources.gpu_accelerator.device == "nvidia-h100"
    assert [e.value for e in overrides.resources.limits if e.name == GPU] == ["1"]
    assert NODE_ENV in primary(override_pod_spec(overrides))["env"]
    fallback = serialize(flyte_fallback.fallback_finetune).template.nodes[0].task_node.overrides
    assert fallback.extended_resources is None  # two devices: the pod template selects
    [term] = required_terms(override_pod_spec(fallback))
    assert term[0]["values"] == ["nvidia-h100", "nvidia-a100-80gb"]


def test_mig_slices_serialise_one_slice_per_pod_with_the_gate_inside() -> None:
    task_spec = serialize(flyte_mig_inference.score)
    gpu = task_spec.template.extended_resources.gpu_accelerator
    assert (gpu.device, gpu.partition_size) == ("nvidia-tesla-a100", "1g.5gb")
    pod_spec = template_pod_spec(task_spec)
    assert pod_spec is not None
    # with a pod template flytekit writes the task's resources into the primary container
    assert primary(pod_spec)["resources"]["limits"] == {"gpu": "1"}
    assert NODE_ENV in primary(pod_spec)["env"]
    validate_pod_spec(pod_spec)
    workflow = serialize(flyte_mig_inference.batch_inference)
    assert workflow.to_flyte_idl().SerializeToString()
