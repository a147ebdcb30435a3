"""The ``flyte`` platform reproduces flytepropeller's ``ApplyGPUNodeSelectors`` output.

The expected dicts are transcribed from flytepropeller's behaviour with its default labels
(``D = k8s.amazonaws.com/accelerator``, ``P = k8s.amazonaws.com/gpu-partition-size``):
the affinity is always *required* node affinity and every selected value gets an
``Equal``/``NoSchedule`` toleration.
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
        "tolerations": [equal(D, "nvidia-tesla-t4"), GPU],
    }


def test_partition_case_b() -> None:
    fragment = frag("A100@1g.5gb")
    assert fragment["resources"]["limits"] == {"nvidia.com/gpu": "1"}  # never nvidia.com/mig-*
    assert fragment["affinity"] == affinity(
        {"key": D, "operator": "In", "values": ["nvidia-tesla-a100"]},
        {"key": P, "operator": "In", "values": ["1g.5gb"]},
    )
    assert fragment["tolerations"] == [equal(D, "nvidia-tesla-a100"), equal(P, "1g.5gb"), GPU]


def test_unpartitioned_case_c() -> None:
    fragment = frag("A100@whole")
    assert fragment["affinity"] == affinity(
        {"key": D, "operator": "In", "values": ["nvidia-tesla-a100"]},
        {"key": P, "operator": "DoesNotExist"},
    )
    assert fragment["tolerations"] == [equal(D, "nvidia-tesla-a100"), GPU]


def test_unpartitioned_with_configured_requirement_and_toleration() -> None:
    # The GKE configuration from flyte#4172.
    gke_toleration = {
        "key": "cloud.google.com/gke-gpu-partition-size",
        "operator": "Equal",
        "value": "DoesNotExist",
        "effect": "NoSchedule",
    }
    fragment = frag(
        "A100@whole",
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


def test_bare_a100_sends_no_partition() -> None:
    expressions = frag("A100")["affinity"]["nodeAffinity"][
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
        frag("A100@1g.5gb+me")


def test_device_without_flyte_name() -> None:
    with pytest.raises(PlacementError, match="flytekit has no device string"):
        frag("A30")


def test_fraction_is_refused() -> None:
    with pytest.raises(PlacementError, match="fractional count"):
        frag(AcceleratorSpec(accelerator="T4", count=0.5))


def test_never_a_node_selector() -> None:
    assert "nodeSelector" not in frag("H100-SXM!:8")
