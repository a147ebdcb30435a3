"""Accelerator specs as Flyte 2 resources: ``flyte.Device`` / ``flyte.Resources(gpu=...)``.

Flyte 2's SDK (``flyte`` 2.12) maps its own names to wire device strings, and sends some raw
(``"H200"``, ``"MI300X"``, ``"Trn1"``, left to the backend's ``accelerator-devices`` map) or
different from flytekit's (``H100`` becomes ``nvidia-tesla-h100``; flytekit sends
``nvidia-h100``). We build the :class:`flyte.Device` ourselves with the device string of
:func:`accelerators.constants.flyte_device`, which the SDK passes through unchanged, so one
node label serves flytekit and Flyte 2 tasks alike, and with the device class and count
(TPU chips per host included) from :mod:`accelerators.kubernetes`.

Flyte 2 sends the GPU count as a request only; its backend sets the limit.

:func:`flyte2_args` is Flyte 2's :func:`~flytekitplugins.accelerators.task_args`: the
``resources``, a ``pod_template`` and ``env_vars`` for ``flyte.TaskEnvironment(...)`` or
``task.override(...)``. The pod template carries what a ``Device`` cannot say: whole GPUs of a
model MIG can split (``<partition label> DoesNotExist``; the gate fails a MIG slice for a spec
without a partition), ``$NODE_NAME`` for the gate's report, and a pin to a node
(:func:`flyte2_pinned`, after a gate task); ``$ACCELERATORS_PLACED_SPEC`` tells the in-pod gate
what the task was placed for, so an override moves its expectation too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from flytekitplugins.accelerators._gate import PLACED_SPEC_ENV

from accelerators import AcceleratorSpec, PlacementError
from accelerators.constants import constant_for, flyte2_name
from accelerators.kubernetes import (
    get_platform,
    merge_fragment,
    node_name_env,
    pin_to_node,
    place,
    wants_whole_devices,
)

if TYPE_CHECKING:
    from accelerators import SpecLike

__all__ = [
    "flyte2_args",
    "flyte2_device",
    "flyte2_gate",
    "flyte2_pinned",
    "flyte2_resources",
    "flyte2_run_gate",
]

#: (vendor, catalog device class) -> Flyte 2 ``DeviceClass``.
_DEVICE_CLASS = {
    ("nvidia", "gpu"): "GPU",
    ("google", "tpu"): "TPU",
    ("aws", "neuron"): "NEURON",
    ("amd", "gpu"): "AMD_GPU",
    ("intel", "hpu"): "HABANA_GAUDI",
}


def flyte2_device(spec: SpecLike) -> Any:
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

    parsed = AcceleratorSpec.coerce(spec)
    acc = parsed.accelerator
    if parsed.fallbacks or acc is None:
        models = [a.accelerator for a in parsed.alternatives if a.accelerator is not None]
        family = (
            len(models) == len(parsed.alternatives) > 1 and len({m.family for m in models}) == 1
        )
        hint = (  # a name that leaves the model open ("H100"): say which models it covers
            "; a name that leaves the model open reads as its family: name one of "
            + ", ".join(m.model for m in models)
            if family
            else ""
        )
        raise PlacementError(
            f"{str(parsed)!r}: a Flyte 2 Device names one accelerator; fallbacks and memory "
            f"requests need one TaskEnvironment per alternative{hint}"
        )
    if parsed.unpartitioned:
        raise PlacementError(
            f"{str(parsed)!r}: Flyte 2's Device has no 'unpartitioned' (a Device without a "
            "partition may land on a MIG node); use flytekit's task_args for @whole"
        )
    if parsed.is_shared:  # Flyte 2's own shared GPUs ("T4 shared"), named as the SDK names them
        return flyte.GPU(device=cast(Any, flyte2_name(parsed)), quantity=1)  # checked by the SDK
    device_class = _DEVICE_CLASS.get((acc.vendor, acc.device_class))
    if device_class is None:
        raise PlacementError(
            f"{acc.name}: Flyte 2 has no device class for {acc.vendor} {acc.device_class}"
        )
    placed = place(parsed, "flyte")  # placed once: the problems and the count
    problems = (*placed.single_process_problems, *placed.problems)
    if problems:
        raise PlacementError(f"Cannot use {str(parsed)!r} in Flyte 2: " + "; ".join(problems))
    [count] = placed.fragment["resources"]["limits"].values()
    return flyte.Device(
        quantity=int(count),
        device_class=cast(Any, device_class),  # one of the SDK's Literal values (_DEVICE_CLASS)
        device=constant_for(parsed).device,
        partition=parsed.partition,
    )


def flyte2_resources(spec: SpecLike, **resources: Any) -> Any:
    """``flyte.Resources(gpu=flyte2_device(spec), **resources)`` for a ``TaskEnvironment``
    or ``task.override``.

    :param spec: as for :func:`flyte2_device`.
    :param resources: the other ``flyte.Resources`` fields (``cpu``, ``memory``, ``disk``…).
    """
    import flyte

    if "gpu" in resources:
        raise PlacementError("flyte2_resources sets gpu from the spec; leave gpu out")
    return flyte.Resources(gpu=flyte2_device(spec), **resources)


def flyte2_args(
    spec: SpecLike,
    *,
    pin_node: str | None = None,
    env_vars: Mapping[str, str] | None = None,
    pod_template: Any = None,
    **resources: Any,
) -> dict[str, Any]:
    """``resources``, ``pod_template`` and ``env_vars`` for ``flyte.TaskEnvironment(...)`` or
    ``task.override(...)`` that place ``spec``::

        env = flyte.TaskEnvironment("train", **flyte2_args("H100:8", cpu=16,
                                                           env_vars={"WANDB_PROJECT": "x"}))
        await train.override(**flyte2_args("H200:8"))()

    Give your own ``env_vars`` and ``pod_template`` here, not beside the call (Python refuses
    the same keyword twice): they are merged as ``task_args`` merges a flytekit template (your
    sidecars, volumes, selectors and tolerations kept; the node selection added to every
    required term).

    :param spec: as for :func:`flyte2_device`.
    :param pin_node: require this node (``kubernetes.io/hostname``): where a gate ran.
    :param env_vars: your environment variables (``$ACCELERATORS_PLACED_SPEC`` is ours).
    :param pod_template: your ``flyte.PodTemplate``; the placement is merged into a copy.
    :param resources: the other ``flyte.Resources`` fields (``cpu``, ``memory``…).
    :raises PlacementError: as :func:`flyte2_device`; a pod template given by name (a ``str``:
        the cluster's, which cannot be merged here) or ``$ACCELERATORS_PLACED_SPEC`` set to
        another spec in ``env_vars``.
    """
    import flyte
    from kubernetes.client import V1EnvVar, V1EnvVarSource, V1ObjectFieldSelector

    parsed = AcceleratorSpec.coerce(spec)
    placed = str(parsed)
    given = dict(env_vars or {})
    if given.get(PLACED_SPEC_ENV, placed) != placed:
        raise PlacementError(
            f"env_vars sets ${PLACED_SPEC_ENV}={given[PLACED_SPEC_ENV]!r}, but the task is "
            f"placed for {placed!r}: the in-pod gate would check the wrong spec; leave it out"
        )
    if isinstance(pod_template, str):
        raise PlacementError(
            f"pod_template={pod_template!r} names a PodTemplate of the cluster, which cannot "
            f"be merged with {placed!r}'s placement here; pass a flyte.PodTemplate instead"
        )
    out: dict[str, Any] = {
        "resources": flyte2_resources(parsed, **resources),
        "env_vars": {**given, PLACED_SPEC_ENV: placed},
    }
    requirements: list[dict[str, Any]] = []
    if parsed.accelerator is not None and wants_whole_devices(parsed):
        label = get_platform("flyte").key("partition")
        requirements.append({"key": label, "operator": "DoesNotExist"})
    if pin_node is not None:
        pin = pin_to_node(pin_node)["affinity"]["nodeAffinity"]
        terms = pin["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        requirements.extend(terms[0]["matchExpressions"])
    primary = getattr(pod_template, "primary_container_name", None) or "primary"
    pod_spec = _user_spec(pod_template, primary)
    if requirements:
        required = {"nodeSelectorTerms": [{"matchExpressions": requirements}]}
        fragment = {
            "affinity": {
                "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}
            }
        }
        pod_spec = merge_fragment(pod_spec, fragment, container=primary)
    variable = node_name_env()
    field = V1ObjectFieldSelector(field_path=variable["valueFrom"]["fieldRef"]["fieldPath"])
    node_env = V1EnvVar(name=variable["name"], value_from=V1EnvVarSource(field_ref=field))
    container = next(c for c in pod_spec.containers if c.name == primary)
    container.env = [e for e in container.env or [] if e.name != node_env.name] + [node_env]
    out["pod_template"] = flyte.PodTemplate(
        pod_spec=pod_spec,
        primary_container_name=primary,
        labels=getattr(pod_template, "labels", None),
        annotations=getattr(pod_template, "annotations", None),
    )
    return out


def _user_spec(pod_template: Any, primary: str) -> Any:
    """A copy of the user's pod spec with its primary container (a new one when none)."""
    import copy

    from kubernetes.client import V1Container, V1PodSpec

    given = getattr(pod_template, "pod_spec", None)
    spec = copy.deepcopy(given) if given is not None else V1PodSpec(containers=[])
    if not any(c.name == primary for c in spec.containers or []):
        spec.containers = [*(spec.containers or []), V1Container(name=primary)]
    return spec


def flyte2_pinned(spec: SpecLike, result: Any, **resources: Any) -> dict[str, Any]:
    """:func:`flyte2_args` for a task that runs after a gate task, on the gate's node
    (``task.override(**flyte2_pinned(spec, result))``): the task's own spec, the gate's device
    picking among its alternatives (as :func:`~flytekitplugins.accelerators.pinned`).

    :param spec: the task's spec.
    :param result: the gate task's :class:`GateResult`.
    :param resources: as for :func:`flyte2_args`.
    :raises AcceleratorError: in a cluster, the gate reported no node name; the gate's device
        is none of ``spec``'s alternatives.
    """
    from flytekitplugins.accelerators._gate import chosen_alternative

    from accelerators import AcceleratorError

    if not result.node and not result.local:
        raise AcceleratorError(
            f"The gate for {result.expected} ran in a cluster but reported no node name "
            "($NODE_NAME), so the task cannot be pinned to the node it checked; give the gate "
            "task's environment flyte2_args(spec), whose pod template sets it"
        )
    chosen = chosen_alternative(spec, result)
    return flyte2_args(chosen, pin_node=result.node or None, **resources)


def flyte2_run_gate(
    expect: SpecLike, *, profile: str = "quick", policy: str = "fail", run: Any = None
) -> Any:
    """The benchmark gate inside a Flyte 2 task; returns a :class:`GateResult`.

    Use it in a task of the ``TaskEnvironment`` built with ``flyte2_args(spec)``, first in the
    task that needs the accelerator, or as its own task (a module-level task, so a cluster can
    load it); with ``report=True`` the task's report shows the gate's verdict, tables and chart::

        env = flyte.TaskEnvironment("train", **flyte2_args("H100:8"))

        @env.task(report=True)
        async def train() -> float:
            flyte2_run_gate("H100:8")   # raises unless the devices are right
            ...

    The expectation follows the same rule as the flytekit gate (docs/flyte.md): in a cluster
    (``flyte.ctx().is_in_cluster()``) the spec the pod was placed for
    (``$ACCELERATORS_PLACED_SPEC`` from :func:`flyte2_args`, else ``expect``), the local-run rule
    otherwise. Policies: ``"fail"`` raises ``flyte.errors.NonRecoverableError`` (no retry);
    ``"retry"`` raises ``flyte.errors.RuntimeUserError``, which the task's ``retries`` retry in a
    new pod.

    :param expect: the spec the task runs on.
    :param profile: the bench profile.
    :param policy: ``"fail"`` or ``"retry"``.
    :param run: ``accelerators.bench.run`` or a stand-in with its signature (tests).
    """
    import flyte
    import flyte.errors
    from flytekitplugins.accelerators._gate import check_gate_options, run_gate

    from accelerators import AcceleratorGateError

    check_gate_options(policy, profile, where=f"flyte2_run_gate({expect!r})")
    context = flyte.ctx()
    in_cluster = bool(context) and bool(context.is_in_cluster())  # type: ignore[no-untyped-call]
    try:
        result = run_gate(expect, profile=profile, policy="fail", local=not in_cluster, run=run)
    except AcceleratorGateError as error:
        _report(error.report, "")
        if policy == "retry":
            raise flyte.errors.RuntimeUserError("AcceleratorGateFailed", str(error)) from error
        raise flyte.errors.NonRecoverableError(str(error), code="AcceleratorGateFailed") from error
    _report(result.report(), result.note, result.headline)
    return result


async def flyte2_gate(
    expect: SpecLike, *, profile: str = "quick", policy: str = "fail", run: Any = None
) -> Any:
    """:func:`flyte2_run_gate` for an ``async`` task: on a failed gate it flushes the task's
    report before raising, so the report of the failure is kept (Flyte 2 flushes a report
    itself only after a task that succeeded)::

        @env.task(report=True)
        async def train() -> float:
            await flyte2_gate("H100:8")
            ...
    """
    import flyte.errors
    import flyte.report

    try:
        return flyte2_run_gate(expect, profile=profile, policy=policy, run=run)
    except flyte.errors.RuntimeUserError:
        await flyte.report.flush.aio()
        raise


def _report(report: Any, note: str, headline: str = "") -> None:
    """The gate's HTML report in the main tab of the task's Flyte 2 report (shown with
    ``@env.task(report=True)``; a dummy report outside a task). Not flushed here: a blocking
    flush inside an async task deadlocks the SDK; the runtime flushes after the task."""
    import flyte.report
    from flytekitplugins.accelerators._deck import report_html

    flyte.report.get_tab("main").log(report_html(report, note=note, headline=headline))
