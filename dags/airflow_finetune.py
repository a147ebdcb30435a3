"""A fine-tune that sizes itself: plan by the job, gate the plan's choice, train there (EKS).

The DAG params are ``accelerators.templates.FINETUNE_PARAMS``: the same names, defaults and
plan (``accelerators.sizing.plan_finetune``) as the Flyte template's (``flyte_finetune.py``)
and as ``accelerators plan``. ``plan_job`` reads the model's ``config.json`` (``model_config``:
a path the workers can read, the parsed JSON, or nothing for the Qwen2.5-0.5B config shipped
with ``accelerators``; ``$FINETUNE_MODEL_CONFIG`` sets the default) and ranks where to run
the method on the tokens by total cost, start-up included, within the budget, over every
cloud with prices unless ``clouds`` names some (the fleet's measured figures when the
workers' ``$ACCELERATORS_BENCH_HISTORY`` has them), keeping only what ``PLATFORM``, the
cluster the pods run on, can place: on EKS with Karpenter, EC2 instances whose GPU
Karpenter labels (``accelerators plan --platform karpenter`` gives the same plan). Its XCom
holds the best choice with its fallbacks (``spec``), its device count (``torchrun
--nproc-per-node``), hours, start-up, cost, tokens/s, the clouds considered and the
platform, and the ranking as HTML (``plan_html``); a job no option holds fails the task at
once, naming the binding constraint. The gate and the training pod take their
``accelerator`` from it through a template, so the placement is decided at run time: the gate
pod may land on any alternative, and ``train`` runs on the gate's node with the alternative
the gate matched. ``summary`` leads with the gate's headline (``not checked: this machine
has no L4`` on a local run) next to the plan's cost, the clouds considered and the platform.

Run it locally, with no cluster and no GPU (the plan is real, the gate runs in this process
as a health check of the CPU, the training pod is only rendered), from any folder::

    NODE_NAME=$(hostname) airflow dags test airflow_finetune -c '{"local_run": true}' \\
        --mark-success-pattern train
"""

from __future__ import annotations

import os
from typing import Any

# The DAG processor imports the airflow.* modules a DAG file names once, in its parent
# process: naming KubernetesPodOperator's module keeps it out of every parse.
import airflow.providers.cncf.kubernetes.operators.pod  # noqa: F401
import pendulum
from accelerators_provider import AcceleratorGateOperator, AcceleratorPodOperator
from airflow.sdk import DAG, Param, task

from accelerators.templates import FINETUNE_PARAMS, TemplateParam

#: Where the pods run: EKS with Karpenter. The plan keeps what this platform can place, and
#: the gate and the training pod are placed on it (accelerators.kubernetes.platforms()).
#: The one line to change: "gke" on GKE, "nvidia" on a cluster with the NVIDIA GPU Operator.
PLATFORM = "karpenter"
#: An image with ``pip install accelerators[bench]`` (the gate) and your trainer.
GATE_IMAGE = "registry.example.com/ml/accelerators-bench:0.1"
TRAIN_IMAGE = "nvcr.io/nvidia/pytorch:25.01-py3"
#: The model's config.json, as the workers see it ("": the example model shipped in the package).
MODEL_CONFIG = os.environ.get("FINETUNE_MODEL_CONFIG", "")
PLAN = "ti.xcom_pull(task_ids='plan_job')"
#: The alternative the gate found on its node, else (a local run checks nothing) the plan's.
CHOSEN = "{{ ti.xcom_pull(task_ids='gate')['matched'] or " + PLAN + "['spec'] }}"


def _param(shared: TemplateParam) -> Param:
    """One shared template parameter as an Airflow param (its JSON Schema types and choices)."""
    default = MODEL_CONFIG if shared.name == "model_config" else shared.default
    types = list(shared.types) if len(shared.types) > 1 else shared.types[0]
    extra = {"enum": list(shared.choices)} if shared.choices else {}
    return Param(default, type=types, description=shared.description, **extra)


with DAG(
    dag_id="airflow_finetune",
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    tags=["accelerators", "gpu", "template", "plan"],
    params={
        "local_run": Param(
            False,
            type="boolean",
            description="Gate in this worker, health only (no accelerator check): dag.test() "
            "on a machine without the accelerator. Refused inside Kubernetes.",
        ),
        **{shared.name: _param(shared) for shared in FINETUNE_PARAMS},
    },
) as dag:

    @task(multiple_outputs=False, retries=0)  # a job nothing holds fails at once: no retries
    def plan_job(**context: Any) -> dict[str, Any]:
        """Rank the choices; the best with its fallbacks, and the ranking in XCom."""
        from accelerators.sizing import finetune_choice, plan_finetune, plan_html

        params = context["params"]
        job = plan_finetune(
            **{shared.name: params[shared.name] for shared in FINETUNE_PARAMS}, platform=PLATFORM
        )
        context["ti"].xcom_push(key="plan_html", value=plan_html(job))
        return finetune_choice(job)

    gate = AcceleratorGateOperator(
        task_id="gate",
        accelerator="{{ " + PLAN + "['spec'] }}",
        platform=PLATFORM,
        image=GATE_IMAGE,
        retries=2,
    )
    train = AcceleratorPodOperator(
        task_id="train",
        accelerator=CHOSEN,
        platform=PLATFORM,
        gate=gate,
        image=TRAIN_IMAGE,
        cmds=["torchrun", "--nproc-per-node={{ " + PLAN + "['devices'] }}", "train.py"],
        arguments=[
            "--model-config={{ params.model_config }}",
            "--method={{ params.method }}",
            "--epochs={{ params.epochs }}",
            "--gate-verdict={{ ti.xcom_pull(task_ids='gate')['verdict'] }}",
        ],
    )

    @task
    def summary(**context: Any) -> dict[str, Any]:
        """The gate's headline, the plan's choice and cost, what the gate measured."""
        ti = context["ti"]
        planned, report = ti.xcom_pull(task_ids="plan_job"), ti.xcom_pull(task_ids="gate")
        return {
            "gate": report["headline"],
            "spec": planned["spec"],
            "devices": planned["devices"],
            "planned_usd": planned["usd"],
            "planned_hours": planned["hours"],
            "startup_min": planned["startup_min"],
            "tokens_per_s": planned["tokens_per_s"],
            "clouds": planned["clouds"],
            "platform": planned["platform"],
            "legend": planned["legend"],
            "gate_verdict": report["verdict"],
            "gate_node": report["node"],
            "gate_device": report["device"]["name"],
            "gate_tflops": {g["dtype"]: g["tflops"] for g in report["gemm"]},
        }

    plan_job() >> gate >> train >> summary()
