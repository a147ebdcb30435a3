"""Every catalog entry on every platform: a valid Pod with the right content, or PlacementError.

Which platform can host which entry is computed here from the catalog data, independently
of the platform modules: GKE needs ``names.gke`` (NVIDIA GPUs and TPUs), GPU Feature
Discovery needs ``names.gfd``, Karpenter ``names.karpenter``, EKS ``names.eks``, Flyte
``names.flyte``, AMD ``names.rocm``; Neuron, Gaudi and Intel GPUs host their own class;
``generic`` hosts everything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accelerators import catalog
from accelerators.catalog import Accelerator
from accelerators.constants import flyte_device
from accelerators.errors import PlacementError
from accelerators.kubernetes import build_pod, platforms
from accelerators.spec import AcceleratorSpec

ENTRIES = catalog.all()


def _nvidia_gpu(a: Accelerator) -> bool:
    return (a.vendor, a.device_class) == ("nvidia", "gpu")


HOSTS: dict[str, Callable[[Accelerator], bool]] = {
    "gke": lambda a: (_nvidia_gpu(a) or a.device_class == "tpu") and a.names.gke is not None,
    "nvidia": lambda a: _nvidia_gpu(a) and bool(a.names.gfd),
    # Karpenter's instance-accelerator-name also covers dl2q's Qualcomm AI 100 (an npu).
    "karpenter": lambda a: a.names.karpenter is not None and a.device_class != "tpu",
    "eks": lambda a: a.names.eks is not None and a.device_class != "tpu",
    # constants.flyte_device() names every entry; a TPU also needs GKE's TPU node label.
    "flyte": lambda a: a.device_class != "tpu" or bool(a.names.gke or a.names.flyte),
    "amd": lambda a: (a.vendor, a.device_class) == ("amd", "gpu") and bool(a.names.rocm),
    "neuron": lambda a: a.device_class == "neuron",
    "gaudi": lambda a: a.device_class == "hpu",
    "intel": lambda a: (a.vendor, a.device_class) == ("intel", "gpu"),
    "generic": lambda a: True,
}

RESOURCES = {
    ("nvidia", "gpu"): "nvidia.com/gpu",
    ("amd", "gpu"): "amd.com/gpu",
    ("google", "tpu"): "google.com/tpu",
    ("aws", "neuron"): "aws.amazon.com/neuron",
    ("intel", "hpu"): "habana.ai/gaudi",
    ("intel", "gpu"): "gpu.intel.com/i915",
    ("huawei", "npu"): "huawei.com/Ascend910",  # the Ascend device plugin's resource
    ("qualcomm", "npu"): "qualcomm.com/qaic",  # Qualcomm's Cloud AI device plugin
    ("cambricon", "npu"): "cambricon.com/mlu",  # Cambricon's device plugin
    ("hygon", "gpu"): "hygon.com/dcu",  # Hygon's DCU device plugin
    ("iluvatar", "gpu"): "iluvatar.ai/gpu",  # Iluvatar CoreX's ix-device-plugin
    ("metax", "gpu"): "metax-tech.com/gpu",  # MetaX's GPU device plugin
    ("mthreads", "gpu"): "mthreads.com/gpu",  # Moore Threads' device plugin
    ("biren", "gpu"): "birentech.com/gpu",  # Biren's device plugin (HAMi's chart)
    ("tenstorrent", "npu"): "tenstorrent.com/n150",  # tt-k8s-device-plugin (per card type)
    ("furiosa", "npu"): "furiosa.ai/rngd",  # FuriosaAI's device plugin
    ("apple", "gpu"): "apple.com/gpu",  # the community's generic-device-plugin resource
}
TAINTS = {"nvidia.com/gpu": "nvidia.com/gpu", "amd.com/gpu": "amd.com/gpu"}


def _spec(acc: Accelerator) -> AcceleratorSpec:
    """The entry itself (exact); 2 devices, or the chips of the smallest TPU slice."""
    count = min(t.chips for t in acc.tpu_topologies) if acc.tpu_topologies else 2
    return AcceleratorSpec(accelerator=acc.name, exact=True, count=count)


def _expected_label(acc: Accelerator, platform: str) -> tuple[str, set[str]] | None:
    """(label key, values that must be allowed) for the entry on the platform."""
    if platform == "gke":
        key = (
            "cloud.google.com/gke-tpu-accelerator"
            if acc.device_class == "tpu"
            else ("cloud.google.com/gke-accelerator")
        )
        return key, {acc.names.gke or ""}
    if platform == "nvidia":
        return "nvidia.com/gpu.product", set(acc.names.gfd)
    if platform == "karpenter":
        key = "instance-gpu-name" if acc.device_class == "gpu" else "instance-accelerator-name"
        return f"karpenter.k8s.aws/{key}", {acc.names.karpenter or ""}
    if platform == "eks":
        return "k8s.amazonaws.com/accelerator", {acc.names.eks or ""}
    if platform == "intel" and acc.names.intel:
        return "gpu.intel.com/product", {acc.names.intel}
    if platform == "flyte":
        key = (
            "cloud.google.com/gke-tpu-accelerator"
            if acc.device_class == "tpu"
            else ("k8s.amazonaws.com/accelerator")
        )
        return key, {flyte_device(acc)}
    if platform == "amd":
        return "amd.com/gpu.product-name", {
            n.replace(" ", "_").replace("(", "").replace(")", "") for n in acc.names.rocm
        }
    return None


CASES = [(acc, platform) for acc in ENTRIES for platform in platforms()]


def test_every_platform_has_a_hosting_rule() -> None:
    assert set(HOSTS) == set(platforms())


def test_every_entry_has_at_least_generic_and_one_labelled_platform() -> None:
    lonely = [a.name for a in ENTRIES if sum(HOSTS[p](a) for p in platforms()) < 2]
    # TPU v2 and v3 have no GKE node label (Cloud TPU API only): only generic places them.
    assert lonely == ["TPU-V2", "TPU-V3"], "entries only the generic platform can place"


@pytest.mark.parametrize(
    ("acc", "platform"),
    [c for c in CASES if HOSTS[c[1]](c[0])],
    ids=lambda v: v.name if isinstance(v, Accelerator) else v,
)
def test_hosted_entry_builds_a_valid_pod(
    acc: Accelerator,
    platform: str,
    k8s_validate: Callable[..., None],
    node_requirements: Callable[[dict[str, Any]], dict[str, Any]],
) -> None:
    spec = _spec(acc)
    pod = build_pod(spec, platform=platform, name=f"{platform}-test")
    k8s_validate(pod)
    pod_spec = pod["spec"]
    # a board the vendor's plugins name apart (Tenstorrent's n300) asks for its own resource
    resource = acc.k8s_resource or RESOURCES[(acc.vendor, acc.device_class)]
    limits = pod_spec["containers"][0]["resources"]["limits"]
    assert limits == {resource: str(int(spec.count))}
    assert pod_spec["containers"][0]["resources"]["requests"] == limits
    taint = TAINTS.get(resource, resource)
    exists = {"key": taint, "operator": "Exists", "effect": "NoSchedule"}
    # flytepropeller adds no Exists toleration unless configured to
    assert (exists in pod_spec["tolerations"]) == (platform != "flyte")
    expected = _expected_label(acc, platform)
    requirements = node_requirements(pod)
    if expected is None:
        assert requirements == {}
        return
    key, values = expected
    operator, allowed = requirements[key]
    assert operator == "In"
    assert values <= set(allowed)
    if platform == "flyte":
        for value in allowed:
            assert {"key": key, "operator": "Equal", "value": value, "effect": "NoSchedule"} in (
                pod_spec["tolerations"]
            )
        assert "nodeSelector" not in pod_spec
    if acc.device_class == "tpu":
        topology = min(acc.tpu_topologies, key=lambda t: t.chips).topology
        topology_key = "cloud.google.com/gke-tpu-topology"
        assert requirements[topology_key] == ("In", (topology,))


@pytest.mark.parametrize(
    ("acc", "platform"),
    [c for c in CASES if not HOSTS[c[1]](c[0])],
    ids=lambda v: v.name if isinstance(v, Accelerator) else v,
)
def test_unhosted_entry_raises_placement_error(acc: Accelerator, platform: str) -> None:
    spec = _spec(acc)
    with pytest.raises(PlacementError) as info:
        build_pod(spec, platform=platform)
    message = str(info.value)
    assert f"on platform {platform!r}" in message
    assert str(spec) in message


# -- MIG: every profile of every entry on the MIG-capable platforms ---------------------------
MIG_CASES = [(acc, profile.profile) for acc in ENTRIES for profile in acc.mig]


@pytest.mark.parametrize(
    ("acc", "profile"), MIG_CASES, ids=lambda v: v.name if isinstance(v, Accelerator) else v
)
def test_every_mig_profile(
    acc: Accelerator,
    profile: str,
    k8s_validate: Callable[..., None],
    node_requirements: Callable[[dict[str, Any]], dict[str, Any]],
) -> None:
    from accelerators.kubernetes._gke import GKE_MIG_PROFILES

    spec = AcceleratorSpec(accelerator=acc.name, exact=True, partition=profile, count=2)
    resource_mixed = "nvidia.com/mig-" + profile.replace("+", ".")
    pods: dict[str, dict[str, Any]] = {}
    if acc.names.gfd:
        pods["mixed"] = build_pod(spec, platform="nvidia")
        pods["single"] = build_pod(spec, platform="nvidia", mig_strategy="single")
        mixed, single = pods["mixed"]["spec"], pods["single"]["spec"]
        assert mixed["containers"][0]["resources"]["limits"] == {resource_mixed: "2"}
        assert node_requirements(mixed)["nvidia.com/gpu.product"][1] == acc.names.gfd
        assert single["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "2"}
        products = node_requirements(single)["nvidia.com/gpu.product"][1]
        assert all("-MIG-" in p for p in products)
    else:
        with pytest.raises(PlacementError, match=r"names\.gfd"):
            build_pod(spec, platform="nvidia")
    gke_ok = acc.names.gke is not None and profile in GKE_MIG_PROFILES.get(acc.names.gke, ())
    if gke_ok:
        pods["gke"] = build_pod(spec, platform="gke")
        assert pods["gke"]["spec"]["nodeSelector"] == {
            "cloud.google.com/gke-accelerator": acc.names.gke,
            "cloud.google.com/gke-gpu-partition-size": profile,
        }
        assert pods["gke"]["spec"]["containers"][0]["resources"]["limits"] == {
            "nvidia.com/gpu": "2"
        }
    else:
        with pytest.raises(PlacementError, match=r"GKE|names\.gke"):
            build_pod(spec, platform="gke")
    if "+" in profile:
        with pytest.raises(PlacementError, match="not a valid node label value"):
            build_pod(spec, platform="flyte")
    else:
        pods["flyte"] = build_pod(spec, platform="flyte")
        assert node_requirements(pods["flyte"])["k8s.amazonaws.com/gpu-partition-size"] == (
            "In",
            (profile,),
        )
    pods["generic"] = build_pod(spec, platform="generic")
    assert pods["generic"]["spec"]["containers"][0]["resources"]["limits"] == {resource_mixed: "2"}
    for platform in ("karpenter", "eks", "amd", "neuron", "gaudi", "intel"):
        with pytest.raises(PlacementError, match=f"platform {platform!r}"):
            build_pod(spec, platform=platform)
    for pod in pods.values():
        k8s_validate(pod, ("1.37",))
