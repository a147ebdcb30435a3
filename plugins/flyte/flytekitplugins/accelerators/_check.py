"""``check(workflow_or_task)``: the accelerator mistakes flytekit accepts and Flyte pays for.

Each :class:`Finding` names the task (and node). Codes:

* ``no-gpu-count`` — an accelerator without a GPU request or limit: propeller's
  ``ApplyGPUNodeSelectors`` returns early, the pod lands on any node, with no GPU.
* ``unknown-device`` / ``unknown-partition`` — a device string no catalog entry has, or a
  MIG profile / TPU topology the device does not offer.
* ``placement`` — the spec cannot run as one container on the platform
  (:func:`accelerators.kubernetes.placement_problems`): several MIG slices in one container,
  a TPU slice whose chip count does not fit, a label value Kubernetes rejects…
* ``device-class`` — a TPU, AMD, Neuron or Gaudi device sent as flytekit 1.x's
  ``accelerator=``: the IDL has no device class, so propeller treats it as an NVIDIA GPU.
* ``no-gate`` — a GPU task with no benchmark gate in its own pod and no ``benchmark_gate``
  node upstream of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accelerators import AcceleratorError, AcceleratorSpec, UnknownPartitionError
from accelerators.constants import from_flyte_device
from accelerators.kubernetes import placement_problems

__all__ = ["Finding", "check", "check_file"]

_GATED_ATTRIBUTE = "__accelerators_gate__"
_SPEC_ATTRIBUTE = "__accelerators_spec__"
_GATE_TASK_SUFFIX = "._tasks.benchmark_gate"
_GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu", "google.com/tpu", "aws.amazon.com/neuron")


@dataclass(frozen=True)
class Finding:
    """One mistake: where (task, node), a stable code and a sentence."""

    task: str
    node: str
    code: str
    message: str

    def __str__(self) -> str:
        where = f"{self.task} (node {self.node})" if self.node else self.task
        return f"{where}: [{self.code}] {self.message}"


def check(entity: Any, *, platform: str = "flyte", require_gate: bool = True) -> list[Finding]:
    """Walk a flytekit workflow (sub-workflows and map tasks included) or one task.

    :param entity: a ``@workflow``, ``@task`` or ``map_task`` object.
    :param platform: how the cluster labels nodes (``accelerators.kubernetes.platforms()``).
    :param require_gate: report GPU tasks without a gate (``no-gate``).
    :raises AcceleratorError: ``entity`` is not a flytekit workflow or task.
    """
    findings: list[Finding] = []
    if hasattr(entity, "nodes") and hasattr(entity, "python_interface"):
        _walk(entity, platform, require_gate, findings, gated_from_outside=False)
    elif hasattr(entity, "python_interface"):
        _check_task(entity, None, platform, require_gate, findings, gated=False)
    else:
        raise AcceleratorError(
            f"Expected a flytekit workflow or task, got {type(entity).__name__}: {entity!r}"
        )
    return findings


def _walk(
    workflow: Any, platform: str, require_gate: bool, out: list[Finding], gated_from_outside: bool
) -> None:
    for node in workflow.nodes:
        entity = node.flyte_entity
        gated = gated_from_outside or _gate_upstream(node)
        if hasattr(entity, "nodes") and hasattr(entity, "python_interface"):
            _walk(entity, platform, require_gate, out, gated)
        elif hasattr(entity, "python_interface"):
            _check_task(entity, node, platform, require_gate, out, gated)


def _is_gate(entity: Any) -> bool:
    return str(getattr(entity, "name", "")).endswith(_GATE_TASK_SUFFIX) or (
        str(getattr(entity, "name", "")) == "benchmark_gate"
    )


def _gate_upstream(node: Any) -> bool:
    seen: set[int] = set()
    stack = list(node.upstream_nodes)
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if _is_gate(current.flyte_entity):
            return True
        stack.extend(current.upstream_nodes)
    return False


def _check_task(
    task: Any, node: Any, platform: str, require_gate: bool, out: list[Finding], gated: bool
) -> None:
    inner = getattr(task, "python_function_task", None)  # map_task: the mapped task
    target = inner if inner is not None else task
    if _is_gate(target):
        return
    name = str(getattr(task, "name", target))
    node_id = str(node.id) if node is not None else ""

    def add(code: str, message: str) -> None:
        out.append(Finding(name, node_id, code, message))

    idl = _accelerator_idl(target, node)
    count = _gpu_count(target, node)
    spec = _spec_of(target, idl, count, add)
    if idl is not None and count is None:
        add(
            "no-gpu-count",
            f"accelerator {idl.device!r} is set but the task requests no GPU; propeller then "
            "applies no node selection (and the pod gets no GPU). Use "
            "task_args(spec), which sets requests and limits to the spec's count",
        )
    if spec is not None:
        acc = spec.accelerator
        if (
            idl is not None
            and acc is not None
            and (acc.vendor, acc.device_class)
            != (
                "nvidia",
                "gpu",
            )
        ):
            add(
                "device-class",
                f"{acc.name} is not an NVIDIA GPU, and flytekit 1.x's "
                "accelerator= has no device class, so propeller treats it as one; use "
                "task_args(spec), which places it with a pod template",
            )
        for problem in placement_problems(spec, platform=platform):
            add("placement", problem)
    is_gpu = idl is not None or count is not None or spec is not None
    self_gated = getattr(getattr(target, "task_function", None), _GATED_ATTRIBUTE, None)
    if require_gate and is_gpu and not gated and not self_gated:
        add(
            "no-gate",
            "a GPU task with no benchmark gate in front of it: use accelerator_task(spec) "
            "(gate in the task's pod) or a gate(spec) node upstream with pinned(...)",
        )


def _accelerator_idl(task: Any, node: Any) -> Any:
    override = getattr(node, "_extended_resources", None) if node is not None else None
    if override is not None and override.HasField("gpu_accelerator"):
        return override.gpu_accelerator
    accelerator = getattr(task, "accelerator", None)
    return accelerator.to_flyte_idl() if accelerator is not None else None


def _gpu_count(task: Any, node: Any) -> float | None:
    """The GPU count from node overrides, the task's resources or its pod template."""
    from flytekit.models.task import Resources as ResourceModel

    resources = getattr(node, "_resources", None) if node is not None else None
    if resources is not None:
        for entry in [*resources.limits, *resources.requests]:
            if entry.name == ResourceModel.ResourceName.GPU:
                return float(entry.value)
    spec = getattr(task, "resources", None)
    for side in (getattr(spec, "limits", None), getattr(spec, "requests", None)):
        gpu = getattr(side, "gpu", None)
        if gpu is not None:
            return float(gpu)
    template = getattr(task, "pod_template", None)
    pod_spec = getattr(template, "pod_spec", None)
    for container in getattr(pod_spec, "containers", None) or []:
        limits = getattr(container.resources, "limits", None) or {}
        for key in _GPU_RESOURCES:
            if key in limits:
                return float(limits[key])
    return None


