"""``executor_config`` when the deployment's worker pod template is configured but not readable
where the DAG is parsed (issue 28, item 9): its selector, tolerations, affinity and resources
cannot be merged into the ``pod_override``, and the KubernetesExecutor replaces them with the
override's. That was silent; now the parse warns once, and Airflow records the warning
against the DAG file's line (``DagBag.captured_warnings``, the UI's DAG import warnings)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml
from airflow_testenv import DAGS, dagbag_class

from accelerators_provider import WorkerTemplateWarning, executor_config
from accelerators_provider import executors as executors_module

DAG = """
import pendulum
from airflow.sdk import DAG, task
from accelerators_provider import executor_config

with DAG("worker_template", schedule=None, start_date=pendulum.datetime(2026, 1, 1)) as dag:

    @task(executor_config=executor_config("H100-SXM:8", platform="gke"))
    def train() -> None: ...

    @task(executor_config=executor_config("H100-SXM:1", platform="gke"))
    def evaluate() -> None: ...

    train() >> evaluate()
"""


@pytest.fixture
def worker_template(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """``[kubernetes_executor] pod_template_file`` set to a path; no warning given yet."""
    path = tmp_path / "worker.yaml"
    monkeypatch.setenv("AIRFLOW__KUBERNETES_EXECUTOR__POD_TEMPLATE_FILE", str(path))
    monkeypatch.setattr(executors_module, "_WARNED", set())
    return path


def test_an_unreadable_worker_template_warns_once_at_the_dag_line(worker_template: Path) -> None:
    dag_path = DAGS / "worker_template.py"
    dag_path.write_text(textwrap.dedent(DAG))
    try:
        bag = dagbag_class()(dag_folder=str(dag_path), safe_mode=False)
    finally:
        dag_path.unlink()
    assert not bag.import_errors
    assert len(bag.dags) == 1
    warned = [w for w in bag.captured_warnings[str(dag_path)] if "WorkerTemplateWarning" in w]
    [warning] = warned  # two tasks, one warning
    line = (
        textwrap.dedent(DAG)
        .splitlines()
        .index('    @task(executor_config=executor_config("H100-SXM:8", platform="gke"))')
        + 1
    )
    assert warning.startswith(f"{dag_path}:{line}: accelerators_provider.executors.")
    assert f"pod_template_file = {str(worker_template)!r}) does not exist where this DAG" in warning
    assert "the worker pod loses them (a spot toleration, a zone affinity, cpu and memory)" in (
        warning
    )
    assert "Make the file readable here" in warning


def test_a_readable_worker_template_is_merged_without_a_word(worker_template: Path) -> None:
    spot = {"key": "spot", "operator": "Exists", "effect": "NoSchedule"}
    body = {"containers": [{"name": "base", "image": "airflow:3"}], "tolerations": [spot]}
    worker_template.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "spec": body}))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", WorkerTemplateWarning)
        pod = executor_config("H100-SXM:8", platform="gke")["pod_override"]
    assert pod.spec.tolerations[0].key == "spot"
