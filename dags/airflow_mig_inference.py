"""Batch inference over MIG slices: one ``1g.10gb`` slice of an A100-80GB per shard.

``gate`` checks one slice (a MIG slice where a whole GPU was asked for, or the wrong profile,
fails it); ``list_shards`` returns the shards; ``infer`` is mapped over them (dynamic task
mapping), each a ``@task.accelerator`` pod on one slice, pinned to the gate's node (the
templated ``nodeSelector`` ``kubernetes.io/hostname``), so every shard runs on slices of the
node the gate checked. ``summarize`` runs when all shards are done. The platform is the
NVIDIA GPU Operator with the ``mixed`` MIG strategy (``nvidia.com/mig-1g.10gb``).

Locally (no cluster, no GPU; the gate is a health check of this CPU)::

    NODE_NAME=$(hostname) airflow dags test airflow_mig_inference \\
        -c '{"local_run": true}' --mark-success-pattern infer
"""

from __future__ import annotations

# The DAG processor imports the airflow.* modules a DAG file names once, in its parent
# process, before each parse: naming KubernetesPodOperator's module keeps it (and the
# kubernetes client) out of every parse. accelerators_provider is not airflow.*, so
# without this line each parse would import them again through it.
import airflow.providers.cncf.kubernetes.operators.pod  # noqa: F401
import pendulum
from accelerators_provider import AcceleratorGateOperator
from airflow.sdk import DAG, Param, task

SLICE = "A100-80GB@1g.10gb"
PLATFORM = "nvidia"
PLATFORM_OPTIONS = {"mig_strategy": "mixed"}
GATE_IMAGE = "registry.example.com/ml/accelerators-bench:0.1"
INFER_IMAGE = "registry.example.com/ml/batch-infer:1.4"
SHARDS = 6

with DAG(
    dag_id="airflow_mig_inference",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["accelerators", "gpu", "mig", "template"],
    params={"local_run": Param(False, type="boolean", description="Local health-check gate.")},
) as dag:
    gate = AcceleratorGateOperator(
        task_id="gate",
        accelerator=SLICE,
        platform=PLATFORM,
        platform_options=PLATFORM_OPTIONS,
        image=GATE_IMAGE,
        retries=2,
    )

    @task
    def list_shards(report: dict) -> list[str]:
        """The input shards; the gate's report is here to log what they will run on."""
        print(f"{SHARDS} shards on {report['device']['name']} at node {report.get('node')}")
        return [f"s3://example-bucket/batch/part-{i:04d}.parquet" for i in range(SHARDS)]

    @task.accelerator(
        accelerator=SLICE,
        platform=PLATFORM,
        platform_options=PLATFORM_OPTIONS,
        gate=gate,
        image=INFER_IMAGE,
    )
    def infer(shard: str) -> str:
        """Runs in a pod on one MIG slice."""
        import os

        return f"{shard} scored on {os.environ.get('NODE_NAME', 'unknown node')}"

    @task(trigger_rule="all_success")
    def summarize(shards: list[str]) -> int:
        return len(shards)

    shards = list_shards(gate.output)
    scored = infer.expand(shard=shards)
    gate >> scored
    scored >> summarize(shards)
