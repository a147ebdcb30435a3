"""A shared slot of a GPU (``T4@shared``, Flyte 2's ``"T4 shared"``): the spec and its pods.

The slot states no share, so no platform may invent one: the NVIDIA GPU Operator's shared
resource (``nvidia.com/gpu.shared`` with ``renameByDefault``, else the ``-SHARED`` product)
without a ``replicas`` bound, GKE's sharing-strategy label without ``max-shared-clients``.
Platforms that cannot select shared GPUs refuse it with a ``PlacementError``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accelerators import AcceleratorSpec, PlacementError
from accelerators.errors import (
    AcceleratorError,
    InvalidSpecError,
    UnknownPartitionError,
)
from accelerators.kubernetes import build_pod, platforms, to_pod_fragment

Requirements = Callable[[dict[str, Any]], dict[str, tuple[str, tuple[str, ...]]]]


# -- the spec ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "canonical", "count"),
    [
        ("T4 shared", "T4@shared", 1),  # Flyte 2's spelling
        ("T4 shared:1", "T4@shared", 1),
        ("L40S shared", "L40S@shared", 1),
        ("t4@SHARED", "T4@shared", 1),
        ("A100-80GB@shared:2", "A100-80GB@shared:2", 2),
        ("T4 shared | L4 shared", "T4@shared | L4@shared", 1),
    ],
)
def test_shared_slot_round_trips_through_text_json_and_hash(
    text: str, canonical: str, count: int
) -> None:
    spec = AcceleratorSpec.parse(text)
    assert all(alt.shared and alt.is_shared for alt in spec.alternatives)
    assert (str(spec), spec.count, spec.partition, spec.is_fractional) == (
        canonical,
        count,
        None,
        False,
    )
    assert AcceleratorSpec.parse(canonical) == spec
    assert AcceleratorSpec.model_validate_json(spec.model_dump_json()) == spec
    assert spec.model_dump()["shared"] is True
    assert hash(spec) == hash(canonical)
    assert spec == canonical
    # a shared slot and a whole device are different requests
    assert spec.alternatives[0] != spec.alternatives[0].model_copy(update={"shared": False})


def test_a_fraction_is_shared_but_states_its_share() -> None:
    spec = AcceleratorSpec.parse("T4:0.5")
    assert spec.is_shared
    assert not spec.shared


@pytest.mark.parametrize(
    ("text", "needle", "error"),
    [
        ("T4@shared:0.5", "already means a shared GPU", InvalidSpecError),
        ("A100-40GB shared@1g.5gb", "already asks for a shared slot", InvalidSpecError),
        ("T4 shared@shared", "already asks for a shared slot", InvalidSpecError),
        ("V5E@shared", "only GPUs are shared", InvalidSpecError),
        ("TRAINIUM2@shared", "only GPUs are shared", InvalidSpecError),
        ("T4@shard", "did you mean 'shared'", UnknownPartitionError),
    ],
)
def test_inconsistent_shared_specs_are_refused_with_a_caret(
    text: str, needle: str, error: type[AcceleratorError]
) -> None:
    with pytest.raises(error, match=needle) as info:
        AcceleratorSpec.parse(text)
    assert type(info.value) is error
    assert "^" in str(info.value)


@pytest.mark.parametrize(
    ("fields", "needle"),
    [
        ({"vendor": "nvidia", "shared": True}, "needs a named GPU"),
        ({"accelerator": "A100-40GB", "partition": "1g.5gb", "shared": True}, "not both"),
        ({"accelerator": "A100-40GB", "unpartitioned": True, "shared": True}, "not both"),
        ({"accelerator": "T4", "count": 0.25, "shared": True}, "already means a shared GPU"),
    ],
)
def test_the_model_refuses_what_the_grammar_cannot_write(
    fields: dict[str, Any], needle: str
) -> None:
    with pytest.raises(AcceleratorError, match=needle):
        AcceleratorSpec(**fields)


# -- pods ----------------------------------------------------------------------------------------
def test_nvidia_requests_the_shared_resource_without_inventing_a_share(
    k8s_validate: Callable[..., None], node_requirements: Requirements
) -> None:
    pod = build_pod("T4 shared", platform="nvidia")
    k8s_validate(pod)
    container = pod["spec"]["containers"][0]
    assert container["resources"]["limits"] == {"nvidia.com/gpu.shared": "1"}
    requirements = node_requirements(pod)
    assert requirements == {"nvidia.com/gpu.product": ("In", ("Tesla-T4",))}
    assert not any(key.endswith(".replicas") for key in requirements)


def test_nvidia_without_rename_selects_the_shared_product_per_slot(
    k8s_validate: Callable[..., None], node_requirements: Requirements
) -> None:
    pod = build_pod("T4@shared:2", platform="nvidia", rename_by_default=False, sharing="mps")
    k8s_validate(pod)
    assert pod["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "2"}
    assert node_requirements(pod) == {
        "nvidia.com/gpu.product": ("In", ("Tesla-T4-SHARED",)),
        "nvidia.com/gpu.sharing-strategy": ("In", ("mps",)),
    }


def test_gke_selects_the_sharing_strategy_but_no_client_count(
    k8s_validate: Callable[..., None], node_requirements: Requirements
) -> None:
    pod = build_pod("L4 shared", platform="gke", sharing="mps")
    k8s_validate(pod)
    assert pod["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "1"}
    assert node_requirements(pod) == {
        "cloud.google.com/gke-accelerator": ("In", ("nvidia-l4",)),
        "cloud.google.com/gke-gpu-sharing-strategy": ("In", ("mps",)),
    }
    with pytest.raises(PlacementError, match="one shared slot per container"):
        to_pod_fragment("L4@shared:2", platform="gke")


@pytest.mark.parametrize("platform", sorted(set(platforms()) - {"nvidia", "gke"}))
def test_platforms_without_gpu_sharing_refuse_a_shared_slot(platform: str) -> None:
    with pytest.raises(PlacementError, match=r"shared GPU slot \('@shared'\)"):
        to_pod_fragment("T4@shared", platform=platform)


def test_dra_refuses_a_shared_slot() -> None:
    with pytest.raises(PlacementError, match="shared slot is GPU sharing"):
        build_pod("T4@shared", platform="nvidia", dra=True)
