"""The ``gke`` platform: accelerator labels, MIG partition sizes, TPU slices and GPU sharing."""

from __future__ import annotations

import re

import pytest

from accelerators import catalog
from accelerators.errors import AcceleratorError, PlacementError
from accelerators.kubernetes import to_pod_fragment
from accelerators.kubernetes._gke import GKE_MIG_PROFILES, TPU_MAX_CHIPS_PER_HOST
from accelerators.spec import AcceleratorSpec

GKE = "cloud.google.com/gke-accelerator"
PARTITION = "cloud.google.com/gke-gpu-partition-size"
TPU = "cloud.google.com/gke-tpu-accelerator"
TOPOLOGY = "cloud.google.com/gke-tpu-topology"
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def frag(spec: str, **options: object) -> dict:
    return dict(to_pod_fragment(spec, platform="gke", **options))


# -- data ----------------------------------------------------------------------------------
def test_gke_mig_table_matches_the_catalog() -> None:
    """Every GKE label in the table exists in the catalog and offers each listed profile."""
    by_label = {a.names.gke: a for a in catalog.all() if a.names.gke}
    for label, profiles in GKE_MIG_PROFILES.items():
        assert label in by_label, label
        assert set(profiles) <= set(by_label[label].partitions), label


def test_tpu_host_table_names_catalog_labels() -> None:
    labels = {a.names.gke for a in catalog.all() if a.device_class == "tpu" and a.names.gke}
    assert labels <= set(TPU_MAX_CHIPS_PER_HOST)


# -- GPUs ----------------------------------------------------------------------------------
def test_whole_gpu_uses_node_selector() -> None:
    fragment = frag("T4:2")
    assert fragment == {
        "resources": {"limits": {"nvidia.com/gpu": "2"}, "requests": {"nvidia.com/gpu": "2"}},
        "nodeSelector": {GKE: "nvidia-tesla-t4"},
        "tolerations": [GPU_TOLERATION],
    }


def test_model_with_several_gke_labels_becomes_affinity() -> None:
    fragment = frag("H100-SXM:8")
    assert "nodeSelector" not in fragment
    term = fragment["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["nodeSelectorTerms"] == [
        {
            "matchExpressions": [
                {
                    "key": GKE,
                    "operator": "In",
                    "values": ["nvidia-h100-80gb", "nvidia-h100-mega-80gb"],
                },
                {"key": PARTITION, "operator": "DoesNotExist"},  # whole GPUs: no MIG pool
            ]
        }
    ]


def test_mig_partition_is_nvidia_gpu_plus_partition_label() -> None:
    fragment = frag("A100-40GB@1g.5gb:3")
    assert fragment["resources"]["limits"] == {"nvidia.com/gpu": "3"}
    assert fragment["nodeSelector"] == {GKE: "nvidia-tesla-a100", PARTITION: "1g.5gb"}


def test_mig_on_model_keeps_only_labels_offering_the_profile() -> None:
    # H100 covers the A3 High and A3 Mega labels; GKE offers MIG on A3 High only.
    fragment = frag("H100-SXM@1g.20gb")
    assert fragment["nodeSelector"] == {GKE: "nvidia-h100-80gb", PARTITION: "1g.20gb"}


def test_profile_gke_does_not_offer() -> None:
    with pytest.raises(PlacementError) as info:
        frag("A100-40GB@4g.20gb")
    assert str(info.value) == (
        "Cannot place 'A100-40GB@4g.20gb' on platform 'gke': GKE does not offer MIG partition "
        "'4g.20gb' for nvidia-tesla-a100; GKE offers 1g.5gb, 2g.10gb, 3g.20gb, 7g.40gb (use "
        "platform 'nvidia' for other profiles)"
    )


def test_mig_on_label_without_gke_mig() -> None:
    with pytest.raises(PlacementError, match="no MIG partitions for it"):
        frag("H100-MEGA!@1g.10gb")


def test_unpartitioned_requires_partition_label_absent() -> None:
    fragment = frag("A100-40GB@whole")
    assert fragment["nodeSelector"] == {GKE: "nvidia-tesla-a100"}
    assert fragment["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ] == {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": PARTITION, "operator": "DoesNotExist"}]}
        ]
    }


def test_gpu_without_gke_label() -> None:
    with pytest.raises(PlacementError) as info:
        frag("A10G")
    message = str(info.value)
    assert message.startswith("Cannot place 'A10G' on platform 'gke': A10G has no GKE accelerator")
    assert "names.gke" in message
    assert "T4" in message  # lists what GKE offers


def test_non_nvidia_gpu() -> None:
    with pytest.raises(PlacementError, match=re.escape("MI300X is an AMD GPU. Use platform 'amd'")):
        frag("MI300X")


def test_neuron_suggests_aws_platforms() -> None:
    with pytest.raises(PlacementError, match="'neuron' or 'karpenter'"):
        frag("TRAINIUM2")


# -- sharing -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("count", "clients"), [(0.5, "2"), (0.25, "4"), (0.33, "3"), (0.2, "5"), (1 / 48, "48")]
)
def test_fractional_count_is_one_shared_gpu(count: float, clients: str) -> None:
    fragment = to_pod_fragment(AcceleratorSpec(accelerator="T4", count=count), platform="gke")
    assert fragment["resources"]["limits"] == {"nvidia.com/gpu": "1"}
    assert fragment["nodeSelector"] == {
        GKE: "nvidia-tesla-t4",
        "cloud.google.com/gke-gpu-sharing-strategy": "time-sharing",
        "cloud.google.com/gke-max-shared-clients-per-gpu": clients,
    }


