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
import placement_oracle as oracle
import pytest
from flyte_helpers import SETTINGS, primary, required_terms, serialize, validate_pod_spec
from flytekit.core.context_manager import ExecutionState, FlyteContextManager
from flytekit.core.type_engine import TypeEngine
from flytekitplugins.accelerators import GateResult, GateTask, last_gate_result
from flytekitplugins.accelerators._tasks import _GATE_PROCESS_CACHE

ROOT = Path(__file__).resolve().parents[3]
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
    assert gate.expected == "H100-SXM"
    assert "H100-SXM is not on this machine" in result.gate_note
    # a local run says first that the accelerator asked for was not checked (issue 33)
    assert result.gate_headline == gate.headline
    assert result.gate_headline.startswith("not checked: this machine has no H100-SXM")
    assert result.final_loss < result.first_loss
    assert result.device == "cpu"
    # the gate is the workflow's first node and training depends on it
    first, second = flyte_training.training.nodes
    assert isinstance(first.flyte_entity, GateTask)
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
    gate = last_gate_result("H100-SXM | A100-80GB")
    assert gate is not None
    assert result.gate_verdict == gate.verdict
    assert result.gate_matched == ""  # locally neither alternative is present
    assert result.gate_headline == gate.headline
    assert result.gate_headline.startswith(
        "not checked: this machine has none of H100-SXM, A100-80GB"
    )
    assert result.steps == 5


@pytest.mark.slow
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


def _cluster_gate(expected: str, node: str, matched: str = "") -> GateResult:
    return GateResult(
        verdict="pass",
        expected=expected,
        checked=expected,
        local=False,
        expected_present=True,
        node=node,
        host="training-pod",
        device="1 x H100-SXM",
        matched=matched,
    )


def _only_pod(registered: oracle.Registered, workflow: str = "") -> dict[str, Any]:
    [(_, pod)] = registered.pods(workflow)
    return pod


def test_training_is_pinned_to_the_gates_node_in_the_serialised_pod_spec() -> None:
    job = _dispatch(
        flyte_training.train_on_gated_node,
        {"gate_result": _cluster_gate("H100-SXM", "h100-whole"), "epochs": 3},
        {"gate_result": GateResult, "epochs": int},
    )
    pod = _only_pod(oracle.dynamic_job(job))
    assert oracle.lands_on(pod) == ["h100-whole"]  # the gate's node, and only it
    assert oracle.device_request(pod) == {"nvidia.com/gpu": "1"}
    assert required_terms(pod)[0][0] == {
        "key": HOSTNAME,
        "operator": "In",
        "values": ["h100-whole"],
    }
    validate_pod_spec(pod)


def test_fallback_pins_the_matched_alternative_to_the_gates_node() -> None:
    job = _dispatch(
        flyte_fallback.finetune_on_gated_node,
        {
            "gate_result": _cluster_gate("H100-SXM | A100-80GB", "a100-80gb", "A100-80GB"),
            "steps": 2,
        },
        {"gate_result": GateResult, "steps": int},
    )
    pod = _only_pod(oracle.dynamic_job(job))
    assert oracle.lands_on(pod) == ["a100-80gb"]
    assert oracle.env(pod)["ACCELERATORS_PLACED_SPEC"] == "A100-80GB"


def test_gate_nodes_run_on_the_guarded_accelerator_and_read_their_node_name() -> None:
    pods = oracle.registered(flyte_training.training, SETTINGS).pods()
    [gate_pod] = [pod for name, pod in pods if ".gate." in name]
    assert oracle.lands_on(gate_pod) == ["h100-whole"]
    assert oracle.device_request(gate_pod) == {"nvidia.com/gpu": "1"}
    assert NODE_ENV in gate_pod["containers"][0]["env"]
    pods = oracle.registered(flyte_fallback.fallback_finetune, SETTINGS).pods()
    [gate_pod] = [pod for name, pod in pods if ".gate." in name]
    assert set(oracle.lands_on(gate_pod)) == {"h100-whole", "a100-80gb"}


def test_mig_slices_serialise_one_slice_per_pod_with_the_gate_inside() -> None:
    task_spec = serialize(flyte_mig_inference.score)
    gpu = task_spec.template.extended_resources.gpu_accelerator
    assert (gpu.device, gpu.partition_size) == ("nvidia-tesla-a100", "1g.5gb")
    pods = oracle.registered(flyte_mig_inference.batch_inference, SETTINGS).pods()
    [pod] = [pod for name, pod in pods if "map_score" in name]  # the map task's array node
    assert oracle.lands_on(pod) == ["a100-40gb-mig-1g5gb"]
    assert oracle.device_request(pod) == {"nvidia.com/gpu": "1"}
    assert NODE_ENV in primary(pod)["env"]
    validate_pod_spec(pod)
