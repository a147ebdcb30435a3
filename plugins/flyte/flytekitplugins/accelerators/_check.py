"""``check(workflow_or_task)``: the accelerator mistakes flytekit accepts and Flyte pays for.

Each :class:`Finding` names the task (and node). Each task node is read as the cluster gets it
(:mod:`flytekitplugins.accelerators._placement`: the node's overrides over the task, flytekit's
serialisation, flytepropeller v1.16.8's rules). Codes:

* ``no-gpu-count`` — an accelerator and no GPU request or limit: propeller's
  ``ApplyGPUNodeSelectors`` adds nothing, the pod lands on any node, with no GPU.
* ``unknown-device`` / ``unknown-partition`` — a device string no catalog entry has, or a MIG
  profile / TPU topology the device does not offer.
* ``placement`` — the spec cannot run as one pod on the platform
  (:func:`accelerators.kubernetes.placement_problems`): several MIG slices in one container,
  more devices than any node has, a TPU slice whose chip count does not fit…
* ``device-class`` — a TPU, AMD, Neuron or Gaudi device sent as flytekit 1.x's
  ``accelerator=``: the IDL has no device class, so propeller treats it as an NVIDIA GPU.
* ``whole-or-slice`` — a device MIG can split, with no partition and no ``unpartitioned``:
  the pod may land on a MIG slice (a gate expecting whole GPUs then fails ``mig_slice``).
* ``stale-accelerator`` — the node's pod template places one spec but propeller keeps the
  task's accelerator, and ANDs its device into every node-selector term.
* ``dropped-device`` — a pod template's device resource that never reaches the pod: flytekit
  writes the task's requests/limits over the template's primary container.
* ``gate-mismatch`` — the gate checks another accelerator than the one the pod is placed on
  (a gate node upstream on another spec, or an in-pod gate whose task a node moved without
  ``task_args``).
* ``unpinned-gate`` — a gate node upstream checked its own pod's node; this task's pod may
  land on another one.
* ``no-gate`` — an accelerator task with no gate at all.
* ``override-drops``, ``pinned-multi-node``, ``replica-device``, ``ungated-plugin`` — what node
  overrides and task plugins silently drop (:mod:`flytekitplugins.accelerators._check_jobs`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flytekitplugins.accelerators._check_jobs import job_rules, pinned_to_host
from flytekitplugins.accelerators._gate_node import GateTask, benchmark_gate
from flytekitplugins.accelerators._placement import effective, placed_spec, spec_of_idl
from flytekitplugins.accelerators._plugins import gate_of, replica_count

from accelerators import AcceleratorError, AcceleratorSpec, UnknownPartitionError
from accelerators.constants import constant_for
from accelerators.kubernetes import placement_problems, wants_whole_devices

__all__ = ["Finding", "check", "check_file"]

_CLASS_WORDS = {
    ("nvidia", "gpu"): "GPU",
    ("google", "tpu"): "TPU",
    ("amd", "gpu"): "AMD GPU",
    ("aws", "neuron"): "Neuron",
    ("intel", "hpu"): "Gaudi",
}


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
    :param require_gate: report accelerator tasks without a gate (``no-gate``).
    :raises AcceleratorError: ``entity`` is not a flytekit workflow or task.
    """
    findings: list[Finding] = []
    if hasattr(entity, "nodes") and hasattr(entity, "python_interface"):
        _walk(entity, platform, require_gate, findings, ())
    elif hasattr(entity, "python_interface"):
        _check_task(entity, None, platform, require_gate, findings, ())
    else:
        raise AcceleratorError(
            f"Expected a flytekit workflow or task, got {type(entity).__name__}: {entity!r}"
        )
    return findings


def _walk(
    workflow: Any, platform: str, require_gate: bool, out: list[Finding], outer: tuple[str, ...]
) -> None:
    for node in workflow.nodes:
        entity = node.flyte_entity
        gates = outer + _upstream_gates(node)
        if hasattr(entity, "nodes") and hasattr(entity, "python_interface"):
            _walk(entity, platform, require_gate, out, gates)
        elif hasattr(entity, "python_interface"):
            _check_task(entity, node, platform, require_gate, out, gates)


def _gate_spec(node: Any) -> str | None:
    """The spec a gate node checks, or ``None`` when the node is not a gate."""
    entity = node.flyte_entity
    if isinstance(entity, GateTask):
        return entity.spec
    if entity is benchmark_gate:
        binding = next((b for b in node.bindings if b.var == "expect"), None)
        scalar = getattr(getattr(binding, "binding", None), "scalar", None)
        value = getattr(getattr(scalar, "primitive", None), "string_value", None)
        return str(value) if value else "?"
    return None


