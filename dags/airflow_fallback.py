"""Fine-tuning on H100, else A100-80GB: the gate reports which one it got, the job adapts.

The spec ``H100:8 | A100-80GB:8`` places the gate pod on either (required node affinity on
both, H100 preferred). The gate checks the node against both and reports the alternative it
matched; ``plan`` turns that into a batch size, ``finetune`` runs pinned to the gate's node
with it.

Locally (no cluster, no GPU; the gate is a health check of this CPU)::

    NODE_NAME=$(hostname) airflow dags test airflow_fallback \\
        -c '{"local_run": true}' --mark-success-pattern finetune
"""

from __future__ import annotations

# The DAG processor imports the airflow.* modules a DAG file names once, in its parent
# process, before each parse: naming KubernetesPodOperator's module keeps it (and the
# kubernetes client) out of every parse. accelerators_provider is not airflow.*, so
# without this line each parse would import them again through it.
import airflow.providers.cncf.kubernetes.operators.pod  # noqa: F401
import pendulum
from accelerators_provider import AcceleratorGateOperator, AcceleratorPodOperator
from airflow.sdk import DAG, Param, task

ACCELERATOR = "H100:8 | A100-80GB:8"
PLATFORM = "karpenter"
GATE_IMAGE = "registry.example.com/ml/accelerators-bench:0.1"
TRAIN_IMAGE = "nvcr.io/nvidia/pytorch:25.01-py3"
#: Per-device batch size for each alternative the gate can match.
BATCH_SIZE = {"H100": 32, "A100-80GB": 16}

with DAG(
    dag_id="airflow_fallback",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["accelerators", "gpu", "template"],
    params={"local_run": Param(False, type="boolean", description="Local health-check gate.")},
) as dag:
    gate = AcceleratorGateOperator(
        task_id="gate", accelerator=ACCELERATOR, platform=PLATFORM, image=GATE_IMAGE, retries=2
    )

    @task
    def plan(report: dict) -> dict:
        """The batch size for the accelerator the gate found (the first one when local)."""
        matched = report.get("matched") or report.get("expect") or ""
        model = next((name for name in BATCH_SIZE if matched.startswith(name)), "A100-80GB")
        return {"model": model, "batch_size": BATCH_SIZE[model], "node": report.get("node")}

    settings = plan(gate.output)
    finetune = AcceleratorPodOperator(
        task_id="finetune",
        accelerator=ACCELERATOR,
        platform=PLATFORM,
        gate=gate,
        image=TRAIN_IMAGE,
        cmds=["torchrun", "--nproc-per-node=8", "finetune.py"],
        arguments=["--batch-size={{ ti.xcom_pull(task_ids='plan')['batch_size'] }}"],
    )
    settings >> finetune
