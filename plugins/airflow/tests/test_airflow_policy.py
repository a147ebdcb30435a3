"""Cluster policy: the deployment's ``pod_mutation_hook`` has the last word on our pods, and
the provider's own policy keeps a KubernetesExecutor retry off the node its gate failed on.

The first test runs in a fresh interpreter whose ``$AIRFLOW_HOME/config`` holds a real
``airflow_local_settings.py``: Airflow imports it while ``import airflow`` runs and
``KubernetesPodOperator`` binds its ``pod_mutation_hook`` then, as in a deployment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from airflow_testenv import DAGS, REPO, run_dag, validate_manifest

LOCAL_SETTINGS = """
def pod_mutation_hook(pod):
    # A platform team's policy: a label, its own priority class, and no spot nodes.
    pod.metadata.labels = {**(pod.metadata.labels or {}), "cost-center": "ml-platform"}
    pod.spec.priority_class_name = "batch-low"
    pod.spec.tolerations = [t for t in pod.spec.tolerations or [] if t.key != "spot"]
"""

BUILD = """
import json, sys
from kubernetes.client import ApiClient
from kubernetes.client import models as k8s
from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator
from airflow.sdk import DAG, task
from accelerators_provider import AcceleratorGateOperator, AcceleratorPodOperator

template = {
    "apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"team": "vision"}},
    "spec": {
        "containers": [{"name": "base", "image": "i"}],
        "tolerations": [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}],
    },
}
common = dict(image="trainer:1", pod_template_dict=template, priority_class_name="interactive")
with DAG("policy", schedule=None) as dag:
    pods = {
        "plain": KubernetesPodOperator(task_id="plain", **common),
        "operator": AcceleratorPodOperator(
            task_id="operator", accelerator="L4:2", platform="gke", **common
        ),
        "gate": AcceleratorGateOperator(
            task_id="gate", accelerator="L4:2", platform="gke", **common
        ),
    }

    @task.accelerator(accelerator="L4:2", platform="gke", **common)
    def decorated():
        return 1

    decorated()
    pods["decorated"] = dag.get_task("decorated")
api = ApiClient()
print(json.dumps({k: api.sanitize_for_serialization(op.build_pod_request_obj(dry_run=True))
                  for k, op in pods.items()}))
"""


def test_the_deployments_pod_mutation_hook_has_the_last_word(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "airflow_local_settings.py").write_text(textwrap.dedent(LOCAL_SETTINGS))
    env = dict(os.environ, AIRFLOW_HOME=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(BUILD)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    pods = json.loads(done.stdout.strip().splitlines()[-1])
    for name, pod in pods.items():
        validate_manifest(pod)
        spec = pod["spec"]
        assert pod["metadata"]["labels"]["cost-center"] == "ml-platform", name
        assert pod["metadata"]["labels"]["team"] == "vision", name
        assert spec["priorityClassName"] == "batch-low", name
        assert "spot" not in [t["key"] for t in spec.get("tolerations") or []], name
        if name != "plain":  # and the accelerator is still there
            assert spec["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "2"}
            assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in (
                spec["tolerations"]
            )
            assert spec["nodeSelector"] == {"cloud.google.com/gke-accelerator": "nvidia-l4"}


EXECUTOR_DAG = """
from datetime import timedelta

import pendulum
from airflow.sdk import DAG, task

START = pendulum.datetime(2026, 1, 1, tz="UTC")
with DAG("executor_retry", schedule=None, start_date=START) as dag:

    @task.accelerator_gate(
        accelerator="H100-SXM", platform="gke", retries=1, retry_delay=timedelta(0)
    )
    def train() -> str:
        return "never"

    train()
