"""A user's selector, affinity or device resource that contradicts the spec is refused, with
both sides named: instance types through the instance table, every platform's accelerator,
partition and count labels, and extended resources (issue 28, item 8)."""

from __future__ import annotations

from typing import Any

import pytest

from accelerators import AcceleratorError, PlacementError, catalog
from accelerators.catalog._instances import instances
from accelerators.kubernetes import (
    apply_to_pod,
    check_placement_conflicts,
    is_device_resource,
    placement_conflicts,
    to_pod_fragment,
)

TYPE = "node.kubernetes.io/instance-type"
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def pod(
    selector: dict[str, str] | None = None,
    terms: list[list[tuple[str, str, list[str]]]] | None = None,
    resources: dict[str, Any] | None = None,
    sidecar: dict[str, Any] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "i"}]}
    if resources:
        spec["containers"][0]["resources"] = resources
    if sidecar:
        spec["containers"].insert(0, {"name": "sidecar", "image": "s", "resources": sidecar})
    if selector:
        spec["nodeSelector"] = selector
    if terms:
        spec["affinity"] = {
            "nodeAffinity": {
                REQUIRED: {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": k, "operator": o, "values": v}]}
                        for term in terms
                        for k, o, v in term
                    ]
                }
            }
        }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


# -- the three cases, refused with both sides named -------------------------------------
def test_an_a100_machine_type_under_an_h100_spec_on_gke() -> None:
    with pytest.raises(PlacementError) as raised:
        apply_to_pod(pod({TYPE: "a2-highgpu-8g"}), "H100-SXM:8", platform="gke")
    message = str(raised.value)
    assert f"nodeSelector {TYPE}=a2-highgpu-8g" in message  # the user's side
    assert "a2-highgpu-8g is a GCP machine type with 8 x A100-40GB" in message  # what it means
    assert "but 'H100-SXM:8' needs H100-SXM" in message  # the spec's side


@pytest.mark.parametrize("platform", ["karpenter", "eks"])
def test_p4d_under_an_h100_spec_on_aws(platform: str) -> None:
    found = placement_conflicts("H100-SXM:8", pod({TYPE: "p4d.24xlarge"}), platform=platform)
    [message] = found
    assert "p4d.24xlarge is an AWS instance type with 8 x A100-40GB" in message
    assert "'H100-SXM:8' needs H100-SXM" in message


def test_an_amd_limit_next_to_an_h100_spec() -> None:
    with pytest.raises(PlacementError) as raised:
        apply_to_pod(pod(resources={"limits": {"amd.com/gpu": "1"}}), "H100-SXM:8", platform="gke")
    message = str(raised.value)
    assert "container 'main' limits amd.com/gpu: 1" in message
    assert "'H100-SXM:8' is requested as nvidia.com/gpu on platform 'gke'" in message


# -- instance types -----------------------------------------------------------------------------
def test_the_right_machine_type_is_kept() -> None:
    assert placement_conflicts("H100-SXM:8", pod({TYPE: "a3-highgpu-8g"}), platform="gke") == ()
    merged = apply_to_pod(pod({TYPE: "a3-highgpu-8g"}), "H100-SXM:8", platform="gke")
    assert merged["spec"]["nodeSelector"][TYPE] == "a3-highgpu-8g"


def test_too_few_devices_on_the_machine_type() -> None:
    [message] = placement_conflicts("H100-SXM:8", pod({TYPE: "a3-highgpu-1g"}), platform="gke")
    assert "a3-highgpu-1g is a GCP machine type with 1 x H100-SXM" in message
    assert "'H100-SXM:8' needs 8 on one node" in message


def test_another_clouds_machine_type() -> None:
    [message] = placement_conflicts("H100-SXM:8", pod({TYPE: "p5.48xlarge"}), platform="gke")
    assert "p5.48xlarge is an AWS instance type with 8 x H100-SXM" in message
    assert "platform 'gke' has only GCP machine types" in message
    # A platform that runs anywhere does not judge the cloud.
    assert placement_conflicts("H100-SXM:8", pod({TYPE: "p5.48xlarge"}), platform="nvidia") == ()


def test_unknown_machine_types_are_not_judged() -> None:
    """GKE attaches GPUs to N1 machine types, which the table lists without them."""
    for name in ("n1-standard-8", "m5.large", "my-own-type"):
        assert placement_conflicts("T4:1", pod({TYPE: name}), platform="gke") == ()


def test_affinity_in_list_needs_only_one_matching_type() -> None:
    ok = [[(TYPE, "In", ["a2-highgpu-8g", "a3-highgpu-8g"])]]
    assert placement_conflicts("H100-SXM:8", pod(terms=ok), platform="gke") == ()
    bad = [[(TYPE, "In", ["a2-highgpu-8g", "g2-standard-96"])]]
    [message] = placement_conflicts("H100-SXM:8", pod(terms=bad), platform="gke")
    assert f"required node affinity {TYPE} In (a2-highgpu-8g, g2-standard-96)" in message
    assert "a2-highgpu-8g is a GCP machine type with 8 x A100-40GB" in message
    assert "g2-standard-96 is a GCP machine type with 8 x L4" in message
    # NotIn never makes a pod impossible here.
    assert (
        placement_conflicts(
            "H100-SXM:8", pod(terms=[[(TYPE, "NotIn", ["a3-highgpu-8g"])]]), platform="gke"
        )
        == ()
    )


