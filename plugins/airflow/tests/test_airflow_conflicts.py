"""Impossible placements are DAG import errors naming both sides (issue 28, item 8): a
selector, affinity or device resource of the task's arguments, its pod template or the
worker template that no node can meet with the spec, through the core's one check
(``accelerators.kubernetes.placement_conflicts``) on every path: the operators, the
decorator and ``executor_config``."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from airflow_testenv import DAGS, dagbag_class, validate_pod
from kubernetes.client import models as k8s

from accelerators import PlacementError
from accelerators_provider import AcceleratorGateOperator, AcceleratorPodOperator, executor_config

TYPE = "node.kubernetes.io/instance-type"


def _import_error(name: str, text: str) -> tuple[str, str]:
    """Parse ``text`` as a DAG file with Airflow's ``DagBag``; its one import error and path."""
    path = DAGS / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    try:
        bag = dagbag_class()(dag_folder=str(path), safe_mode=False)
    finally:
        path.unlink()
    [error] = bag.import_errors.values()
    return error, str(path)


GKE_A2 = """
import pendulum
from airflow.sdk import DAG
from accelerators_provider import AcceleratorPodOperator

with DAG("a2_under_h100", schedule=None, start_date=pendulum.datetime(2026, 1, 1)) as dag:
    AcceleratorPodOperator(
        task_id="train",
        image="trainer:1",
        accelerator="H100-SXM:8",
        platform="gke",
        node_selector={"node.kubernetes.io/instance-type": "a2-highgpu-8g"},
    )
"""


def test_the_dag_file_fails_to_import_naming_both_sides(airflow_db: Path) -> None:
    error, path = _import_error("a2_under_h100", GKE_A2)
    assert f"{path}:" in error  # the DAG file's line
    assert "task 'train'" in error
    assert "the operator's arguments: no node it selects can host 'H100-SXM:8'" in error
    assert f"nodeSelector {TYPE}=a2-highgpu-8g" in error
    assert "a2-highgpu-8g is a GCP machine type with 8 x A100-40GB" in error
    assert "but 'H100-SXM:8' needs H100-SXM" in error


def _template(tmp_path: Path, spec: dict[str, Any]) -> str:
    path = tmp_path / "pod.yaml"
    body = {"containers": [{"name": "base", "image": "i"}], **spec}
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "spec": body}))
    return str(path)


def test_a_pod_template_file_on_karpenter(tmp_path: Path) -> None:
    path = _template(tmp_path, {"nodeSelector": {TYPE: "p4d.24xlarge"}})
    for cls in (AcceleratorPodOperator, AcceleratorGateOperator):
        with pytest.raises(PlacementError) as raised:
            cls(
                task_id="t",
                accelerator="H100-SXM:8",
                platform="karpenter",
                image="i",
                pod_template_file=path,
            )
        message = str(raised.value)
        assert f"pod_template_file {path!r}: no node it selects" in message
        assert "p4d.24xlarge is an AWS instance type with 8 x A100-40GB" in message


def test_an_amd_limit_next_to_an_h100_spec() -> None:
    with pytest.raises(PlacementError) as raised:
        AcceleratorPodOperator(
            task_id="t",
            accelerator="H100-SXM:8",
            platform="gke",
            image="i",
            container_resources=k8s.V1ResourceRequirements(limits={"amd.com/gpu": "1"}),
        )
    message = str(raised.value)
    assert "container 'base' limits amd.com/gpu: 1" in message
    assert "'H100-SXM:8' is requested as nvidia.com/gpu on platform 'gke'" in message


def test_the_decorator_refuses_a_foreign_accelerator_label() -> None:
    from airflow.sdk import DAG, task

    with DAG("decorated_conflict", schedule=None), pytest.raises(PlacementError) as raised:
        task.accelerator(
            accelerator="H100-SXM:8",
            platform="nvidia",
            image="i",
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {
                                        "key": "cloud.google.com/gke-accelerator",
                                        "operator": "In",
                                        "values": ["nvidia-a100-80gb", "nvidia-l4"],
                                    }
                                ]
                            }
                        ]
                    }
                }
            },
        )(lambda: None)
    message = str(raised.value)
    assert "the task's arguments: no node it selects can host 'H100-SXM:8'" in message
    assert "selects nodes with A100-80GB or L4" in message


def test_executor_config_names_the_worker_template(tmp_path: Path) -> None:
    path = _template(
        tmp_path,
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": TYPE, "operator": "In", "values": ["a3-highgpu-1g"]}
                                ]
                            }
                        ]
                    }
                }
            }
        },
    )
    with pytest.raises(PlacementError) as raised:
        executor_config("H100-SXM:8", platform="gke", pod_template_file=path)
    message = str(raised.value)
    assert f"the worker pod_template_file {path!r}: no node it selects" in message
    assert "a3-highgpu-1g is a GCP machine type with 1 x H100-SXM" in message
    assert "'H100-SXM:8' needs 8 on one node" in message


def test_an_argument_that_replaces_the_templates_value_is_judged_as_built(tmp_path: Path) -> None:
    """The template selects an A100 type, the task's own selector replaces it with an H100
    type (KubernetesPodOperator's rule on a key both set): the pod as built can run."""
    path = _template(tmp_path, {"nodeSelector": {TYPE: "a2-highgpu-8g"}})
    op = AcceleratorPodOperator(
        task_id="t",
        accelerator="H100-SXM:8",
        platform="gke",
        image="i",
        pod_template_file=path,
        node_selector={TYPE: "a3-highgpu-8g"},
    )
    manifest = validate_pod(op.build_pod_request_obj(dry_run=True))
    assert manifest["spec"]["nodeSelector"][TYPE] == "a3-highgpu-8g"


def test_a_templated_template_is_judged_when_the_pod_is_built(tmp_path: Path) -> None:
    path = _template(tmp_path, {"nodeSelector": {TYPE: "p4d.24xlarge"}})
    op = AcceleratorPodOperator(
        task_id="t",
        accelerator="H100-SXM:8",
        platform="eks",
        image="i",
        pod_template_file="{{ params.template }}",
    )
    op.render_template_fields({"params": {"template": path}})
    with pytest.raises(PlacementError, match=r"p4d\.24xlarge is an AWS instance type"):
        op.build_pod_request_obj(dry_run=True)


def test_an_alternative_the_platform_cannot_place_is_left_out_with_a_warning() -> None:
    """issue 32: a bare V100 is either size; GKE labels only the 16 GB card, so the pod runs
    there, and the DAG's parse warns which alternative was left out (never silently)."""
    from accelerators.kubernetes import LeftOutWarning

    with pytest.warns(LeftOutWarning, match=r"'V100-32GB:2' on platform 'gke'"):
        config = executor_config("V100:2", platform="gke")
    pod = config["pod_override"]
    assert pod.spec.node_selector == {"cloud.google.com/gke-accelerator": "nvidia-tesla-v100"}
    validate_pod(pod)
