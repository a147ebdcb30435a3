"""Fallback chains: required ``In`` over every allowed value, preferred terms by order."""

from __future__ import annotations

import re
from typing import Any

import pytest

from accelerators.errors import PlacementError
from accelerators.kubernetes import to_pod_fragment

GKE = "cloud.google.com/gke-accelerator"


def node_affinity(spec: Any, platform: str, **options: Any) -> dict[str, Any]:
    fragment = to_pod_fragment(spec, platform=platform, **options)
    assert "nodeSelector" not in fragment  # never a selector that can only match the first
    result: dict[str, Any] = fragment["affinity"]["nodeAffinity"]
    return result


def test_one_label_differs_gives_one_in_term() -> None:
    affinity = node_affinity(["T4", "L4", "V100"], "gke")
    assert affinity["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [
            {
                "matchExpressions": [
                    {
                        "key": GKE,
                        "operator": "In",
                        "values": ["nvidia-tesla-t4", "nvidia-l4", "nvidia-tesla-v100"],
                    }
                ]
            }
        ]
    }
    preferred = affinity["preferredDuringSchedulingIgnoredDuringExecution"]
    assert [p["weight"] for p in preferred] == [100, 50, 25]


def test_a_whole_gpu_that_mig_can_split_keeps_its_own_term_off_mig_nodes() -> None:
    # A100 without a partition means whole GPUs: its term also needs the partition label absent
    terms = node_affinity(["T4", "A100-40GB"], "gke")[
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    assert terms["nodeSelectorTerms"] == [
        {"matchExpressions": [{"key": GKE, "operator": "In", "values": ["nvidia-tesla-t4"]}]},
        {
            "matchExpressions": [
                {"key": GKE, "operator": "In", "values": ["nvidia-tesla-a100"]},
                {"key": "cloud.google.com/gke-gpu-partition-size", "operator": "DoesNotExist"},
            ]
        },
    ]


def test_preferred_terms_follow_the_order() -> None:
    preferred = node_affinity(["L4", "T4"], "gke")[
        "preferredDuringSchedulingIgnoredDuringExecution"
    ]
    assert preferred == [
        {
            "weight": 100,
            "preference": {
                "matchExpressions": [{"key": GKE, "operator": "In", "values": ["nvidia-l4"]}]
            },
        },
        {
            "weight": 50,
            "preference": {
                "matchExpressions": [{"key": GKE, "operator": "In", "values": ["nvidia-tesla-t4"]}]
            },
        },
    ]


def test_weights_stay_in_range_for_long_chains() -> None:
    chain = [
        "T4",
        "L4",
        "A100-40GB",
        "A100-80GB",
        "H100-SXM",
        "H200-SXM",
        "B200",
        "GB200",
        "RTX-PRO-6000",
    ]
    preferred = node_affinity(chain, "gke")["preferredDuringSchedulingIgnoredDuringExecution"]
    weights = [p["weight"] for p in preferred]
    assert weights == [100, 50, 25, 12, 6, 3, 1, 1, 1]


def test_several_labels_differ_gives_one_term_per_alternative() -> None:
    affinity = node_affinity(["A100-40GB@1g.5gb", "A100-80GB@1g.10gb"], "gke")
    terms = affinity["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert len(terms) == 2
    assert terms[0]["matchExpressions"][1] == {
        "key": "cloud.google.com/gke-gpu-partition-size",
        "operator": "In",
        "values": ["1g.5gb"],
    }


def test_non_exact_alternatives_allow_every_sku() -> None:
    affinity = node_affinity(["A100-40GB", "L4"], "nvidia")
    values = affinity["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0][
        "matchExpressions"
    ][0]["values"]
    assert {"NVIDIA-A100-SXM4-40GB", "NVIDIA-A100-PCIE-40GB", "NVIDIA-L4"} <= set(values)


def test_mig_single_strategy_fallbacks_share_a_resource() -> None:
    fragment = to_pod_fragment(
        ["A100-40GB@1g.5gb", "A100-80GB@1g.10gb"], platform="nvidia", mig_strategy="single"
    )
    assert fragment["resources"]["limits"] == {"nvidia.com/gpu": "1"}


def test_different_resource_names_are_refused() -> None:
    with pytest.raises(PlacementError) as info:
        to_pod_fragment(["H100-SXM:8", "MI300X:8"], platform="generic")
    assert str(info.value) == (
        "Cannot place 'H100-SXM:8 | MI300X:8' on platform 'generic' as one pod: 'H100-SXM:8' "
        "requests nvidia.com/gpu: 8 but the fallback 'MI300X:8' requests amd.com/gpu: 8, and a "
        "pod has one fixed resource request. Build one pod per alternative, or use fallbacks "
        "with the same count and resource name"
    )


def test_different_counts_are_refused() -> None:
    with pytest.raises(
        PlacementError, match=re.escape("requests nvidia.com/gpu: 8 but the fallback 'A100-80GB:4'")
    ):
        to_pod_fragment(["H100-SXM:8", "A100-80GB:4"], platform="gke")


def test_mixed_mig_resources_suggest_single_strategy() -> None:
    with pytest.raises(PlacementError, match="mig_strategy='single'"):
        to_pod_fragment(["A100-40GB@1g.5gb", "A100-80GB@1g.10gb"], platform="nvidia")


def test_an_alternative_the_platform_cannot_place_is_left_out() -> None:
    # every alternative is acceptable: GKE has no A10G, so the pod runs on the L4
    fragment = to_pod_fragment(["L4", "A10G"], platform="gke")
    assert fragment["nodeSelector"] == {"cloud.google.com/gke-accelerator": "nvidia-l4"}
    # ... and when none can be placed, each is named with its reason
    with pytest.raises(PlacementError, match="none of its alternatives") as info:
        to_pod_fragment(["A10G", "H100-NVL"], platform="gke")
    assert "Cannot place 'A10G' on platform 'gke'" in str(info.value)
    assert "Cannot place 'H100-NVL' on platform 'gke'" in str(info.value)


def test_same_requirements_need_no_affinity() -> None:
    fragment = to_pod_fragment(["H100-SXM:8", "A100-40GB:8"], platform="generic")
    assert "affinity" not in fragment
    assert "nodeSelector" not in fragment


def test_flyte_fallback_tolerates_every_device() -> None:
    fragment = to_pod_fragment(["L4", "T4"], platform="flyte")
    values = [t.get("value") for t in fragment["tolerations"]]
    # one device string per alternative (a bare L4 is nvidia-l4, as flytekit's L4 sends)
    assert values == ["nvidia-l4", "nvidia-tesla-t4"]