def _upstream_gates(node: Any) -> tuple[str, ...]:
    seen: set[int] = set()
    found: list[str] = []
    stack = list(node.upstream_nodes)
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        spec = _gate_spec(current)
        if spec is not None:
            found.append(spec)
        stack.extend(current.upstream_nodes)
    return tuple(found)


def _display(task: Any) -> str:
    if isinstance(task, GateTask):
        return f"gate({task.spec})"
    return str(getattr(task, "name", task))


def _check_task(
    task: Any,
    node: Any,
    platform: str,
    require_gate: bool,
    out: list[Finding],
    gates: tuple[str, ...],
) -> None:
    inner = getattr(task, "python_function_task", None)  # map_task: the mapped task
    target = inner if inner is not None else task
    if target is benchmark_gate:
        return
    node_id = str(node.id) if node is not None else ""

    def add(code: str, message: str) -> None:
        out.append(Finding(_display(target), node_id, code, message))

    view = effective(target, node)
    try:
        idl = spec_of_idl(view.accelerator, view.nvidia_count)
    except UnknownPartitionError as exc:
        add("unknown-partition", str(exc))
        idl = None
    except AcceleratorError as exc:
        add("unknown-device", str(exc))
        idl = None
    placed = placed_spec(view)
    if view.device_name and not view.device:
        add(
            "no-gpu-count",
            f"accelerator {view.device_name!r} is set but the pod requests no GPU (no gpu in "
            "requests or limits; propeller copies a request into the limit, not the other way "
            "round), so ApplyGPUNodeSelectors adds nothing and the pod lands on any node, with "
            "no GPU. Use task_args(spec), which requests the spec's count",
        )
    _idl_rules(idl, view, add)
    _override_rules(view, placed, platform, add)
    spec = placed or idl
    own_gate = gate_of(target)
    if own_gate is not None and spec is None:
        spec = AcceleratorSpec.parse(own_gate.spec)
    if spec is not None:
        for problem in placement_problems(spec, platform=platform):
            add("placement", problem)
    job_rules(target, view, spec, add)
    is_accelerator = spec is not None or bool(view.device)
    if not is_accelerator or isinstance(target, GateTask):
        return
    what = _what(spec)
    if own_gate is not None:
        checks = placed or AcceleratorSpec.parse(own_gate.spec)
        lands = idl if view.device_name else spec
        if lands is not None and not _accepts(checks, lands):
            add(
                "gate-mismatch",
                f"the in-pod gate checks {checks} but the node places the pod on {lands} "
                "(an override that sets accelerator= or resources without task_args): the "
                "gate will fail there. Override with task_args(spec), whose pod template tells "
                "the gate the new spec",
            )
        return
    if gates:
        if spec is not None and not any(
            _accepts(AcceleratorSpec.parse(g), spec) for g in gates if g != "?"
        ):
            add(
                "gate-mismatch",
                f"the gate upstream checks {', '.join(gates)} but this {what} task runs on "
                f"{spec}: the gate says nothing about its devices. Gate the same spec",
            )
        if replica_count(getattr(target, "task_config", None)) > 1:
            add(
                "unpinned-gate",
                f"a gate node upstream checked one node; this {what} task runs several pods, "
                "which one node cannot hold: gate each in its own pod with "
                "accelerator_task(spec, task_config=...)",
            )
        elif not pinned_to_host(view):
            add(
                "unpinned-gate",
                f"a gate node upstream checked its own pod's node; this {what} task's pod may "
                "land on another one. Pin it with pinned(spec, result) in a @dynamic (task=... "
                "carries the task's own settings), or gate in its own pod with "
                "accelerator_task(spec)",
            )
        return
    if require_gate:
        add(
            "no-gate",
            f"a {what} task with no benchmark gate in front of it: use accelerator_task(spec) "
            "(gate in the task's pod) or a gate(spec) node upstream with pinned(...)",
        )


def _idl_rules(idl: AcceleratorSpec | None, view: Any, add: Any) -> None:
    if idl is None or idl.accelerator is None:
        return
    acc = idl.accelerator
    if (acc.vendor, acc.device_class) != ("nvidia", "gpu"):
        add(
            "device-class",
            f"{acc.name} is not an NVIDIA GPU, and flytekit 1.x's accelerator= has no device "
            "class, so propeller treats it as one; use task_args(spec), which places it with "
            "a pod template",
        )
        return
    oneof = view.accelerator.WhichOneof("partition_size_value")
    if oneof is None and wants_whole_devices(idl):
        add(
            "whole-or-slice",
            f"accelerator {view.device_name!r} has no partition and no 'unpartitioned', so the "
            f"pod may land on a MIG slice of a {acc.model}, where a gate expecting whole GPUs "
            f"fails (mig_slice); use {acc.constant or acc.name}.unpartitioned or task_args(spec)",
        )


