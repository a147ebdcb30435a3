"""Accelerator specs as flytekit task arguments, the same for ``@task`` and ``with_overrides``.

:func:`task_args` returns four arguments, always the same four, whatever the spec:

* ``pod_template``: the device resource (``gpu: 8``, ``amd.com/gpu: 8``, ``google.com/tpu:
  4``…) and your cpu/memory in the primary container, the node selection propeller does not
  add itself, ``$ACCELERATORS_PLACED_SPEC`` (the spec the pod is placed for: the in-pod gate
  checks it) and ``$NODE_NAME``;
* ``accelerator``: for one NVIDIA GPU or MIG slice on propeller's labels (platform
  ``flyte``), the constant (flytekit's IDL; ``unpartitioned`` for whole GPUs of a model MIG
  can split); for anything else :data:`NO_ACCELERATOR`, an empty ``GPUAccelerator``;
* ``requests`` and ``limits``: empty ``Resources()``.

Why, in flytepropeller v1.16.8 and flytekit 1.16:

* a node's ``extended_resources`` replaces the task's only when it is set
  (``applyExtendedResourcesOverrides``), and ``ApplyGPUNodeSelectors`` ANDs the device into
  every required term: an override that sends no accelerator keeps the task's. The empty one
  clears it (no device, no partition: propeller adds nothing);
* a node's pod template replaces the task's pod spec (``BuildRawPod``), but flytekit writes the
  *task's* requests and limits into its primary container whenever the task has any
  (``_serialize_pod_spec``): device resources of an override would be lost to the task's. A
  task built by these arguments has none (the empty ``Resources()``), so any later override
  can change its device, vendor included;
* the empty ``requests``/``limits`` also reserve the names: ``@task(**task_args(...),
  requests=...)`` is a ``TypeError`` for every device, never a template whose device flytekit
  silently replaced with your cpu. Give your resources to :func:`task_args`.

A user's own pod template is merged, never replaced
(:func:`accelerators.kubernetes.merge_fragment`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from flytekit import PodTemplate, Resources
from flytekit.extras.accelerators import BaseAccelerator
from flytekitplugins.accelerators._carry import Inputs, carried, remember
from flytekitplugins.accelerators._gate import PLACED_SPEC_ENV
from kubernetes.client import (
    V1Container,
    V1EnvVar,
    V1EnvVarSource,
    V1ObjectFieldSelector,
    V1PodSpec,
)

from accelerators import AcceleratorError, AcceleratorSpec, PlacementError
from accelerators.constants import constant_for
from accelerators.kubernetes import (
    PlacedPod,
    merge_fragment,
    pin_to_node,
    place,
    to_pod_fragment,
    wants_whole_devices,
)
from accelerators.kubernetes import node_name_env as _downward_node_name

if TYPE_CHECKING:
    from accelerators import SpecLike

__all__ = [
    "NO_ACCELERATOR",
    "PLACED_SPEC_ENV",
    "DeviceClassWarning",
    "pod_template_for",
    "task_args",
]

_GPU = "nvidia.com/gpu"
#: flytekit's name for the GPU resource; propeller renames it to its ``gpu-resource-name``.
_FLYTE_GPU = "gpu"
_NODE_NAME_ENV: str = _downward_node_name()["name"]
_PRIMARY = "primary"
_SELECTION_KEYS = ("nodeSelector", "affinity", "tolerations", "runtimeClassName")
_RESOURCE_FIELDS = (("cpu", "cpu"), ("mem", "memory"), ("ephemeral_storage", "ephemeral-storage"))


class DeviceClassWarning(UserWarning):
    """flytekit 1.x cannot send this device's class; a pod template places it instead."""


class _NoAccelerator:
    """An accelerator that clears the task's: an empty ``GPUAccelerator`` (no device, no
    partition), so propeller's ``ApplyGPUNodeSelectors`` adds nothing."""

    def to_flyte_idl(self) -> Any:
        from flyteidl.core import tasks_pb2

        return tasks_pb2.GPUAccelerator()

    def __repr__(self) -> str:
        return "<NO_ACCELERATOR: the pod template places this task>"


