"""A guarded task must match its gate, and no task may ask for more devices than any node has.

At parse time when both specs are known; when the task's accelerator is templated, before
its pod is created, against what the gate matched (a real run against the fake API server).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from airflow_testenv import run_dag
from fake_kube import FakeKube, Outcome
from kube_runs import bench_report, dag_file, states

from accelerators import AcceleratorError, PlacementError
from accelerators_provider import AcceleratorGateOperator, AcceleratorPodOperator, executor_config


def _gate(accelerator: str = "A100-80GB:4", task_id: str = "gate") -> AcceleratorGateOperator:
    return AcceleratorGateOperator(
        task_id=task_id, accelerator=accelerator, platform="gke", image="bench:1"
    )


@pytest.fixture
def _in_a_dag() -> Any:
    """Tasks with gate= set a dependency, which needs a DAG."""
    from airflow.sdk import DAG

    with DAG("guard", schedule=None) as dag:
        yield dag


@pytest.mark.usefixtures("_in_a_dag")
def test_a_task_the_gates_node_cannot_host_is_refused_at_parse_time() -> None:
    with pytest.raises(AcceleratorError) as raised:
        AcceleratorPodOperator(
            task_id="train", accelerator="H100-SXM:8", platform="gke", image="i", gate=_gate()
        )
    message = str(raised.value)
    assert "test_airflow_guard.py:" in message  # the line that defined the task
    assert "task 'train', gate='gate'" in message
    assert "the gate's node has A100-80GB:4, the task needs H100-SXM:8" in message
    with pytest.raises(AcceleratorError, match="4 would run unchecked"):
        AcceleratorPodOperator(
            task_id="train2",
            accelerator="H100-SXM:8",
            platform="gke",
            image="i",
            gate=_gate("H100-SXM:4", "gate2"),
        )
    # Fewer devices on the checked node, or an inline gate, are fine.
    AcceleratorPodOperator(
        task_id="eval",
        accelerator="H100-SXM:1",
        platform="gke",
        image="i",
        gate=_gate("H100-SXM:8", "gate3"),
    )
    AcceleratorPodOperator(
        task_id="own",
        accelerator="H100-SXM:8",
        platform="gke",
        image="i",
        cmds=["train"],
        gate_mode="inline",
    )


@pytest.mark.usefixtures("_in_a_dag")
def test_the_decorator_checks_its_gate_too() -> None:
    from airflow.sdk import task

    def infer() -> None:
        return None

    with pytest.raises(AcceleratorError, match="the gate checks whole devices"):
        task.accelerator(
            accelerator="A100-80GB@1g.10gb", platform="nvidia", image="i", gate=_gate()
        )(infer)


@pytest.mark.usefixtures("_in_a_dag")
def test_counts_no_node_has_are_refused_with_the_largest_machine_type() -> None:
    from airflow.sdk import task

    expected = r"'H100-SXM:16' on gke: no node has 16; the largest GCP machine type .* has 8"
    with pytest.raises(PlacementError, match=expected):
        AcceleratorPodOperator(task_id="t", accelerator="H100-SXM:16", platform="gke", image="i")
    with pytest.raises(PlacementError, match=expected):
        _gate("H100-SXM:16", "gate16")
    with pytest.raises(PlacementError, match=expected):
        task.accelerator(accelerator="H100-SXM:16", platform="gke", image="i")(lambda: None)
    with pytest.raises(PlacementError, match=expected):
        executor_config("H100-SXM:16", platform="gke")
    # A platform bound to no cloud is judged against every cloud's largest machine type.
    anywhere = r"'H100-SXM:16' on nvidia: no node has 16; the largest machine type of any cloud"
    with pytest.raises(PlacementError, match=anywhere):
        AcceleratorPodOperator(
            task_id="t2", accelerator="H100-SXM:16", platform="nvidia", image="i"
        )
    AcceleratorPodOperator(task_id="t3", accelerator="H100-SXM:8", platform="nvidia", image="i")


DAG = """
from datetime import timedelta

import pendulum
from airflow.sdk import DAG, Param

from accelerators_provider import AcceleratorGateOperator, AcceleratorPodOperator

KUBE = dict(config_file={config!r}, poll_interval=0.1)
START = pendulum.datetime(2026, 1, 1, tz="UTC")
PARAMS = {{"acc": Param("H100-SXM:8")}}
with DAG("guard_render", schedule=None, start_date=START, params=PARAMS) as dag:
    gate = AcceleratorGateOperator(
        task_id="gate", accelerator="A100-80GB:8 | H100-SXM:8", platform="gke", image="bench:1",
        **KUBE,
    )
    AcceleratorPodOperator(
        task_id="train", accelerator="{{{{ params.acc }}}}", platform="gke", gate="gate",
        image="trainer:1", cmds=["train"], do_xcom_push=False, retries=2,
        retry_delay=timedelta(0), **KUBE,
    ).set_upstream(gate)
"""


def test_a_templated_task_is_checked_against_what_the_gate_matched(
    airflow_db: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The gate may land on either alternative; here it matched A100-80GB:8, where the task
    (H100:8, known only when rendered) cannot run: it fails at once, without a pod and
    without spending its two retries."""
    report = bench_report("A100-80GB:8 | H100-SXM:8", "A100-80GB-SXM", 8, "a100-node")
    assert report["matched"] == "A100-80GB:8"

    def outcome(pod: dict[str, Any], index: int) -> Outcome:
        return Outcome(node="a100-node", xcom=report)

    with FakeKube(outcome) as kube:
        text = DAG.format(config=str(kube.kubeconfig(tmp_path / "kube")))
        with dag_file("guard_render", text) as dag:
            run = run_dag(dag)
    assert states(run) == {"gate": ("success", 1), "train": ("failed", 1)}
    assert [p["metadata"]["labels"]["task_id"] for p in kube.created] == ["gate"]
    log = capfd.readouterr().out
    assert "task 'train' (H100-SXM:8) is pinned to the node of gate 'gate', which matched " in log
    assert "the gate's node has A100-80GB:8, the task needs H100-SXM:8" in log
