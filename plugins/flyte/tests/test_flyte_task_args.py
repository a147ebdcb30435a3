"""Specs in flytekit tasks: same ExtendedResources as flytekit's constants, GPU requests and
limits, pod templates for what the IDL cannot say, merged with the user's, valid Kubernetes."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from flyte_helpers import (
    override_pod_spec,
    primary,
    required_terms,
    serialize,
    template_pod_spec,
    validate_pod_spec,
)
from flyteidl.core import tasks_pb2
from flytekit import PodTemplate, Resources, task, workflow
from flytekit.extras import accelerators as theirs
from flytekit.extras.accelerators import BaseAccelerator
from flytekit.models.task import Resources as ResourceModel
from flytekitplugins.accelerators import NO_ACCELERATOR, DeviceClassWarning, task_args
from flytekitplugins.accelerators._args import _WARNED
from kubernetes.client import V1Container, V1EnvVar, V1PodSpec, V1Toleration

from accelerators import AcceleratorSpec, PlacementError, catalog, constants

GPU = ResourceModel.ResourceName.GPU
D = "k8s.amazonaws.com/accelerator"

THEIR_VALUES = [
    (name, attribute)
    for name, value in vars(theirs).items()
    if name.isupper() and isinstance(value, BaseAccelerator)
    for attribute in [
        "",
        *[a for a in dir(type(value)) if a.startswith(("partition_", "slice_"))],
        *(["unpartitioned"] if hasattr(value, "unpartitioned") else []),
    ]
]
NVIDIA_CONSTANTS = [
    acc.constant
    for acc in catalog.all()
    if acc.constant
    and (acc.vendor, acc.device_class)
    == (
        "nvidia",
        "gpu",
    )
]


def _get(module: Any, name: str, attribute: str) -> Any:
    value = getattr(module, name)
    return getattr(value, attribute) if attribute else value


def _task(**kwargs: Any) -> Any:
    @task(**kwargs)
    def job(a: int) -> int:
        return a

    return job


def _gpu_entries(entries: Any) -> list[str]:
    return [e.value for e in entries if e.name == GPU]


# -- the same ExtendedResources flytekit's own constants give ------------------------------------
@pytest.mark.parametrize(("name", "attribute"), THEIR_VALUES)
def test_spec_of_every_flytekit_value_serialises_like_it(name: str, attribute: str) -> None:
    mine = _get(constants, name, attribute)
    reference = serialize(_task(accelerator=_get(theirs, name, attribute))).template
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeviceClassWarning)
        if mine.accelerator.device_class == "tpu":
            # TPUs: flytekit sends a GPUAccelerator with no device class; ours goes via a pod
            # template, and the same IDL is available from the constant for Flyte 2.
            assert mine.to_flyte_idl() == reference.extended_resources.gpu_accelerator
            return
        template = serialize(_task(**task_args(mine.to_spec()))).template
    gpu, theirs_gpu = (
        template.extended_resources.gpu_accelerator,
        reference.extended_resources.gpu_accelerator,
    )
    if not attribute and mine.accelerator.mig_profiles:
        # a bare device MIG can split: whole GPUs, sent as flytekit's .unpartitioned
        assert (gpu.device, gpu.unpartitioned) == (theirs_gpu.device, True)
        return
    assert template.extended_resources == reference.extended_resources


@pytest.mark.parametrize("name", NVIDIA_CONSTANTS)
def test_every_nvidia_constant_and_partition_gets_idl_and_gpu_count(name: str) -> None:
    device = getattr(constants, name)
    values = [device] + [getattr(device, a) for a in dir(device) if a.startswith("partition_")]
    for value in values:
        for count in (1, 2) if value is device else (1,):
            spec = serialize(_task(**task_args(value.to_spec(count))))
            gpu = spec.template.extended_resources.gpu_accelerator
            whole = value is device and device.accelerator.mig_profiles
            assert gpu == (value.unpartitioned if whole else value).to_flyte_idl()
            # no IDL resources (a later override's device must not be overwritten by them):
            # the count is in the pod template, on both sides
            assert spec.template.container is None
            pod_spec = template_pod_spec(spec)
            assert pod_spec is not None
            resources = primary(pod_spec)["resources"]
            assert resources["requests"]["gpu"] == resources["limits"]["gpu"] == str(count)


@pytest.mark.parametrize(
    "text",
    [
        "H100-SXM:8",
        "A100-80GB:2",
        "L4",
        "A100@2g.10gb",
        "H100-SXM@1g.10gb",
        "V100-32GB",
        "A30@whole",
    ],
)
def test_spec_strings(text: str) -> None:
    spec = AcceleratorSpec.parse(text)
    template = serialize(_task(**task_args(text))).template
    constant = constants.constant_for(spec)
    if spec.partition is None and spec.accelerator.mig_profiles:
        constant = constant.unpartitioned
    assert template.extended_resources.gpu_accelerator == constant.to_flyte_idl()
    pod_spec = template_pod_spec(serialize(_task(**task_args(text))))
    assert pod_spec is not None
    assert primary(pod_spec)["resources"]["limits"]["gpu"] == str(spec.count)


# -- what the IDL cannot say goes into a pod template ------------------------------------------
def test_fallback_goes_into_the_pod_template_not_the_idl() -> None:
    spec = serialize(_task(**task_args("H100-SXM:2 | A100-80GB:2", requests=Resources(cpu="4"))))
    # one GPUAccelerator would AND nvidia-h100 into every term and kill the fallback: the
    # empty one says "none" (and, on a node, replaces the task's)
    assert spec.template.extended_resources.gpu_accelerator == tasks_pb2.GPUAccelerator()
    pod_spec = template_pod_spec(spec)
    assert pod_spec is not None
    [term] = required_terms(pod_spec)
    assert term == [
        {"key": D, "operator": "In", "values": ["nvidia-h100", "nvidia-a100-80gb"]},
        {"key": "k8s.amazonaws.com/gpu-partition-size", "operator": "DoesNotExist"},
    ]
    preferred = pod_spec["affinity"]["nodeAffinity"][
        "preferredDuringSchedulingIgnoredDuringExecution"
    ]
    assert [p["weight"] for p in preferred] == [100, 50]
    resources = primary(pod_spec)["resources"]
    # "gpu" as flytekit writes it; propeller renames it to its gpu-resource-name
    assert resources == {"limits": {"gpu": "2"}, "requests": {"cpu": "4", "gpu": "2"}}
    validate_pod_spec(pod_spec)


@pytest.mark.parametrize(
    ("platform", "devices"),
    [
        # propeller's labels: a device string per V100 model
        ("flyte", ["nvidia-tesla-v100", "nvidia-v100-32gb"]),
        # GKE has no 32 GB V100: the 16 GB card alone, not a refusal (the user asked for either)
        ("gke", ["nvidia-tesla-v100"]),
    ],
)
def test_a_bare_v100_places_on_the_members_the_platform_has(
    platform: str, devices: list[str]
) -> None:
    # issue 32: a bare V100 is the family (Beam's V100 takes 32 GB workers); a member the
    # platform cannot place is left out, with a warning that names it (never silently)
    import warnings

    from accelerators.kubernetes import LeftOutWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        args = task_args("V100:2", platform=platform)
    left = [str(w.message) for w in caught if issubclass(w.category, LeftOutWarning)]
    if platform == "gke":
        assert len(left) == 1
        assert "'V100-32GB:2' on platform 'gke'" in left[0]
    else:
        assert left == []
    spec = serialize(_task(**args))
    assert spec.template.extended_resources.gpu_accelerator == tasks_pb2.GPUAccelerator()
    pod_spec = template_pod_spec(spec)
    assert pod_spec is not None
    if platform == "flyte":
        [term] = required_terms(pod_spec)
        assert term[0] == {"key": D, "operator": "In", "values": devices}
    else:
        assert pod_spec["nodeSelector"] == {"cloud.google.com/gke-accelerator": devices[0]}
        assert "affinity" not in pod_spec
    env = {e["name"]: e.get("value") for e in primary(pod_spec).get("env", [])}
    assert env["ACCELERATORS_PLACED_SPEC"] == "V100-16GB:2 | V100-32GB:2"
    validate_pod_spec(pod_spec)


@pytest.mark.parametrize(
    ("text", "resource", "count"),
    [
        ("V5P@2x2x1", "google.com/tpu", "4"),
        ("MI300X:2", "amd.com/gpu", "2"),
        ("TRAINIUM2:16", "aws.amazon.com/neuron", "16"),
        ("GAUDI3:8", "habana.ai/gaudi", "8"),
    ],
)
def test_other_device_classes_use_a_pod_template_and_say_so(
    text: str, resource: str, count: str
) -> None:
    _WARNED.clear()  # warned once per spec in a process: make this test see it
    with pytest.warns(DeviceClassWarning, match="cannot carry a device class"):
        args = task_args(text, requests=Resources(cpu="2", mem="4Gi"))
    assert args["accelerator"] is NO_ACCELERATOR  # no device class in the v1 IDL
    spec = serialize(_task(**args))
    assert spec.template.extended_resources.gpu_accelerator == tasks_pb2.GPUAccelerator()
    pod_spec = template_pod_spec(spec)
    assert pod_spec is not None
    resources = primary(pod_spec)["resources"]
    assert resources["limits"][resource] == count
    assert resources["requests"] == {resource: count, "cpu": "2", "memory": "4Gi"}
    assert "gpu" not in resources["limits"]
    validate_pod_spec(pod_spec)


def test_users_pod_template_is_merged_not_replaced() -> None:
    mine = PodTemplate(
        pod_spec=V1PodSpec(
            containers=[V1Container(name="main", env=[V1EnvVar(name="A", value="1")])],
            tolerations=[
                V1Toleration(key="team", operator="Equal", value="ml", effect="NoSchedule")
            ],
            node_selector={"pool": "gpu"},
        ),
        primary_container_name="main",
        labels={"team": "ml"},
    )
    args = task_args("H100-SXM | A100-80GB", pod_template=mine, node_name_env=True)
    pod_spec = template_pod_spec(serialize(_task(**args)))
    assert pod_spec is not None
    assert pod_spec["nodeSelector"] == {"pool": "gpu"}
    assert {"key": "team", "operator": "Equal", "value": "ml", "effect": "NoSchedule"} in (
        pod_spec["tolerations"]
    )
    env = primary(pod_spec, "main")["env"]
    assert {"name": "A", "value": "1"} in env
    assert {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}} in env
    assert args["pod_template"].labels == {"team": "ml"}
    assert mine.pod_spec.affinity is None  # the user's object is untouched
    validate_pod_spec(pod_spec)


def test_extra_tolerations_beyond_propeller_go_into_the_template() -> None:
    args = task_args("H100-SXM:8", extended_resource_tolerations=True, runtime_class_name="nvidia")
    pod_spec = template_pod_spec(serialize(_task(**args)))
    assert pod_spec is not None
    assert pod_spec["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]
    assert pod_spec["runtimeClassName"] == "nvidia"
    assert "affinity" not in pod_spec  # propeller adds the device affinity from the IDL


def test_with_overrides_takes_the_same_arguments() -> None:
    job = _task()

    @workflow
    def pipeline(a: int) -> int:
        return job(a=a).with_overrides(**task_args("A100@2g.10gb", pin_node="gpu-node-3"))

    spec = serialize(pipeline)
    [node] = spec.template.nodes
    overrides = node.task_node.overrides
    assert (
        overrides.extended_resources.gpu_accelerator
        == constants.A100.partition_2g_10gb.to_flyte_idl()
    )
    pod_spec = override_pod_spec(overrides)
    assert primary(pod_spec)["resources"]["limits"] == {"gpu": "1"}
    assert required_terms(pod_spec) == [
        [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu-node-3"]}]
    ]
    assert pipeline(a=3) == 3


# -- mistakes fail when the task is written ----------------------------------------------------
@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("A100@1g.5gb:2", "only one MIG device"),
        ("V5P@2x2x2:3", "does not fit"),
        ("T4:0.5", "fractional count"),
        ("A100@1g.5gb+me", "not a valid node label value"),
    ],
)
def test_unplaceable_specs_fail_at_decoration(text: str, needle: str) -> None:
    with pytest.raises(PlacementError, match=needle):
        task_args(text)


def test_gpu_resource_that_disagrees_with_the_spec_is_refused() -> None:
    with pytest.raises(PlacementError, match="disagrees with 'H100-SXM:8', which asks for 8 GPU"):
        task_args("H100-SXM:8", requests=Resources(gpu="1"))
    assert task_args("H100-SXM:8", limits=Resources(gpu="8"))  # the same count is fine


def test_importing_the_plugin_registers_our_constants_with_flytekit() -> None:
    # flytekit imports the plugin through its flytekit.plugins entry point once installed.
    assert isinstance(constants.A100, BaseAccelerator)
    assert isinstance(constants.A100.partition_1g_5gb, BaseAccelerator)