#: The ``accelerator=`` of a spec the IDL cannot say (fallbacks, memory requests, other
#: vendors, other platforms): an empty ``GPUAccelerator``, which on a node replaces the task's.
NO_ACCELERATOR = _NoAccelerator()
BaseAccelerator.register(_NoAccelerator)


def task_args(
    spec: SpecLike,
    *,
    platform: str = "flyte",
    requests: Resources | None = None,
    limits: Resources | None = None,
    resources: Resources | None = None,
    pod_template: PodTemplate | None = None,
    node_name_env: bool = True,
    pin_node: str | None = None,
    task: Any = None,
    **platform_options: Any,
) -> dict[str, Any]:
    """Keyword arguments for ``@task(...)`` or ``node.with_overrides(...)`` that place ``spec``.

    >>> from flytekit import Resources, task, workflow
    >>> args = task_args("H100-SXM:8", requests=Resources(cpu="16", mem="128Gi"))
    >>> args["accelerator"], sorted(args)
    (<Partition H100-SXM@whole>, ['accelerator', 'limits', 'pod_template', 'requests'])
    >>> @task(**args)
    ... def train() -> None:
    ...     pass
    >>> @workflow
    ... def pipeline() -> None:
    ...     train().with_overrides(**task_args("H100-SXM:8 | A100-80GB:8"))

    :param spec: an :class:`~accelerators.AcceleratorSpec`, spec text (``"A100@2g.10gb"``,
        ``"H100 | A100-80GB"``), a constant, or a fallback list.
    :param platform: how the cluster labels its nodes (``accelerators.kubernetes.platforms()``);
        ``flyte`` is propeller's default configuration.
    :param requests: your other requests (cpu, mem, ephemeral_storage).
    :param limits: your other limits.
    :param resources: flytekit's ``Resources`` for both (a value is a request, a pair is
        ``(request, limit)``); not with ``requests``/``limits``.
    :param pod_template: your pod template; the accelerator's parts are merged into a copy.
    :param node_name_env: set ``$NODE_NAME`` from the pod's ``spec.nodeName`` (the gate's
        report reads it).
    :param pin_node: require this node (``kubernetes.io/hostname``): where a gate ran.
    :param task: for ``with_overrides`` on a node of ``task``: start from the task's own pod
        template, cpu and memory (a node's template replaces the task's whole in propeller;
        ``docs/flyte.md``), what you pass here winning.
    :param platform_options: options of the platform (``labels``, ``tolerations``,
        ``unpartitioned_requirement``…; see ``docs/kubernetes.md``).
    :returns: ``accelerator``, ``requests``, ``limits`` and ``pod_template``.
    :raises PlacementError: the spec cannot run as one container on the platform (the
        message lists every reason: MIG slices per container, more devices than any node,
        TPU chips, label values…), a ``gpu`` in your resources, or a ``task`` whose own
        flytekit resources would replace the override's device.
    """
    return _task_args(
        spec,
        platform=platform,
        requests=requests,
        limits=limits,
        resources=resources,
        pod_template=pod_template,
        node_name_env=node_name_env,
        pin_node=pin_node,
        task=task,
        **platform_options,
    )[0]


