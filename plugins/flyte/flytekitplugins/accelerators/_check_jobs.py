"""The linter's rules for what node overrides and task plugins silently drop.

* ``override-drops`` — the node's pod template override replaces the task's pod spec whole
  (propeller's ``ApplyPodTemplateOverride``): the task's own cpu/memory and the user's sidecars,
  volumes, node selector, tolerations… that the override does not carry are gone;
* ``pinned-multi-node`` — a task that runs several pods (kfpytorch ``Elastic``/``PyTorch``, Ray)
  pinned to one node: every replica is built from the same template, so all require that one
  hostname; one is scheduled, the others stay Pending;
* ``replica-device`` — a plugin's replica resources (``Worker(limits=Resources(gpu=...))``, a
  Ray group's ``requests``) that replace the spec's GPU count in those pods;
* ``ungated-plugin`` — a task plugin whose pods an in-pod gate cannot all prove
  (:data:`~flytekitplugins.accelerators._plugins.UNGATEABLE`), seen with an accelerator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flytekitplugins.accelerators._carry import lost_by_override
from flytekitplugins.accelerators._placement import Effective
from flytekitplugins.accelerators._plugins import (
    UNGATEABLE,
    gate_of,
    replica_count,
    replica_device_problems,
)

from accelerators import AcceleratorSpec

__all__ = ["job_rules", "pinned_to_host"]

Add = Callable[[str, str], None]
_HOSTNAME = "kubernetes.io/hostname"


def job_rules(task: Any, view: Effective, spec: AcceleratorSpec | None, add: Add) -> None:
    """Report what ``task``'s node overrides and plugin config drop (module docstring)."""
    name = str(getattr(task, "name", task))
    if view.template_from_node and view.template is not None:
        lost = lost_by_override(task, view.template)
        if lost:
            add(
                "override-drops",
                f"the node's pod template replaces {name}'s own whole (propeller's "
                f"ApplyPodTemplateOverride), so the pod loses: {'; '.join(lost)}. Build the "
                f"override with task_args(spec, task={_short(name)}) (or pinned(..., "
                f"task={_short(name)})), which carries them",
            )
    config = getattr(task, "task_config", None)
    pods = replica_count(config)
    if pods > 1 and pinned_to_host(view):
        add(
            "pinned-multi-node",
            f"{type(config).__name__} runs {pods} pods, each built from this node's pod "
            "template, and the template requires one hostname: one pod is scheduled there, the "
            "others stay Pending and the job never starts. Gate every pod instead: "
            "accelerator_task(spec, task_config=...) runs the gate in each replica's pod",
        )
    if spec is not None and view.device:
        [count] = list(view.device.values())[:1] or ["1"]
        for problem in replica_device_problems(config, spec, count):
            add("replica-device", problem)
    task_type = str(getattr(task, "task_type", ""))
    if (spec is not None or view.device) and task_type in UNGATEABLE and gate_of(task) is None:
        add(
            "ungated-plugin",
            f"a {task_type} task: {UNGATEABLE[task_type]}; no gate here or upstream proves the "
            "devices of all its pods. Run run_gate(spec) in each process that owns devices",
        )


def pinned_to_host(view: Effective) -> bool:
    """Whether the effective pod template requires one ``kubernetes.io/hostname``."""
    spec = getattr(view.template, "pod_spec", None)
    affinity = getattr(getattr(spec, "affinity", None), "node_affinity", None)
    required = getattr(affinity, "required_during_scheduling_ignored_during_execution", None)
    for term in getattr(required, "node_selector_terms", None) or []:
        if any(e.key == _HOSTNAME for e in term.match_expressions or []):
            return True
    return _HOSTNAME in (getattr(spec, "node_selector", None) or {})


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]