def test_one_fallback_or_one_term_that_fits_is_enough() -> None:
    assert (
        placement_conflicts(
            "H100-SXM:8 | A100-40GB:8", pod({TYPE: "a2-highgpu-8g"}), platform="gke"
        )
        == ()
    )
    terms = [[(TYPE, "In", ["a2-highgpu-8g"])], [(TYPE, "In", ["a3-highgpu-8g"])]]
    assert placement_conflicts("H100-SXM:8", pod(terms=terms), platform="gke") == ()
    [message] = placement_conflicts(
        "H100-SXM:8 | L4:8", pod({TYPE: "a2-highgpu-8g"}), platform="gke"
    )
    assert "for 'H100-SXM:8'" in message
    assert "for 'L4:8'" in message


def _rows(cloud: str) -> list[Any]:
    out = []
    for row in instances(cloud):
        if row.unit != "machine" or not float(row.count).is_integer() or row.partition:
            continue
        try:
            entry = catalog.get(row.accelerator)
        except AcceleratorError:
            continue
        if entry.device_class == "gpu":
            out.append((row, entry))
    return out


@pytest.mark.parametrize(("cloud", "platform"), [("gcp", "gke"), ("aws", "karpenter")])
def test_every_gpu_machine_type_of_the_table_hosts_its_own_spec(cloud: str, platform: str) -> None:
    """No false refusal: the spec each row provides, selected by its own type, is kept."""
    checked = 0
    for row, entry in _rows(cloud):
        spec = f"{entry.name}!:{int(row.count)}"
        try:
            to_pod_fragment(spec, platform=platform)
        except PlacementError:
            continue  # the platform cannot place that GPU at all: nothing to compare
        assert placement_conflicts(spec, pod({TYPE: row.name}), platform=platform) == (), row
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize(("cloud", "platform"), [("gcp", "gke"), ("aws", "karpenter")])
def test_every_gpu_machine_type_refuses_another_model(cloud: str, platform: str) -> None:
    checked = 0
    for row, entry in _rows(cloud):
        other = "H100-SXM:1" if entry.model != "H100-SXM" else "L4:1"
        found = placement_conflicts(other, pod({TYPE: row.name}), platform=platform)
        assert len(found) == 1, row
        assert f"{row.name} is " in found[0]
        checked += 1
    assert checked >= 10


