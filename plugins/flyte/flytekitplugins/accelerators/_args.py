"""Accelerator specs as flytekit task arguments: ``accelerator=``, GPU resources, a pod template.

Which argument says what (``docs/flyte.md`` has the table):

* **Propeller can place it** (platform ``flyte``, one named NVIDIA accelerator requested as
  ``nvidia.com/gpu``): ``accelerator=`` (the constant, so the IDL is flytekit's own),
  ``requests`` and ``limits`` with the GPU count (propeller ignores an accelerator without
  a GPU limit), and a pod template only for what propeller does not add (extra
  tolerations, a runtime class, the ``$NODE_NAME`` variable of a gated task).
* **The IDL cannot say it** (fallbacks, a memory request, another platform's labels): the
  GPU count in ``requests``/``limits``, and node selection and tolerations from
  :func:`accelerators.kubernetes.to_pod_fragment` in the pod template; no ``accelerator=``,
  because propeller would AND its one device label into every node-selector term.
* **Not an NVIDIA GPU request** (TPU, AMD, Neuron, Gaudi, MIG resources named
  ``nvidia.com/mig-…``): flytekit 1.x cannot carry a device class and its ``gpu`` resource
  always becomes propeller's GPU resource name, so everything, resources included, goes
  into the pod template, and :class:`DeviceClassWarning` says so.

A user's own pod template is merged, never replaced
(:func:`accelerators.kubernetes.merge_fragment`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from flytekit import PodTemplate, Resources
from kubernetes.client import (
    V1Container,
    V1EnvVar,
    V1EnvVarSource,
    V1ObjectFieldSelector,
    V1PodSpec,
)

from accelerators import AcceleratorSpec, PlacementError
from accelerators.constants import constant_for
from accelerators.kubernetes import (
    merge_fragment,
    pin_to_node,
    placement_problems,
    to_pod_fragment,
)
from accelerators.kubernetes import node_name_env as _downward_node_name

__all__ = ["DeviceClassWarning", "pod_template_for", "task_args"]

_GPU = "nvidia.com/gpu"
_NODE_NAME_ENV: str = _downward_node_name()["name"]
_PRIMARY = "primary"
_SELECTION_KEYS = ("nodeSelector", "affinity", "tolerations", "runtimeClassName")


class DeviceClassWarning(UserWarning):
    """flytekit 1.x cannot send this device's class; a pod template places it instead."""


def task_args(
    spec: Any,
    *,
    platform: str = "flyte",
    requests: Resources | None = None,
    limits: Resources | None = None,
    pod_template: PodTemplate | None = None,
    node_name_env: bool = False,
    pin_node: str | None = None,
    **platform_options: Any,
) -> dict[str, Any]:
    """Keyword arguments for ``@task(...)`` or ``node.with_overrides(...)`` that place ``spec``.

    >>> @task(**task_args("H100:8"))          # doctest: +SKIP
    ... def train() -> None: ...

    :param spec: an :class:`~accelerators.AcceleratorSpec`, spec text (``"A100@2g.10gb"``,
        ``"H100 | A100-80GB"``), a constant, or a fallback list.
    :param platform: how the cluster labels its nodes (``accelerators.kubernetes.platforms()``);
        ``flyte`` is propeller's default configuration.
    :param requests: your other requests (cpu, mem); the GPU count is added.
    :param limits: your other limits; the GPU count is added.
    :param pod_template: your pod template; the accelerator's parts are merged into a copy.
    :param node_name_env: set ``$NODE_NAME`` from the pod's ``spec.nodeName`` (the gate's
        report reads it).
    :param pin_node: require this node (``kubernetes.io/hostname``): where a gate ran.
    :param platform_options: options of the platform (``labels``, ``tolerations``,
        ``unpartitioned_requirement``…; see ``docs/kubernetes.md``).
    :returns: ``accelerator`` (when propeller places it), ``requests``, ``limits`` and
        ``pod_template`` (when needed).
    :raises PlacementError: the spec cannot run as one container on the platform (the
        message lists every reason: MIG slices per container, TPU chips, label values…).
    """
    parsed = AcceleratorSpec.parse(spec)
    problems = placement_problems(parsed, platform=platform, **platform_options)
    if problems:
        raise PlacementError(
            f"Cannot use {str(parsed)!r} as a Flyte task's accelerator: " + "; ".join(problems)
        )
    fragment: dict[str, Any] = dict(to_pod_fragment(parsed, platform=platform, **platform_options))
    [(resource, count)] = fragment["resources"]["limits"].items()
    out: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    if resource == _GPU:
        out["requests"] = _with_gpu(requests, count)
        out["limits"] = _with_gpu(limits, count)
        single = parsed.accelerator is not None and not parsed.fallbacks
        if platform == "flyte" and single:
            out["accelerator"] = constant_for(parsed)
            extra = _beyond_propeller(parsed, fragment)
        else:
            extra = {k: v for k, v in fragment.items() if k in _SELECTION_KEYS}
    else:
        _warn_device_class(parsed, resource)
        extra = dict(fragment)
        extra["resources"] = _container_resources(fragment["resources"], requests, limits)
    template = pod_template_for(extra, pod_template, node_name_env=node_name_env, pin_node=pin_node)
    if template is not None:
        out["pod_template"] = template
    return out


