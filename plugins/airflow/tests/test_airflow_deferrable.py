"""The gate and its pinned task through KubernetesPodOperator's own paths, against a fake
Kubernetes API server (HTTP and WebSocket exec): deferrable (``deferrable=True``, what
``[operators] default_deferrable`` gives every KubernetesPodOperator: ``execute_async`` ->
``KubernetesPodTrigger``, run inline by ``dag.test()`` -> ``trigger_reentry``) and sync.
A passing gate's node reaches the pinned task's pod; a failing gate keeps its report and its
retry's pod is kept off the node."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from airflow_testenv import run_dag, validate_manifest
from fake_kube import FakeKube, Outcome
from kube_runs import HOSTNAME, bench_report, dag_file, required_terms, states, xcoms

GOOD_NODE = "gpu-node-9"
BAD_NODE = "gpu-node-bad"

DAG = """
from datetime import timedelta

import pendulum
from airflow.sdk import DAG

from accelerators_provider import AcceleratorGateOperator, AcceleratorPodOperator

KUBE = dict(
    config_file={config!r},
    deferrable={deferrable},
    poll_interval=0.1,
    startup_check_interval_seconds=0.1,
)
with DAG({dag_id!r}, schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:
    gate = AcceleratorGateOperator(
        task_id="gate", accelerator="H100-SXM:8", platform="gke", image="bench:1",
        retries={retries}, retry_delay=timedelta(0), **KUBE,
    )
    train = AcceleratorPodOperator(
        task_id="train", accelerator="H100-SXM:8", platform="gke", gate=gate, image="trainer:1",
        cmds=["torchrun", "train.py"], do_xcom_push=False, **KUBE,
    )
"""


@pytest.fixture(scope="module")
def reports() -> dict[str, dict[str, Any]]:
    """A passing H100-SXM:8 gate report and a failing one (an A100 where H100 was asked for)."""
    return {
        "pass": bench_report("H100-SXM:8", "H100-SXM", 8, GOOD_NODE),
        "fail": bench_report("H100-SXM:8", "A100-80GB-SXM", 1, BAD_NODE),
    }


def _dag(dag_id: str, kube: FakeKube, path: Path, deferrable: bool, retries: int = 0) -> Any:
    text = DAG.format(
        dag_id=dag_id, config=str(kube.kubeconfig(path)), retries=retries, deferrable=deferrable
    )
    return dag_file(dag_id, text)


@pytest.mark.parametrize("deferrable", [True, False], ids=["deferrable", "sync"])
def test_a_passing_gate_pins_the_next_pod_to_its_node(
    deferrable: bool, reports: dict[str, dict[str, Any]], airflow_db: Path, tmp_path: Path
) -> None:
    def outcome(pod: dict[str, Any], index: int) -> Outcome:
        gate = pod["metadata"]["labels"]["task_id"] == "gate"
        return Outcome(node=GOOD_NODE, xcom=reports["pass"] if gate else None)

    dag_id = f"gate_pass_{deferrable}".lower()
    with FakeKube(outcome) as kube, _dag(dag_id, kube, tmp_path / "kube", deferrable) as dag:
        assert dag.get_task("gate").deferrable is deferrable
        run = run_dag(dag)
    assert states(run) == {"gate": ("success", 1), "train": ("success", 1)}
    gate_pod, train_pod = (validate_manifest(pod) for pod in kube.created)
    assert gate_pod["spec"]["containers"][0]["command"] == ["accelerators", "bench"]
    # The train pod runs where the gate ran, and where H100s are.
    for expressions in required_terms(train_pod):
        assert {"key": HOSTNAME, "operator": "In", "values": [GOOD_NODE]} in expressions
        assert any(e["key"] == "cloud.google.com/gke-accelerator" for e in expressions)
    assert train_pod["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "8"}
    pushed = xcoms(run, "gate")
    assert pushed["node"] == GOOD_NODE
    summary = pushed["return_value"]
    assert summary["kind"] == "accelerators-gate-summary/1"
    assert summary["verdict"] == "pass"
    assert summary["matched"] == "H100-SXM:8"
    assert summary == pushed["report"]
    # The summary, not the report of 8 devices (hundreds of KB) nor an HTML page.
    assert len(json.dumps(summary)) < 4000 < len(json.dumps(reports["pass"]))
    assert "report_html" not in pushed


#: Airflow >= 3.3 keeps a task's state across its tries; older ones cannot avoid nodes.
HAS_STATE_STORE = importlib.util.find_spec("airflow.models.task_state_store") is not None


@pytest.mark.parametrize("deferrable", [True, False], ids=["deferrable", "sync"])
def test_a_failing_gate_keeps_its_report_and_its_retry_avoids_the_node(
    deferrable: bool,
    reports: dict[str, dict[str, Any]],
    airflow_db: Path,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:
    def outcome(pod: dict[str, Any], index: int) -> Outcome:
        if index == 0:  # the first gate pod lands on a node with the wrong GPU
            return Outcome(node=BAD_NODE, exit_code=1, xcom=reports["fail"])
        return Outcome(node=GOOD_NODE, xcom=reports["pass"] if index == 1 else None)

    dag_id = f"gate_retry_{deferrable}".lower()
    with FakeKube(outcome) as kube, _dag(dag_id, kube, tmp_path / "kube", deferrable, 1) as dag:
        run = run_dag(dag)
    assert states(run) == {"gate": ("success", 2), "train": ("success", 1)}
    first, retry, train = (validate_manifest(pod) for pod in kube.created)
    assert HOSTNAME not in json.dumps(first["spec"].get("affinity"))
    avoid = {"key": HOSTNAME, "operator": "NotIn", "values": [BAD_NODE]}
    if HAS_STATE_STORE:
        assert all(avoid in expressions for expressions in required_terms(retry))
    else:  # the floor, Airflow 3.0: the retry may land anywhere, and the log says so
        assert HOSTNAME not in json.dumps(retry["spec"].get("affinity"))
        assert "this Airflow has no task state store" in capfd.readouterr().out
    for expressions in required_terms(train):
        assert {"key": HOSTNAME, "operator": "In", "values": [GOOD_NODE]} in expressions
    assert xcoms(run, "gate")["node"] == GOOD_NODE


@pytest.mark.parametrize("deferrable", [True, False], ids=["deferrable", "sync"])
def test_a_failed_gate_pod_keeps_its_report_in_xcom(
    deferrable: bool, reports: dict[str, dict[str, Any]], airflow_db: Path, tmp_path: Path
) -> None:
    def outcome(pod: dict[str, Any], index: int) -> Outcome:
        return Outcome(BAD_NODE, exit_code=1, xcom=reports["fail"])

    dag_id = f"gate_fail_{deferrable}".lower()
    with FakeKube(outcome) as kube, _dag(dag_id, kube, tmp_path / "kube", deferrable) as dag:
        run = run_dag(dag)
    assert states(run) == {"gate": ("failed", 1), "train": ("upstream_failed", 0)}
    assert len(kube.created) == 1  # the train pod was never created
    pushed = xcoms(run, "gate")
    assert pushed["report"]["verdict"] == "fail"
    assert pushed["report"]["reasons"][0]["code"] == "wrong_accelerator"
    assert pushed["report"]["node"] == BAD_NODE
    assert pushed["return_value"] == pushed["report"]  # KPO's own push on failure: the summary
    assert pushed["node"] == BAD_NODE