def test_mps_sharing_option() -> None:
    fragment = frag("L4:0.5", sharing="mps")
    assert fragment["nodeSelector"]["cloud.google.com/gke-gpu-sharing-strategy"] == "mps"


def test_bad_sharing_option() -> None:
    with pytest.raises(AcceleratorError, match="Unknown GKE sharing strategy 'timeshare'"):
        frag("T4:0.5", sharing="timeshare")


@pytest.mark.parametrize("count", [0.75, 1.5])
def test_fraction_that_is_not_one_over_n(count: float) -> None:
    with pytest.raises(PlacementError, match=r"is not\s+1/N of one GPU"):
        to_pod_fragment(AcceleratorSpec(accelerator="T4", count=count), platform="gke")


def test_too_many_clients() -> None:
    with pytest.raises(PlacementError, match="needs 100 clients per GPU; GKE allows at most 48"):
        to_pod_fragment(AcceleratorSpec(accelerator="T4", count=0.01), platform="gke")


def test_shared_mig_partition() -> None:
    fragment = frag("A100-40GB@1g.5gb:0.5")
    assert fragment["nodeSelector"][PARTITION] == "1g.5gb"
    assert fragment["nodeSelector"]["cloud.google.com/gke-max-shared-clients-per-gpu"] == "2"


# -- TPUs ----------------------------------------------------------------------------------
def test_single_host_slice_asks_for_all_its_chips() -> None:
    fragment = frag("V5E@2x4")
    assert fragment["resources"]["limits"] == {"google.com/tpu": "8"}
    assert fragment["nodeSelector"] == {TPU: "tpu-v5-lite-podslice", TOPOLOGY: "2x4"}
    assert fragment["tolerations"] == [
        {"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}
    ]


def test_count_picks_the_single_host_topology() -> None:
    assert frag("V6E:4")["nodeSelector"] == {TPU: "tpu-v6e-slice", TOPOLOGY: "2x2"}
    assert frag("V5P:4")["nodeSelector"] == {TPU: "tpu-v5p-slice", TOPOLOGY: "2x2x1"}


def test_multi_host_slice_needs_chips_per_host() -> None:
    with pytest.raises(PlacementError) as info:
        frag("V5E@4x4")
    assert "give the chips per host as the count, e.g. TPU-V5E@4x4:4" in str(info.value)
    fragment = frag("V5E@4x4:4")
    assert fragment["resources"]["limits"] == {"google.com/tpu": "4"}
    assert fragment["nodeSelector"][TOPOLOGY] == "4x4"


def test_chips_that_do_not_fit_the_slice() -> None:
    with pytest.raises(PlacementError, match="3 chips per pod does not fit a 2x4 slice of 8 chips"):
        frag("V5E@2x4:3")


def test_count_without_a_single_host_topology() -> None:
    with pytest.raises(PlacementError, match="match no single-host slice; name one with '@'"):
        frag("V5E:16")


def test_topology_that_does_not_exist() -> None:
    # Rejected when the spec is built (UnknownPartitionError, an AcceleratorError).
    with pytest.raises(AcceleratorError, match="has no TPU topology '3x3'"):
        frag("V5E@3x3")


def test_tpu_unpartitioned_is_refused() -> None:
    spec = AcceleratorSpec(accelerator="TPU-V5E", unpartitioned=True)
    with pytest.raises(PlacementError, match="TPU nodes always carry a topology"):
        to_pod_fragment(spec, platform="gke")


# -- memory requests -----------------------------------------------------------------------
def test_memory_request_lists_catalog_gpus() -> None:
    fragment = frag("80GB+")
    values = fragment["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ][0]["matchExpressions"][0]["values"]
    expected = {
        a.names.gke
        for a in catalog.all()
        if a.device_class == "gpu" and a.vendor == "nvidia" and a.memory_gb >= 80 and a.names.gke
    }
    assert set(values) == expected
    assert "nvidia-tesla-t4" not in values


def test_memory_request_for_another_vendor() -> None:
    with pytest.raises(PlacementError, match="memory requests on GKE select NVIDIA GPUs"):
        to_pod_fragment(
            AcceleratorSpec(vendor="amd", memory={"gb": 128, "at_least": True}), platform="gke"
        )


# -- overrides -----------------------------------------------------------------------------
def test_label_key_and_value_overrides() -> None:
    fragment = frag(
        "A10G", labels={"accelerator": "example.com/gpu"}, label_values={"a10g": "a10g-pool"}
    )
    assert fragment["nodeSelector"] == {"example.com/gpu": "a10g-pool"}


def test_unknown_label_role() -> None:
    with pytest.raises(AcceleratorError, match="Unknown label role 'gpu' for platform 'gke'"):
        frag("T4", labels={"gpu": "x"})


def test_unknown_option_suggests() -> None:
    with pytest.raises(AcceleratorError) as info:
        frag("T4", shareing="mps")
    assert "Unknown option 'shareing' for platform 'gke'" in str(info.value)
    assert "did you mean 'sharing'?" in str(info.value)