def pod_template_for(
    fragment: Mapping[str, Any],
    pod_template: PodTemplate | None = None,
    *,
    node_name_env: bool = False,
    pin_node: str | None = None,
) -> PodTemplate | None:
    """A copy of ``pod_template`` (or a new one) with ``fragment`` merged into it.

    :param fragment: a pod fragment (``resources`` go to the primary container).
    :param pod_template: the user's template, kept as it is.
    :param node_name_env: add ``$NODE_NAME`` from the downward API to the primary container.
    :param pin_node: require this node (:func:`accelerators.kubernetes.pin_to_node`).
    :returns: ``None`` when there is nothing to say (no fragment, template, variable or pin).
    """
    if not fragment and pod_template is None and not node_name_env and pin_node is None:
        return None
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
    if node_name_env:
        container = next(c for c in spec.containers if c.name == primary)
        env = [e for e in container.env or [] if e.name != _NODE_NAME_ENV]
        env.append(
            V1EnvVar(
                name=_NODE_NAME_ENV,
                value_from=V1EnvVarSource(
                    field_ref=V1ObjectFieldSelector(field_path="spec.nodeName")
                ),
            )
        )
        container.env = env
    return PodTemplate(
        pod_spec=spec,
        primary_container_name=primary,
        labels=pod_template.labels if pod_template else None,
        annotations=pod_template.annotations if pod_template else None,
    )


# -- helpers ----------------------------------------------------------------------------------
def _fields(spec: V1PodSpec) -> dict[str, Any]:
    return {name: getattr(spec, name) for name in spec.attribute_map if name != "containers"}


def _with_gpu(resources: Resources | None, count: str) -> Resources:
    base = resources or Resources()
    if base.gpu is not None and str(base.gpu) != count:
        raise PlacementError(
            f"Resources(gpu={base.gpu!r}) disagrees with the accelerator spec's count {count}; "
            "leave gpu out, the spec sets it"
        )
    return Resources(
        cpu=base.cpu, mem=base.mem, gpu=count, ephemeral_storage=base.ephemeral_storage
    )


def _beyond_propeller(spec: AcceleratorSpec, fragment: Mapping[str, Any]) -> dict[str, Any]:
    """What the configured fragment has that propeller, placing the IDL, does not add."""
    default = to_pod_fragment(spec, platform="flyte")
    extra: dict[str, Any] = {}
    tolerations = [t for t in fragment.get("tolerations", []) if t not in default["tolerations"]]
    if tolerations:
        extra["tolerations"] = tolerations
    if "runtimeClassName" in fragment:
        extra["runtimeClassName"] = fragment["runtimeClassName"]
    return extra


def _container_resources(
    device: Mapping[str, Any], requests: Resources | None, limits: Resources | None
) -> dict[str, Any]:
    """The device resources plus the user's cpu/mem: flytekit would overwrite them otherwise."""
    out = {"limits": dict(device["limits"]), "requests": dict(device["requests"])}
    for key, given in (("requests", requests), ("limits", limits)):
        if given is None:
            continue
        if given.gpu is not None:
            raise PlacementError(
                f"Resources(gpu={given.gpu!r}) would become propeller's NVIDIA GPU resource; "
                "the spec sets the device resource, leave gpu out"
            )
        for name, value in (
            ("cpu", given.cpu),
            ("memory", given.mem),
            ("ephemeral-storage", given.ephemeral_storage),
        ):
            if value is not None:
                out[key][name] = str(value)
    return out


_WARNED: set[str] = set()


def _warn_device_class(spec: AcceleratorSpec, resource: str) -> None:
    text = str(spec)
    if text in _WARNED:
        return
    _WARNED.add(text)
    warnings.warn(
        f"{text}: flytekit 1.x tasks cannot carry a device class (GPUAccelerator has no "
        f"device_class before Flyte 2), so accelerator= is not sent; the pod template requests "
        f"{resource} and selects the nodes",
        DeviceClassWarning,
        stacklevel=3,
    )
