"""``amd``, ``gaudi``, ``intel`` and ``generic``."""

from __future__ import annotations

from typing import Any

import pytest

from accelerators.errors import AcceleratorError, PlacementError
from accelerators.kubernetes import to_pod_fragment
from accelerators.kubernetes._amd import product_label
from accelerators.spec import AcceleratorSpec


def frag(spec: Any, platform: str, **options: Any) -> dict[str, Any]:
    return dict(to_pod_fragment(spec, platform=platform, **options))


def values(fragment: dict[str, Any]) -> list[str]:
    return list(
        fragment["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
            "nodeSelectorTerms"
        ][0]["matchExpressions"][0]["values"]
    )


# -- amd -----------------------------------------------------------------------------------
def test_amd_product_label_as_the_node_labeller_writes_it() -> None:
    assert product_label("AMD Instinct MI300X OAM") == "AMD_Instinct_MI300X_OAM"
    assert product_label("Radeon Pro (V520)") == "Radeon_Pro_V520"


def test_amd_gpu() -> None:
    fragment = frag("MI300X:8", "amd")
    assert fragment["resources"]["limits"] == {"amd.com/gpu": "8"}
    assert {"Instinct_MI300X", "AMD_Instinct_MI300X_OAM"} <= set(values(fragment))
    assert fragment["tolerations"] == [
        {"key": "amd.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]


def test_amd_memory_lists_products() -> None:
    products = values(frag("amd:256GB+", "amd"))
    assert any("MI325X" in p for p in products)
    assert not any("MI300X" in p for p in products)


def test_amd_refuses_mig() -> None:
    with pytest.raises(PlacementError) as info:
        frag("A100@1g.5gb", "amd")
    assert "MIG partition '1g.5gb' is NVIDIA-only; use platform 'nvidia' or 'gke'" in str(
        info.value
    )


def test_amd_refuses_fraction() -> None:
    with pytest.raises(PlacementError, match="fractional count"):
        frag(AcceleratorSpec(accelerator="MI300X", count=0.5), "amd")


# -- gaudi / intel -------------------------------------------------------------------------
def test_gaudi() -> None:
    fragment = frag("GAUDI3:8", "gaudi")
    assert fragment == {
        "resources": {"limits": {"habana.ai/gaudi": "8"}, "requests": {"habana.ai/gaudi": "8"}},
        "tolerations": [{"key": "habana.ai/gaudi", "operator": "Exists", "effect": "NoSchedule"}],
    }


def test_gaudi_refuses_gpus() -> None:
    with pytest.raises(PlacementError, match="hosts Intel Gaudi HPUs; T4 is not one"):
        frag("T4", "gaudi")


def test_intel_refuses_gaudi_with_a_hint() -> None:
    with pytest.raises(PlacementError, match="Gaudi uses platform 'gaudi'"):
        frag("GAUDI3", "intel")


def test_intel_driver_option() -> None:
    with pytest.raises(AcceleratorError, match="Unknown Intel GPU driver 'i965'"):
        frag("GAUDI3", "intel", driver="i965")


# -- generic -------------------------------------------------------------------------------
def test_generic_selects_no_nodes() -> None:
    assert frag("H100-SXM:8", "generic") == {
        "resources": {"limits": {"nvidia.com/gpu": "8"}, "requests": {"nvidia.com/gpu": "8"}},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    }


def test_generic_mig_uses_the_mixed_resource() -> None:
    assert frag("A100@2g.10gb", "generic")["resources"]["limits"] == {"nvidia.com/mig-2g.10gb": "1"}


def test_generic_resource_name_override() -> None:
    fragment = frag("H100-SXM", "generic", resource_name="example.com/gpu")
    assert fragment["resources"]["limits"] == {"example.com/gpu": "1"}
    assert fragment["tolerations"][0]["key"] == "example.com/gpu"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("80GB+", "a memory request needs node labels"),
        ("V5E@2x4", "a TPU topology is selected with node labels; use platform 'gke'"),
        ("T4:0.5", "fractional count"),
    ],
)
def test_generic_refusals(spec: str, message: str) -> None:
    with pytest.raises(PlacementError, match=message):
        frag(spec, "generic")


def test_generic_tpu_without_topology() -> None:
    assert frag("V5E:4", "generic")["resources"]["limits"] == {"google.com/tpu": "4"}


@pytest.mark.parametrize(
    ("spec", "values"),
    [("MAX-1550:2", ["Max_1550"]), ("Max 1100", ["Max_1100"]), ("FLEX-170", ["Flex_170"])],
)
def test_intel_selects_the_product_label(spec: str, values: list[str]) -> None:
    fragment = frag(spec, "intel")
    assert fragment["nodeSelector"] == {"gpu.intel.com/product": values[0]}
    assert set(fragment["resources"]["limits"]) == {"gpu.intel.com/i915"}


def test_intel_fallbacks_become_required_in_plus_preferences() -> None:
    fragment = frag("Max 1550 | Max 1100", "intel")
    required = fragment["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert required[0]["matchExpressions"][0]["values"] == ["Max_1550", "Max_1100"]


def test_intel_xe_driver() -> None:
    fragment = frag("FLEX-140", "intel", driver="xe")
    assert fragment["resources"]["limits"] == {"gpu.intel.com/xe": "1"}