"""


def _worker_pod(dag: Any, run: Any, try_number: int) -> dict[str, Any]:
    """The worker pod the KubernetesExecutor builds for ``train``'s try ``try_number``: its
    own call (``construct_pod(..., with_mutation_hook=True)``), the registered policies run."""
    from airflow.providers.cncf.kubernetes.pod_generator import PodGenerator
    from kubernetes.client import ApiClient
    from kubernetes.client import models as k8s

    worker = k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(name="worker"),
        spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="base", image="airflow:3")]),
    )
    pod = PodGenerator.construct_pod(
        dag_id=dag.dag_id,
        task_id="train",
        pod_id="executor-retry-train",
        try_number=try_number,
        kube_image="apache/airflow:3.3.2",
        date=None,
        args=["python", "-m", "airflow.sdk.execution_time.execute_workload"],
        pod_override_object=dag.get_task("train").executor_config["pod_override"],
        base_worker_pod=worker,
        namespace="airflow",
        scheduler_job_id="7",
        run_id=run.run_id,
        map_index=-1,
        with_mutation_hook=True,
    )
    manifest: dict[str, Any] = ApiClient().sanitize_for_serialization(pod)
    return manifest


def test_a_kubernetes_executor_retry_avoids_the_node_its_gate_failed_on(
    airflow_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch", reason="the gate runs the benchmark in this worker")
    pytest.importorskip("airflow.models.task_state_store", reason="Airflow >= 3.3")
    monkeypatch.setenv("NODE_NAME", "gpu-node-bad")
    path = DAGS / "executor_retry.py"
    path.write_text(textwrap.dedent(EXECUTOR_DAG))
    try:
        import importlib.util

        spec = importlib.util.spec_from_file_location("executor_retry", path)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        run = run_dag(module.dag)  # the gate expects an H100 and finds this CPU: it fails
    finally:
        path.unlink()
    assert run.state == "failed"
    first = _worker_pod(module.dag, run, try_number=1)
    retry = _worker_pod(module.dag, run, try_number=2)
    validate_manifest({**retry, "apiVersion": "v1", "kind": "Pod"})
    assert "hostname" not in json.dumps(first["spec"].get("affinity"))
    terms = retry["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    avoid = {"key": "kubernetes.io/hostname", "operator": "NotIn", "values": ["gpu-node-bad"]}
    assert terms
    assert all(avoid in t["matchExpressions"] for t in terms)
    # The accelerator's placement is still there, in every term.
    assert all(
        any(e["key"] == "cloud.google.com/gke-accelerator" for e in t["matchExpressions"])
        for t in terms
    )
    assert retry["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "1"}


def test_the_policy_leaves_other_pods_alone_and_never_raises(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from kubernetes.client import models as k8s

    from accelerators_provider.policy import pod_mutation_hook

    kpo = k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(
            labels={"kubernetes_pod_operator": "True", "try_number": "3"},
            annotations={"try_number": "3"},
        ),
        spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="base")]),
    )
    pod_mutation_hook(kpo)
    assert kpo.spec.affinity is None
    broken = k8s.V1Pod(
        metadata=k8s.V1ObjectMeta(
            labels={"kubernetes_executor": "True"}, annotations={"try_number": "two"}
        )
    )
    with caplog.at_level("ERROR"):
        pod_mutation_hook(broken)  # a bad annotation: logged, the pod left as built
    assert "left as built" in caplog.text


def test_the_policy_is_registered_through_the_airflow_policy_entry_point() -> None:
    import airflow.settings

    import accelerators_provider.policy

    if hasattr(airflow.settings, "get_policy_plugin_manager"):  # Airflow >= 3.1
        manager = airflow.settings.get_policy_plugin_manager()
    else:  # Airflow 3.0: built while airflow is imported
        manager = airflow.settings.POLICY_PLUGIN_MANAGER
    assert manager.is_registered(accelerators_provider.policy)
    names = [impl.plugin_name for impl in manager.hook.pod_mutation_hook.get_hookimpls()]
    assert "accelerators" in names


def test_before_airflow_3_3_the_policy_says_retries_cannot_avoid_nodes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import importlib.util

    from accelerators_provider import policy

    if importlib.util.find_spec("airflow.models.task_state_store") is not None:
        pytest.skip("this Airflow has a task state store (>= 3.3): checked above")
    policy._said_unavailable.clear()
    with caplog.at_level("INFO"):
        assert policy.failed_nodes_of("d", "r", "t", -1) == []
    assert "retry avoidance is unavailable on the KubernetesExecutor" in caplog.text
