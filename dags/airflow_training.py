"""Training on 8 x H100 with the benchmark gate first (GKE, KubernetesPodOperator).

``gate`` runs ``accelerators bench --expect H100:8`` in a pod on an H100 node and fails the
run on a wrong, slow or broken node (a retry lands on another node); ``train`` and
``evaluate`` are pinned to the node it checked (node affinity ``kubernetes.io/hostname``
from the gate's XCom ``node``) and get its report.

Run it locally, with no cluster and no GPU (the gate runs in this process as a health check
of the CPU, the pods are only rendered)::

    NODE_NAME=$(hostname) airflow dags test airflow_training \\
        -c '{"local_run": true}' --mark-success-pattern 'train|evaluate'
"""

from __future__ import annotations

# The DAG processor imports the airflow.* modules a DAG file names once, in its parent
# process, before each parse: naming KubernetesPodOperator's module keeps it (and the
# kubernetes client) out of every parse. accelerators_provider is not airflow.*, so
# without this line each parse would import them again through it.
import airflow.providers.cncf.kubernetes.operators.pod  # noqa: F401
import pendulum
from accelerators_provider import AcceleratorGateOperator, AcceleratorPodOperator
from airflow.sdk import DAG, Param

ACCELERATOR = "H100-SXM:8"
PLATFORM = "gke"
#: An image with ``pip install accelerators[bench]`` (the gate) and your trainer.
GATE_IMAGE = "registry.example.com/ml/accelerators-bench:0.1"
TRAIN_IMAGE = "nvcr.io/nvidia/pytorch:25.01-py3"

with DAG(
    dag_id="airflow_training",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["accelerators", "gpu", "template"],
    params={
        "local_run": Param(
            False,
            type="boolean",
            description="Gate in this worker, health only (no accelerator check): dag.test() "
            "on a machine without the accelerator. Refused inside Kubernetes.",
        ),
        "epochs": Param(3, type="integer", minimum=1),
    },
) as dag:
    gate = AcceleratorGateOperator(
        task_id="gate",
        accelerator=ACCELERATOR,
        platform=PLATFORM,
        image=GATE_IMAGE,
        retries=2,
    )
    train = AcceleratorPodOperator(
        task_id="train",
        accelerator=ACCELERATOR,
        platform=PLATFORM,
        gate=gate,
        image=TRAIN_IMAGE,
        cmds=["torchrun", "--nproc-per-node=8", "train.py"],
        arguments=[
            "--epochs={{ params.epochs }}",
            "--gate-verdict={{ ti.xcom_pull(task_ids='gate')['verdict'] }}",
        ],
    )
    evaluate = AcceleratorPodOperator(
        task_id="evaluate",
        accelerator="H100-SXM:1",
        platform=PLATFORM,
        gate=gate,
        image=TRAIN_IMAGE,
        cmds=["python", "evaluate.py"],
    )
    train >> evaluate
