"""Node overrides that keep what the task asked for: ``task_args(spec, task=train)``.

flytepropeller (v1.16.8, ``BuildRawPod`` -> ``ApplyPodTemplateOverride``) builds a node's pod
from the node's pod template override *alone*: the task's own pod template is not merged, it
is replaced. The cpu and memory ``task_args`` put there, and the user's sidecars, volumes, node
selector, tolerations and environment, are gone unless the override carries them. So:

* every pod template :func:`~flytekitplugins.accelerators.task_args` builds remembers what the
  user gave it (their own template and resources, not the accelerator's parts): :func:`remember`;
* ``task_args(spec, task=train)`` starts from those (:func:`carried`): the new placement is
  built around the task's own template and cpu/memory, and what you pass explicitly wins;
* a plain ``@task`` keeps its own pod template the same way; but flytekit writes a task's own
  ``requests``/``limits`` over the primary container of *any* node template, device included
  (``_serialize_pod_spec``), so moving such a task to another device is refused when written;
* the linter compares each override with the task's own settings
  (:func:`accelerators.kubernetes.dropped_settings`) and reports what it loses
  (``override-drops``).
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

from flytekit import PodTemplate, Resources

from accelerators import PlacementError
from accelerators.kubernetes import dropped_settings

__all__ = ["Inputs", "carried", "lost_by_override", "own_inputs", "remember"]

_ATTRIBUTE = "_accelerators_inputs"
_NVIDIA = ("gpu", "nvidia.com/gpu")


@dataclass(frozen=True)
class Inputs:
    """What the user gave ``task_args`` for a task: their own template and resources."""

    template: PodTemplate | None = None
    requests: Resources | None = None
    limits: Resources | None = None
    #: the task's own flytekit resources (a plain ``@task(requests=...)``), name -> value
    task_level: tuple[tuple[str, str], ...] = ()


def remember(template: PodTemplate, inputs: Inputs) -> None:
    """Record on ``template`` (built by ``task_args``) what the user gave for it."""
    setattr(template, _ATTRIBUTE, inputs)


def own_inputs(task: Any) -> Inputs:
    """The user's own settings of ``task``: what ``task_args`` recorded, else the task's own pod
    template and flytekit resources.

    Volumes and volume mounts a task plugin added to the task's template (kfpytorch's
    ``/dev/shm``) are the task's too, and are kept with the recorded template.
    """
    template = getattr(task, "pod_template", None)
    recorded = getattr(template, _ATTRIBUTE, None)
    if isinstance(recorded, Inputs):
        return dataclasses.replace(recorded, template=_with_volumes(recorded.template, template))
    from flytekitplugins.accelerators._placement import task_resources

    level = tuple(sorted(task_resources(task).items()))
    return Inputs(template=template, task_level=level)


def carried(
    task: Any,
    pod_template: PodTemplate | None,
    requests: Resources | None,
    limits: Resources | None,
    *,
    device: tuple[str, str],
    where: str,
) -> tuple[PodTemplate | None, Resources | None, Resources | None]:
    """The template and resources of an override of ``task``: the task's own, then yours.

    :param task: the node's task.
    :param pod_template: a template given explicitly (it replaces the task's own).
    :param requests: requests given explicitly (each value wins over the task's).
    :param limits: likewise for limits.
    :param device: ``(resource, count)`` the new placement asks for (``gpu`` is propeller's
        NVIDIA GPU).
    :param where: how the call is named in messages.
    :raises PlacementError: the task declares its own flytekit ``requests``/``limits``, which
        flytekit writes over the override's device (unless it asks for exactly that device).
    """
    inputs = own_inputs(task)
    if inputs.task_level:
        _refuse_task_level(task, dict(inputs.task_level), device, where)
    return (
        pod_template if pod_template is not None else inputs.template,
        _update(inputs.requests, requests),
        _update(inputs.limits, limits),
    )


def lost_by_override(task: Any, node_template: PodTemplate) -> list[str]:
    """What the node's pod template override loses of ``task``'s own settings."""
    inputs = own_inputs(task)
    template = inputs.template
    primary = template.primary_container_name if template is not None else "primary"
    before = _as_dict(template.pod_spec if template is not None else None)
    containers = [dict(c) for c in before.get("containers") or []]
    main = next((c for c in containers if c.get("name") == primary), None)
    if main is None:
        main = {"name": primary}
        containers.append(main)
    resources = dict(main.get("resources") or {})
    for side, given in (("requests", inputs.requests), ("limits", inputs.limits)):
        values = dict(resources.get(side) or {})
        values.update(_native(given))
        resources[side] = values
    main["resources"] = resources
    before["containers"] = containers
    after = _as_dict(node_template.pod_spec)
    lost = dropped_settings(
        before, after, container=primary, after_container=node_template.primary_container_name
    )
    for field, word in (("labels", "pod label"), ("annotations", "pod annotation")):
        kept = getattr(node_template, field) or {}
        lost += [
            f"{word} {k}={v}"
            for k, v in (getattr(template, field, None) or {}).items()
            if kept.get(k) != v
        ]
    if inputs.task_level:  # flytekit copies the task's own resources into the node template
        lost = [item for item in lost if not item.startswith(("cpu ", "memory ", "ephemeral"))]
    return lost


# -- helpers -----------------------------------------------------------------------------------
_FIELDS = (("cpu", "cpu"), ("mem", "memory"), ("ephemeral_storage", "ephemeral-storage"))


def _native(given: Resources | None) -> dict[str, str]:
    return {
        name: str(getattr(given, attribute))
        for attribute, name in _FIELDS
        if given is not None and getattr(given, attribute, None) is not None
    }


def _update(base: Resources | None, given: Resources | None) -> Resources | None:
    """``base`` with each value ``given`` sets replaced (``None`` when both are)."""
    if base is None:
        return given
    if given is None:
        return base
    changes = {f.name: getattr(given, f.name) for f in dataclasses.fields(given)}
    return dataclasses.replace(base, **{k: v for k, v in changes.items() if v is not None})


def _with_volumes(template: PodTemplate | None, actual: PodTemplate | None) -> PodTemplate | None:
    """``template`` with the volumes (and primary-container mounts) ``actual`` has beyond it."""
    if actual is None or actual.pod_spec is None:
        return template
    from kubernetes.client import V1Container, V1PodSpec

    volumes = list(actual.pod_spec.volumes or [])
    main = _primary(actual)
    mounts = list(getattr(main, "volume_mounts", None) or [])
    if not volumes and not mounts:
        return template
    primary = template.primary_container_name if template is not None else "primary"
    spec = copy.deepcopy(template.pod_spec) if template is not None and template.pod_spec else None
    spec = spec or V1PodSpec(containers=[])
    have = {v.name for v in spec.volumes or []}
    spec.volumes = [*(spec.volumes or []), *(v for v in volumes if v.name not in have)] or None
    containers = list(spec.containers or [])
    target = next((c for c in containers if c.name == primary), None)
    if target is None:
        target = V1Container(name=primary)
        containers.append(target)
    paths = {m.mount_path for m in target.volume_mounts or []}
    target.volume_mounts = [
        *(target.volume_mounts or []),
        *(m for m in mounts if m.mount_path not in paths),
    ] or None
    spec.containers = containers
    return PodTemplate(
        pod_spec=spec,
        primary_container_name=primary,
        labels=template.labels if template is not None else None,
        annotations=template.annotations if template is not None else None,
    )


def _primary(template: PodTemplate) -> Any:
    name = template.primary_container_name
    return next((c for c in template.pod_spec.containers or [] if c.name == name), None)


def _as_dict(spec: Any) -> dict[str, Any]:
    from kubernetes.client import ApiClient

    return dict(ApiClient().sanitize_for_serialization(spec) or {}) if spec is not None else {}


def _refuse_task_level(
    task: Any, level: dict[str, str], device: tuple[str, str], where: str
) -> None:
    resource, count = device
    gpu = {v for k, v in level.items() if k.endswith(":gpu")}
    if resource in _NVIDIA and gpu == {count}:
        return  # flytekit's copy of the task's resources says what the override says
    shown = ", ".join(f"{k}={v}" for k, v in level.items())
    name = getattr(task, "name", task)
    raise PlacementError(
        f"{where}: {name} declares its own resources ({shown}); flytekit writes them over the "
        f"primary container of any node pod template, so the override's {count} x {resource} "
        f"would never reach the pod. Declare {name} with task_args(spec, requests=..., "
        "limits=...) (its cpu and memory then move with every override)"
    )
