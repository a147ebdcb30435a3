"""The ``flyte`` platform reproduces flytepropeller's ``ApplyGPUNodeSelectors`` output.

The expected dicts are transcribed from flytepropeller's behaviour with its default labels
(``D = k8s.amazonaws.com/accelerator``, ``P = k8s.amazonaws.com/gpu-partition-size``):
the affinity is always *required* node affinity on exactly one device string and every
selected value gets an ``Equal``/``NoSchedule`` toleration; propeller adds no
``nvidia.com/gpu Exists`` toleration unless ``add-tolerations-for-extended-resources`` lists
the resource.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from accelerators.errors import PlacementError
from accelerators.kubernetes import to_pod_fragment
from accelerators.spec import AcceleratorSpec

D = "k8s.amazonaws.com/accelerator"
P = "k8s.amazonaws.com/gpu-partition-size"
GPU = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def device_values(fragment: dict[str, Any]) -> list[str]:
    [term] = fragment["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    return [v for e in term["matchExpressions"] if e["key"] == D for v in e["values"]]


def frag(spec: Any, **options: Any) -> dict[str, Any]:
    return dict(to_pod_fragment(spec, platform="flyte", **options))


def affinity(*expressions: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": list(expressions)}]
            }
        }
    }


def equal(key: str, value: str) -> dict[str, str]:
    return {"key": key, "operator": "Equal", "value": value, "effect": "NoSchedule"}


def test_whole_gpu_case_a() -> None:
    assert frag("T4") == {
        "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}},
        "affinity": affinity({"key": D, "operator": "In", "values": ["nvidia-tesla-t4"]}),
        "tolerations": [equal(D, "nvidia-tesla-t4")],
    }


def test_partition_case_b() -> None:
    fragment = frag("A100-40GB@1g.5gb")
    assert fragment["resources"]["limits"] == {"nvidia.com/gpu": "1"}  # never nvidia.com/mig-*
    assert fragment["affinity"] == affinity(
        {"key": D, "operator": "In", "values": ["nvidia-tesla-a100"]},
        {"key": P, "operator": "In", "values": ["1g.5gb"]},
    )
    assert fragment["tolerations"] == [equal(D, "nvidia-tesla-a100"), equal(P, "1g.5gb")]


def test_unpartitioned_case_c() -> None:
    fragment = frag("A100-40GB@whole")
    assert fragment["affinity"] == affinity(
        {"key": D, "operator": "In", "values": ["nvidia-tesla-a100"]},
        {"key": P, "operator": "DoesNotExist"},
    )
    assert fragment["tolerations"] == [equal(D, "nvidia-tesla-a100")]


def test_unpartitioned_with_configured_requirement_and_toleration() -> None:
    # The GKE configuration from flyte#4172.
    gke_toleration = {
        "key": "cloud.google.com/gke-gpu-partition-size",
        "operator": "Equal",
        "value": "DoesNotExist",
        "effect": "NoSchedule",
    }
    fragment = frag(
        "A100-40GB@whole",
        labels={
            "device": "cloud.google.com/gke-accelerator",
            "partition": "cloud.google.com/gke-gpu-partition-size",
        },
        unpartitioned_requirement={
            "key": "cloud.google.com/gke-gpu-partition-size",
            "operator": "DoesNotExist",
        },
        unpartitioned_toleration=gke_toleration,
    )
    expressions = fragment["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"][0]["matchExpressions"]
    assert expressions[0] == {
        "key": "cloud.google.com/gke-accelerator",
        "operator": "In",
        "values": ["nvidia-tesla-a100"],
    }
    assert expressions[1] == {
        "key": "cloud.google.com/gke-gpu-partition-size",
        "operator": "DoesNotExist",
    }
    assert gke_toleration in fragment["tolerations"]


def test_no_partition_means_whole_gpus_off_mig_nodes() -> None:
    # A100 without a partition asks for whole GPUs (as the gate checks them): the plugin sends
    # unpartitioned, so propeller adds <partition label> DoesNotExist; T4 cannot be split.
    for text in ("A100-40GB", "A100-40GB@whole"):
        expressions = frag(text)["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"
        ]["nodeSelectorTerms"][0]["matchExpressions"]
        assert expressions[1:] == [{"key": P, "operator": "DoesNotExist"}]
    expressions = frag("T4")["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"][0]["matchExpressions"]
    assert [e["key"] for e in expressions] == [D]


def test_tpu_case_d() -> None:
    fragment = frag("V5P@2x2x2:4")
    tpu, topology = "cloud.google.com/gke-tpu-accelerator", "cloud.google.com/gke-tpu-topology"
    assert fragment["resources"]["limits"] == {"google.com/tpu": "4"}
    assert fragment["affinity"] == affinity(
        {"key": tpu, "operator": "In", "values": ["tpu-v5p-slice"]},
        {"key": topology, "operator": "In", "values": ["2x2x2"]},
    )
    assert equal(tpu, "tpu-v5p-slice") in fragment["tolerations"]
    assert equal(topology, "2x2x2") in fragment["tolerations"]


@pytest.mark.parametrize(
    ("spec", "resource", "device"),
    [
        ("TRAINIUM2:16", "aws.amazon.com/neuron", "aws-neuron-trn2"),
        ("MI300X:8", "amd.com/gpu", "amd-mi300x"),
    ],
)
def test_other_device_classes(spec: str, resource: str, device: str) -> None:
    fragment = frag(spec)
    assert list(fragment["resources"]["limits"]) == [resource]
    assert equal(D, device) in fragment["tolerations"]


def test_media_profile_cannot_be_a_label_value() -> None:
    with pytest.raises(
        PlacementError, match=re.escape("'1g.5gb+me' is not a valid node label value")
    ):
        frag("A100-40GB@1g.5gb+me")


@pytest.mark.parametrize(
    ("spec", "device"),
    [
        ("H100-SXM", "nvidia-h100"),  # not also nvidia-h100-mega-80gb (another H100 SKU)
        ("H100-SXM:8", "nvidia-h100"),
        ("H100-SXM!", "nvidia-h100"),
        ("H100-MEGA", "nvidia-h100-mega-80gb"),
        ("L4", "nvidia-l4"),  # not also nvidia-l4-vws
        ("A100-40GB", "nvidia-tesla-a100"),  # not also the PCIe SKU
        ("V100-16GB", "nvidia-tesla-v100"),
        ("A100-80GB", "nvidia-a100-80gb"),
    ],
)
def test_one_device_string_never_widened(spec: str, device: str) -> None:
    # Propeller puts the task's single GPUAccelerator.device into the affinity.
    fragment = frag(spec)
    assert device_values(fragment) == [device]
    assert [t for t in fragment["tolerations"] if t["key"] == D] == [equal(D, device)]


def test_device_without_flytekit_name_gets_its_exact_derived_string() -> None:
    # flytekit has no A30 or PCIe A100; the derived string names that entry alone.
    assert device_values(frag("A30")) == ["nvidia-a30"]
    assert device_values(frag("A100-40GB-PCIE")) == ["nvidia-a100-40gb-pcie"]


def test_vendor_exists_toleration_only_when_asked() -> None:
    # propeller's add-tolerations-for-extended-resources: [nvidia.com/gpu]
    fragment = frag("T4", extended_resource_tolerations=True)
    assert fragment["tolerations"] == [equal(D, "nvidia-tesla-t4"), GPU]
    assert GPU not in frag("T4")["tolerations"]


def test_configured_label_names() -> None:
    # charts/flyte-binary/gke-starter.yaml's gpu-device-node-label and partition label
    fragment = frag(
        "A100-40GB@2g.10gb",
        labels={
            "device": "cloud.google.com/gke-accelerator",
            "partition": "cloud.google.com/gke-gpu-partition-size",
        },
    )
    assert fragment["affinity"] == affinity(
        {
            "key": "cloud.google.com/gke-accelerator",
            "operator": "In",
            "values": ["nvidia-tesla-a100"],
        },
        {"key": "cloud.google.com/gke-gpu-partition-size", "operator": "In", "values": ["2g.10gb"]},
    )
    assert fragment["tolerations"] == [
        equal("cloud.google.com/gke-accelerator", "nvidia-tesla-a100"),
        equal("cloud.google.com/gke-gpu-partition-size", "2g.10gb"),
    ]


def test_fraction_is_refused() -> None:
    with pytest.raises(PlacementError, match="fractional count"):
        frag(AcceleratorSpec(accelerator="T4", count=0.5))


def test_never_a_node_selector() -> None:
    assert "nodeSelector" not in frag("H100-SXM!:8")


# -- node pinning and placement problems (public helpers the Flyte plugin uses) --------------
def test_pin_to_node_merges_into_propeller_style_affinity() -> None:
    from accelerators.kubernetes import merge_fragment, node_name_env, pin_to_node

    pod = {"spec": {"containers": [{"name": "main", "env": [node_name_env()]}]}}
    pinned = merge_fragment(
        merge_fragment(pod, frag("A100-40GB@1g.5gb")), pin_to_node("gpu-node-7")
    )
    [term] = pinned["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert {"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu-node-7"]} in term[
        "matchExpressions"
    ]
    assert len(term["matchExpressions"]) == 3
    env = pinned["spec"]["containers"][0]["env"]
    assert env == [{"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}]


@pytest.mark.parametrize("node", [None, "", "Node_1", "x" * 254])
def test_pin_to_node_rejects_what_is_not_a_node_name(node: Any) -> None:
    from accelerators.errors import AcceleratorError
    from accelerators.kubernetes import pin_to_node

    with pytest.raises(AcceleratorError, match="Expected a Kubernetes node name"):
        pin_to_node(node)


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("A100-40GB@1g.5gb:2", "only one MIG device"),
        ("V5P@2x2x2:3", "does not fit"),
        ("A100-40GB@1g.5gb+me", "not a valid node label value"),
        ("T4:0.5", "fractional count"),
    ],
)
def test_placement_problems_explain(spec: str, needle: str) -> None:
    from accelerators.kubernetes import placement_problems

    problems = placement_problems(spec)
    assert len(problems) == 1
    assert needle in problems[0]


def test_placement_problems_empty_when_placeable() -> None:
    from accelerators.kubernetes import placement_problems

    assert placement_problems("H100-SXM:8") == ()
    assert placement_problems(["H100-SXM", "A100-80GB"]) == ()
    assert placement_problems("A100-40GB@1g.5gb:2", platform="nvidia") != ()
