"""A fine-tune that sizes itself: plan by the job, gate the plan's choice, train there (EKS).

``plan_job`` reads the model's ``config.json`` (the DAG param ``model_config``: a path the
workers can read) and ranks where to run the method on the tokens by total cost within the
budget (``accelerators.sizing.plan``; the fleet's measured figures when the workers'
``$ACCELERATORS_BENCH_HISTORY`` has them). Its XCom holds the best choice with its fallbacks
(``spec``), devices, hours and cost, and the ranking as HTML (``plan_html``). The gate and
the training pod take their ``accelerator`` from it through a template, so the placement is
decided at run time: the gate pod may land on any alternative, and ``train`` runs on the
gate's node with the alternative the gate matched. ``summary`` puts the plan's cost next to
the gate's measured TFLOPS in one XCom.

Run it locally, with no cluster and no GPU (the plan is real, the gate runs in this process
as a health check of the CPU, the training pod is only rendered)::

    NODE_NAME=$(hostname) FINETUNE_MODEL_CONFIG=tests/data/qwen2.5-0.5b-config.json \\
        airflow dags test airflow_finetune -c '{"local_run": true}' --mark-success-pattern train
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

PLATFORM = "karpenter"
#: An image with ``pip install accelerators[bench]`` (the gate) and your trainer.
GATE_IMAGE = "registry.example.com/ml/accelerators-bench:0.1"
TRAIN_IMAGE = "nvcr.io/nvidia/pytorch:25.01-py3"
#: The model's config.json, as the workers see it.
MODEL_CONFIG = os.environ.get("FINETUNE_MODEL_CONFIG", "/models/qwen2.5-0.5b/config.json")
PLAN = "ti.xcom_pull(task_ids='plan_job')"
#: The alternative the gate found on its node, else (a local run checks nothing) the plan's.
CHOSEN = "{{ ti.xcom_pull(task_ids='gate')['matched'] or " + PLAN + "['spec'] }}"

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
        "model_config": Param(MODEL_CONFIG, type="string", description="config.json path"),
        "method": Param("full", enum=["full", "lora", "qlora"]),
        "tokens": Param(2e7, type="number", exclusiveMinimum=0),
        "epochs": Param(1, type="number", exclusiveMinimum=0),
        "budget_usd": Param(50, type="number", exclusiveMinimum=0),
        "deadline_h": Param(None, type=["null", "number"]),
        "clouds": Param(["aws"], type="array", description="where the nodes are rented"),
    },
) as dag:

    @task(multiple_outputs=False)
    def plan_job(**context: Any) -> dict[str, Any]:
        """Rank the choices; the best with its fallbacks, and the ranking in XCom."""
        from accelerators.sizing import plan

        p = context["params"]
        job = plan(
            p["model_config"],
            p["method"],
            tokens=p["tokens"],
            epochs=p["epochs"],
            budget_usd=p["budget_usd"],
            deadline_h=p["deadline_h"],
            clouds=p["clouds"],
        )
        context["ti"].xcom_push(key="plan_html", value=job.to_html())
        best = job.best
        if best is None:
            raise ValueError(f"No choice holds this fine-tune: {job.summary()}")
        return {
            "spec": str(job.fallbacks(3)),
            "best": str(best.spec),
            "where": best.where,
            "devices": best.devices,
            "hours": best.hours,
            "usd": best.usd,
            "throughput": best.throughput.detail,
            "summary": job.summary(),
        }

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
        """The plan's choice and cost next to what the gate measured on the node."""
        ti = context["ti"]
        planned, report = ti.xcom_pull(task_ids="plan_job"), ti.xcom_pull(task_ids="gate")
        return {
            "spec": planned["spec"],
            "planned_usd": planned["usd"],
            "planned_hours": planned["hours"],
            "gate_verdict": report["verdict"],
            "gate_node": report["node"],
            "gate_device": report["device"]["name"],
            "gate_tflops": {g["dtype"]: g["tflops"] for g in report["gemm"]},
        }

    plan_job() >> gate >> train >> summary()