def _task_args(
    spec: SpecLike,
    *,
    platform: str = "flyte",
    requests: Resources | None = None,
    limits: Resources | None = None,
    resources: Resources | None = None,
    pod_template: PodTemplate | None = None,
    node_name_env: bool = True,
    pin_node: str | None = None,
    task: Any = None,
    **platform_options: Any,
) -> tuple[dict[str, Any], PlacedPod]:
    """:func:`task_args`, and the placement it made (for ``accelerator_task``, which reads
    the device count from it rather than placing the spec again)."""
    parsed = AcceleratorSpec.coerce(spec)  # the one parse
    try:
        placed = place(parsed, platform, **platform_options)  # the one placement
    except AcceleratorError as exc:  # an unknown platform or option: listed as before
        raise PlacementError(
            f"Cannot use {str(parsed)!r} as a Flyte task's accelerator: {exc}"
        ) from None
    problems = (*placed.single_process_problems, *placed.problems)
    if problems:
        raise PlacementError(
            f"Cannot use {str(parsed)!r} as a Flyte task's accelerator: " + "; ".join(problems)
        )
    placed.warn_left_out(f"{str(parsed)!r} as a Flyte task's accelerator: ", stacklevel=3)
    if pod_template is not None and pod_template.pod_spec is not None:
        # A selector, affinity or device resource of the template that no node can meet
        # together with the spec (propeller adds the accelerator's own labels on top).
        found = placed.conflicts(pod_template.pod_spec, source="pod_template")
        if found:
            raise PlacementError("; ".join(found))
    user_requests, user_limits = _user_resources(requests, limits, resources)
    fragment: dict[str, Any] = dict(placed.fragment)
    [(resource, count)] = fragment["resources"]["limits"].items()
    if task is not None:
        pod_template, user_requests, user_limits = carried(
            task,
            pod_template,
            user_requests,
            user_limits,
            device=(resource, count),
            where=f"task_args({str(parsed)!r}, task=...)",
        )
    for given in (user_requests, user_limits):
        _refuse_gpu(given, parsed, resource, count)
    accelerator: Any = NO_ACCELERATOR
    if resource == _GPU and platform == "flyte" and parsed.accelerator and not parsed.fallbacks:
        constant = constant_for(parsed)
        if parsed.partition is None and wants_whole_devices(parsed):
            constant = constant.unpartitioned
        accelerator = constant
        placement = _beyond_propeller(parsed, fragment, placed_with_options=bool(platform_options))
    else:
        if resource != _GPU:
            _warn_device_class(parsed, resource)
        placement = {k: v for k, v in fragment.items() if k in _SELECTION_KEYS}
    device = _FLYTE_GPU if resource == _GPU and platform == "flyte" else resource
    placement["resources"] = {"limits": {device: count}, "requests": {device: count}}
    template = _build_template(
        placement,
        pod_template,
        node_name_env=node_name_env,
        pin_node=pin_node,
        env={PLACED_SPEC_ENV: str(parsed)},
    )
    _set_user_resources(template, user_requests, user_limits)
    remember(template, Inputs(pod_template, user_requests, user_limits))
    args = {
        "accelerator": accelerator,
        "requests": Resources(),
        "limits": Resources(),
        "pod_template": template,
    }
    return args, placed


def pod_template_for(
    fragment: Mapping[str, Any],
    pod_template: PodTemplate | None = None,
    *,
    node_name_env: bool = False,
    pin_node: str | None = None,
    env: Mapping[str, str] | None = None,
) -> PodTemplate | None:
    """A copy of ``pod_template`` (or a new one) with ``fragment`` merged into it.

    :param fragment: a pod fragment (``resources`` go to the primary container).
    :param pod_template: the user's template, kept as it is.
    :param node_name_env: add ``$NODE_NAME`` from the downward API to the primary container.
    :param pin_node: require this node (:func:`accelerators.kubernetes.pin_to_node`).
    :param env: more environment variables for the primary container (replacing same names).
    :returns: ``None`` when there is nothing to say (no fragment, template, variable or pin).
    """
    if not (fragment or pod_template or node_name_env or pin_node or env):
        return None
    return _build_template(
        fragment, pod_template, node_name_env=node_name_env, pin_node=pin_node, env=env
    )


