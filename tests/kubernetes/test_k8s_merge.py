"""``apply_to_pod`` keeps everything the user's pod or template had (dicts and models)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from accelerators.errors import AcceleratorError, PlacementError
from accelerators.kubernetes import apply_to_pod, merge_fragment, to_pod_fragment

GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def template() -> dict[str, Any]:
    """A Pod with its own tolerations, selector, affinity and resources."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "train", "labels": {"team": "ml"}},
        "spec": {
            "restartPolicy": "Never",
            "nodeSelector": {"pool": "gpu"},
            "tolerations": [
                {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
                dict(GPU_TOLERATION),
            ],
            "affinity": {
                "nodeAffinity": {
                    REQUIRED: {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "zone", "operator": "In", "values": ["a"]}
                                ]
                            },
                            {
                                "matchExpressions": [
                                    {"key": "zone", "operator": "In", "values": ["b"]}
                                ]
                            },
                        ]
                    },
                    PREFERRED: [
                        {
                            "weight": 10,
                            "preference": {
                                "matchExpressions": [{"key": "spot", "operator": "Exists"}]
                            },
                        }
                    ],
                },
                "podAntiAffinity": {
                    PREFERRED: [
                        {
                            "weight": 1,
                            "podAffinityTerm": {
                                "topologyKey": "kubernetes.io/hostname",
                                "labelSelector": {"matchLabels": {"team": "ml"}},
                            },
                        }
                    ]
                },
            },
            "containers": [
                {
                    "name": "base",
                    "image": "trainer:1",
                    "resources": {
                        "limits": {"memory": "1Gi"},
                        "requests": {"cpu": "2", "memory": "1Gi"},
                    },
                },
                {"name": "sidecar", "image": "logger:1"},
            ],
        },
    }


def test_dict_template_keeps_everything(k8s_validate: Callable[..., None]) -> None:
    pod = template()
    before = copy.deepcopy(pod)
    merged = apply_to_pod(pod, "A100-40GB@1g.5gb", platform="gke")
    assert pod == before  # input not mutated
    spec = merged["spec"]
    assert spec["nodeSelector"] == {
        "pool": "gpu",
        "cloud.google.com/gke-accelerator": "nvidia-tesla-a100",
        "cloud.google.com/gke-gpu-partition-size": "1g.5gb",
    }
    # the template's tolerations kept, the identical GPU toleration not repeated
    assert spec["tolerations"] == before["spec"]["tolerations"]
    assert spec["affinity"] == before["spec"]["affinity"]
    assert spec["containers"][0]["resources"] == {
        "limits": {"memory": "1Gi", "nvidia.com/gpu": "1"},
        "requests": {"cpu": "2", "memory": "1Gi", "nvidia.com/gpu": "1"},
    }
    assert spec["containers"][1] == before["spec"]["containers"][1]
    assert merged["metadata"] == before["metadata"]
    k8s_validate(merged)


def test_required_affinity_is_anded_into_each_term(k8s_validate: Callable[..., None]) -> None:
    merged = apply_to_pod(template(), "T4", platform="flyte")
    terms = merged["spec"]["affinity"]["nodeAffinity"][REQUIRED]["nodeSelectorTerms"]
    device = {
        "key": "k8s.amazonaws.com/accelerator",
        "operator": "In",
        "values": ["nvidia-tesla-t4"],
    }
    assert terms == [
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}, device]},
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}, device]},
    ]
    # preferred terms and pod anti-affinity kept
    assert merged["spec"]["affinity"]["nodeAffinity"][PREFERRED][0]["weight"] == 10
    assert "podAntiAffinity" in merged["spec"]["affinity"]
    tolerations = merged["spec"]["tolerations"]
    assert tolerations[:2] == template()["spec"]["tolerations"]
    assert {
        "key": "k8s.amazonaws.com/accelerator",
        "operator": "Equal",
        "value": "nvidia-tesla-t4",
        "effect": "NoSchedule",
    } in tolerations
    k8s_validate(merged)


