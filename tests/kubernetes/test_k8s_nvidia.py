"""The ``nvidia`` platform (GPU Operator + GFD): products, MIG single/mixed, sharing, memory."""

from __future__ import annotations

from typing import Any

import pytest

from accelerators.errors import AcceleratorError, PlacementError
from accelerators.kubernetes import to_pod_fragment
from accelerators.kubernetes._nvidia import gfd_sanitise, mig_resource
from accelerators.spec import AcceleratorSpec

PRODUCT = "nvidia.com/gpu.product"
TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def frag(spec: Any, **options: Any) -> dict[str, Any]:
    return dict(to_pod_fragment(spec, platform="nvidia", **options))


def required(fragment: dict[str, Any]) -> list[dict[str, Any]]:
    terms = fragment["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert len(terms["nodeSelectorTerms"]) == 1
    expressions: list[dict[str, Any]] = terms["nodeSelectorTerms"][0]["matchExpressions"]
    return expressions


def test_whole_gpu() -> None:
    assert frag("H100-SXM!:8") == {
        "resources": {"limits": {"nvidia.com/gpu": "8"}, "requests": {"nvidia.com/gpu": "8"}},
        "nodeSelector": {PRODUCT: "NVIDIA-H100-80GB-HBM3"},
        "tolerations": [TOLERATION],
    }


def test_bare_model_allows_every_sku() -> None:
    values = required(frag("A100"))[0]["values"]
    assert "NVIDIA-A100-SXM4-40GB" in values
    assert "NVIDIA-A100-PCIE-40GB" in values


def test_exact_sku_allows_only_itself() -> None:
    values = required(frag("A100-40GB-PCIE!"))[0]["values"]
    assert all("PCIE" in v for v in values)


def test_mig_mixed_is_the_default() -> None:
    fragment = frag("A100@1g.5gb:2")
    assert fragment["resources"]["limits"] == {"nvidia.com/mig-1g.5gb": "2"}
    assert required(fragment)[0]["key"] == PRODUCT  # the parent GPU, profile names repeat


def test_mig_single_selects_the_mig_product() -> None:
    fragment = frag("A100-40GB-SXM!@1g.5gb", mig_strategy="single")
    assert fragment["resources"]["limits"] == {"nvidia.com/gpu": "1"}
    assert required(fragment)[0]["values"] == [
        "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb",
        "A100-SXM4-40GB-MIG-1g.5gb",
    ]


def test_media_profile_names() -> None:
    assert mig_resource("1g.10gb+me") == "nvidia.com/mig-1g.10gb.me"
    assert gfd_sanitise("1g.10gb+me") == "1g.10gbme"
    assert gfd_sanitise("NVIDIA H100 80GB HBM3") == "NVIDIA-H100-80GB-HBM3"
    mixed = frag("H100-SXM!@1g.10gb+me")
    assert mixed["resources"]["limits"] == {"nvidia.com/mig-1g.10gb.me": "1"}
    single = frag("H100-SXM!@1g.10gb+me", mig_strategy="single")
    assert single["nodeSelector"] == {PRODUCT: "NVIDIA-H100-80GB-HBM3-MIG-1g.10gbme"}


def test_unpartitioned_is_a_whole_gpu() -> None:
    assert frag("A100@whole") == frag("A100")


def test_bad_mig_strategy() -> None:
    with pytest.raises(AcceleratorError, match="Unknown mig_strategy 'dual'"):
        frag("A100@1g.5gb", mig_strategy="dual")


def test_runtime_class_name() -> None:
    assert frag("T4", runtime_class_name="nvidia")["runtimeClassName"] == "nvidia"


# -- sharing -------------------------------------------------------------------------------
def test_fraction_renamed_shared_resource() -> None:
    fragment = frag("T4:0.25")
    assert fragment["resources"]["limits"] == {"nvidia.com/gpu.shared": "1"}
    assert fragment["nodeSelector"] == {PRODUCT: "Tesla-T4"}
    assert required(fragment) == [
        {"key": "nvidia.com/gpu.replicas", "operator": "Lt", "values": ["5"]}
    ]


def test_fraction_without_rename_matches_shared_product() -> None:
    fragment = frag("T4:0.5", rename_by_default=False, sharing="mps")
    assert fragment["resources"]["limits"] == {"nvidia.com/gpu": "1"}
    assert fragment["nodeSelector"] == {
        PRODUCT: "Tesla-T4-SHARED",
        "nvidia.com/gpu.sharing-strategy": "mps",
    }


def test_shared_mig_device() -> None:
    fragment = frag("A100@1g.5gb:0.5")
    assert fragment["resources"]["limits"] == {"nvidia.com/mig-1g.5gb.shared": "1"}
    keys = [e["key"] for e in required(fragment)]
    assert "nvidia.com/mig-1g.5gb.replicas" in keys


def test_bad_sharing() -> None:
    with pytest.raises(AcceleratorError, match="Unknown sharing strategy 'slices'"):
        frag("T4:0.5", sharing="slices")


def test_fraction_that_is_not_one_over_n() -> None:
    with pytest.raises(PlacementError, match="1/N of one GPU"):
        frag(AcceleratorSpec(accelerator="T4", count=0.7))


# -- memory --------------------------------------------------------------------------------
def test_memory_at_least_is_gt_on_gpu_memory() -> None:
    fragment = frag("80GB+:2")
    assert fragment["resources"]["limits"] == {"nvidia.com/gpu": "2"}
    # 80 GB = 76293 MiB; Gt is strict, so threshold - 1.
    assert required(fragment) == [
        {"key": "nvidia.com/gpu.memory", "operator": "Gt", "values": ["76292"]}
    ]


def test_exact_memory_lists_products() -> None:
    values = required(frag("nvidia:24GB"))[0]["values"]
    assert {"NVIDIA-L4", "NVIDIA-A10G"} <= set(values)
    assert "Tesla-T4" not in values


def test_memory_for_another_vendor() -> None:
    with pytest.raises(PlacementError, match="hosts NVIDIA GPUs only"):
        frag("amd:128GB+")


# -- refusals ------------------------------------------------------------------------------
def test_tpu_is_refused_with_a_hint() -> None:
    with pytest.raises(PlacementError) as info:
        frag("V5E@2x4")
    assert str(info.value) == (
        "Cannot place 'TPU-V5E@2x4' on platform 'nvidia': the NVIDIA GPU Operator hosts NVIDIA "
        "GPUs; TPU-V5E is a Google TPU (use platform 'gke' for TPUs)"
    )


def test_gpu_without_gfd_name_suggests_label_values() -> None:
    with pytest.raises(PlacementError, match="label_values=\\{'H100-MEGA'"):
        frag("H100-MEGA!")
    fragment = frag("H100-MEGA!", label_values={"H100-MEGA": "NVIDIA-H100-80GB-HBM3"})
    assert fragment["nodeSelector"] == {PRODUCT: "NVIDIA-H100-80GB-HBM3"}
