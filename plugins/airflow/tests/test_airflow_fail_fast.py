"""Spec errors fail the task at once, and what can be caught when the DAG is parsed is caught
then (issue 28, item 10).

At run time a templated or mapped ``accelerator`` that renders to ``H1OO:1`` raised
``UnknownAcceleratorError``, a ``ValueError``: Airflow put the task up for retry and it burned
every retry on the same error. Now each such error is also ``AirflowFailException``: the
runs below give the tasks two retries without delay, and each fails on its first try. At
parse time a missing ``platform`` was a bare ``TypeError``, ``profile="quik"`` was caught in
the GPU pod and ``gate_mode="inline"`` without ``cmds`` when the pod was built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from airflow_testenv import run_dag
from kube_runs import dag_file, states

from accelerators import AcceleratorError, UnknownAcceleratorError
from accelerators_provider import (
    AcceleratorGateOperator,
    AcceleratorPodOperator,
    executor_config,
)


def _fail_exception() -> type[Exception]:
    try:
        from airflow.sdk.exceptions import AirflowFailException
    except ImportError:  # Airflow 3.0 (the floor) keeps it in airflow.exceptions only
        from airflow.exceptions import AirflowFailException
    return AirflowFailException


@pytest.fixture
def no_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No kubeconfig: a pod task that got as far as its pod would fail on that instead."""
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "AIRFLOW_CONN_KUBERNETES_DEFAULT"):
        monkeypatch.delenv(name, raising=False)


RENDERED_BAD = """
import datetime
import pendulum
from airflow.sdk import DAG, Param
from accelerators_provider import AcceleratorGateOperator, AcceleratorPodOperator

RETRIES = dict(retries=2, retry_delay=datetime.timedelta(0))
with DAG(
    "rendered_bad",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1),
    params={"gpu": Param("H1OO:1", type="string")},
) as dag:
    AcceleratorPodOperator(
        task_id="templated", image="i", accelerator="{{ params.gpu }}", platform="gke", **RETRIES
    )
    AcceleratorPodOperator.partial(
        task_id="mapped", image="i", platform="gke", **RETRIES
    ).expand(accelerator=["H1OO:1", "L4O:2"])
    AcceleratorGateOperator(
        task_id="gate", image="i", accelerator="L4", platform="gke",
        expect="{{ params.gpu }}", **RETRIES,
    )
    AcceleratorGateOperator(
        task_id="gate_profile", image="i", accelerator="L4", platform="gke",
        profile="{{ 'quik' }}", **RETRIES,
    )
"""


def test_a_spec_that_renders_bad_fails_at_once(
    airflow_db: Path, no_cluster: None, capfd: pytest.CaptureFixture[str]
) -> None:
    with dag_file("rendered_bad", RENDERED_BAD) as dag:
        run = run_dag(dag)
    assert states(run) == {
        "templated": ("failed", 1),
        "mapped": ("failed", 1),  # both map indexes (states() keeps the last of each id)
        "gate": ("failed", 1),
        "gate_profile": ("failed", 1),
    }
    from airflow.utils.session import create_session

    with create_session() as session:
        mapped = [
            (ti.map_index, ti.state, ti.try_number)
            for ti in run.get_task_instances(session=session)
            if ti.task_id == "mapped"
        ]
    assert sorted(mapped) == [(0, "failed", 1), (1, "failed", 1)]
    log = capfd.readouterr().out
    assert "Unknown accelerator 'H1OO'; did you mean 'H100'?" in log
    assert "Unknown benchmark profile 'quik'" in log
    assert "up_for_retry" not in log.lower().replace(" ", "_")


def test_the_error_keeps_its_type_and_is_airflows_fail_exception() -> None:
    with pytest.raises(UnknownAcceleratorError) as raised:
        AcceleratorPodOperator(task_id="t", accelerator="H1OO", platform="gke", image="i")
    assert isinstance(raised.value, _fail_exception())
    assert raised.value.suggestions[0] == "H100"
    assert type(raised.value).__name__ == "UnknownAcceleratorError"


