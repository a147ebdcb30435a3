"""Helpers for DAG runs whose pods go to the fake Kubernetes API server (``fake_kube``):
DAG files in the DAGs folder, bench reports as a gate pod writes them, and reading back the
run's task states and XComs as Airflow stores them."""

from __future__ import annotations

import contextlib
import importlib.util
import textwrap
from collections.abc import Iterator
from typing import Any

from airflow_testenv import DAGS

HOSTNAME = "kubernetes.io/hostname"


def bench_report(expect: str, sku: str, count: int, node: str) -> dict[str, Any]:
    """The JSON report ``accelerators bench --expect <expect>`` writes on a node with
    ``count`` x ``sku`` (simulated devices: no GPU needed)."""
    from accelerators.bench import run
    from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

    report = run(
        expect,
        backend=FakeBackend([FakeDevice() for _ in range(count)]),
        detected=fake_detected(sku, count=count),
    )
    data: dict[str, Any] = report.model_copy(update={"node": node}).model_dump(mode="json")
    return data


@contextlib.contextmanager
def dag_file(dag_id: str, text: str) -> Iterator[Any]:
    """The DAG ``text`` as ``<dag_id>.py`` in the DAGs folder (``dag.test()`` needs it
    there), loaded; the file is removed afterwards."""
    path = DAGS / f"{dag_id}.py"
    path.write_text(textwrap.dedent(text))
    try:
        spec = importlib.util.spec_from_file_location(dag_id, path)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module.dag
    finally:
        path.unlink()


def xcoms(run: Any, task_id: str) -> dict[str, Any]:
    """Every XCom the task pushed, read back as a downstream task reads it."""
    from airflow.models.xcom import XComModel
    from airflow.utils.session import create_session
    from sqlalchemy import select

    with create_session() as session:
        keys = session.scalars(
            select(XComModel.key).where(
                XComModel.run_id == run.run_id, XComModel.task_id == task_id
            )
        ).all()
        ti = run.get_task_instance(task_id, session=session)
        assert ti is not None
        session.expunge(ti)
    return {key: ti.xcom_pull(task_ids=task_id, key=key) for key in keys}


def states(run: Any) -> dict[str, tuple[str | None, int]]:
    """``{task_id: (state, try_number)}`` of the run."""
    from airflow.utils.session import create_session

    with create_session() as session:
        return {t.task_id: (t.state, t.try_number) for t in run.get_task_instances(session=session)}


def required_terms(pod: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The match expressions of each required node-affinity term of a pod manifest."""
    terms = pod["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    return [t["matchExpressions"] for t in terms]