def _override_rules(view: Any, placed: AcceleratorSpec | None, platform: str, add: Any) -> None:
    # a node that sets an accelerator over the task's template moved the pod itself: the
    # template's spec is the stale one (the gate rules judge that), not the accelerator
    moved_by_node = view.accelerator_from_node and not view.template_from_node
    if placed is not None and view.device_name and not moved_by_node:
        expected = _idl_device(placed) if platform == "flyte" else None
        if expected != view.device_name:
            where = "the task's" if not view.accelerator_from_node else "the node's"
            add(
                "stale-accelerator",
                f"the pod template places {placed} but propeller keeps {where} accelerator "
                f"{view.device_name!r} and ANDs it into every node-selector term"
                + (" (never schedulable)" if expected is None else f" (not {expected!r})")
                + ": send task_args' accelerator with its pod template (a later "
                "with_overrides(...) without accelerator= resets a node's accelerator in "
                "flytekit: chain everything in one call)",
            )
    lost = {k: v for k, v in view.template_device.items() if view.device.get(k) != v}
    if lost and not (set(lost) <= {"gpu", "nvidia.com/gpu"} and view.nvidia_count in lost.values()):
        shown = ", ".join(f"{k}: {v}" for k, v in lost.items())
        given = ", ".join(f"{k}={v}" for k, v in view.task_resources.items())
        add(
            "dropped-device",
            f"the pod template asks for {shown}, but flytekit writes the task's own resources "
            f"({given}) into its primary container, so the pod gets "
            + (", ".join(f"{k}: {v}" for k, v in view.device.items()) or "no device")
            + ". Give cpu/memory to task_args(spec, requests=..., limits=...)"
            + (
                "; a node override cannot change the device of a task that declares resources: "
                "declare the task with task_args"
                if view.template_from_node
                else " instead of @task"
            ),
        )


def _idl_device(spec: AcceleratorSpec) -> str | None:
    """The device string task_args sends for ``spec`` (``None``: the empty accelerator)."""
    acc = spec.accelerator
    if spec.fallbacks or acc is None or (acc.vendor, acc.device_class) != ("nvidia", "gpu"):
        return None
    try:
        return str(constant_for(spec).device)
    except AcceleratorError:
        return None


def _accepts(checks: AcceleratorSpec, lands: AcceleratorSpec) -> bool:
    """Whether every device ``lands`` may get passes a gate expecting ``checks``."""
    for alt in lands.alternatives:
        whole = alt.partition is None
        if not any(
            {c.name for c in alt.candidates} <= {c.name for c in want.candidates}
            and (want.partition == alt.partition or (whole and want.partition is None))
            for want in checks.alternatives
        ):
            return False
    return True


def _what(spec: AcceleratorSpec | None) -> str:
    acc = spec.accelerator if spec is not None else None
    if acc is None:
        return "accelerator"
    return _CLASS_WORDS.get((acc.vendor, acc.device_class), acc.device_class.upper())


def check_file(
    path: str, *, platform: str = "flyte", require_gate: bool = True
) -> dict[str, list[Finding]]:
    """Import the Python file at ``path`` and :func:`check` every workflow it defines.

    The file is imported as ``pyflyte`` imports it: under its own name (``flyte_training``), its
    folder on ``sys.path``, so task names are the ones registration gives them.

    :param path: a ``.py`` file.
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
    name = file.stem
    loaded = sys.modules.get(name)
    if (
        loaded is not None
        and Path(getattr(loaded, "__file__", "") or "").resolve() != file.resolve()
    ):
        name = f"_accelerators_check_{file.stem}"  # another module has the name
    folder = str(file.parent.resolve())
    sys.path.insert(0, folder)
    try:
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, file)
            if spec is None or spec.loader is None:  # pragma: no cover - is_file() checked
                raise AcceleratorError(f"Cannot import {path!r}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
    finally:
        sys.path.remove(folder)
    workflows = {attr: v for attr, v in vars(module).items() if isinstance(v, WorkflowBase)}
    if not workflows:
        raise AcceleratorError(f"{path!r} defines no flytekit workflow at module level")
    return {
        attr: check(wf, platform=platform, require_gate=require_gate)
        for attr, wf in workflows.items()
    }
