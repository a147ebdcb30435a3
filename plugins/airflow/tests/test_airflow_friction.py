"""What a user meets first: no cluster, a typo, a template where none is read, a missing
pod template file, a Flyte platform name, a gate that pushed no node."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from airflow_testenv import DAGS, dagbag_class, run_dag
from fake_kube import FakeKube, Outcome
from kube_runs import dag_file, states

from accelerators import AcceleratorError, UnknownAcceleratorError
from accelerators_provider import AcceleratorGateOperator, AcceleratorPodOperator, executor_config


@pytest.fixture
def no_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No in-cluster service account, no kubeconfig, no kubernetes connection."""
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "AIRFLOW_CONN_KUBERNETES_DEFAULT"):
        monkeypatch.delenv(name, raising=False)


def test_without_a_cluster_the_template_fails_at_once_and_says_to_use_local_run(
    airflow_db: Path, no_cluster: None, capfd: pytest.CaptureFixture[str]
) -> None:
    """``airflow dags test airflow_training`` without ``local_run``: the gate has retries=2
    and Airflow's 300 s retry delay, which took 10 min 37 s to end in a bare ConfigException."""
    from test_airflow_dags import load_dag

    dag = load_dag("airflow_training.py")
    assert dag.get_task("gate").retries == 2
    start = time.monotonic()
    run = run_dag(dag)
    elapsed = time.monotonic() - start
    assert states(run)["gate"] == ("failed", 1)  # no retry: none could help
    assert run.state == "failed"
    assert elapsed < 120
    log = capfd.readouterr().out
    assert "Task 'gate': no Kubernetes cluster is configured here" in log
    assert "local_run" in log


def test_a_decorated_pod_task_says_the_same(
    airflow_db: Path, no_cluster: None, capfd: pytest.CaptureFixture[str]
) -> None:
    text = """
    import pendulum
    from airflow.sdk import DAG, task

    START = pendulum.datetime(2026, 1, 1)
    with DAG("no_cluster_decorated", schedule=None, start_date=START) as dag:

        @task.accelerator(accelerator="L4", platform="gke", image="python:3.11", retries=3)
        def score() -> int:
            return 1

        score()
    """
    with dag_file("no_cluster_decorated", text) as dag:
        run = run_dag(dag)
    assert states(run)["score"] == ("failed", 1)
    assert "Task 'score': no Kubernetes cluster is configured here" in capfd.readouterr().out


BAD_SPEC = """
import pendulum
from airflow.sdk import DAG

from accelerators_provider import AcceleratorPodOperator

with DAG("bad_spec", schedule=None, start_date=pendulum.datetime(2026, 1, 1)) as dag:
    AcceleratorPodOperator(
        task_id="train",
        image="trainer:1",
        accelerator="H1OO:8",
        platform="gke",
    )
"""


def test_parse_errors_name_the_file_line_task_and_argument(airflow_db: Path) -> None:
    """What Airflow shows for a DAG file that fails to import (``DagBag.import_errors``)."""
    path = DAGS / "bad_spec.py"
    path.write_text(BAD_SPEC)
    try:
        bag = dagbag_class()(dag_folder=str(path), safe_mode=False)
    finally:
        path.unlink()
    [error] = bag.import_errors.values()
    line = BAD_SPEC.splitlines().index("    AcceleratorPodOperator(") + 1
    assert f"{path}:{line}: task 'train', accelerator='H1OO:8': " in error
    assert "Unknown accelerator 'H1OO'; did you mean 'H100'?" in error


def test_the_did_you_mean_survives_the_prefix() -> None:
    with pytest.raises(UnknownAcceleratorError) as raised:
        AcceleratorPodOperator(task_id="t", accelerator="H1OO", platform="gke", image="i")
    assert raised.value.suggestions[0] == "H100"
    assert str(raised.value).count("test_airflow_friction.py:") == 1