def _spec_of(task: Any, idl: Any, count: float | None, add: Any) -> AcceleratorSpec | None:
    declared = getattr(getattr(task, "task_function", None), _SPEC_ATTRIBUTE, None)
    if declared:
        return AcceleratorSpec.parse(declared)
    if idl is None:
        return None
    oneof = idl.WhichOneof("partition_size_value")
    try:
        value = from_flyte_device(
            idl.device,
            idl.partition_size if oneof == "partition_size" else None,
            unpartitioned=oneof == "unpartitioned",
        )
    except UnknownPartitionError as exc:
        add("unknown-partition", str(exc))
        return None
    except AcceleratorError as exc:
        add("unknown-device", str(exc))
        return None
    return value.to_spec(count or 1)


def check_file(
    path: str, *, platform: str = "flyte", require_gate: bool = True
) -> dict[str, list[Finding]]:
    """Import the Python file at ``path`` and :func:`check` every workflow it defines.

    :param path: a ``.py`` file (its folder goes on ``sys.path`` while it is imported).
    :param platform: as for :func:`check`.
    :param require_gate: as for :func:`check`.
    :returns: workflow name -> findings, for each workflow defined at module level.
    :raises AcceleratorError: the file is missing, is not Python, or defines no workflow.
    """
    import importlib.util
    import sys
    from pathlib import Path

    from flytekit.core.workflow import WorkflowBase

    file = Path(path)
    if not file.is_file() or file.suffix != ".py":
        raise AcceleratorError(f"Expected a Python file with Flyte workflows, got {path!r}")
    name = f"_accelerators_check_{file.stem}"
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:  # pragma: no cover - is_file() checked
        raise AcceleratorError(f"Cannot import {path!r}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(file.parent.resolve()))
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(file.parent.resolve()))
    workflows = {attr: v for attr, v in vars(module).items() if isinstance(v, WorkflowBase)}
    if not workflows:
        raise AcceleratorError(f"{path!r} defines no flytekit workflow at module level")
    return {
        attr: check(wf, platform=platform, require_gate=require_gate)
        for attr, wf in workflows.items()
    }
