"""``dags/airflow_finetune.py`` runs with ``dag.test()`` on a real Airflow: the plan is real,
the gate runs in this process (``local_run``: a health check of the CPU), the training pod is
marked success and rendered from the run's XComs, then validated against the strict schema.

The template's pods run on EKS through Karpenter (``PLATFORM``): its plan keeps only what
Karpenter can place, EC2 offers whose GPU Karpenter labels, so that the run places every
alternative of the plan's choice (issue 31 priced RunPod's RTX A5000, which no EC2 instance
has: the plan chose it and the run failed with a ``PlacementError``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from airflow_testenv import REPO, validate_pod
from test_airflow_dags import NODE, render_pod, run_template

from accelerators import AcceleratorSpec
from accelerators.kubernetes import placement_problems, to_pod_fragment
from accelerators.sizing import plan, plan_finetune

CONFIG = REPO / "tests" / "data" / "qwen2.5-0.5b-config.json"
GPU_NAME = "karpenter.k8s.aws/instance-gpu-name"


def _xcom(run: Any, task_id: str, key: str = "return_value") -> Any:
    from airflow.utils.session import create_session

    with create_session() as session:
        ti = run.get_task_instance(task_id, session=session)
        assert ti is not None, task_id
        session.expunge(ti)
    return ti.xcom_pull(task_ids=task_id, key=key)


def test_finetune_plans_gates_and_places_training_on_the_plans_choice(
    airflow_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FINETUNE_MODEL_CONFIG", str(CONFIG))
    dag, run, states = run_template("airflow_finetune.py", "train", monkeypatch)
    assert states[("train", -1)] == "success"
    platform = dag.get_task("train").platform
    assert platform == dag.get_task("gate").platform == "karpenter"
    # the shared parameters' defaults: every cloud, what the template's platform can place
    expected = plan_finetune(str(CONFIG), platform=platform)
    assert expected.best is not None
    assert expected.best.cloud == "aws"  # Karpenter's nodes are EC2 instances
    planned = _xcom(run, "plan_job")
    assert planned["spec"] == str(expected.fallbacks(3))
    for alternative in AcceleratorSpec.parse(planned["spec"]).alternatives:
        assert placement_problems(alternative, platform=platform) == ()
    assert planned["usd"] == pytest.approx(expected.best.usd)
    devices = expected.best.devices
    assert planned["devices"] == devices
    assert planned["startup_min"] == pytest.approx(expected.best.startup.minutes)
    assert planned["tokens_per_s"] == pytest.approx(expected.best.tokens_per_s)
    considered = planned["clouds"].split(";")[0].split(", ")
    assert {"aws", "hf"} <= set(considered)  # every cloud with prices, and it says which
    # ... and the platform: what it could not place was left out, and counted
    left = len(expected.unplaceable)
    assert planned["platform"] == (
        f"karpenter (its nodes are aws instances): {left} options it cannot place left out"
    )
    # the plan judged by no platform tops with what Karpenter cannot place (RunPod's RTX A5000
    # on the shipped prices when this was written): the template's plan left it out, with its
    # reason, and chose another
    anywhere = plan(str(CONFIG), "full", tokens=2e7, budget_usd=50.0)
    assert anywhere.best is not None
    top = (anywhere.best.spec, anywhere.best.where)
    if top != (expected.best.spec, expected.best.where):
        assert top in {(o.spec, o.where) for o in expected.unplaceable}
    assert expected.summary() in _xcom(run, "plan_job", "plan_html")

    report = _xcom(run, "gate")
    assert report["verdict"] in ("pass", "warn")
    assert report["expect"] is None  # local_run: health only, and the report says so
    assert report["node"] == NODE
    # ... first of all: the planned accelerator was not checked
    assert report["headline"].startswith("not checked: this machine has ")
    assert next(iter(report)) == "headline"

    manifest = validate_pod(render_pod(dag, run, "train"))
    main = manifest["spec"]["containers"][0]
    assert main["resources"]["limits"]["nvidia.com/gpu"] == str(devices)
    assert main["command"] == ["torchrun", f"--nproc-per-node={devices}", "train.py"]
    assert f"--gate-verdict={report['verdict']}" in main["args"]
    assert f"--model-config={CONFIG}" in main["args"]
    required = manifest["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    names = {
        v
        for term in required
        for e in term["matchExpressions"]
        if e["key"] == GPU_NAME
        for v in e["values"]
    }
    fragment = to_pod_fragment(planned["spec"], platform="karpenter")
    [term] = fragment["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    assert names == set(term["matchExpressions"][0]["values"])  # the plan's alternatives
    pins = {
        v
        for term in required
        for e in term["matchExpressions"]
        if e["key"] == "kubernetes.io/hostname"
        for v in e["values"]
    }
    assert pins == {NODE}  # and on the node the gate checked

    gate_pod = validate_pod(render_pod(dag, run, "gate"))
    container = gate_pod["spec"]["containers"][0]
    command = [*container["command"], *container.get("args", [])]
    assert command[:2] == ["accelerators", "bench"]
    assert command[command.index("--expect") + 1] == planned["spec"]

    summary = _xcom(run, "summary")
    assert next(iter(summary)) == "gate"
    assert summary["gate"] == report["headline"]
    assert summary["devices"] == devices
    assert summary["platform"] == planned["platform"]
    assert summary["planned_usd"] == pytest.approx(expected.best.usd)
    assert summary["gate_verdict"] == report["verdict"]
    assert summary["gate_tflops"] == {g["dtype"]: g["tflops"] for g in report["gemm"]}
    assert summary["gate_tflops"]
