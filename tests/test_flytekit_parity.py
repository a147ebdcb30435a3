"""Our constants are drop-ins for flytekit's: same names, same IDL, same serialized tasks.

Everything here runs the real flytekit (the ``[flyte]`` extra). flytekit's constants and
their ``partition_*``/``slice_*``/``unpartitioned`` attributes are discovered by
introspection, so a flytekit release that adds one is compared without editing this file.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections import OrderedDict
from typing import Any

import pytest

flytekit_accelerators = pytest.importorskip(
    "flytekit.extras.accelerators", reason="flytekit (the [flyte] extra) is not installed"
)

from flytekit import Resources, task, workflow  # noqa: E402
from flytekit.configuration import Image, ImageConfig, SerializationSettings  # noqa: E402
from flytekit.models.task import Resources as ResourceModel  # noqa: E402
from flytekit.tools.translator import get_serializable  # noqa: E402

import accelerators  # noqa: E402
from accelerators import constants  # noqa: E402
from accelerators.constants import Device, Partition  # noqa: E402

BaseAccelerator = flytekit_accelerators.BaseAccelerator
ResourceName = ResourceModel.ResourceName

THEIR_CONSTANTS: dict[str, Any] = {
    name: value
    for name, value in vars(flytekit_accelerators).items()
    if name.isupper() and isinstance(value, BaseAccelerator)
}


def _their_attributes(value: Any) -> list[str]:
    found = [n for n in dir(type(value)) if n.startswith(("partition_", "slice_"))]
    if hasattr(value, "unpartitioned"):
        found.append("unpartitioned")
    return sorted(found)


THEIR_ATTRIBUTES = [
    (name, attribute)
    for name, value in THEIR_CONSTANTS.items()
    for attribute in _their_attributes(value)
]

SETTINGS = SerializationSettings(
    project="project",
    domain="development",
    version="v1",
    image_config=ImageConfig(default_image=Image(name="default", fqn="registry/image", tag="v1")),
)


def _assert_same_idl(ours: Device | Partition, theirs: Any) -> None:
    mine, flytes = ours.to_flyte_idl(), theirs.to_flyte_idl()
    assert type(mine) is type(flytes)
    assert mine == flytes
    assert mine.WhichOneof("partition_size_value") == flytes.WhichOneof("partition_size_value")
    assert mine.SerializeToString(deterministic=True) == flytes.SerializeToString(
        deterministic=True
    )


def test_flytekit_constants_were_discovered() -> None:
    # Guards the introspection: flytekit 1.16 has 18 constants and 5 partitionable ones.
    assert len(THEIR_CONSTANTS) >= 18
    assert sum(1 for _, a in THEIR_ATTRIBUTES if a == "unpartitioned") >= 5


@pytest.mark.parametrize("name", sorted(THEIR_CONSTANTS))
def test_every_flytekit_constant_has_ours_with_the_same_idl(name: str) -> None:
    assert name in constants.__all__
    ours = getattr(accelerators, name)
    assert isinstance(ours, Device)
    assert ours.name == name
    _assert_same_idl(ours, THEIR_CONSTANTS[name])


@pytest.mark.parametrize(("name", "attribute"), THEIR_ATTRIBUTES)
def test_every_flytekit_partition_has_ours_with_the_same_idl(name: str, attribute: str) -> None:
    ours = getattr(getattr(constants, name), attribute)
    assert isinstance(ours, Partition)
    _assert_same_idl(ours, getattr(THEIR_CONSTANTS[name], attribute))


@pytest.mark.parametrize("name", sorted(THEIR_CONSTANTS))
def test_whole_gpu_constants_match_flytekits_partition_surface(name: str) -> None:
    # Where flytekit has no partitions, ours may have more (H100 MIG), never fewer.
    theirs = set(_their_attributes(THEIR_CONSTANTS[name]))
    ours = getattr(constants, name)
    ours_attributes = {a for a in dir(ours) if a.startswith(("partition_", "slice_"))}
    if hasattr(ours, "unpartitioned"):
        ours_attributes.add("unpartitioned")
    assert theirs <= ours_attributes


# -- end to end: flytekit's own decorator and serializer ---------------------------------------
def test_task_with_our_partition_serializes_like_flytekits() -> None:
    a100 = constants.A100

    @task(accelerator=a100.partition_2g_10gb, requests=Resources(gpu="1"))
    def on_a_slice(a: int) -> int:
        return a + 1

    @task(accelerator=flytekit_accelerators.A100.partition_2g_10gb, requests=Resources(gpu="1"))
    def on_their_slice(a: int) -> int:
        return a + 1

    template = get_serializable(OrderedDict(), SETTINGS, on_a_slice).template
    gpu = template.extended_resources.gpu_accelerator
    assert gpu.device == "nvidia-tesla-a100"
    assert gpu.partition_size == "2g.10gb"
    assert gpu.WhichOneof("partition_size_value") == "partition_size"
    requests = template.container.resources.requests
    assert [(r.name, r.value) for r in requests] == [(ResourceName.GPU, "1")]

    reference = get_serializable(OrderedDict(), SETTINGS, on_their_slice).template
    assert template.extended_resources == reference.extended_resources
    # The whole template reaches the wire format, and the task still runs locally.
    assert template.to_flyte_idl().SerializeToString()
    assert on_a_slice(a=1) == 2


@pytest.mark.parametrize(
    ("attribute", "oneof", "expected"),
    [("unpartitioned", "unpartitioned", True), ("slice_2x2x1", "partition_size", "2x2x1")],
)
def test_task_with_unpartitioned_or_tpu_slice(attribute: str, oneof: str, expected: object) -> None:
    owner = constants.A100 if attribute == "unpartitioned" else constants.V5P

    @task(accelerator=getattr(owner, attribute))
    def placed() -> None:
        return None

    gpu = get_serializable(OrderedDict(), SETTINGS, placed).template.extended_resources
    assert gpu.gpu_accelerator.device == owner.device
    assert gpu.gpu_accelerator.WhichOneof("partition_size_value") == oneof
    assert getattr(gpu.gpu_accelerator, oneof) == expected


def test_node_override_with_our_constant() -> None:
    h100 = constants.H100

    @task(requests=Resources(gpu="1"))
    def train(a: int) -> int:
        return a * 2

    @workflow
    def pipeline(a: int) -> int:
        return train(a=a).with_overrides(accelerator=h100)

    spec = get_serializable(OrderedDict(), SETTINGS, pipeline)
    [node] = spec.template.nodes
    gpu = node.task_node.overrides.extended_resources.gpu_accelerator
    assert gpu.device == "nvidia-h100"
    assert gpu.WhichOneof("partition_size_value") is None
    assert gpu == flytekit_accelerators.H100.to_flyte_idl()
    assert spec.to_flyte_idl().SerializeToString()
    assert pipeline(a=2) == 4


def test_partitions_flytekit_lacks_serialize_too() -> None:
    # GIVEN a MIG profile of a GPU that flytekit offers only whole (H100 in flytekit 1.16)
    h100 = constants.H100
    extra = [a for a in dir(h100) if a.startswith("partition_")]
    if not extra or _their_attributes(THEIR_CONSTANTS["H100"]):
        pytest.skip("the catalog has no H100 MIG profiles, or flytekit has them")
    part = getattr(h100, extra[0])

    @task(accelerator=part, requests=Resources(gpu="1"))
    def on_h100_slice() -> None:
        return None

    gpu = get_serializable(OrderedDict(), SETTINGS, on_h100_slice).template.extended_resources
    assert (gpu.gpu_accelerator.device, gpu.gpu_accelerator.partition_size) == (
        "nvidia-h100",
        part.partition,
    )


def test_the_flyte_plugin_registers_our_constants_with_flytekit() -> None:
    # flytekit 1.16 never checks isinstance(..., BaseAccelerator) (the tests above pass plain
    # values). flytekitplugins-accelerators, which flytekit loads through its
    # ``flytekit.plugins`` entry point, registers ours as virtual subclasses so that
    # isinstance() holds too. A child process keeps the registration out of this one.
    from importlib.metadata import entry_points

    if "accelerators" not in {ep.name for ep in entry_points(group="flytekit.plugins")}:
        if os.environ.get("CI"):
            pytest.fail("flytekitplugins-accelerators is not installed (scripts/bootstrap does it)")
        pytest.skip("flytekitplugins-accelerators is not installed")
    code = textwrap.dedent(
        """
        from flytekit.extras.accelerators import BaseAccelerator
        from accelerators.constants import A100, H100
        assert isinstance(A100, BaseAccelerator)
        assert isinstance(A100.unpartitioned, BaseAccelerator)
        assert isinstance(H100.partition_1g_10gb, BaseAccelerator)
        assert not isinstance(object(), BaseAccelerator)
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=_child_env())


