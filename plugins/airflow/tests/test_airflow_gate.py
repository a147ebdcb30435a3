"""The gate fails a run on a wrong device, keeps the report, and retries avoid the node."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from airflow_testenv import DAGS, run_dag, validate_pod

from accelerators_provider import AcceleratorGateOperator
from accelerators_provider._gate import FAILED_NODES_KEY

NODE = "gpu-node-3"

RETRY_DAG = """
from datetime import timedelta

import pendulum
from airflow.sdk import DAG, task

from accelerators_provider import AcceleratorGateOperator

with DAG("gate_retry", schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC")) as dag:
    gate = AcceleratorGateOperator(
        task_id="gate", accelerator="H100-SXM", platform="gke", in_process=True,
        retries=1, retry_delay=timedelta(0),
    )

    @task
    def train(report: dict) -> str:
        return "never"

    train(gate.output)
"""


class _StoredState:
    """Reads the task state store rows the real run wrote, as the accessor API does."""

    def __init__(self, rows: dict[str, Any]) -> None:
        self.rows = rows

    def get(self, key: str, default: Any = None) -> Any:
        return self.rows.get(key, default)


def test_a_failed_gate_fails_the_run_and_its_retry_avoids_the_node(
    airflow_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch", reason="the gate runs its benchmark in this process")
    pytest.importorskip("airflow.models.task_state_store", reason="Airflow >= 3.3")
    from airflow.models.task_state_store import TaskStateStoreModel
    from airflow.utils.session import create_session
    from sqlalchemy import select

    path = DAGS / "gate_retry.py"
    path.write_text(textwrap.dedent(RETRY_DAG))
    monkeypatch.setenv("NODE_NAME", NODE)
    history = airflow_db.parent / "bench-history.sqlite"
    monkeypatch.setenv("ACCELERATORS_BENCH_HISTORY", str(history))  # a deployment's history
    import importlib.util

    spec = importlib.util.spec_from_file_location("gate_retry", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    run = run_dag(module.dag)
    assert run.state == "failed"
    from accelerators.bench import open_store

    # Both tries appended their failed report to the bench history, from this node.
    recorded = [(r["verdict"], r["node"]) for r in open_store(history).reports()]
    assert recorded == [("fail", NODE), ("fail", NODE)]
    with create_session() as session:
        tis = {t.task_id: t for t in run.get_task_instances(session=session)}
        assert tis["gate"].state == "failed"
        assert tis["gate"].try_number == 2  # it was retried
        assert tis["train"].state == "upstream_failed"
        report = tis["gate"].xcom_pull(task_ids="gate", key="report", session=session)
        rows = session.scalars(
            select(TaskStateStoreModel).where(
                TaskStateStoreModel.run_id == run.run_id, TaskStateStoreModel.task_id == "gate"
            )
        ).all()
        stored = {row.key: json.loads(row.value) for row in rows}
        gate_ti = tis["gate"]
        session.expunge(gate_ti)
    assert report["verdict"] == "fail"
    assert report["reasons"][0]["code"] == "no_accelerator"
    assert stored[FAILED_NODES_KEY] == [NODE]
    # The next gate pod of this task stays off the node that failed.
    gate = AcceleratorGateOperator(
        task_id="gate", accelerator="H100-SXM", platform="gke", image="b"
    )
    context: Any = {
        "ti": gate_ti,
        "run_id": run.run_id,
        "dag": module.dag,
        "task_state_store": _StoredState(stored),
    }
    pod = validate_pod(gate.build_pod_request_obj(context, dry_run=True))
    terms = pod["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    avoid = {"key": "kubernetes.io/hostname", "operator": "NotIn", "values": [NODE]}
    assert all(avoid in term["matchExpressions"] for term in terms)
    # the accelerator, whole GPUs (the partition label absent), and the failed node avoided
    assert all(len(term["matchExpressions"]) == 3 for term in terms)
    path.unlink()


def test_local_run_is_refused_inside_kubernetes(monkeypatch: pytest.MonkeyPatch) -> None:
    from accelerators import AcceleratorError
    from accelerators_provider._gate import local_run

    assert local_run({"params": {"local_run": False}}) is False
    assert local_run({"params": {}}) is False
    assert local_run({"params": {"local_run": True}}) is True
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
    with pytest.raises(AcceleratorError, match="Kubernetes pod"):
        local_run({"params": {"local_run": True}})
    assert local_run({"params": {"local_run": False}}) is False


def test_report_table_lists_figures_and_reasons() -> None:
    pytest.importorskip("torch", reason="the gate runs its benchmark in this process")
    from accelerators.bench import AcceleratorGateError, gate
    from accelerators_provider._gate import render_report

    with pytest.raises(AcceleratorGateError) as failed:
        gate(expect="H100-SXM")
    text = render_report(failed.value.report)
    assert text.startswith("Accelerator gate: FAIL")
    assert "expected H100-SXM" in text
    assert "[fail] no_accelerator" in text
