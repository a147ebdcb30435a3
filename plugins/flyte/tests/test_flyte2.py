"""Flyte 2 (``flyte`` SDK): our specs become ``flyte.Device``/``flyte.Resources`` that
serialise to the device strings flytekit and propeller use, for every device class.

Flyte 2's SDK shares the environment with flytekit (the locks carry both: uv resolves
``flyte`` 2.12.1 with ``flytekit`` 1.16.31 at rich-click 1.8.9). Without ``flyte`` installed
this file is skipped, except in CI, where a missing SDK is a failure.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import pytest

try:
    import flyte
except ImportError:
    if os.environ.get("CI"):
        raise
    pytest.skip("the Flyte 2 SDK (flyte) is not installed here", allow_module_level=True)

from flyte._internal.runtime.resources_serde import (
    get_proto_extended_resources,
    get_proto_resources,
)
from flytekitplugins.accelerators import (
    LOCAL_EXPECT_ENV,
    GateResult,
    flyte2_device,
    flyte2_resources,
    flyte2_run_gate,
)

from accelerators import AcceleratorError, AcceleratorSpec, PlacementError, catalog
from accelerators.constants import flyte_device

GPU_NAME = 2  # flyteidl2 Resources.ResourceName.GPU


def _wire(resources: object) -> tuple[object, list[tuple[int, str]]]:
    accelerator = get_proto_extended_resources(resources).gpu_accelerator
    requests = [(e.name, e.value) for e in get_proto_resources(resources).requests]
    return accelerator, requests


@pytest.mark.parametrize(
    ("text", "device", "partition", "device_class", "count"),
    [
        ("H100-SXM:8", "nvidia-h100", "", 0, "8"),  # the SDK's own "H100" sends nvidia-tesla-h100
        ("H200-SXM", "nvidia-h200", "", 0, "1"),  # the SDK sends "H200" raw
        ("A100-40GB@1g.5gb", "nvidia-tesla-a100", "1g.5gb", 0, "1"),
        ("H100-SXM@3g.40gb", "nvidia-h100", "3g.40gb", 0, "1"),
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
    ours, _ = _wire(flyte2_resources("H100-SXM"))
    assert theirs.device == "nvidia-tesla-h100"
    assert ours.device == "nvidia-h100"


@pytest.mark.parametrize("acc", [a for a in catalog.all() if a.constant], ids=lambda a: a.name)
def test_every_constant_has_a_flyte2_device(acc: Any) -> None:
    # A TPU always needs a topology (its nodes carry one): take the smallest single-host one.
    # the SKU pinned, as its spec writes it ("P100!:16GB": the bare P100 is the 16 GB and the
    # 12 GB card)
    text = str(AcceleratorSpec(accelerator=acc.name, exact=True))
    if acc.tpu_topologies:
        text = acc.name + "!@" + min(acc.tpu_topologies, key=lambda t: t.chips).topology
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
    if acc.device_class == "gpu" and acc.vendor not in ("nvidia", "amd"):
        # Flyte 2's DeviceClass has no Intel GPU (GPU, TPU, NEURON, AMD_GPU, HABANA_GAUDI,
        # APPLE_SILICON), nor Hygon's, Iluvatar's, MetaX's, Moore Threads' or Biren's: refused
        # with a reason, never sent as an NVIDIA "GPU".
        with pytest.raises(PlacementError, match=f"no device class for {acc.vendor} gpu"):
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
    env = flyte.TaskEnvironment(name="train", resources=flyte2_resources("H100-SXM:8", cpu=8))

    @env.task
    async def train() -> None:
        return None

    overridden = train.override(resources=flyte2_resources("A100-80GB:2"))
    assert overridden.resources.gpu.device == "nvidia-a100-80gb"
    assert env.resources.gpu.quantity == 8


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("H100-SXM | A100-80GB", "names one accelerator"),
        ("80GB+", "names one accelerator"),
        ("A100-40GB@whole", "no 'unpartitioned'"),
        ("A100-40GB@1g.5gb:2", "only one MIG device"),
        (
            "H100-SXM@shared",
            "no shared GPU for H100-SXM",
        ),  # the SDK shares T4, L4, A10(G), L40S only
        ("T4@shared:2", "one shared GPU"),
        ("T4:0.5", "state no share"),
    ],
)
def test_what_flyte2_cannot_say_is_refused(text: str, needle: str) -> None:
    with pytest.raises(PlacementError, match=needle):
        flyte2_device(text)


# -- the gate in a Flyte 2 task -------------------------------------------------------------------
gate_env = flyte.TaskEnvironment(
    name="accelerators-gate-test", resources=flyte2_resources("H100-SXM")
)


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
    os.environ[LOCAL_EXPECT_ENV] = "H100-SXM"
    try:
        assert flyte2_run_gate("H100-SXM", run=_on("H100-SXM")).passed
        with pytest.raises(flyte.errors.NonRecoverableError, match="wrong_accelerator"):
            flyte2_run_gate("H100-SXM", run=_on("A100-80GB-SXM"))
        with pytest.raises(flyte.errors.RuntimeUserError) as caught:
            flyte2_run_gate("H100-SXM", policy="retry", run=_on("A100-80GB-SXM"))
        assert not isinstance(caught.value, flyte.errors.NonRecoverableError)
    finally:
        del os.environ[LOCAL_EXPECT_ENV]


def _run_locally(task: Any, **inputs: Any) -> tuple[Any, GateResult]:
    """Run a Flyte 2 task locally (the real gate on this machine); the run and its result."""
    pytest.importorskip("torch", reason="the gate needs torch (the [bench] extra)")
    flyte.init()
    run = flyte.with_runcontext(mode="local").run(task, **inputs)
    outputs = run.outputs()
    result = outputs[0] if isinstance(outputs, tuple) else outputs
    assert isinstance(result, GateResult)
    return run, result


def test_flyte2_task_runs_the_real_gate_locally() -> None:
    _, result = _run_locally(gated, expect="H100-SXM")
    assert result.local
    assert result.expected == "H100-SXM"
    assert "H100-SXM is not on this machine" in result.note
    assert result.headline.startswith("not checked: this machine has no H100-SXM (health of ")


def flyte2_args_for_tests(spec: str) -> dict[str, Any]:
    from flytekitplugins.accelerators import flyte2_args

    return flyte2_args(spec)


# -- flyte2_args: whole GPUs, the spec the pod was placed for, the node name, pinning ----------
def _required(pod_template: Any) -> list[tuple[str, str, list[str] | None]]:
    affinity = pod_template.pod_spec.affinity
    if affinity is None:
        return []
    required = affinity.node_affinity.required_during_scheduling_ignored_during_execution
    [term] = required.node_selector_terms
    return [(e.key, e.operator, e.values) for e in term.match_expressions]


def test_flyte2_args_place_whole_gpus_and_tell_the_gate() -> None:
    from flytekitplugins.accelerators import PLACED_SPEC_ENV, flyte2_args

    env = flyte.TaskEnvironment(name="whole", **flyte2_args("H100-SXM:8", cpu=8))
    assert env.resources.gpu.quantity == 8
    assert env.env_vars == {PLACED_SPEC_ENV: "H100-SXM:8"}
    # a Device has no "unpartitioned": the pod template keeps the pod off MIG nodes
    assert _required(env.pod_template) == [
        ("k8s.amazonaws.com/gpu-partition-size", "DoesNotExist", None)
    ]
    [container] = env.pod_template.pod_spec.containers
    assert [e.name for e in container.env] == ["NODE_NAME"]
    assert (
        _required(flyte2_args("A100-40GB@1g.5gb")["pod_template"]) == []
    )  # the slice is the Device's
    assert _required(flyte2_args("T4")["pod_template"]) == []  # MIG cannot split a T4


def test_flyte2_override_moves_the_gates_expectation_and_pinning_uses_the_gates_node() -> None:
    from flytekitplugins.accelerators import PLACED_SPEC_ENV, flyte2_args, flyte2_pinned

    moved = gated.override(**flyte2_args("H200-SXM:8"))
    assert moved.resources.gpu.device == "nvidia-h200"
    assert moved.env_vars == {PLACED_SPEC_ENV: "H200-SXM:8"}
    result = GateResult(
        verdict="pass",
        expected="H100-SXM | A100-80GB",
        checked="H100-SXM | A100-80GB",
        local=False,
        expected_present=True,
        node="gpu-node-3",
        matched="A100-80GB",
    )
    args = flyte2_pinned("H100-SXM | A100-80GB", result)
    assert args["resources"].gpu.device == "nvidia-a100-80gb"
    assert ("kubernetes.io/hostname", "In", ["gpu-node-3"]) in _required(args["pod_template"])
    result.node = ""
    with pytest.raises(AcceleratorError, match="reported no node name"):
        flyte2_pinned("H100-SXM", result)


def test_flyte2_gate_writes_its_report(monkeypatch: pytest.MonkeyPatch) -> None:
    import flyte.report

    logged: list[str] = []

    class Tab:
        def log(self, content: str) -> None:
            logged.append(content)

    monkeypatch.setattr(flyte.report, "get_tab", lambda name: Tab())
    os.environ[LOCAL_EXPECT_ENV] = "H100-SXM"
    try:
        flyte2_run_gate("H100-SXM", run=_on("H100-SXM"))
        with pytest.raises(flyte.errors.NonRecoverableError):
            flyte2_run_gate("H100-SXM", run=_on("A100-80GB-SXM"))
    finally:
        del os.environ[LOCAL_EXPECT_ENV]
    assert len(logged) == 2
    assert "PASS</span> 1 x H100-SXM" in logged[0]
    assert "FAIL</span>" in logged[1]
    assert "wrong_accelerator" in logged[1]


report_env = flyte.TaskEnvironment(
    name="accelerators-gate-report", **flyte2_args_for_tests("H100-SXM")
)


@report_env.task(report=True)
async def gated_with_report(expect: str) -> GateResult:
    """A module-level Flyte 2 task whose report shows the gate."""
    from flytekitplugins.accelerators import flyte2_gate

    return await flyte2_gate(expect)


def test_flyte2_task_report_holds_the_gate() -> None:
    run, result = _run_locally(gated_with_report, expect="H100-SXM")
    assert result.verdict in ("pass", "warn")
    # a local run writes the task's report under the run's folder (run.url)
    from pathlib import Path

    [page] = list(Path(run.url).rglob("report.html"))
    html = page.read_text(encoding="utf-8")
    assert f"{result.verdict.upper()}</span>" in html
    assert "Memory bandwidth" in html
    assert "H100-SXM is not on this machine" in html  # the local note above the report


def test_a_name_that_leaves_the_model_open_is_refused_naming_its_models() -> None:
    # issue 32: a bare H100 is the family; a Flyte 2 Device names one accelerator
    with pytest.raises(PlacementError, match="name one of H100-SXM, H100-PCIE, H100-NVL"):
        flyte2_device("H100:8")
    with pytest.raises(PlacementError) as info:
        flyte2_device("H100-SXM | A100-80GB")
    assert "name one of" not in str(info.value)
