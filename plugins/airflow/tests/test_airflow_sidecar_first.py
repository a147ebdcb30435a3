"""A pod template with a sidecar first: the accelerator goes to the main container, found by
name (issue 28, item 12).

``KubernetesPodOperator`` pairs a template's containers with its own by position: with
``full_pod_spec`` listing ``[sidecar, base]`` it merged its ``base`` container (the GPU, the
image, the command) into the sidecar and left a second ``base`` without the GPU, a pod the
API server refuses (two containers of one name). The operators now hand it the template with
the main container first and put it back in the user's place afterwards.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from airflow_testenv import run_dag, validate_pod
from fake_kube import FakeKube, Outcome
from kube_runs import dag_file, states
from kubernetes.client import models as k8s

from accelerators import AcceleratorError
from accelerators_provider import AcceleratorGateOperator, AcceleratorPodOperator

GPU = {"nvidia.com/gpu": "8"}
PROXY = {"cpu": "100m", "memory": "64Mi"}


def _containers() -> list[dict[str, Any]]:
    return [
        {"name": "proxy", "image": "envoy:1", "resources": {"limits": PROXY, "requests": PROXY}},
        {"name": "base", "image": "trainer:1", "command": ["python", "train.py"]},
    ]


def _full_pod_spec() -> Any:
    return k8s.V1Pod(
        spec=k8s.V1PodSpec(
            containers=[
                k8s.V1Container(
                    name="proxy",
                    image="envoy:1",
                    resources=k8s.V1ResourceRequirements(limits=PROXY, requests=PROXY),
                ),
                k8s.V1Container(name="base", image="trainer:1", command=["python", "train.py"]),
            ]
        )
    )


def _by_name(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in manifest["spec"]["containers"]}


def _check(manifest: dict[str, Any]) -> None:
    names = [c["name"] for c in manifest["spec"]["containers"]]
    assert names[:2] == ["proxy", "base"]  # the user's order, each name once
    containers = _by_name(manifest)
    assert containers["base"]["resources"]["limits"] == GPU  # the sidecar's cpu did not leak
    assert containers["base"]["image"] == "trainer:1"
    assert containers["proxy"]["image"] == "envoy:1"
    assert containers["proxy"]["resources"]["limits"] == PROXY  # no GPU on the sidecar


def _sources(tmp_path: Path) -> dict[str, dict[str, Any]]:
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": _containers()}}
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(pod))
    return {
        "full_pod_spec": {"full_pod_spec": _full_pod_spec()},
        "pod_template_dict": {"pod_template_dict": pod},
        "pod_template_file": {"pod_template_file": str(path)},
    }


@pytest.mark.parametrize("source", ["full_pod_spec", "pod_template_dict", "pod_template_file"])
def test_the_gpu_lands_on_the_base_container_by_name(tmp_path: Path, source: str) -> None:
    op = AcceleratorPodOperator(
        task_id="train", accelerator="H100-SXM:8", platform="gke", **_sources(tmp_path)[source]
    )
    manifest = validate_pod(op.build_pod_request_obj(dry_run=True))
    _check(manifest)
    assert _by_name(manifest)["base"]["command"] == ["python", "train.py"]


def test_the_gate_pod_too(tmp_path: Path) -> None:
    gate = AcceleratorGateOperator(
        task_id="gate", accelerator="H100-SXM:8", platform="gke", full_pod_spec=_full_pod_spec()
    )
    manifest = validate_pod(gate.build_pod_request_obj(dry_run=True))
    _check(manifest)
    assert _by_name(manifest)["base"]["command"] == ["accelerators", "bench"]


DAG = """
import pendulum
from airflow.sdk import DAG
from kubernetes.client import models as k8s
from accelerators_provider import AcceleratorPodOperator

PROXY = {{"cpu": "100m", "memory": "64Mi"}}
FULL = k8s.V1Pod(spec=k8s.V1PodSpec(containers=[
    k8s.V1Container(name="proxy", image="envoy:1",
                    resources=k8s.V1ResourceRequirements(limits=PROXY, requests=PROXY)),
    k8s.V1Container(name="base", image="trainer:1", command=["python", "train.py"]),
]))
with DAG("sidecar_first", schedule=None, start_date=pendulum.datetime(2026, 1, 1)) as dag:
    AcceleratorPodOperator(
        task_id="train", accelerator="H100-SXM:8", platform="gke", full_pod_spec=FULL,
        config_file={config!r},
    )
"""


def test_the_pod_a_dag_run_creates(airflow_db: Path, tmp_path: Path) -> None:
    """A real run: ``KubernetesPodOperator.execute`` sends the pod to a (fake) API server."""
    with FakeKube(lambda pod, index: Outcome(node="gpu-node-1")) as kube:
        text = DAG.format(config=str(kube.kubeconfig(tmp_path / "kube")))
        with dag_file("sidecar_first", text) as dag:
            run = run_dag(dag)
    assert states(run) == {"train": ("success", 1)}
    [created] = kube.created
    _check(validate_pod_manifest(created))


def validate_pod_manifest(manifest: dict[str, Any]) -> dict[str, Any]:
    from airflow_testenv import validate_manifest

    return validate_manifest(manifest)


def _score() -> int:
    return 1


def test_the_decorator_moves_the_base_container_first(tmp_path: Path) -> None:
    from airflow.sdk import DAG, task

    with DAG("decorated_sidecar", schedule=None):
        op = task.accelerator(
            accelerator="H100-SXM:8", platform="gke", full_pod_spec=_full_pod_spec()
        )(_score)().operator
    manifest = validate_pod(op.build_pod_request_obj(dry_run=True))
    containers = _by_name(manifest)
    assert containers["base"]["resources"]["limits"] == GPU
    assert containers["proxy"]["resources"]["limits"] == PROXY
    # A template file is read by KubernetesPodOperator itself: not first is refused.
    path = _sources(tmp_path)["pod_template_file"]["pod_template_file"]
    with DAG("decorated_sidecar_file", schedule=None), pytest.raises(AcceleratorError) as raised:
        task.accelerator(accelerator="H100-SXM:8", platform="gke", pod_template_file=path)(_score)
    assert "container 'base' is not the first container of the pod template file" in str(
        raised.value
    )
