"""Every template DAG imports cleanly and runs with ``dag.test()`` on a real Airflow.

The gate runs for real in this process (``local_run``: a health check of the CPU); the pod
tasks are marked success by ``mark_success_pattern`` and their pods rendered offline from
the run's XComs (``build_pod_request_obj(dry_run=True)``), validated against the strict
Kubernetes schema, and checked for the pin to the gate's node.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
from airflow_testenv import DAGS, dagbag_class, run_dag, validate_pod
from airflow_testenv import TEMPLATES as REPO_TEMPLATES

NODE = "gpu-node-7"
TEMPLATES = [p.name for p in REPO_TEMPLATES]
HOSTNAME = "kubernetes.io/hostname"


def load_dag(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(Path(name).stem, DAGS / name)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.dag


def test_there_are_five_templates() -> None:
    assert TEMPLATES == [
        "airflow_fallback.py",
        "airflow_finetune.py",
        "airflow_k8s_executor.py",
        "airflow_mig_inference.py",
        "airflow_training.py",
    ]


def test_every_template_imports_without_errors(airflow_db: Path) -> None:
    bag = dagbag_class()(dag_folder=str(DAGS), safe_mode=False)
    ours = {f for f in bag.import_errors if Path(f).name.startswith("airflow_")}
    assert not ours, {f: bag.import_errors[f] for f in ours}
    loaded = {Path(d.fileloc).name: d.dag_id for d in bag.dags.values()}
    for name in TEMPLATES:
        assert loaded.get(name) == Path(name).stem


def _ti(run: Any, task_id: str, map_index: int = -1) -> Any:
    from airflow.utils.session import create_session

    with create_session() as session:
        ti = run.get_task_instance(task_id, map_index=map_index, session=session)
        assert ti is not None, task_id
        session.expunge(ti)
    return ti


def _states(run: Any) -> dict[tuple[str, int], str]:
    from airflow.utils.session import create_session

    with create_session() as session:
        return {(t.task_id, t.map_index): t.state for t in run.get_task_instances(session=session)}


def _pinned(manifest: dict[str, Any], node: str) -> bool:
    spec = manifest["spec"]
    if spec.get("nodeSelector", {}).get(HOSTNAME) == node:
        return True
    required = (
        (spec.get("affinity") or {})
        .get("nodeAffinity", {})
        .get("requiredDuringSchedulingIgnoredDuringExecution", {})
    )
    terms = required.get("nodeSelectorTerms") or []
    want = {"key": HOSTNAME, "operator": "In", "values": [node]}
    return bool(terms) and all(want in t.get("matchExpressions", []) for t in terms)


def render_pod(dag: Any, run: Any, task_id: str, map_index: int = -1, **mapped: Any) -> Any:
    """The pod a task of ``run`` would create, from the run's XComs (no cluster)."""
    task = dag.get_task(task_id)
    if mapped:  # a mapped @task: the operator of one map index
        task = task.unmap({"op_kwargs": mapped})
    ti = _ti(run, task_id, map_index)
    context = {"ti": ti, "params": dict(dag.params.dump()), "run_id": run.run_id, "dag": dag}
    task.render_template_fields(context)
    return task.build_pod_request_obj(context, dry_run=True)


def run_template(name: str, pattern: str | None, monkeypatch: pytest.MonkeyPatch) -> Any:
    pytest.importorskip("torch", reason="local_run runs the gate's benchmark in this process")
    monkeypatch.setenv("NODE_NAME", NODE)
    dag = load_dag(name)
    conf = {"local_run": True} if "local_run" in dag.params else None
    run = run_dag(dag, run_conf=conf, mark_success_pattern=pattern)
    states = _states(run)
    assert run.state == "success", states
    return dag, run, states


def _gate_first(run: Any, gate: str, others: list[str]) -> dict[str, Any]:
    gate_ti = _ti(run, gate)
    report = gate_ti.xcom_pull(task_ids=gate)
    assert report["verdict"] in ("pass", "warn")
    assert report["node"] == NODE
    assert report["expect"] is None  # local_run: health only, and the report says so
    assert report["kind"] == "accelerators-gate-summary/1"
    assert gate_ti.xcom_pull(task_ids=gate, key="report") == report
    assert gate_ti.xcom_pull(task_ids=gate, key="report_html") is None  # no 90 KB page
    for task_id in others:
        other = _ti(run, task_id)
        assert other.start_date >= gate_ti.end_date, task_id
    return report


