"""executor_config for the KubernetesExecutor; queues and pools for Celery."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from airflow_testenv import validate_pod
from kubernetes.client import models as k8s

from accelerators import AcceleratorError, PlacementError
from accelerators_provider import (
    create_pools,
    executor_config,
    pool_for,
    pool_kwargs,
    pools_from_inventory,
    queue_for,
)

WORKER_TEMPLATE = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "worker"},
    "spec": {
        "containers": [
            {
                "name": "base",
                "image": "apache/airflow:3.3.2",
                "resources": {"limits": {"memory": "4Gi"}},
            }
        ],
        "nodeSelector": {"workload": "airflow"},
        "tolerations": [{"key": "airflow", "operator": "Exists", "effect": "NoSchedule"}],
    },
}


def test_executor_config_gives_a_base_container_pod_override() -> None:
    config = executor_config("A100-40GB@1g.5gb", platform="gke")
    pod = config["pod_override"]
    assert isinstance(pod, k8s.V1Pod)
    assert pod.spec.containers[0].name == "base"
    pod.spec.containers[0].image = "apache/airflow:3.3.2"
    pod.metadata = k8s.V1ObjectMeta(name="w")
    manifest = validate_pod(pod)
    assert manifest["spec"]["nodeSelector"] == {
        "cloud.google.com/gke-accelerator": "nvidia-tesla-a100",
        "cloud.google.com/gke-gpu-partition-size": "1g.5gb",
    }


def test_executor_config_keeps_the_worker_template(tmp_path: Path) -> None:
    from airflow.providers.cncf.kubernetes.pod_generator import PodGenerator

    path = tmp_path / "worker.yaml"
    path.write_text(yaml.safe_dump(WORKER_TEMPLATE))
    config = executor_config("L4", platform="gke", pod_template_file=str(path))
    assert config["pod_template_file"] == str(path)
    # What the executor does: the override replaces the template's selector, tolerations
    # and resources, so the override must carry the template's values too.
    base = PodGenerator.deserialize_model_file(str(path))
    worker = PodGenerator.reconcile_pods(base, config["pod_override"])
    manifest = validate_pod(worker)
    spec = manifest["spec"]
    assert spec["nodeSelector"] == {
        "workload": "airflow",
        "cloud.google.com/gke-accelerator": "nvidia-l4",
    }
    assert [t["key"] for t in spec["tolerations"]] == ["airflow", "nvidia.com/gpu"]
    assert spec["containers"][0]["resources"]["limits"] == {"memory": "4Gi", "nvidia.com/gpu": "1"}


def test_executor_config_keeps_a_user_override_and_rejects_conflicts() -> None:
    mine = k8s.V1Pod(
        spec=k8s.V1PodSpec(
            containers=[
                k8s.V1Container(name="base", env=[k8s.V1EnvVar(name="X", value="1")]),
                k8s.V1Container(name="sidecar", image="s"),
            ]
        )
    )
    pod = executor_config("T4:2", platform="gke", pod_override=mine)["pod_override"]
    assert [c.name for c in pod.spec.containers] == ["base", "sidecar"]
    assert pod.spec.containers[0].env[0].name == "X"
    assert pod.spec.containers[0].resources.limits == {"nvidia.com/gpu": "2"}
    sidecar_first = k8s.V1Pod(
        spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="s"), k8s.V1Container(name="base")])
    )
    with pytest.raises(AcceleratorError, match="'base' first"):
        executor_config("T4", platform="gke", pod_override=sidecar_first)
    limited = k8s.V1Pod(
        spec=k8s.V1PodSpec(
            containers=[
                k8s.V1Container(
                    name="base",
                    resources=k8s.V1ResourceRequirements(limits={"nvidia.com/gpu": "1"}),
                )
            ]
        )
    )
    with pytest.raises(PlacementError, match="conflicts"):
        executor_config("T4:2", platform="gke", pod_override=limited)


def test_queues_and_pools_are_per_model() -> None:
    assert queue_for("H100-SXM:8") == "accelerators-h100-sxm"
    assert queue_for("nvidia-h100-80gb") == "accelerators-h100-sxm"
    assert pool_for("A100-40GB@1g.10gb") == "accelerators-a100-40gb-1g.10gb"
    assert pool_kwargs("H100-SXM:4") == {
        "queue": "accelerators-h100-sxm",
        "pool": "accelerators-h100-sxm",
        "pool_slots": 4,
    }
    assert pool_kwargs("T4:0.5")["pool_slots"] == 1
    with pytest.raises(AcceleratorError, match="alternatives"):
        queue_for("H100-SXM | A100-80GB")
    with pytest.raises(AcceleratorError, match="names no accelerator model"):
        pool_for("80GB+")


def test_pools_from_a_node_inventory(airflow_db: Path) -> None:
    from airflow.models.pool import Pool

    inventory = {"gpu-a": "H100-SXM:8", "gpu-b": "H100-SXM:8", "mig-a": "A100-40GB@1g.10gb:7"}
    assert pools_from_inventory(inventory) == {
        "accelerators-h100-sxm": 16,
        "accelerators-a100-40gb-1g.10gb": 7,
    }
    assert create_pools(inventory) == pools_from_inventory(inventory)
    assert Pool.get_pool("accelerators-h100-sxm").slots == 16
    assert create_pools({"gpu-a": "H100-SXM:8"}) == {"accelerators-h100-sxm": 8}
    assert Pool.get_pool("accelerators-h100-sxm").slots == 8
    with pytest.raises(AcceleratorError, match="node 'x'"):
        pools_from_inventory({"x": "T4:0.5"})
