"""What a task node really asks the cluster for, read from flytekit objects the way flytekit
serialises them and flytepropeller v1.16.8 reads them (for the linter).

:func:`effective` combines a task with its node's overrides:

* the accelerator: the node's ``extended_resources.gpu_accelerator`` when the node sets one,
  else the task's (``applyExtendedResourcesOverrides``); an empty one selects nothing;
* the pod template: the node's replaces the task's whole (``BuildRawPod``);
* the primary container's resources: flytekit writes the *task's* requests and limits into
  the template's primary container whenever the task has any, replacing what the template said
  (``_serialize_pod_spec``), then the node's requests and limits win key by key
  (``MergeResources``), and a GPU request without a limit gets the request as its limit
  (``AdjustOrDefaultResource``);
* the spec the pod is placed for: ``$ACCELERATORS_PLACED_SPEC`` of that template (what
  ``task_args`` set), if any.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flytekitplugins.accelerators._gate import PLACED_SPEC_ENV

from accelerators import AcceleratorError, AcceleratorSpec
from accelerators.constants import from_flyte_device
from accelerators.kubernetes import is_device_resource

__all__ = ["FLYTEKIT_GPU", "Effective", "effective", "spec_of_idl", "task_resources"]

#: flytekit's name for propeller's GPU resource; every other device resource is the core's
#: (:func:`accelerators.kubernetes.is_device_resource`, from the vendor registry).
FLYTEKIT_GPU = "gpu"
_NVIDIA = (FLYTEKIT_GPU, "nvidia.com/gpu")
_FIELDS = (
    ("cpu", "cpu"),
    ("mem", "memory"),
    ("gpu", "gpu"),
    ("ephemeral_storage", "ephemeral-storage"),
)


@dataclass
class Effective:
    """One task node as the cluster gets it."""

    accelerator: Any = None  # flyteidl GPUAccelerator or None
    accelerator_from_node: bool = False
    template: Any = None  # flytekit PodTemplate or None
    template_from_node: bool = False
    template_device: dict[str, str] = field(default_factory=dict)
    device: dict[str, str] = field(default_factory=dict)  # what the container really limits
    task_resources: dict[str, str] = field(default_factory=dict)
    placed: str = ""  # $ACCELERATORS_PLACED_SPEC of the template

    @property
    def nvidia_count(self) -> str | None:
        """The GPU count propeller sees (``gpu``/``nvidia.com/gpu`` limit), if any."""
        return next((self.device[k] for k in _NVIDIA if k in self.device), None)

    @property
    def device_name(self) -> str:
        """The accelerator's device string, ``""`` when none (or the empty one)."""
        return str(getattr(self.accelerator, "device", "") or "")


def effective(task: Any, node: Any) -> Effective:
    """The effective accelerator, pod template and device resources of ``task`` on ``node``."""
    out = Effective()
    override = getattr(node, "_extended_resources", None) if node is not None else None
    if override is not None and override.HasField("gpu_accelerator"):
        out.accelerator, out.accelerator_from_node = override.gpu_accelerator, True
    elif getattr(task, "accelerator", None) is not None:
        out.accelerator = task.accelerator.to_flyte_idl()
    node_template = getattr(node, "_pod_template", None) if node is not None else None
    out.template = node_template or getattr(task, "pod_template", None)
    out.template_from_node = node_template is not None
    out.task_resources = task_resources(task)
    primary = _primary(out.template)
    limits: dict[str, str] = {}
    requests: dict[str, str] = {}
    if primary is not None:
        out.template_device = _devices(getattr(primary.resources, "limits", None) or {})
        out.placed = next(
            (e.value or "" for e in primary.env or [] if e.name == PLACED_SPEC_ENV), ""
        )
    if out.task_resources or primary is None:  # flytekit writes the task's resources
        limits = {k[6:]: v for k, v in out.task_resources.items() if k.startswith("limit:")}
        requests = {k[8:]: v for k, v in out.task_resources.items() if k.startswith("request:")}
    else:
        resources = primary.resources
        limits = {str(k): str(v) for k, v in (getattr(resources, "limits", None) or {}).items()}
        requests = {str(k): str(v) for k, v in (getattr(resources, "requests", None) or {}).items()}
    node_resources = getattr(node, "_resources", None) if node is not None else None
    if node_resources is not None:
        limits.update(_entries(node_resources.limits))
        requests.update(_entries(node_resources.requests))
    for name in _NVIDIA:  # AdjustOrDefaultResource: the request becomes the limit
        if name in requests and name not in limits:
            limits[name] = requests[name]
    out.device = _devices(limits)
    return out


def spec_of_idl(accelerator: Any, count: str | None) -> AcceleratorSpec | None:
    """The spec a ``GPUAccelerator`` and GPU count stand for (``None`` for the empty one).

    :raises AcceleratorError: an unknown device string or partition.
    """
    if accelerator is None or not accelerator.device:
        return None
    oneof = accelerator.WhichOneof("partition_size_value")
    value = from_flyte_device(
        accelerator.device,
        accelerator.partition_size if oneof == "partition_size" else None,
        unpartitioned=oneof == "unpartitioned" and accelerator.unpartitioned,
    )
    try:
        number = float(count) if count is not None else 1.0
    except ValueError:
        number = 1.0
    return value.to_spec(number if number > 0 else 1)


def placed_spec(view: Effective) -> AcceleratorSpec | None:
    """The spec of ``$ACCELERATORS_PLACED_SPEC``, or ``None`` (unset or not a spec)."""
    if not view.placed:
        return None
    try:
        return AcceleratorSpec.parse(view.placed)
    except AcceleratorError:
        return None


# -- helpers -----------------------------------------------------------------------------------
def _primary(template: Any) -> Any:
    if template is None or template.pod_spec is None:
        return None
    name = template.primary_container_name
    return next((c for c in template.pod_spec.containers or [] if c.name == name), None)


def _devices(values: Any) -> dict[str, str]:
    return {
        str(k): str(v)
        for k, v in dict(values).items()
        if str(k) == FLYTEKIT_GPU or is_device_resource(str(k))
    }


def task_resources(task: Any) -> dict[str, str]:
    """``{"request:cpu": "8", "limit:gpu": "1", …}``: what flytekit sends as the task's."""
    spec = getattr(task, "resources", None)
    out: dict[str, str] = {}
    for prefix, side in (
        ("request:", getattr(spec, "requests", None)),
        ("limit:", getattr(spec, "limits", None)),
    ):
        for attribute, name in _FIELDS:
            value = getattr(side, attribute, None)
            if value is not None:
                out[prefix + name] = str(value)
    return out


def _entries(entries: Any) -> dict[str, str]:
    from flytekit.models.task import Resources as ResourceModel

    names = {
        ResourceModel.ResourceName.CPU: "cpu",
        ResourceModel.ResourceName.MEMORY: "memory",
        ResourceModel.ResourceName.GPU: "gpu",
        ResourceModel.ResourceName.EPHEMERAL_STORAGE: "ephemeral-storage",
    }
    return {names[e.name]: str(e.value) for e in entries if e.name in names}