def test_fallback_terms_combine_with_each_existing_term(k8s_validate: Callable[..., None]) -> None:
    merged = apply_to_pod(template(), ["A100-40GB@1g.5gb", "A100-80GB@1g.10gb"], platform="gke")
    affinity = merged["spec"]["affinity"]["nodeAffinity"]
    terms = affinity[REQUIRED]["nodeSelectorTerms"]
    assert len(terms) == 4  # (zone a | zone b) & (A100 1g.5gb | A100-80GB 1g.10gb)
    assert [t["matchExpressions"][0]["values"] for t in terms] == [["a"], ["a"], ["b"], ["b"]]
    weights = [p["weight"] for p in affinity[PREFERRED]]
    assert weights == [10, 100, 50]  # the template's preference first, then ours appended
    k8s_validate(merged)


def test_node_selector_conflict_names_both_values() -> None:
    pod = template()
    pod["spec"]["nodeSelector"]["cloud.google.com/gke-accelerator"] = "nvidia-l4"
    with pytest.raises(PlacementError) as info:
        apply_to_pod(pod, "T4", platform="gke")
    assert str(info.value) == (
        "nodeSelector conflict on 'cloud.google.com/gke-accelerator': the pod has 'nvidia-l4' "
        "but the accelerator needs 'nvidia-tesla-t4'"
    )


def test_resource_conflict() -> None:
    pod = template()
    pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = 2
    with pytest.raises(PlacementError) as info:
        apply_to_pod(pod, "T4", platform="gke")
    assert str(info.value) == (
        "Container 'base' already has limits nvidia.com/gpu: 2, which conflicts with the "
        "accelerator's '1'"
    )