@pytest.mark.slow
def test_training(airflow_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dag, run, _ = run_template("airflow_training.py", "train|evaluate", monkeypatch)
    report = _gate_first(run, "gate", ["train", "evaluate"])
    assert report["device"]["kind"] == "cpu"
    for task_id, gpus in (("train", "8"), ("evaluate", "1")):
        manifest = validate_pod(render_pod(dag, run, task_id))
        assert _pinned(manifest, NODE), manifest["spec"]
        main = manifest["spec"]["containers"][0]
        assert main["resources"]["limits"]["nvidia.com/gpu"] == gpus
    args = validate_pod(render_pod(dag, run, "train"))["spec"]["containers"][0]["args"]
    assert f"--gate-verdict={report['verdict']}" in args  # the gate's XCom reached the pod
    gate_pod = validate_pod(dag.get_task("gate").build_pod_request_obj(None, dry_run=True))
    main = gate_pod["spec"]["containers"][0]
    assert main["command"] == ["accelerators", "bench"]
    assert main["args"][main["args"].index("--expect") + 1] == "H100-SXM:8"
    assert {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}} in (
        main["env"]
    )


def test_fallback_gates_inside_the_pod_on_karpenter(
    airflow_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an autoscaled pool the gate's node can go once the gate pod exits: the Karpenter
    template runs the gate inside the training pod instead of pinning to another pod's node."""
    dag, run, _ = run_template("airflow_fallback.py", "finetune", monkeypatch)
    manifest = validate_pod(render_pod(dag, run, "finetune"))
    assert not _pinned(manifest, NODE)
    assert HOSTNAME not in str(manifest["spec"].get("affinity"))
    main = manifest["spec"]["containers"][0]
    assert main["command"][:2] == ["/bin/sh", "-c"]
    assert main["command"][2].startswith(
        "accelerators bench --profile quick --expect 'H100-SXM:8 | A100-80GB:8' "
        "--json /tmp/accelerators-gate.json && exec"
    )
    assert main["args"][:3] == ["torchrun", "--nproc-per-node=8", "finetune.py"]
    env = {e["name"]: e.get("value") for e in main["env"]}
    assert env["ACCELERATORS_GATE_REPORT"] == "/tmp/accelerators-gate.json"
    assert "NODE_NAME" in env
    terms = manifest["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    names = {v for t in terms for e in t["matchExpressions"] for v in e.get("values", [])}
    assert {"h100", "a100"} <= names  # both alternatives placeable (karpenter gpu names)


def test_mig_inference(airflow_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dag, run, states = run_template("airflow_mig_inference.py", "infer", monkeypatch)
    _gate_first(run, "gate", ["list_shards", "summarize"])
    shards = _ti(run, "list_shards").xcom_pull(task_ids="list_shards")
    mapped = sorted(i for (t, i) in states if t == "infer")
    assert mapped == list(range(len(shards)))
    assert len(shards) == 6
    assert _ti(run, "summarize").xcom_pull(task_ids="summarize") == 6
    for index in (0, len(shards) - 1):
        manifest = validate_pod(render_pod(dag, run, "infer", index, shard=shards[index]))
        assert _pinned(manifest, NODE), manifest["spec"].get("nodeSelector")
        limits = manifest["spec"]["containers"][0]["resources"]["limits"]
        assert limits == {"nvidia.com/mig-1g.10gb": "1"}


def test_kubernetes_executor(airflow_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kubernetes.client import models as k8s

    dag, run, _ = run_template("airflow_k8s_executor.py", None, monkeypatch)
    train = _ti(run, "train")
    report = train.xcom_pull(task_ids="train", key="report")
    assert report["node"] == NODE
    assert report["verdict"] in ("pass", "warn")
    model = train.xcom_pull(task_ids="train")
    assert model["device"] == report["device"]["name"]  # the function got the report
    registered = _ti(run, "register").xcom_pull(task_ids="register")
    assert registered.endswith(f"trained on {report['device']['name']}")
    override = dag.get_task("train").executor_config["pod_override"]
    assert isinstance(override, k8s.V1Pod)
    pod = validate_pod(
        k8s.V1Pod(
            api_version="v1",
            kind="Pod",
            metadata=k8s.V1ObjectMeta(name="worker"),
            spec=override.spec,
        )
        if override.spec.containers[0].image
        else _with_image(override)
    )
    assert pod["spec"]["containers"][0]["name"] == "base"
    assert pod["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "8"}


def _with_image(pod: Any) -> Any:
    """The override as the executor's worker pod would carry it (image from the config)."""
    from kubernetes.client import models as k8s

    spec = pod.spec
    spec.containers[0].image = "apache/airflow:3.3.2"
    return k8s.V1Pod(api_version="v1", kind="Pod", metadata=k8s.V1ObjectMeta(name="w"), spec=spec)
