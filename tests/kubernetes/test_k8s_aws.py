"""AWS platforms: ``karpenter``, ``eks`` (user label) and ``neuron`` (device plugin)."""

from __future__ import annotations

from typing import Any

import pytest

from accelerators.errors import AcceleratorError, PlacementError
from accelerators.kubernetes import to_pod_fragment
from accelerators.spec import AcceleratorSpec

NEURON = {"key": "aws.amazon.com/neuron", "operator": "Exists", "effect": "NoSchedule"}


def frag(spec: Any, platform: str, **options: Any) -> dict[str, Any]:
    return dict(to_pod_fragment(spec, platform=platform, **options))


# -- karpenter -----------------------------------------------------------------------------
def test_karpenter_gpu_name() -> None:
    fragment = frag("H100-SXM:8", "karpenter")
    assert fragment["nodeSelector"] == {"karpenter.k8s.aws/instance-gpu-name": "h100"}
    assert fragment["resources"]["limits"] == {"nvidia.com/gpu": "8"}


@pytest.mark.parametrize(
    ("spec", "bound"),
    [
        # EC2 calls both A100 sizes "a100": p4d 40960 MiB, p4de 81920 MiB.
        ("A100-40GB:8", ("Lt", ["76293"])),
        ("A100-80GB:8", ("Gt", ["76292"])),
    ],
)
def test_karpenter_memory_bound_separates_skus_sharing_a_name(
    spec: str, bound: tuple[str, list[str]]
) -> None:
    fragment = frag(spec, "karpenter")
    assert fragment["nodeSelector"] == {"karpenter.k8s.aws/instance-gpu-name": "a100"}
    expression = fragment["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"][0]["matchExpressions"][0]
    assert expression == {
        "key": "karpenter.k8s.aws/instance-gpu-memory",
        "operator": bound[0],
        "values": bound[1],
    }
    for ec2_mib, fits in ((40960, spec == "A100-40GB:8"), (81920, spec == "A100-80GB:8")):
        threshold = int(bound[1][0])
        assert (ec2_mib < threshold if bound[0] == "Lt" else ec2_mib > threshold) is fits


def test_karpenter_neuron_uses_accelerator_name() -> None:
    fragment = frag("INFERENTIA2", "karpenter")
    assert fragment["nodeSelector"] == {
        "karpenter.k8s.aws/instance-accelerator-name": "inferentia2"
    }
    assert fragment["resources"]["limits"] == {"aws.amazon.com/neuron": "1"}
    assert fragment["tolerations"] == [NEURON]


def test_karpenter_memory_request() -> None:
    fragment = frag("24GB+", "karpenter")
    expression = fragment["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"][0]["matchExpressions"][0]
    # 24 GB = 22888 MiB, EC2's figure for the 24 GB L4 and A10G, which must match.
    assert expression == {
        "key": "karpenter.k8s.aws/instance-gpu-memory",
        "operator": "Gt",
        "values": ["22887"],
    }


def test_karpenter_exact_memory_lists_gpu_names() -> None:
    fragment = frag("nvidia:24GB", "karpenter")
    values = fragment["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ][0]["matchExpressions"][0]["values"]
    assert {"l4", "a10g"} <= set(values)


def test_karpenter_refuses_mig_and_tpu() -> None:
    with pytest.raises(PlacementError, match="Karpenter has no label for MIG partitions"):
        frag("A100-40GB@1g.5gb", "karpenter")
    with pytest.raises(PlacementError, match="is a Cloud TPU; use platform 'gke'"):
        frag("V5E@2x4", "karpenter")


def test_karpenter_unknown_instance_gpu() -> None:
    with pytest.raises(PlacementError) as info:
        frag("A30", "karpenter")
    assert "A30 is not offered by any EC2 instance type Karpenter knows" in str(info.value)


# -- eks -----------------------------------------------------------------------------------
def test_eks_user_label() -> None:
    fragment = frag("L4:2", "eks")
    assert fragment["nodeSelector"] == {"k8s.amazonaws.com/accelerator": "nvidia-l4"}


def test_eks_label_values_override() -> None:
    fragment = frag("L4", "eks", label_values={"L4": "L4"})
    assert fragment["nodeSelector"] == {"k8s.amazonaws.com/accelerator": "L4"}


def test_eks_label_values_by_alias_or_model() -> None:
    by_alias = frag("A100-40GB", "eks", label_values={"A100-SXM4-40GB": "a100-40"})
    assert by_alias["nodeSelector"] == {"k8s.amazonaws.com/accelerator": "a100-40"}
    by_model = frag("A100-40GB-PCIE!", "eks", label_values={"a100-40gb": ["a", "b"]})
    assert by_model["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ][0]["matchExpressions"][0]["values"] == ["a", "b"]


def test_eks_without_a_known_value() -> None:
    with pytest.raises(PlacementError, match="the label is set by hand on node groups"):
        frag("A30", "eks")


def test_eks_refuses_mig() -> None:
    with pytest.raises(PlacementError, match="EKS has no standard MIG partition label"):
        frag("A100-40GB@1g.5gb", "eks")


# -- neuron --------------------------------------------------------------------------------
def test_neuron_devices() -> None:
    assert frag("TRAINIUM2:16", "neuron") == {
        "resources": {
            "limits": {"aws.amazon.com/neuron": "16"},
            "requests": {"aws.amazon.com/neuron": "16"},
        },
        "tolerations": [NEURON],
    }


def test_neuron_cores() -> None:
    assert frag("TRAINIUM2:2", "neuron", unit="core")["resources"]["limits"] == {
        "aws.amazon.com/neuroncore": "16"
    }
    half = AcceleratorSpec(accelerator="TRAINIUM1", count=0.5)
    assert frag(half, "neuron", unit="core")["resources"]["limits"] == {
        "aws.amazon.com/neuroncore": "1"
    }


def test_neuron_trainium3_devices_and_cores() -> None:
    """Trainium3 has no Karpenter accelerator name in the catalog; its eight NeuronCores per
    device still come from the Neuron docs, and Karpenter refuses it rather than guess a label."""
    assert frag("TRAINIUM3:4", "neuron")["resources"]["limits"] == {"aws.amazon.com/neuron": "4"}
    assert frag("TRAINIUM3:2", "neuron", unit="core")["resources"]["limits"] == {
        "aws.amazon.com/neuroncore": "16"
    }
    with pytest.raises(PlacementError, match="TRAINIUM3 is not offered by any EC2 instance type"):
        frag("TRAINIUM3:4", "karpenter")


def test_neuron_fraction_needs_cores() -> None:
    with pytest.raises(PlacementError, match="or unit='core'"):
        frag(AcceleratorSpec(accelerator="TRAINIUM1", count=0.5), "neuron")
    with pytest.raises(PlacementError, match="ask for a whole number of cores"):
        frag(AcceleratorSpec(accelerator="TRAINIUM1", count=0.25), "neuron", unit="core")


def test_neuron_bad_unit_and_wrong_device() -> None:
    with pytest.raises(AcceleratorError, match="Unknown Neuron unit 'chip'"):
        frag("TRAINIUM2", "neuron", unit="chip")
    with pytest.raises(PlacementError, match="H100-SXM is not a Neuron device"):
        frag("H100-SXM", "neuron")
