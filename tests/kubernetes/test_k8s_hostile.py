"""Pods and platform options a user may really pass: ``nodeAffinity: null``, options of the
wrong Python type, a sidecar that already asks for a GPU. Each is merged or refused with an
``AcceleratorError`` that names it; none raises anything else."""

from __future__ import annotations

from typing import Any

import pytest

from accelerators.errors import AcceleratorError, PlacementError
from accelerators.kubernetes import apply_to_pod, platforms, to_pod_fragment

SPEC_FOR = {"neuron": "trn1", "amd": "MI300X", "gaudi": "Gaudi3", "intel": "Max-1550"}


def _pod(**spec: Any) -> dict[str, Any]:
    return {"spec": {"containers": [{"name": "main", "image": "busybox"}], **spec}}


@pytest.mark.parametrize("platform", platforms())
@pytest.mark.parametrize(
    "affinity",
    [{"nodeAffinity": None}, None, {}, {"nodeAffinity": {}}, {"podAffinity": None}],
    ids=["nodeAffinity-null", "null", "empty", "nodeAffinity-empty", "podAffinity-null"],
)
def test_empty_affinity_parts_merge(platform: str, affinity: Any) -> None:
    text = SPEC_FOR.get(platform, "H100-SXM:8")
    merged = apply_to_pod(_pod(affinity=affinity), text, platform=platform)
    limits = merged["spec"]["containers"][0]["resources"]["limits"]
    assert limits == to_pod_fragment(text, platform=platform)["resources"]["limits"]


@pytest.mark.parametrize(
    ("platform", "options", "named"),
    [
        ("gke", {"labels": -1}, "'labels'"),
        ("gke", {"labels": {"accelerator": 5}}, "'labels'"),
        ("gke", {"label_values": -1}, "'label_values'"),
        ("gke", {"label_values": {"H100-SXM": 5}}, "'label_values'"),
        ("gke", {"label_values": {"H100-SXM": [None]}}, "'label_values'"),
        ("nvidia", {"tolerations": -1}, "'tolerations'"),
        ("nvidia", {"tolerations": "nvidia.com/gpu"}, "'tolerations'"),
        ("nvidia", {"runtime_class_name": 5}, "'runtime_class_name'"),
        ("nvidia", {"rename_by_default": "false"}, "'rename_by_default'"),
        ("flyte", {"unpartitioned_requirement": -1}, "'unpartitioned_requirement'"),
        ("flyte", {"unpartitioned_requirement": {"a": 1}}, "'unpartitioned_requirement'"),
        (
            "flyte",
            {"unpartitioned_requirement": {"key": None, "operator": "In"}},
            "'unpartitioned_requirement'",
        ),
        ("flyte", {"extended_resource_tolerations": "yes"}, "'extended_resource_tolerations'"),
        ("generic", {"resource_name": [1]}, "'resource_name'"),
        ("generic", {"resource_name": -1}, "'resource_name'"),
    ],
)
def test_options_of_the_wrong_type_are_named(
    platform: str, options: dict[str, Any], named: str
) -> None:
    with pytest.raises(AcceleratorError, match=rf"Option {named} for platform '{platform}'"):
        to_pod_fragment("H100-SXM:8", platform=platform, **options)


def test_options_of_the_right_type_still_work() -> None:
    fragment = to_pod_fragment(
        "A100@1g.10gb",
        platform="flyte",
        unpartitioned_requirement={"key": "gpu-partitioned", "operator": "DoesNotExist"},
        extended_resource_tolerations=True,
        label_values={"A100": ["nvidia-tesla-a100"]},
        labels={"device": "example.com/accelerator"},
        runtime_class_name="nvidia",
        tolerations=[{"key": "dedicated", "operator": "Exists"}],
    )
    assert fragment["runtimeClassName"] == "nvidia"
    generic = to_pod_fragment("H100-SXM:2", platform="generic", resource_name="example.com/gpu")
    assert generic["resources"]["limits"] == {"example.com/gpu": "2"}


def test_a_sidecar_asking_for_a_gpu_is_refused_by_name() -> None:
    pod = {
        "spec": {
            "containers": [
                {"name": "main", "image": "trainer"},
                {
                    "name": "exporter",
                    "image": "dcgm",
                    "resources": {"limits": {"nvidia.com/gpu": "1"}},
                },
            ]
        }
    }
    with pytest.raises(PlacementError, match=r"'exporter' already asks for nvidia.com/gpu.*9 in"):
        apply_to_pod(pod, "H100-SXM:8", platform="nvidia")
    # A sidecar without devices, or with another vendor's resource name, is left alone.
    pod["spec"]["containers"][1]["resources"] = {"limits": {"cpu": "1"}}
    merged = apply_to_pod(pod, "H100-SXM:8", platform="nvidia")
    assert merged["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "8"
    # The accelerator given to the container that already asks for it: merged, not refused.
    side = apply_to_pod(merged, "H100-SXM:8", platform="nvidia")
    assert side == merged


@pytest.mark.parametrize(
    ("init", "named"),
    [
        (True, r"pod\.spec\.initContainers should be a list"),
        ([None], r"pod\.spec\.initContainers\[0\] should be a container mapping"),
        (
            [{"name": "i", "resources": {"limits": ["cpu"]}}],
            r"pod\.spec\.initContainers\[0\]\.resources\.limits should be a mapping",
        ),
    ],
)
def test_malformed_init_containers_are_named(init: Any, named: str) -> None:
    """The requests <= limits check after the merge reads init containers too (a hostile
    pod with ``initContainers: true`` raised TypeError there; found by Hypothesis in
    tests/test_reliability_properties.py)."""
    pod = {"spec": {"containers": [{"name": "main", "image": "i"}], "initContainers": init}}
    with pytest.raises(AcceleratorError, match=named):
        apply_to_pod(pod, "H100-SXM:8", platform="gke")
