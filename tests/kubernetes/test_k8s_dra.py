"""DRA output: ``resource.k8s.io/v1`` ResourceClaimTemplate plus pod claims (Kubernetes 1.34+)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from accelerators import catalog
from accelerators.catalog import Accelerator
from accelerators.errors import AcceleratorError, PlacementError
from accelerators.kubernetes import apply_to_pod, build_manifests, build_pod, to_dra_fragment
from accelerators.spec import AcceleratorSpec

DRA_VERSIONS = ("1.34", "1.37")


def request(template: dict[str, Any]) -> dict[str, Any]:
    requests = template["spec"]["spec"]["devices"]["requests"]
    assert len(requests) == 1
    result: dict[str, Any] = requests[0]
    return result


def test_whole_gpus() -> None:
    result = to_dra_fragment("H100-SXM!:8")
    assert request(result.claim_template) == {
        "name": "gpu",
        "exactly": {
            "deviceClassName": "gpu.nvidia.com",
            "count": 8,
            "selectors": [
                {
                    "cel": {
                        "expression": "device.attributes['gpu.nvidia.com'].productName == "
                        "'NVIDIA H100 80GB HBM3'"
                    }
                }
            ],
        },
    }
    assert result.pod == {
        "resources": {"claims": [{"name": "gpu"}]},
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "accelerators-gpu"}],
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    }


def test_mig_uses_the_mig_device_class_and_profile() -> None:
    exactly = request(to_dra_fragment("A100-40GB-SXM!@3g.20gb").claim_template)["exactly"]
    assert exactly["deviceClassName"] == "mig.nvidia.com"
    expression = exactly["selectors"][0]["cel"]["expression"]
    assert expression.startswith("device.attributes['gpu.nvidia.com'].profile == '3g.20gb' && ")
    assert "productName in ['NVIDIA A100-SXM4-40GB', 'A100-SXM4-40GB']" in expression


def test_memory_request_compares_capacity() -> None:
    exactly = request(to_dra_fragment("80GB+").claim_template)["exactly"]
    assert exactly["selectors"][0]["cel"]["expression"] == (
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('80G')) >= 0"
    )


def test_fallbacks_become_a_prioritized_list() -> None:
    first_available = request(
        to_dra_fragment(["H100-SXM:8", "A100-80GB@1g.10gb:8"]).claim_template
    )["firstAvailable"]
    assert [(s["name"], s["deviceClassName"], s["count"]) for s in first_available] == [
        ("h100-sxm", "gpu.nvidia.com", 8),
        ("a100-80gb-1g-10gb", "mig.nvidia.com", 8),
    ]


def test_device_class_names_are_configurable() -> None:
    result = to_dra_fragment(
        "T4:2", gpu_device_class="gpu.example.com", claim_name="accel", claim_template_name="t4"
    )
    assert request(result.claim_template)["exactly"]["deviceClassName"] == "gpu.example.com"
    assert result.pod["resourceClaims"] == [{"name": "accel", "resourceClaimTemplateName": "t4"}]


def test_platform_options_apply() -> None:
    result = to_dra_fragment(
        "T4",
        platform="nvidia",
        runtime_class_name="nvidia",
        tolerations=[{"key": "sku", "operator": "Exists"}],
    )
    assert result.pod["runtimeClassName"] == "nvidia"
    assert {"key": "sku", "operator": "Exists"} in result.pod["tolerations"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "MI300X",
            "only NVIDIA GPUs (NVIDIA DRA driver, DeviceClasses gpu.nvidia.com/"
            "mig.nvidia.com) are supported; MI300X is an AMD GPU",
        ),
        ("V5E@2x4", "TPU-V5E is a Google TPU"),
        ("T4:0.5", "a fractional count is GPU sharing"),
        ("H100-MEGA!", "no NVML product name (catalog names.nvml) is known for H100-MEGA"),
    ],
)
def test_refusals(spec: str, message: str) -> None:
    with pytest.raises(PlacementError, match=re.escape(message)):
        to_dra_fragment(spec)


def test_build_manifests_orders_template_first(k8s_validate: Callable[..., None]) -> None:
    template, pod = build_manifests(
        "A100@1g.5gb:2", platform="nvidia", name="job", namespace="ml", dra=True
    )
    assert template["kind"] == "ResourceClaimTemplate"
    assert template["metadata"] == {"name": "job-gpu", "namespace": "ml"}
    assert pod["spec"]["resourceClaims"] == [
        {"name": "gpu", "resourceClaimTemplateName": "job-gpu"}
    ]
    assert pod["spec"]["containers"][0]["resources"] == {"claims": [{"name": "gpu"}]}
    k8s_validate(template, DRA_VERSIONS)
    k8s_validate(pod, DRA_VERSIONS)
    assert (
        build_pod("A100@1g.5gb:2", platform="nvidia", name="job", namespace="ml", dra=True) == pod
    )


def test_dra_options_without_dra() -> None:
    with pytest.raises(AcceleratorError, match="Option 'claim_name' applies only with dra=True"):
        build_pod("T4", platform="nvidia", claim_name="x")


def test_apply_to_pod_with_dra() -> None:
    pod = {
        "spec": {
            "containers": [{"name": "c", "image": "i"}],
            "resourceClaims": [{"name": "other", "resourceClaimName": "x"}],
        }
    }
    merged = apply_to_pod(pod, "T4", platform="nvidia", dra=True)
    assert [c["name"] for c in merged["spec"]["resourceClaims"]] == ["other", "gpu"]
    clash = {
        "spec": {
            "containers": [{"name": "c", "image": "i"}],
            "resourceClaims": [{"name": "gpu", "resourceClaimName": "x"}],
        }
    }
    with pytest.raises(PlacementError, match="already has a claim named 'gpu'"):
        apply_to_pod(clash, "T4", platform="nvidia", dra=True)


NVIDIA_WITH_NVML = [
    a for a in catalog.all() if (a.vendor, a.device_class) == ("nvidia", "gpu") and a.names.nvml
]


@pytest.mark.parametrize("acc", NVIDIA_WITH_NVML, ids=lambda a: a.name)
def test_every_nvidia_gpu_validates_with_dra(
    acc: Accelerator, k8s_validate: Callable[..., None]
) -> None:
    spec = AcceleratorSpec(accelerator=acc.name, exact=True, count=2)
    if acc.mig:
        spec = spec.with_partition(acc.mig[0].profile)
    for manifest in build_manifests(spec, platform="nvidia", name="dra-test", dra=True):
        k8s_validate(manifest, DRA_VERSIONS)