def _child_env() -> dict[str, str]:
    """The environment for a child interpreter that imports this checkout's package."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}


# -- issue 8, item 0: no constant is accepted by @task and fails only at serialisation ---------
ALL_VALUES = [
    (name, attribute)
    for name in constants._constant_names()
    for attribute in [
        "",
        *[a for a in dir(getattr(constants, name)) if a.startswith(("partition_", "slice_"))],
        *(["unpartitioned"] if hasattr(getattr(constants, name), "unpartitioned") else []),
    ]
]


def test_every_constant_and_partition_serialises_in_a_task() -> None:
    # GIVEN every constant, MIG partition, TPU slice and .unpartitioned we export
    # (counted from the data: '+' profiles cannot be label values and are not attributes)
    expected = sum(
        1
        + sum(1 for m in acc.mig if "+" not in m.profile)
        + len(acc.tpu_topologies)
        + (1 if acc.partitions else 0)
        for acc in accelerators.catalog.all()
        if acc.constant
    )
    assert len(ALL_VALUES) == expected
    for name, attribute in ALL_VALUES:
        device = getattr(constants, name)
        value = getattr(device, attribute) if attribute else device

        @task(accelerator=value, requests=Resources(gpu="1"), limits=Resources(gpu="1"))
        def placed() -> None:
            return None

        # WHEN flytekit serialises the task THEN the IDL is the value's own, on the wire too
        template = get_serializable(OrderedDict(), SETTINGS, placed).template
        gpu = template.extended_resources.gpu_accelerator
        assert gpu == value.to_flyte_idl(), (name, attribute)
        assert template.to_flyte_idl().SerializeToString()
