"""Valid resources after merging: a template limit under an argument's request is refused,
naming both and where each comes from, for the operators, the decorator and
``executor_config``; pods that are valid stay valid."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from airflow_testenv import validate_pod
from kubernetes.client import models as k8s

from accelerators import PlacementError
from accelerators_provider import AcceleratorGateOperator, AcceleratorPodOperator, executor_config

TEMPLATE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "template"},
    "spec": {
        "containers": [{"name": "base", "image": "i", "resources": {"limits": {"memory": "16Gi"}}}]
    },
}
ASKS_64GI = k8s.V1ResourceRequirements(requests={"memory": "64Gi"})
MESSAGE = (
    r"container 'base' requests memory 64Gi \(container_resources\) above its limit 16Gi "
    r"\(pod_template_{}\)"
)


def _file(tmp_path: Path) -> str:
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(TEMPLATE))
    return str(path)


def test_the_operator_refuses_at_parse_time(tmp_path: Path) -> None:
    for operator in (AcceleratorPodOperator, AcceleratorGateOperator):
        with pytest.raises(PlacementError, match=MESSAGE.format("dict")):
            operator(
                task_id="t",
                accelerator="L4",
                platform="gke",
                image="i",
                pod_template_dict=copy.deepcopy(TEMPLATE),
                container_resources=ASKS_64GI,
            )
        with pytest.raises(PlacementError, match=MESSAGE.format("file '.*pod.yaml'")):
            operator(
                task_id="t",
                accelerator="L4",
                platform="gke",
                image="i",
                pod_template_file=_file(tmp_path),
                container_resources=ASKS_64GI,
            )


def test_a_templated_template_path_is_checked_when_the_pod_is_built(tmp_path: Path) -> None:
    op = AcceleratorPodOperator(
        task_id="t",
        accelerator="L4",
        platform="gke",
        image="i",
        pod_template_file="{{ params.template }}",
        container_resources=ASKS_64GI,
    )
    op.render_template_fields({"params": {"template": _file(tmp_path)}})
    with pytest.raises(PlacementError, match=MESSAGE.format("file .*pod.yaml.")):
        op.build_pod_request_obj(dry_run=True)


def test_the_decorator_refuses_at_parse_time() -> None:
    from airflow.sdk import task

    def score() -> int:
        return 1

    with pytest.raises(PlacementError, match=MESSAGE.format("dict")):
        task.accelerator(
            accelerator="L4",
            platform="gke",
            image="i",
            pod_template_dict=copy.deepcopy(TEMPLATE),
            container_resources=ASKS_64GI,
        )(score)


def test_executor_config_refuses_against_the_worker_template(tmp_path: Path) -> None:
    override = k8s.V1Pod(
        spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="base", resources=ASKS_64GI)])
    )
    with pytest.raises(
        PlacementError,
        match=r"requests memory 64Gi \(pod_override\) above its limit 16Gi \(the worker "
        r"pod_template_file '.*pod.yaml'\)",
    ):
        executor_config(
            "L4", platform="gke", pod_override=override, pod_template_file=_file(tmp_path)
        )


def test_the_default_worker_template_is_kept_and_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without pod_template_file, the deployment's worker template
    (``[kubernetes_executor] pod_template_file``) is what the override merges with."""
    worker = copy.deepcopy(TEMPLATE)
    worker["spec"]["tolerations"] = [{"key": "workers", "operator": "Exists"}]
    path = tmp_path / "worker.yaml"
    path.write_text(yaml.safe_dump(worker))
    monkeypatch.setenv("AIRFLOW__KUBERNETES_EXECUTOR__POD_TEMPLATE_FILE", str(path))
    pod = executor_config("L4", platform="gke")["pod_override"]
    assert [t.key for t in pod.spec.tolerations] == ["workers", "nvidia.com/gpu"]
    assert pod.spec.containers[0].resources.limits == {"memory": "16Gi", "nvidia.com/gpu": "1"}
    override = k8s.V1Pod(
        spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="base", resources=ASKS_64GI)])
    )
    with pytest.raises(PlacementError, match="above its limit 16Gi"):
        executor_config("L4", platform="gke", pod_override=override)


def test_requests_within_limits_pass_and_are_kept(tmp_path: Path) -> None:
    op = AcceleratorPodOperator(
        task_id="t",
        accelerator="L4",
        platform="gke",
        image="i",
        pod_template_file=_file(tmp_path),
        container_resources=k8s.V1ResourceRequirements(
            requests={"memory": "8Gi", "cpu": "2"}, limits={"cpu": "4"}
        ),
    )
    main = validate_pod(op.build_pod_request_obj(dry_run=True))["spec"]["containers"][0]
    assert main["resources"]["limits"] == {"memory": "16Gi", "cpu": "4", "nvidia.com/gpu": "1"}
    assert main["resources"]["requests"] == {"memory": "8Gi", "cpu": "2", "nvidia.com/gpu": "1"}
    # Raising the limit in the same argument resolves the conflict.
    op = AcceleratorPodOperator(
        task_id="t",
        accelerator="L4",
        platform="gke",
        image="i",
        pod_template_file=_file(tmp_path),
        container_resources=k8s.V1ResourceRequirements(
            requests={"memory": "64Gi"}, limits={"memory": "64Gi"}
        ),
    )
    validate_pod(op.build_pod_request_obj(dry_run=True))