def test_the_decorators_refuse_templates_and_point_to_the_operators() -> None:
    from airflow.sdk import task

    def train() -> None:
        return None

    with pytest.raises(AcceleratorError) as raised:
        task.accelerator(accelerator="{{ params.gpu }}", platform="gke", image="i")(train)
    message = str(raised.value)
    assert "task 'train', accelerator='{{ params.gpu }}'" in message
    assert "is not templated" in message
    assert "Use AcceleratorPodOperator, whose accelerator is a templated field" in message
    with pytest.raises(AcceleratorError, match="AcceleratorGateOperator"):
        task.accelerator_gate(accelerator="H100-SXM", platform="{{ params.where }}")(train)


def _missing_everywhere(missing: str) -> dict[str, Any]:
    from airflow.sdk import DAG, task

    attempts: dict[str, Any] = {}
    with DAG("missing_template", schedule=None):
        attempts["operator"] = lambda: AcceleratorPodOperator(
            task_id="op", accelerator="L4", platform="gke", image="i", pod_template_file=missing
        )
        attempts["gate"] = lambda: AcceleratorGateOperator(
            task_id="gate", accelerator="L4", platform="gke", image="i", pod_template_file=missing
        )
        attempts["decorator"] = lambda: task.accelerator(
            accelerator="L4", platform="gke", image="i", pod_template_file=missing
        )(lambda: None)
        attempts["executor_config"] = lambda: executor_config(
            "L4", platform="gke", pod_template_file=missing
        )
        attempts["gate decorator"] = lambda: task.accelerator_gate(
            accelerator="L4",
            platform="gke",
            executor_config={"pod_template_file": missing},
        )(lambda: None)
    return attempts


def test_a_missing_pod_template_file_is_refused_the_same_way_everywhere(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.yaml")
    expected = f"pod_template_file: {missing!r} does not exist"
    for where, attempt in _missing_everywhere(missing).items():
        with pytest.raises(AcceleratorError, match=expected):
            attempt()
        assert where  # every path reached the same message
    # A templated path is rendered at run time, and refused then, the same way.
    op = AcceleratorPodOperator(
        task_id="later",
        accelerator="L4",
        platform="gke",
        image="i",
        pod_template_file="{{ params.template }}",
    )
    op.render_template_fields({"params": {"template": missing}})
    with pytest.raises(AcceleratorError, match=expected):
        op.build_pod_request_obj(dry_run=True)


def test_airflow_users_are_not_offered_flyte() -> None:
    with pytest.raises(AcceleratorError) as raised:
        AcceleratorPodOperator(task_id="t", accelerator="L4", platform="gkee", image="i")
    # The message starts with the DAG file's path, which may name anything: read what follows.
    message = str(raised.value).partition("Unknown platform")[2]
    assert "did you mean 'gke'" in message
    assert "flyte" not in message
    with pytest.raises(AcceleratorError, match="is for Flyte tasks; on Airflow name your"):
        AcceleratorPodOperator(task_id="t2", accelerator="L4", platform="flyte", image="i")
    with pytest.raises(AcceleratorError, match="is for Flyte tasks"):
        executor_config("L4", platform="flyte")


UNDEFINED_DAG = """
import jinja2
import pendulum
from airflow.sdk import DAG, task

with DAG(
    "lenient_templates", schedule=None, start_date=pendulum.datetime(2026, 1, 1),
    template_undefined=jinja2.Undefined,
) as dag:

    @task(task_id="gate")
    def gate() -> str:
        return "a gate that pushed no node"

    @task.accelerator(
        accelerator="L4", platform="gke", image="python:3.11", gate="gate",
        config_file={config!r}, retries=2,
    )
    def pinned() -> int:
        return 1

    gate() >> pinned()
"""


def test_an_empty_pinned_node_is_refused_whatever_the_undefined(
    airflow_db: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """With ``template_undefined=jinja2.Undefined`` the pinned selector renders as ``""``:
    the pod would wait forever for a node of that name. It is refused before it is created."""

    def outcome(pod: dict[str, Any], index: int) -> Outcome:
        return Outcome(node="n")

    with FakeKube(outcome) as kube:
        text = UNDEFINED_DAG.format(config=str(kube.kubeconfig(tmp_path / "kube")))
        with dag_file("lenient_templates", text) as dag:
            run = run_dag(dag)
    assert states(run) == {"gate": ("success", 1), "pinned": ("failed", 1)}
    assert kube.created == []
    assert "gate 'gate' reported no node name" in capfd.readouterr().out