# -- accelerator, partition and count labels of every platform ---------------------------------
@pytest.mark.parametrize(
    ("platform", "selector", "meaning"),
    [
        ("nvidia", {"cloud.google.com/gke-accelerator": "nvidia-a100-80gb"}, "A100-80GB"),
        ("gke", {"karpenter.k8s.aws/instance-gpu-name": "a100"}, "A100-40GB or A100-80GB"),
        ("gke", {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}, "A100-80GB"),
        ("gke", {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB-SHARED"}, "A100-80GB"),
        ("karpenter", {"amd.com/gpu.product-name": "Instinct_MI300X"}, "MI300X"),
        ("gke", {"cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice"}, "TPU-V5E"),
        ("nvidia", {"k8s.amazonaws.com/accelerator": "nvidia-tesla-t4"}, "T4"),
    ],
)
def test_another_platforms_accelerator_label(
    platform: str, selector: dict[str, str], meaning: str
) -> None:
    [message] = placement_conflicts("H100-SXM:8", pod(selector), platform=platform)
    [(key, value)] = selector.items()
    assert f"nodeSelector {key}={value} selects nodes with {meaning}" in message
    assert "but 'H100-SXM:8' needs H100-SXM" in message


def test_labels_that_agree_or_that_no_catalog_entry_has_are_kept() -> None:
    same = {"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}
    assert placement_conflicts("H100-SXM:8", pod(same), platform="nvidia") == ()
    own = {"cloud.google.com/gke-accelerator": "our-h100-pool"}
    assert placement_conflicts("H100-SXM:8", pod(own), platform="nvidia") == ()
    pool = {"cloud.google.com/gke-nodepool": "a100-pool"}  # a name says nothing of hardware
    assert placement_conflicts("H100-SXM:8", pod(pool), platform="gke") == ()


def test_the_platforms_own_label_is_left_to_the_merge_or_judged() -> None:
    own = pod({"cloud.google.com/gke-accelerator": "nvidia-l4"})
    # The merge names both values itself, as before:
    with pytest.raises(PlacementError, match=r"nodeSelector conflict on 'cloud\.google\.com/gke"):
        apply_to_pod(own, "T4", platform="gke")
    assert placement_conflicts("T4", own, platform="gke", own_keys=False) == ()
    # Where nothing merges it (propeller adds Flyte's label itself), it is judged:
    flyte = pod({"k8s.amazonaws.com/accelerator": "nvidia-tesla-a100"})
    [message] = placement_conflicts("H100-SXM:8", flyte, platform="flyte")
    assert "k8s.amazonaws.com/accelerator=nvidia-tesla-a100 contradicts 'H100-SXM:8'" in message
    assert "k8s.amazonaws.com/accelerator=nvidia-h100 (on platform 'flyte')" in message


def test_partition_labels() -> None:
    sliced = pod({"cloud.google.com/gke-gpu-partition-size": "1g.10gb"})
    [message] = placement_conflicts("H100-SXM:8", sliced, platform="nvidia")
    assert "gke-gpu-partition-size=1g.10gb contradicts 'H100-SXM:8'" in message
    assert "gke-gpu-partition-size DoesNotExist (as platform 'gke' places it)" in message
    assert placement_conflicts("A100-80GB@1g.10gb", sliced, platform="nvidia") == ()
    other = pod({"cloud.google.com/gke-gpu-partition-size": "2g.20gb"})
    assert placement_conflicts("A100-80GB@1g.10gb", other, platform="nvidia")


def test_count_labels() -> None:
    four = pod({"cloud.google.com/gke-accelerator-count": "4"})
    [message] = placement_conflicts("H100-SXM:8", four, platform="nvidia")
    assert "gke-accelerator-count=4 selects nodes with 4 devices" in message
    assert "'H100-SXM:8' needs 8 on one node" in message
    assert placement_conflicts("H100-SXM:4", four, platform="nvidia") == ()
    few = pod(terms=[[("karpenter.k8s.aws/instance-gpu-count", "Lt", ["8"])]])
    assert placement_conflicts("H100-SXM:8", few, platform="karpenter")
    assert placement_conflicts("H100-SXM:4", few, platform="karpenter") == ()


# -- extended resources -------------------------------------------------------------------------
def test_device_resources_of_any_container() -> None:
    assert is_device_resource("nvidia.com/mig-1g.10gb")
    assert is_device_resource("amd.com/cpx_nps4")
    assert not is_device_resource("gpu.intel.com/millicores")
    assert not is_device_resource("memory")
    side = pod(sidecar={"limits": {"nvidia.com/mig-1g.10gb": "1"}})
    [message] = placement_conflicts("H100-SXM:8", side, platform="gke")
    assert "container 'sidecar' limits nvidia.com/mig-1g.10gb: 1" in message
    zero = pod(sidecar={"limits": {"amd.com/gpu": "0"}})
    assert placement_conflicts("H100-SXM:8", zero, platform="gke") == ()
    # The spec's own resource is the merge's to judge (same count or a conflict).
    same = pod(resources={"limits": {"nvidia.com/gpu": "8"}})
    assert placement_conflicts("H100-SXM:8", same, platform="gke") == ()


def test_kubernetes_models_and_the_raising_form(tmp_path: Any) -> None:
    from kubernetes.client import models as k8s

    model = k8s.V1PodSpec(
        containers=[k8s.V1Container(name="main")],
        node_selector={TYPE: "a2-highgpu-8g"},
    )
    with pytest.raises(PlacementError, match="pod_template: no node it selects"):
        check_placement_conflicts("H100-SXM:8", model, platform="gke", source="pod_template")
    with pytest.raises(AcceleratorError, match="Malformed pod"):
        placement_conflicts("H100-SXM:8", {"spec": {"containers": "main"}}, platform="gke")


def test_instance_families() -> None:
    """Node-pool labels that fix the machine family: Karpenter's and GKE's."""
    p4d = pod({"karpenter.k8s.aws/instance-family": "p4d"})
    [message] = placement_conflicts("H100-SXM:8", p4d, platform="karpenter")
    assert "karpenter.k8s.aws/instance-family=p4d selects family p4d: p4d.24xlarge" in message
    assert "(8 x A100-40GB), none with 8 x H100-SXM on one node" in message
    assert placement_conflicts("A100-40GB:8", p4d, platform="karpenter") == ()
    a2 = pod({"cloud.google.com/machine-family": "a2"})
    assert placement_conflicts("H100-SXM:8", a2, platform="gke")
    assert placement_conflicts("A100-80GB:4", a2, platform="gke") == ()  # a2-ultragpu-4g
    assert (
        placement_conflicts(
            "H100-SXM:8", pod({"cloud.google.com/machine-family": "a3"}), platform="gke"
        )
        == ()
    )
    # GKE attaches T4s to N1 machine types, which the table lists without GPUs: not judged.
    assert (
        placement_conflicts("T4:1", pod({"cloud.google.com/machine-family": "n1"}), platform="gke")
        == ()
    )
