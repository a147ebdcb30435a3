"""Accelerator specs as Flyte 2 resources: ``flyte.Device`` / ``flyte.Resources(gpu=...)``.

Flyte 2's SDK (``flyte`` 2.12) maps its own names to wire device strings, and sends some raw
(``"H200"``, ``"MI300X"``, ``"Trn1"``, left to the backend's ``accelerator-devices`` map) or
different from flytekit's (``H100`` becomes ``nvidia-tesla-h100``; flytekit sends
``nvidia-h100``). We build the :class:`flyte.Device` ourselves with the device string of
:func:`accelerators.constants.flyte_device`, which the SDK passes through unchanged, so one
node label serves flytekit and Flyte 2 tasks alike, and with the device class and count
(TPU chips per host included) from :mod:`accelerators.kubernetes`.

Flyte 2 sends the GPU count as a request only; its backend sets the limit.
"""

from __future__ import annotations

from typing import Any

from accelerators import AcceleratorSpec, PlacementError
from accelerators.constants import constant_for, flyte2_name
from accelerators.kubernetes import placement_problems, to_pod_fragment

__all__ = ["flyte2_device", "flyte2_resources", "flyte2_run_gate"]

#: (vendor, catalog device class) -> Flyte 2 ``DeviceClass``.
_DEVICE_CLASS = {
    ("nvidia", "gpu"): "GPU",
    ("google", "tpu"): "TPU",
    ("aws", "neuron"): "NEURON",
    ("amd", "gpu"): "AMD_GPU",
    ("intel", "hpu"): "HABANA_GAUDI",
}


def flyte2_device(spec: Any) -> Any:
    """The ``flyte.Device`` for ``spec`` (GPU, MIG partition, TPU slice, Neuron, AMD, Gaudi).

    A shared slot (``T4@shared``, Flyte 2's ``"T4 shared"``) becomes the SDK's own shared
    GPU, named by :func:`accelerators.constants.flyte2_name`.

    :param spec: a spec, spec text or constant naming one accelerator.
    :raises PlacementError: fallbacks or a memory request (a Device names one accelerator),
        ``@whole`` (Flyte 2 has no "unpartitioned"), a device class Flyte 2 lacks, or what
        :func:`accelerators.kubernetes.placement_problems` reports.
    :raises ImportError: the ``flyte`` package is not installed.
    """
    import flyte

    parsed = AcceleratorSpec.parse(spec)
    acc = parsed.accelerator
    if parsed.fallbacks or acc is None:
        raise PlacementError(
            f"{str(parsed)!r}: a Flyte 2 Device names one accelerator; fallbacks and memory "
            "requests need one TaskEnvironment per alternative"
        )
    if parsed.unpartitioned:
        raise PlacementError(
            f"{str(parsed)!r}: Flyte 2's Device has no 'unpartitioned' (a Device without a "
            "partition may land on a MIG node); use flytekit's task_args for @whole"
        )
    if parsed.is_shared:  # Flyte 2's own shared GPUs ("T4 shared"), named as the SDK names them
        return flyte.GPU(device=flyte2_name(parsed), quantity=1)
    device_class = _DEVICE_CLASS.get((acc.vendor, acc.device_class))
    if device_class is None:
        raise PlacementError(
            f"{acc.name}: Flyte 2 has no device class for {acc.vendor} {acc.device_class}"
        )
    problems = placement_problems(parsed, platform="flyte")
    if problems:
        raise PlacementError(f"Cannot use {str(parsed)!r} in Flyte 2: " + "; ".join(problems))
    [count] = to_pod_fragment(parsed, platform="flyte")["resources"]["limits"].values()
    return flyte.Device(
        quantity=int(count),
        device_class=device_class,
        device=constant_for(parsed).device,
        partition=parsed.partition,
    )


def flyte2_resources(spec: Any, **resources: Any) -> Any:
    """``flyte.Resources(gpu=flyte2_device(spec), **resources)`` for a ``TaskEnvironment``
    or ``task.override``.

    :param spec: as for :func:`flyte2_device`.
    :param resources: the other ``flyte.Resources`` fields (``cpu``, ``memory``, ``disk``…).
    """
    import flyte

    if "gpu" in resources:
        raise PlacementError("flyte2_resources sets gpu from the spec; leave gpu out")
    return flyte.Resources(gpu=flyte2_device(spec), **resources)


def flyte2_run_gate(
    expect: Any, *, profile: str = "quick", policy: str = "fail", run: Any = None
) -> Any:
    """The benchmark gate inside a Flyte 2 task; returns a :class:`GateResult`.

    Use it in a task of the ``TaskEnvironment`` whose resources are ``flyte2_resources(spec)``,
    first in the task that needs the accelerator, or as its own task (a module-level task, so
    a cluster can load it)::

        env = flyte.TaskEnvironment("train", resources=flyte2_resources("H100:8"))

        @env.task
        async def train() -> float:
            flyte2_run_gate("H100:8")   # raises unless the devices are right
            ...

    The expectation follows the same rule as the flytekit gate (docs/flyte.md): strict when
    ``flyte.ctx().is_in_cluster()``, the local-run rule otherwise. Policies: ``"fail"``
    raises ``flyte.errors.NonRecoverableError`` (no retry); ``"retry"`` raises
    ``flyte.errors.RuntimeUserError``, which the task's ``retries`` retry in a new pod.

    :param expect: the spec the task runs on.
    :param profile: the bench profile.
    :param policy: ``"fail"`` or ``"retry"``.
    :param run: ``accelerators.bench.run`` or a stand-in with its signature (tests).
    """
    import flyte
    import flyte.errors
    from flytekitplugins.accelerators._gate import POLICIES, run_gate

    from accelerators import AcceleratorError, AcceleratorGateError

    if policy not in POLICIES:
        raise AcceleratorError(
            f"Unknown gate policy {policy!r}: expected one of {', '.join(POLICIES)}"
        )
    in_cluster = bool(flyte.ctx()) and flyte.ctx().is_in_cluster()
    try:
        return run_gate(expect, profile=profile, policy="fail", local=not in_cluster, run=run)
    except AcceleratorGateError as error:
        if policy == "retry":
            raise flyte.errors.RuntimeUserError("AcceleratorGateFailed", str(error)) from error
        raise flyte.errors.NonRecoverableError(str(error), code="AcceleratorGateFailed") from error