def _missing_platform() -> dict[str, Any]:
    from airflow.sdk import task

    return {
        "operator": lambda: AcceleratorPodOperator(task_id="op", accelerator="L4", image="i"),
        "gate": lambda: AcceleratorGateOperator(task_id="gate", accelerator="L4", image="i"),
        "decorator": lambda: task.accelerator(accelerator="L4", image="i")(lambda: None),
        "executor_config": lambda: executor_config("L4"),
    }


@pytest.mark.parametrize("where", ["operator", "gate", "decorator", "executor_config"])
def test_a_missing_platform_is_named(where: str) -> None:
    with pytest.raises(AcceleratorError) as raised:
        _missing_platform()[where]()
    assert not isinstance(raised.value, TypeError)
    message = str(raised.value)
    assert "platform= is required: the cluster's platform, one of gke, nvidia" in message
    assert "flyte" not in message.partition("one of")[2]


def test_a_missing_accelerator_is_named() -> None:
    with pytest.raises(AcceleratorError, match="Expected an accelerator spec such as 'H100:8'"):
        AcceleratorPodOperator(task_id="t", platform="gke", image="i")


def test_a_profile_typo_is_caught_when_the_dag_is_parsed() -> None:
    from airflow.sdk import task

    attempts = [
        lambda: AcceleratorGateOperator(
            task_id="g", accelerator="L4", platform="gke", image="i", profile="quik"
        ),
        lambda: AcceleratorPodOperator(
            task_id="p",
            accelerator="L4",
            platform="gke",
            image="i",
            cmds=["python", "train.py"],
            gate_mode="inline",
            gate_profile="quik",
        ),
        lambda: task.accelerator_gate(accelerator="L4", profile="quik")(lambda: None),
    ]
    for attempt in attempts:
        with pytest.raises(AcceleratorError, match="did you mean 'quick'"):
            attempt()
    with pytest.raises(AcceleratorError, match="did you mean 'inline'"):
        AcceleratorPodOperator(
            task_id="m", accelerator="L4", platform="gke", image="i", gate_mode="inlin"
        )
    # Templated: checked once rendered (test_a_spec_that_renders_bad_fails_at_once).
    AcceleratorGateOperator(
        task_id="later", accelerator="L4", platform="gke", image="i", profile="{{ params.p }}"
    )


def _template(tmp_path: Path, container: dict[str, Any]) -> str:
    path = tmp_path / "pod.yaml"
    spec = {"containers": [{"name": "base", "image": "i", **container}]}
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "spec": spec}))
    return str(path)


def test_an_inline_gate_without_a_command_is_caught_when_the_dag_is_parsed(
    tmp_path: Path,
) -> None:
    common: dict[str, Any] = {
        "accelerator": "L4",
        "platform": "gke",
        "image": "i",
        "gate_mode": "inline",
    }
    with pytest.raises(AcceleratorError) as raised:
        AcceleratorPodOperator(task_id="t", **common)
    assert "task 't', cmds=[]" in str(raised.value)
    assert "gate_mode='inline' needs the container's command (cmds=...)" in str(raised.value)
    # Templated accelerator: still known now.
    with pytest.raises(AcceleratorError, match="needs the container's command"):
        AcceleratorPodOperator(task_id="t2", **{**common, "accelerator": "{{ params.gpu }}"})
    # A template without a command: read now, refused now.
    bare = _template(tmp_path, {})
    with pytest.raises(AcceleratorError, match="the pod template's container 'base' has none"):
        AcceleratorPodOperator(task_id="t3", pod_template_file=bare, **common)
    # A template's command is the command the gate execs.
    path = _template(tmp_path, {"command": ["python", "train.py"]})
    op = AcceleratorPodOperator(task_id="t4", pod_template_file=path, **common)
    pod = op.build_pod_request_obj(dry_run=True)
    assert pod.spec.containers[0].args[-2:] == ["python", "train.py"]
