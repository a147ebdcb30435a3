"""``@task.accelerator`` and ``@task.accelerator_gate`` through ``airflow.sdk.task``."""

from __future__ import annotations

import copy
import inspect
from typing import Any

import pytest
from airflow_testenv import validate_pod
from kubernetes.client import models as k8s

from accelerators import AcceleratorError, PlacementError

TEMPLATE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {},
    "spec": {
        "containers": [{"name": "base", "resources": {"limits": {"memory": "2Gi"}}}],
        "nodeSelector": {"pool": "gpu"},
        "tolerations": [{"key": "spot", "operator": "Exists"}],
    },
}


def _dag(dag_id: str) -> Any:
    import pendulum
    from airflow.sdk import DAG

    return DAG(dag_id, schedule=None, start_date=pendulum.datetime(2026, 1, 1, tz="UTC"))


def test_task_accelerator_builds_a_complete_pod() -> None:
    from airflow.sdk import task

    with _dag("decorated") as dag:

        @task.accelerator(
            accelerator="L4:2",
            platform="gke",
            image="python:3.11",
            pod_template_dict=copy.deepcopy(TEMPLATE),
            tolerations=[k8s.V1Toleration(key="team", operator="Exists")],
            container_resources=k8s.V1ResourceRequirements(limits={"cpu": "8"}),
        )
        def score(x: int) -> int:
            return x * 2

        score(21)
    op = dag.get_task("score")
    assert op.custom_operator_name == "@task.kubernetes"
    pod = validate_pod(op.build_pod_request_obj(dry_run=True))
    spec = pod["spec"]
    assert spec["nodeSelector"] == {
        "pool": "gpu",
        "cloud.google.com/gke-accelerator": "nvidia-l4",
    }
    assert [t["key"] for t in spec["tolerations"]] == ["spot", "team", "nvidia.com/gpu"]
    limits = spec["containers"][0]["resources"]["limits"]
    assert limits == {"memory": "2Gi", "cpu": "8", "nvidia.com/gpu": "2"}


def test_task_accelerator_pins_to_the_gate_through_a_templated_selector() -> None:
    import jinja2
    from airflow.sdk import task

    with _dag("pinned") as dag:

        @task.accelerator(accelerator="H100-SXM", platform="nvidia", image="i", gate="gate")
        def work() -> None:
            return None

        work()
    op = dag.get_task("work")
    selector = op.node_selector["kubernetes.io/hostname"]
    assert "xcom_pull(task_ids='gate', key='node')" in selector
    env = dag.get_template_env()
    assert isinstance(env.undefined, type)
    assert issubclass(env.undefined, jinja2.StrictUndefined)

    class _PulledNothing:  # what ti.xcom_pull returns when the gate pushed no node
        def xcom_pull(self, **_: Any) -> None:
            return None

    with pytest.raises(jinja2.UndefinedError, match="accelerator_gate_reported_no_node_name"):
        env.from_string(selector).render(ti=_PulledNothing())


def test_task_accelerator_errors_at_parse_time() -> None:
    from airflow.sdk import task

    def work() -> None:
        return None

    template = copy.deepcopy(TEMPLATE)
    template["spec"]["nodeSelector"]["cloud.google.com/gke-accelerator"] = "nvidia-l4"
    with pytest.raises(PlacementError, match="nvidia-l4"):
        task.accelerator(accelerator="T4", platform="gke", image="i", pod_template_dict=template)(
            work
        )
    with pytest.raises(AcceleratorError, match="already selects"):
        task.accelerator(
            accelerator="T4",
            platform="gke",
            image="i",
            gate="gate",
            node_selector={"kubernetes.io/hostname": "n1"},
        )(work)


def test_task_accelerator_gate_places_the_worker_and_hides_report() -> None:
    from airflow.sdk import task

    override = k8s.V1Pod(
        spec=k8s.V1PodSpec(
            containers=[k8s.V1Container(name="base")],
            tolerations=[k8s.V1Toleration(key="team", operator="Exists")],
        )
    )
    with _dag("gated") as dag:

        @task.accelerator_gate(
            accelerator="A100-80GB:2",
            platform="karpenter",
            executor_config={"pod_override": override},
            retries=3,
        )
        def train(epochs: int, report: dict) -> int:
            return epochs

        train(3)
    op = dag.get_task("train")
    assert op.retries == 3
    assert "report" not in inspect.signature(op.python_callable).parameters
    pod = op.executor_config["pod_override"]
    assert isinstance(pod, k8s.V1Pod)
    assert [t.key for t in pod.spec.tolerations] == ["team", "nvidia.com/gpu"]
    assert pod.spec.containers[0].resources.limits == {"nvidia.com/gpu": "2"}
    env = pod.spec.containers[0].env  # the gate's report names the node
    assert [(e.name, e.value_from.field_ref.field_path) for e in env] == [
        ("NODE_NAME", "spec.nodeName")
    ]
    with pytest.raises(AcceleratorError, match="needs accelerator"):
        task.accelerator_gate(platform="gke")(lambda: None)
