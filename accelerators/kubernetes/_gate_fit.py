"""Whether a task pinned to the node a gate checked can run there, on devices the gate checked.

A gate proves one node: the devices its own spec asked for. A task pinned to that node
(:func:`~accelerators.kubernetes.pin_to_node`) can only be scheduled if that node has what
the task asks for, so ``H100:8`` pinned behind an ``A100-80GB:4`` gate waits forever. For
every alternative the gate may match, :func:`guard_problems` looks for an alternative of the
task that a node proven by it hosts:

* the same kind of device: the same MIG profile or TPU topology (or none), shared or not;
* an accelerator the task accepts, whichever SKU the gate's alternative accepts (a gate on
  ``H100`` may match an ``H100-MEGA`` node, which ``H100-SXM!`` refuses);
* no more devices than the gate checked: the task's other devices would be unchecked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accelerators.spec import AcceleratorSpec, SpecLike

__all__ = ["guard_problems"]


def _kind(spec: AcceleratorSpec) -> str:
    if spec.partition is not None:
        return f"{spec.partition} partitions"
    if spec.is_shared:
        return "shared GPU slots"
    return "whole devices"


def _names(spec: AcceleratorSpec) -> set[str]:
    return {acc.name for acc in spec.candidates}


def _accelerator_mismatch(gate: AcceleratorSpec, task: AcceleratorSpec) -> str | None:
    same = gate.accelerator is not None and gate.accelerator is task.accelerator
    if same and gate.exact == task.exact:
        return None  # the same catalog entry, asked for alike: the same SKUs
    gate_names, task_names = _names(gate), _names(task)
    if not gate_names & task_names:
        return f"the gate's node has {gate}, the task needs {task}"
    missing = sorted(gate_names - task_names)
    if missing:
        return (
            f"the gate ({gate}) also passes {', '.join(missing)}, which the task ({task}) does "
            "not accept"
        )
    return None


def _mismatch(gate: AcceleratorSpec, task: AcceleratorSpec) -> str | None:
    """Why a node the gate's alternative proved cannot host the task's alternative."""
    reason = _accelerator_mismatch(gate, task)
    if reason is not None:
        return reason
    if _kind(gate) != _kind(task):
        return f"the gate checks {_kind(gate)} ({gate}), the task needs {_kind(task)} ({task})"
    if not task.is_shared and task.devices_needed > gate.devices_needed:
        unchecked = task.devices_needed - gate.devices_needed
        return (
            f"the task ({task}) uses {task.devices_needed} devices, the gate ({gate}) checks "
            f"{gate.devices_needed}: {unchecked} would run unchecked (give the gate the task's "
            "count)"
        )
    return None


def _alternatives(spec: AcceleratorSpec) -> tuple[AcceleratorSpec, ...]:
    """A spec without fallbacks is its own only alternative (``alternatives`` copies it)."""
    return spec.alternatives if spec.fallbacks else (spec,)


def guard_problems(gate: SpecLike, task: SpecLike) -> tuple[str, ...]:
    """Why ``task``, pinned to the node ``gate`` checked, may not run there; empty if it can.

    One sentence per alternative of ``gate`` that no alternative of ``task`` fits (the first
    alternative's reason is given).

    :param gate: the gate's spec (what its pod asked for): a spec, spec text or constant.
    :param task: the pinned task's spec.
    :raises AcceleratorError: either is not a valid spec.
    """
    from accelerators.spec import AcceleratorSpec

    gate_spec, task_spec = AcceleratorSpec.coerce(gate), AcceleratorSpec.coerce(task)
    if gate_spec == task_spec:  # the same canonical spec: every alternative hosts itself
        return ()
    problems: list[str] = []
    tasks = _alternatives(task_spec)
    for alternative in _alternatives(gate_spec):
        reasons = [_mismatch(alternative, t) for t in tasks]
        if all(reason is not None for reason in reasons):
            problems.append(str(reasons[0]))
    return tuple(problems)
