"""Fine-tuning on H100-SXM, else A100-80GB, on Karpenter: the gate runs inside the training pod.

The spec ``H100:8 | A100-80GB:8`` places the pod on either (required node affinity on both,
H100 preferred). On an autoscaled pool a separate gate pod proves little: once it exits,
Karpenter may consolidate its now empty node away, and a pod pinned to that node waits for a
node that no longer exists. So ``finetune`` gates itself (``gate_mode="inline"``): its
container first runs ``accelerators bench --expect "H100-SXM:8 | A100-80GB:8"`` on its own node,
fails the task on a wrong, slow or broken node (a retry gets a new pod, usually a new node),
and only then execs the training command. The gate's report, with the alternative it
matched, is at ``$ACCELERATORS_GATE_REPORT`` in the pod: ``finetune.py`` reads ``matched``
there and picks its batch size from ``--batch-sizes``. The image needs
``accelerators[bench]`` next to the trainer.

Locally (no cluster, no GPU) the pod is only rendered::

    airflow dags test airflow_fallback --mark-success-pattern finetune
"""

from __future__ import annotations

import json

# The DAG processor imports the airflow.* modules a DAG file names once, in its parent
# process, before each parse: naming KubernetesPodOperator's module keeps it (and the
# kubernetes client) out of every parse. accelerators_provider is not airflow.*, so
# without this line each parse would import them again through it.
import airflow.providers.cncf.kubernetes.operators.pod  # noqa: F401
import pendulum
from accelerators_provider import AcceleratorPodOperator
from airflow.sdk import DAG

ACCELERATOR = "H100-SXM:8 | A100-80GB:8"
PLATFORM = "karpenter"
#: A trainer image with ``pip install accelerators[bench]`` (the in-pod gate).
TRAIN_IMAGE = "registry.example.com/ml/finetune-with-bench:0.1"
#: Per-device batch size for each alternative the gate can match.
BATCH_SIZE = {"H100-SXM": 32, "A100-80GB": 16}

with DAG(
    dag_id="airflow_fallback",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["accelerators", "gpu", "template"],
) as dag:
    finetune = AcceleratorPodOperator(
        task_id="finetune",
        accelerator=ACCELERATOR,
        platform=PLATFORM,
        gate_mode="inline",
        image=TRAIN_IMAGE,
        cmds=["torchrun", "--nproc-per-node=8", "finetune.py"],
        arguments=[
            f"--batch-sizes={json.dumps(BATCH_SIZE)}",
            "--gate-report=$(ACCELERATORS_GATE_REPORT)",
        ],
        retries=2,
    )
