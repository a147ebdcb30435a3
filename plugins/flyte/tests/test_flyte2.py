"""Flyte 2 (``flyte`` SDK): our specs become ``flyte.Device``/``flyte.Resources`` that
serialise to the device strings flytekit and propeller use, for every device class.

Flyte 2's SDK pins rich-click 1.8.9, which the shared environment has at another version,
so this file runs in its own environment (docs/flyte.md):

    /work/venvs/flyte2/bin/python -m pytest plugins/flyte/tests/test_flyte2.py

Elsewhere it is skipped.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import pytest

flyte = pytest.importorskip("flyte", reason="the Flyte 2 SDK (flyte) is not installed here")

from flyte._internal.runtime.resources_serde import (  # noqa: E402
    get_proto_extended_resources,
    get_proto_resources,
)
from flytekitplugins.accelerators import (  # noqa: E402
    LOCAL_EXPECT_ENV,
    GateResult,
    flyte2_device,
    flyte2_resources,
    flyte2_run_gate,
)

from accelerators import PlacementError, catalog  # noqa: E402
from accelerators.constants import flyte_device  # noqa: E402

GPU_NAME = 2  # flyteidl2 Resources.ResourceName.GPU


def _wire(resources: object) -> tuple[object, list[tuple[int, str]]]:
    accelerator = get_proto_extended_resources(resources).gpu_accelerator
    requests = [(e.name, e.value) for e in get_proto_resources(resources).requests]
    return accelerator, requests


@pytest.mark.parametrize(
    ("text", "device", "partition", "device_class", "count"),
    [
        ("H100:8", "nvidia-h100", "", 0, "8"),  # the SDK's own "H100" sends nvidia-tesla-h100
        ("H200", "nvidia-h200", "", 0, "1"),  # the SDK sends "H200" raw
        ("A100@1g.5gb", "nvidia-tesla-a100", "1g.5gb", 0, "1"),
        ("H100@3g.40gb", "nvidia-h100", "3g.40gb", 0, "1"),
        ("RTX-PRO-6000@2g.48gb", "nvidia-rtx-pro-6000", "2g.48gb", 0, "1"),
        ("V5P@2x2x1", "tpu-v5p-slice", "2x2x1", 1, "4"),
        ("V5E@2x4", "tpu-v5-lite-podslice", "2x4", 1, "8"),
        ("TRAINIUM2:16", "aws-neuron-trn2", "", 2, "16"),
        ("MI300X:8", "amd-mi300x", "", 3, "8"),
        ("GAUDI3:8", "habana-gaudi3", "", 4, "8"),
    ],
)
def test_specs_serialise_with_our_device_strings(
    text: str, device: str, partition: str, device_class: int, count: str
) -> None:
    accelerator, requests = _wire(flyte2_resources(text, cpu=2))
    assert (accelerator.device, accelerator.partition_size, accelerator.device_class) == (
        device,
        partition,
        device_class,
    )
    assert (GPU_NAME, count) in requests


def test_the_sdks_own_h100_string_differs_from_flytekits() -> None:
    # The mismatch we fix: flytekit and propeller's default map use nvidia-h100.
    theirs, _ = _wire(flyte.Resources(gpu="H100:1"))
    ours, _ = _wire(flyte2_resources("H100"))
    assert theirs.device == "nvidia-tesla-h100"
    assert ours.device == "nvidia-h100"


@pytest.mark.parametrize("acc", [a for a in catalog.all() if a.constant], ids=lambda a: a.name)
def test_every_constant_has_a_flyte2_device(acc: Any) -> None:
    # A TPU always needs a topology (its nodes carry one): take the smallest single-host one.
    text = acc.name + "!"
    if acc.tpu_topologies:
        text += "@" + min(acc.tpu_topologies, key=lambda t: t.chips).topology
    if acc.device_class == "tpu" and not (acc.names.gke or acc.names.flyte):
        # TPU v2/v3: Cloud TPU VMs only, no GKE node label to select them by.
        with pytest.raises(PlacementError, match="no GKE TPU node label"):
            flyte2_device(text)
        return
    if acc.device_class == "npu":
        # Flyte 2 has no DeviceClass for NPUs (Ascend, Qualcomm Cloud AI 100) either
        with pytest.raises(PlacementError, match=f"no device class for {acc.vendor} npu"):
            flyte2_device(text)
        return
    if (acc.vendor, acc.device_class) == ("intel", "gpu"):
        # Flyte 2's DeviceClass has no Intel GPU (GPU, TPU, NEURON, AMD_GPU, HABANA_GAUDI,
        # APPLE_SILICON): refused with a reason, never sent as an NVIDIA "GPU".
        with pytest.raises(PlacementError, match="no device class for intel gpu"):
            flyte2_device(text)
        return
    device = flyte2_device(text)
    assert device.device == flyte_device(acc)


@pytest.mark.parametrize(
    "name", ["T4 shared", "L4 shared", "A10G shared", "A10 shared", "L40S shared"]
)
def test_flyte2_shared_gpus_round_trip_through_the_spec(name: str) -> None:
    from accelerators import AcceleratorSpec

    spec = AcceleratorSpec.parse(name)
    assert spec.shared
    assert str(spec).endswith("@shared")
    ours = flyte2_device(spec)
    theirs = flyte.GPU(device=name, quantity=1)  # type: ignore[arg-type]
    assert (ours.device, ours.quantity, ours.device_class) == (name, 1, "GPU")
    assert _wire(flyte2_resources(spec)) == _wire(flyte.Resources(gpu=theirs))
    assert AcceleratorSpec.parse(ours.device) == spec


def test_task_environment_and_override_take_them() -> None:
    env = flyte.TaskEnvironment(name="train", resources=flyte2_resources("H100:8", cpu=8))

    @env.task
    async def train() -> None:
        return None

    overridden = train.override(resources=flyte2_resources("A100-80GB:2"))
    assert overridden.resources.gpu.device == "nvidia-a100-80gb"
    assert env.resources.gpu.quantity == 8


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("H100 | A100-80GB", "names one accelerator"),
        ("80GB+", "names one accelerator"),
        ("A100@whole", "no 'unpartitioned'"),
        ("A100@1g.5gb:2", "only one MIG device"),
        ("H100@shared", "no shared GPU for H100"),  # the SDK shares T4, L4, A10(G), L40S only
        ("T4@shared:2", "one shared GPU"),
        ("T4:0.5", "state no share"),
    ],
)
def test_what_flyte2_cannot_say_is_refused(text: str, needle: str) -> None:
    with pytest.raises(PlacementError, match=needle):
        flyte2_device(text)


# -- the gate in a Flyte 2 task -------------------------------------------------------------------
gate_env = flyte.TaskEnvironment(name="accelerators-gate-test", resources=flyte2_resources("H100"))


@gate_env.task
async def gated(expect: str) -> GateResult:
    """A module-level Flyte 2 task that gates its own pod."""
    return flyte2_run_gate(expect)


def _on(sku: str) -> Any:
    from accelerators.bench import run
    from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

    return functools.partial(run, backend=FakeBackend([FakeDevice()]), detected=fake_detected(sku))


def test_flyte2_gate_policies_map_to_flyte_errors() -> None:
    import flyte.errors

    # outside a task context the local rule applies; the override makes it strict here
    os.environ[LOCAL_EXPECT_ENV] = "H100"
    try:
        assert flyte2_run_gate("H100", run=_on("H100-SXM")).passed
        with pytest.raises(flyte.errors.NonRecoverableError, match="wrong_accelerator"):
            flyte2_run_gate("H100", run=_on("A100-80GB-SXM"))
        with pytest.raises(flyte.errors.RuntimeUserError) as caught:
            flyte2_run_gate("H100", policy="retry", run=_on("A100-80GB-SXM"))
        assert not isinstance(caught.value, flyte.errors.NonRecoverableError)
    finally:
        del os.environ[LOCAL_EXPECT_ENV]


def test_flyte2_task_runs_the_real_gate_locally() -> None:
    pytest.importorskip("torch", reason="the gate needs torch (the [bench] extra)")
    flyte.init()
    run = flyte.with_runcontext(mode="local").run(gated, expect="H100")
    result = run.outputs()
    result = result[0] if isinstance(result, tuple) else result
    assert isinstance(result, GateResult)
    assert result.local
    assert result.expected == "H100"
    assert "H100 is not on this machine" in result.note