def test_same_resource_value_is_fine() -> None:
    pod = template()
    pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = 1
    merged = apply_to_pod(pod, "T4", platform="gke")
    assert merged["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1"


def test_container_by_name() -> None:
    merged = apply_to_pod(template(), "T4", platform="gke", container="sidecar")
    assert merged["spec"]["containers"][1]["resources"]["limits"] == {"nvidia.com/gpu": "1"}
    assert "nvidia.com/gpu" not in merged["spec"]["containers"][0]["resources"]["limits"]


def test_unknown_container() -> None:
    with pytest.raises(AcceleratorError) as info:
        apply_to_pod(template(), "T4", platform="gke", container="trainer")
    assert str(info.value) == (
        "The pod has no container named 'trainer'; its containers are 'base', 'sidecar'"
    )


def test_runtime_class_conflict() -> None:
    pod = template()
    pod["spec"]["runtimeClassName"] = "kata"
    with pytest.raises(PlacementError, match="runtimeClassName conflict: the pod has 'kata'"):
        apply_to_pod(pod, "T4", platform="nvidia", runtime_class_name="nvidia")


@pytest.mark.parametrize(
    "shape",
    ["pod_spec", "pod_template_spec", "pod_template", "deployment"],
)
def test_other_shapes(shape: str) -> None:
    spec = template()["spec"]
    wrapped: dict[str, Any] = {
        "pod_spec": spec,
        "pod_template_spec": {"metadata": {"labels": {"a": "b"}}, "spec": spec},
        "pod_template": {"apiVersion": "v1", "kind": "PodTemplate", "template": {"spec": spec}},
        "deployment": {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "spec": {"template": {"spec": spec}},
        },
    }[shape]
    merged = apply_to_pod(wrapped, "T4", platform="gke")
    inner = {
        "pod_spec": lambda m: m,
        "pod_template_spec": lambda m: m["spec"],
        "pod_template": lambda m: m["template"]["spec"],
        "deployment": lambda m: m["spec"]["template"]["spec"],
    }[shape](merged)
    assert inner["nodeSelector"]["cloud.google.com/gke-accelerator"] == "nvidia-tesla-t4"
    assert inner["nodeSelector"]["pool"] == "gpu"


def test_snake_case_dict_is_refused() -> None:
    with pytest.raises(AcceleratorError, match="snake_case keys"):
        apply_to_pod({"spec": {"containers": [], "node_selector": {}}}, "T4", platform="gke")


def test_not_a_pod() -> None:
    with pytest.raises(AcceleratorError, match="Expected a Pod or PodTemplateSpec"):
        apply_to_pod({"kind": "Service", "spec": {"ports": []}}, "T4", platform="gke")
    with pytest.raises(AcceleratorError, match="got str"):
        apply_to_pod("pod.yaml", "T4", platform="gke")


def test_no_containers() -> None:
    with pytest.raises(AcceleratorError, match="no containers"):
        apply_to_pod({"spec": {"containers": []}}, "T4", platform="gke")


@pytest.mark.parametrize("chain", [["L4", "T4"], ["A100-40GB@1g.5gb", "K80"]])
def test_merging_twice_changes_nothing(chain: list[str]) -> None:
    fragment = to_pod_fragment(chain, platform="gke")
    once = merge_fragment(template(), fragment)
    twice = merge_fragment(once, fragment)
    assert twice == once


# -- kubernetes.client models --------------------------------------------------------------
k8s = pytest.importorskip("kubernetes.client", reason="kubernetes (the [k8s] extra) is missing")


def model_template() -> Any:
    client = k8s
    return client.V1Pod(
        api_version="v1",
        kind="Pod",
        metadata=client.V1ObjectMeta(name="train"),
        spec=client.V1PodSpec(
            node_selector={"pool": "gpu"},
            tolerations=[client.V1Toleration(key="sku", operator="Exists")],
            affinity=client.V1Affinity(
                node_affinity=client.V1NodeAffinity(
                    required_during_scheduling_ignored_during_execution=client.V1NodeSelector(
                        node_selector_terms=[
                            client.V1NodeSelectorTerm(
                                match_expressions=[
                                    client.V1NodeSelectorRequirement(
                                        key="zone", operator="In", values=["a"]
                                    )
                                ]
                            )
                        ]
                    )
                )
            ),
            containers=[
                client.V1Container(
                    name="base",
                    image="trainer:1",
                    resources=client.V1ResourceRequirements(limits={"memory": "1Gi"}),
                )
            ],
        ),
    )


def test_v1pod_in_v1pod_out(k8s_validate: Callable[..., None]) -> None:
    pod = model_template()
    before = pod.to_dict()
    merged = apply_to_pod(pod, "H100-SXM:8", platform="flyte")
    assert isinstance(merged, k8s.V1Pod)
    assert pod.to_dict() == before
    assert merged.spec.node_selector == {"pool": "gpu"}
    assert merged.spec.tolerations[0].key == "sku"
    assert merged.spec.containers[0].resources.limits == {"memory": "1Gi", "nvidia.com/gpu": "8"}
    term = merged.spec.affinity.node_affinity.required_during_scheduling_ignored_during_execution
    keys = [e.key for e in term.node_selector_terms[0].match_expressions]
    assert keys == ["zone", "k8s.amazonaws.com/accelerator", "k8s.amazonaws.com/gpu-partition-size"]
    k8s_validate(k8s.ApiClient().sanitize_for_serialization(merged))


def test_pod_template_spec_and_pod_spec_models() -> None:
    pod = model_template()
    template_spec = k8s.V1PodTemplateSpec(metadata=pod.metadata, spec=pod.spec)
    merged = apply_to_pod(template_spec, "T4", platform="gke")
    assert isinstance(merged, k8s.V1PodTemplateSpec)
    assert merged.spec.node_selector == {
        "pool": "gpu",
        "cloud.google.com/gke-accelerator": "nvidia-tesla-t4",
    }
    merged_spec = apply_to_pod(pod.spec, "T4", platform="gke")
    assert isinstance(merged_spec, k8s.V1PodSpec)
    assert merged_spec.tolerations[-1].key == "nvidia.com/gpu"
    assert pod.spec.node_selector == {"pool": "gpu"}  # not mutated


def test_fragment_models_for_airflow() -> None:
    from accelerators.kubernetes import fragment_models

    models = fragment_models(to_pod_fragment("A100-40GB@whole", platform="gke"))
    assert isinstance(models.resources, k8s.V1ResourceRequirements)
    assert models.resources.limits == {"nvidia.com/gpu": "1"}
    assert models.node_selector == {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}
    assert isinstance(models.affinity, k8s.V1Affinity)
    assert all(isinstance(t, k8s.V1Toleration) for t in models.tolerations)
    assert models.runtime_class_name is None
    assert models.resource_claims == []


def test_v1_toleration_option() -> None:
    fragment = to_pod_fragment(
        "T4",
        platform="gke",
        tolerations=[
            k8s.V1Toleration(key="sku", operator="Equal", value="gpu", effect="NoSchedule")
        ],
    )
    assert fragment["tolerations"][-1] == {
        "key": "sku",
        "operator": "Equal",
        "value": "gpu",
        "effect": "NoSchedule",
    }
