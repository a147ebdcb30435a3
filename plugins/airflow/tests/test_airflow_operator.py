"""AcceleratorPodOperator / AcceleratorGateOperator: complete merges, clear errors, templating.

Every pod is built by the real KubernetesPodOperator code path
(``build_pod_request_obj(dry_run=True)``) and validated against the strict schema.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from airflow_testenv import validate_pod
from kubernetes.client import models as k8s

from accelerators import H100, AcceleratorSpec, PlacementError
from accelerators.errors import AcceleratorError
from accelerators_provider import AcceleratorGateOperator, AcceleratorPodOperator

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
TEMPLATE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"labels": {"team": "vision"}},
    "spec": {
        "containers": [
            {"name": "base", "image": "trainer:1", "resources": {"limits": {"memory": "1Gi"}}}
        ],
        "nodeSelector": {"pool": "gpu"},
        "tolerations": [{"key": "a", "operator": "Exists"}],
        "affinity": {
            "nodeAffinity": {
                REQUIRED: {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": "topology.kubernetes.io/zone",
                                    "operator": "In",
                                    "values": ["us-central1-a"],
                                }
                            ]
                        }
                    ]
                }
            },
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 10,
                        "podAffinityTerm": {
                            "topologyKey": "kubernetes.io/hostname",
                            "labelSelector": {"matchLabels": {"team": "vision"}},
                        },
                    }
                ]
            },
        },
        "volumes": [{"name": "data", "emptyDir": {}}],
    },
}


def _base_kwargs(kind: str, tmp_path: Path) -> dict[str, Any]:
    if kind == "pod_template_file":
        path = tmp_path / "pod.yaml"
        path.write_text(yaml.safe_dump(TEMPLATE))
        return {"pod_template_file": str(path)}
    if kind == "pod_template_dict":
        return {"pod_template_dict": copy.deepcopy(TEMPLATE)}
    from accelerators.kubernetes import pod_model

    return {"full_pod_spec": pod_model(TEMPLATE)}


def _expressions(manifest: dict[str, Any]) -> list[list[dict[str, Any]]]:
    terms = manifest["spec"]["affinity"]["nodeAffinity"][REQUIRED]["nodeSelectorTerms"]
    return [t["matchExpressions"] for t in terms]


@pytest.mark.parametrize("kind", ["pod_template_file", "pod_template_dict", "full_pod_spec"])
def test_nothing_of_the_users_is_lost(kind: str, tmp_path: Path) -> None:
    op = AcceleratorPodOperator(
        task_id="train",
        accelerator="H100-SXM:8",
        platform="gke",
        image="trainer:2",
        node_selector={"team": "ml"},
        tolerations=[k8s.V1Toleration(key="b", operator="Exists", effect="NoSchedule")],
        affinity={
            "nodeAffinity": {
                REQUIRED: {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}
                    ]
                }
            }
        },
        container_resources=k8s.V1ResourceRequirements(limits={"cpu": "4"}),
        **_base_kwargs(kind, tmp_path),
    )
    pod = validate_pod(op.build_pod_request_obj(dry_run=True))
    spec = pod["spec"]
    assert spec["nodeSelector"] == {"pool": "gpu", "team": "ml"}
    assert [t["key"] for t in spec["tolerations"]] == ["a", "b", "nvidia.com/gpu"]
    main = spec["containers"][0]
    assert main["image"] == "trainer:2"
    assert main["resources"]["limits"] == {"memory": "1Gi", "cpu": "4", "nvidia.com/gpu": "8"}
    assert main["resources"]["requests"] == {"nvidia.com/gpu": "8"}
    (expressions,) = _expressions(pod)
    keys = [e["key"] for e in expressions]
    # One order for every layered field, as for the tolerations above: the template's
    # requirement, then the task's own, then the accelerator's.
    assert keys == [
        "topology.kubernetes.io/zone",
        "disk",
        "cloud.google.com/gke-accelerator",
        "cloud.google.com/gke-gpu-partition-size",  # whole GPUs: DoesNotExist
    ]
    anti = spec["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert anti[0]["weight"] == 10
    assert spec["volumes"] == [{"name": "data", "emptyDir": {}}]
    assert pod["metadata"]["labels"]["team"] == "vision"


def test_plain_kpo_loses_what_we_keep(tmp_path: Path) -> None:
    """The reason for the operator: KPO's own merge drops the template's values."""
    from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator

    plain = KubernetesPodOperator(
        task_id="plain",
        image="trainer:2",
        node_selector={"team": "ml"},
        tolerations=[k8s.V1Toleration(key="b", operator="Exists")],
        container_resources=k8s.V1ResourceRequirements(limits={"nvidia.com/gpu": "8"}),
        pod_template_dict=copy.deepcopy(TEMPLATE),
    )
    spec = validate_pod(plain.build_pod_request_obj(dry_run=True))["spec"]
    assert spec["nodeSelector"] == {"team": "ml"}
    assert [t["key"] for t in spec["tolerations"]] == ["b"]
    assert "memory" not in spec["containers"][0]["resources"]["limits"]


def test_no_template_and_no_arguments() -> None:
    op = AcceleratorPodOperator(
        task_id="t", accelerator="A100@1g.10gb:2", platform="nvidia", image="i"
    )
    spec = validate_pod(op.build_pod_request_obj(dry_run=True))["spec"]
    assert spec["containers"][0]["resources"]["limits"] == {"nvidia.com/mig-1g.10gb": "2"}
    assert spec["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]


def test_unplaceable_spec_fails_at_parse_time() -> None:
    with pytest.raises(PlacementError, match=r"4g\.20gb"):
        AcceleratorPodOperator(
            task_id="t", accelerator="A100-40GB@4g.20gb", platform="gke", image="i"
        )


def test_bad_spec_fails_at_parse_time_naming_the_task() -> None:
    with pytest.raises(AcceleratorError, match="H1000"):
        AcceleratorPodOperator(task_id="t", accelerator="H1000", platform="gke", image="i")
    with pytest.raises(AcceleratorError, match=r"task 't', accelerator=''"):
        AcceleratorPodOperator(task_id="t", accelerator="", platform="gke", image="i")
    with pytest.raises(AcceleratorError, match="did you mean 'gke'"):
        AcceleratorPodOperator(task_id="t", accelerator="H100-SXM", platform="gkee", image="i")


def test_conflicting_arguments_fail_at_parse_time() -> None:
    with pytest.raises(PlacementError, match=r"nvidia\.com/gpu"):
        AcceleratorPodOperator(
            task_id="t",
            accelerator="H100-SXM:8",
            platform="gke",
            image="i",
            container_resources=k8s.V1ResourceRequirements(limits={"nvidia.com/gpu": "2"}),
        )
    template = copy.deepcopy(TEMPLATE)
    template["spec"]["nodeSelector"]["cloud.google.com/gke-accelerator"] = "nvidia-l4"
    with pytest.raises(PlacementError, match="nvidia-l4"):  # a template dict is known at parse
        AcceleratorPodOperator(
            task_id="t", accelerator="T4", platform="gke", image="i", pod_template_dict=template
        )


def test_template_file_conflict_fails_at_parse_time_unless_the_path_is_templated(
    tmp_path: Path,
) -> None:
    template = copy.deepcopy(TEMPLATE)
    template["spec"]["nodeSelector"]["cloud.google.com/gke-accelerator"] = "nvidia-l4"
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(template))
    with pytest.raises(PlacementError, match="nvidia-l4"):
        AcceleratorPodOperator(
            task_id="t", accelerator="T4", platform="gke", image="i", pod_template_file=str(path)
        )
    op = AcceleratorPodOperator(
        task_id="t",
        accelerator="T4",
        platform="gke",
        image="i",
        pod_template_file="{{ params.template }}",
    )
    op.render_template_fields({"params": {"template": str(path)}})
    with pytest.raises(PlacementError, match="nvidia-l4"):
        op.build_pod_request_obj(dry_run=True)


def test_accelerator_is_templated() -> None:
    from airflow.sdk import DAG, Param

    with DAG("templated", schedule=None, params={"acc": Param("L4:2")}) as dag:
        op = AcceleratorPodOperator(
            task_id="t", accelerator="{{ params.acc }}", platform="gke", image="i"
        )
    assert "accelerator" in op.template_fields
    op.render_template_fields({"params": dag.params.dump()})
    assert op.accelerator == "L4:2"
    spec = validate_pod(op.build_pod_request_obj(dry_run=True))["spec"]
    assert spec["nodeSelector"] == {"cloud.google.com/gke-accelerator": "nvidia-l4"}
    assert spec["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "2"}


def test_constants_and_specs_are_accepted() -> None:
    import accelerators
    from accelerators import AcceleratorSpec

    for value in (accelerators.L4, AcceleratorSpec.parse("L4:1")):
        op = AcceleratorPodOperator(task_id="t", accelerator=value, platform="gke", image="i")
        assert op.accelerator == "L4"


def test_inline_gate_runs_the_bench_before_the_command() -> None:
    op = AcceleratorPodOperator(
        task_id="t",
        accelerator="H100-SXM:8",
        platform="nvidia",
        image="i",
        gate_mode="inline",
        cmds=["python", "train.py"],
        arguments=["--epochs", "3"],
    )
    main = validate_pod(op.build_pod_request_obj(dry_run=True))["spec"]["containers"][0]
    assert main["command"][:2] == ["/bin/sh", "-c"]
    assert main["command"][2] == (
        "accelerators bench --profile quick --expect H100-SXM:8 --json /tmp/accelerators-gate.json"
        ' && exec "$@"'
    )
    # sh -c's $0, then "$@": the command and its arguments, run when the gate passes
    assert main["command"][3:] == ["accelerators-gate"]
    assert main["args"] == ["python", "train.py", "--epochs", "3"]
    assert {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}} in (
        main["env"]
    )
    assert {"name": "ACCELERATORS_GATE_REPORT", "value": "/tmp/accelerators-gate.json"} in (
        main["env"]
    )
    with pytest.raises(AcceleratorError, match="gate_mode"):
        AcceleratorPodOperator(
            task_id="t", accelerator="H100-SXM", platform="nvidia", image="i", gate_mode="both"
        )


def test_pinning_needs_a_context_outside_dry_runs() -> None:
    op = AcceleratorPodOperator(
        task_id="t", accelerator="H100-SXM", platform="nvidia", image="i", gate="gate"
    )
    spec = validate_pod(op.build_pod_request_obj(None, dry_run=True))["spec"]
    assert "kubernetes.io/hostname" not in str(spec)


def test_gate_pod() -> None:
    gate = AcceleratorGateOperator(
        task_id="gate",
        accelerator="H100-SXM:8 | A100-80GB:8",
        platform="karpenter",
        image="bench:1",
        profile="standard",
    )
    assert gate.do_xcom_push
    pod = validate_pod(gate.build_pod_request_obj(dry_run=True))
    main = pod["spec"]["containers"][0]
    assert [*main["command"], *main["args"]] == [
        "accelerators",
        "bench",
        "--profile",
        "standard",
        "--expect",
        "H100-SXM:8 | A100-80GB:8",
        "--json",
        "/airflow/xcom/return.json",
    ]
    assert {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}} in (
        main["env"]
    )
    assert main["resources"]["limits"] == {"nvidia.com/gpu": "8"}
    # The XCom sidecar KubernetesPodOperator adds to read the report back.
    assert [c["name"] for c in pod["spec"]["containers"]] == ["base", "airflow-xcom-sidecar"]
    health = AcceleratorGateOperator(
        task_id="g", accelerator="H100-SXM", platform="gke", image="b", expect="none"
    )
    command = validate_pod(health.build_pod_request_obj(dry_run=True))["spec"]["containers"][0]
    assert "--expect" not in [*command["command"], *command.get("args", [])]
    # "any" is the grammar's any, as in every spec and the Flyte gate; a constant is a spec.
    for expect, wanted in (("any", str(AcceleratorSpec.parse("any"))), (H100, "H100-SXM")):
        gate = AcceleratorGateOperator(
            task_id="g", accelerator="H100-SXM", platform="gke", image="b", expect=expect
        )
        main = validate_pod(gate.build_pod_request_obj(dry_run=True))["spec"]["containers"][0]
        argv = [*main["command"], *main.get("args", [])]
        assert argv[argv.index("--expect") + 1] == wanted
    with pytest.raises(AcceleratorError, match="it is the gate"):
        AcceleratorGateOperator(task_id="g", accelerator="H100-SXM", platform="gke", gate="x")