def _build_template(
    fragment: Mapping[str, Any],
    pod_template: PodTemplate | None,
    *,
    node_name_env: bool,
    pin_node: str | None,
    env: Mapping[str, str] | None,
) -> PodTemplate:
    primary = pod_template.primary_container_name if pod_template else _PRIMARY
    spec = (
        pod_template.pod_spec
        if pod_template and pod_template.pod_spec
        else V1PodSpec(containers=[])
    )
    containers = list(spec.containers or [])
    if not any(c.name == primary for c in containers):
        containers.append(V1Container(name=primary))
    spec = V1PodSpec(**{**_fields(spec), "containers": containers})
    if fragment:
        spec = merge_fragment(spec, fragment, container=primary)
    if pin_node is not None:
        spec = merge_fragment(spec, pin_to_node(pin_node), container=primary)
    added = [V1EnvVar(name=name, value=value) for name, value in (env or {}).items()]
    if node_name_env:
        field = V1ObjectFieldSelector(field_path="spec.nodeName")
        added.append(V1EnvVar(name=_NODE_NAME_ENV, value_from=V1EnvVarSource(field_ref=field)))
    if added:
        container = next(c for c in spec.containers if c.name == primary)
        names = {e.name for e in added}
        container.env = [e for e in container.env or [] if e.name not in names] + added
    return PodTemplate(
        pod_spec=spec,
        primary_container_name=primary,
        labels=pod_template.labels if pod_template else None,
        annotations=pod_template.annotations if pod_template else None,
    )


# -- helpers ----------------------------------------------------------------------------------
def _fields(spec: V1PodSpec) -> dict[str, Any]:
    return {name: getattr(spec, name) for name in spec.attribute_map if name != "containers"}


def _user_resources(
    requests: Resources | None, limits: Resources | None, resources: Resources | None
) -> tuple[Resources | None, Resources | None]:
    """The user's requests and limits, from either form flytekit takes."""
    if resources is None:
        return requests, limits
    if requests is not None or limits is not None:
        raise PlacementError(
            "task_args takes resources= or requests=/limits=, not both (as flytekit's @task)"
        )
    from flytekit.core.resources import ResourceSpec

    both = ResourceSpec.from_multiple_resource(resources)
    return both.requests, both.limits


def _refuse_gpu(given: Resources | None, spec: AcceleratorSpec, resource: str, count: str) -> None:
    if given is None or given.gpu is None:
        return
    if resource == _GPU and str(given.gpu) == count:
        return  # says what the spec says
    what = f"asks for {count} x {resource}" if resource != _GPU else f"asks for {count} GPU(s)"
    raise PlacementError(
        f"Resources(gpu={given.gpu!r}) disagrees with {str(spec)!r}, which {what} per pod "
        "(flytekit's gpu is always propeller's NVIDIA GPU resource); leave gpu out, the spec "
        "sets the device and its count"
    )


def _set_user_resources(
    template: PodTemplate, requests: Resources | None, limits: Resources | None
) -> None:
    """The user's cpu, memory and ephemeral storage in the primary container (theirs win)."""
    container = next(
        c for c in template.pod_spec.containers if c.name == template.primary_container_name
    )
    for side, given in (("requests", requests), ("limits", limits)):
        values = dict(getattr(container.resources, side) or {})
        for attribute, name in _RESOURCE_FIELDS:
            value = getattr(given, attribute, None)
            if value is not None:
                values[name] = str(value)
        setattr(container.resources, side, values)


def _beyond_propeller(
    spec: AcceleratorSpec, fragment: Mapping[str, Any], *, placed_with_options: bool
) -> dict[str, Any]:
    """What the configured fragment has that propeller, placing the IDL, does not add: what
    the platform options add to propeller's default placement (with no options, nothing;
    with some, the default configuration's placement is what propeller adds)."""
    if not placed_with_options:
        return {}
    default = to_pod_fragment(spec, platform="flyte")
    extra: dict[str, Any] = {}
    tolerations = [t for t in fragment.get("tolerations", []) if t not in default["tolerations"]]
    if tolerations:
        extra["tolerations"] = tolerations
    if "runtimeClassName" in fragment:
        extra["runtimeClassName"] = fragment["runtimeClassName"]
    return extra


_WARNED: set[str] = set()


def _warn_device_class(spec: AcceleratorSpec, resource: str) -> None:
    text = str(spec)
    if text in _WARNED:
        return
    _WARNED.add(text)
    warnings.warn(
        f"{text}: flytekit 1.x tasks cannot carry a device class (GPUAccelerator has no "
        f"device_class before Flyte 2), so the pod template requests {resource} and selects "
        "the nodes, and accelerator= is the empty NO_ACCELERATOR",
        DeviceClassWarning,
        stacklevel=3,
    )
