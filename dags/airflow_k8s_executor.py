"""The training pipeline on the KubernetesExecutor: the gate runs inside the training pod.

Under the KubernetesExecutor each task is a worker pod placed by ``executor_config``, which
is fixed when the DAG is parsed, so it cannot be pinned to another task's node from XCom.
The gate therefore runs *inside* the guarded pod, first: ``@task.accelerator_gate`` places
the worker on ``H100:8`` (``executor_config`` → ``pod_override``), runs the benchmark gate
there and only then the training function, which gets the report. ``register`` (no
accelerator) receives the model and the report through XCom.

Locally (no cluster, no GPU; the gate is a health check of this CPU)::

    airflow dags test airflow_k8s_executor -c '{"local_run": true}'
"""

from __future__ import annotations

import pendulum
from airflow.sdk import DAG, Param, task

ACCELERATOR = "H100-SXM:8"
PLATFORM = "gke"

with DAG(
    dag_id="airflow_k8s_executor",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["accelerators", "gpu", "kubernetes-executor", "template"],
    params={"local_run": Param(False, type="boolean", description="Local health-check gate.")},
) as dag:

    @task.accelerator_gate(accelerator=ACCELERATOR, platform=PLATFORM, retries=2)
    def train(report: dict) -> dict:
        """The gate passed on this pod's node; train here."""
        return {
            "model": "s3://example-bucket/models/run-1",
            "device": report["device"]["name"],
            "node": report.get("node"),
        }

    @task
    def register(model: dict) -> str:
        return f"registered {model['model']} trained on {model['device']}"

    register(train())
