"""flytekit tasks: ``accelerator_task`` (gate in the task's own pod), ``benchmark_gate``,
``gate`` (the gate as a workflow node) and ``pinned`` (pin a task to the gate's node).

**Default: the gate runs inside each guarded task's pod, before the user's code**
(``accelerator_task(spec)``). It proves something about the exact devices the code gets: on
an 8-GPU node, or a node cut into MIG slices, another pod on the same node is given other
devices, so a gate in another pod says nothing about them even when pinned to the node.
It costs one gate per task (about 10 s on an H100) and no scheduling constraint.

**The other way: a gate node, then tasks pinned to its node** (``gate(spec)`` in a workflow,
then ``pinned(spec, result)`` inside a ``@dynamic``). One gate for several tasks, whose pods
require ``kubernetes.io/hostname`` = the gate's node. Use it when the tasks take whole nodes
(all the node's GPUs), so the devices are the same ones; a pinned task waits if the node
goes away, and fails to schedule if it was recycled.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flytekit import PodTemplate, Resources, task
from flytekitplugins.accelerators._args import pod_template_for, task_args
from flytekitplugins.accelerators._gate import (
    GateResult,
    is_local_execution,
    render_deck,
    run_gate,
)

from accelerators import AcceleratorError, AcceleratorSpec

__all__ = ["GATED_ATTRIBUTE", "accelerator_task", "benchmark_gate", "gate", "pinned"]

#: Set on a task function that gates itself; the linter reads it.
GATED_ATTRIBUTE = "__accelerators_gate__"
#: Set on every accelerator_task function: the spec text, for the linter.
SPEC_ATTRIBUTE = "__accelerators_spec__"

_GATE_PROCESS_CACHE: dict[tuple[str, str], GateResult] = {}


@task(enable_deck=True, pod_template=pod_template_for({}, node_name_env=True), cache=False)  # type: ignore[untyped-decorator]
def benchmark_gate(expect: str, profile: str = "quick", policy: str = "fail") -> GateResult:
    """Run ``accelerators.bench`` on this pod's accelerator; return the typed result.

    Give the node the same accelerator as the tasks it guards: ``gate(spec)`` does that.
    Fails per ``policy`` (``fail`` or ``retry``) when the verdict is ``fail``; the Deck
    shows the verdict, the reasons, the tables and the chart.
    """
    result = run_gate(expect, profile=profile, policy=policy)
    render_deck(result)
    return result


def gate(
    spec: Any,
    *,
    policy: str = "fail",
    profile: str = "quick",
    platform: str = "flyte",
    **platform_options: Any,
) -> Any:
    """Inside a ``@workflow``: the gate node, on the same accelerator as ``spec``.

    :param spec: the accelerator of the tasks it guards.
    :param policy: ``fail`` or ``retry``.
    :param profile: the bench profile.
    :param platform: as for :func:`task_args`.
    :returns: the node's promise of a :class:`GateResult`.
    """
    parsed = AcceleratorSpec.parse(spec)
    overrides = task_args(parsed, platform=platform, node_name_env=True, **platform_options)
    return benchmark_gate(expect=str(parsed), profile=profile, policy=policy).with_overrides(
        **overrides
    )


def pinned(
    spec: Any, result: GateResult, *, platform: str = "flyte", **kwargs: Any
) -> dict[str, Any]:
    """``with_overrides`` arguments for a task guarded by a gate node: ``spec``, on its node.

    Call it in a ``@dynamic`` (where ``result`` is a value, not a promise). With a fallback
    spec, the alternative the gate matched is used, so the task gets the same hardware.

    :param spec: the accelerator (the gate's).
    :param result: the gate's result.
    :param kwargs: as for :func:`task_args` (``requests``, ``pod_template``…).
    :raises AcceleratorError: in a cluster, the gate did not report a node name.
    """
    chosen = result.matched or spec
    if not result.node:
        if not result.local:
            raise AcceleratorError(
                f"The gate for {result.expected} ran in a cluster but reported no node name "
                "($NODE_NAME was not set), so the guarded task cannot be pinned to the node it "
                "checked; run the gate with gate(spec), whose pod template sets it"
            )
        return task_args(chosen, platform=platform, **kwargs)
    return task_args(chosen, platform=platform, pin_node=result.node, **kwargs)


def accelerator_task(
    spec: Any,
    *,
    gate: bool = True,
    gate_policy: str = "fail",
    gate_profile: str = "quick",
    platform: str = "flyte",
    requests: Resources | None = None,
    limits: Resources | None = None,
    pod_template: PodTemplate | None = None,
    platform_options: dict[str, Any] | None = None,
    **task_kwargs: Any,
) -> Callable[[Callable[..., Any]], Any]:
    """``@task`` on ``spec``'s accelerator, the gate running first in the task's own pod.

    >>> @accelerator_task("H100:8")            # doctest: +SKIP
    ... def train(epochs: int) -> float: ...

    :param spec: the accelerator spec.
    :param gate: run the gate before the function (the default; see the module docstring).
    :param gate_policy: ``fail`` or ``retry``.
    :param gate_profile: the bench profile.
    :param platform: as for :func:`task_args`.
    :param requests: other requests; the GPU count is added.
    :param limits: other limits; the GPU count is added.
    :param pod_template: your pod template, merged.
    :param platform_options: platform options for :func:`task_args`.
    :param task_kwargs: anything else ``@task`` takes (``retries``, ``cache``…).
    """
    args = task_args(
        spec,
        platform=platform,
        requests=requests,
        limits=limits,
        pod_template=pod_template,
        node_name_env=gate,
        **(platform_options or {}),
    )
    text = str(AcceleratorSpec.parse(spec))
    if gate:
        task_kwargs.setdefault("enable_deck", True)

    def decorator(function: Callable[..., Any]) -> Any:
        target = _gated(function, text, gate_policy, gate_profile) if gate else function
        setattr(target, SPEC_ATTRIBUTE, text)
        return task(**args, **task_kwargs)(target)

    return decorator


def _gated(function: Callable[..., Any], spec: str, policy: str, profile: str) -> Any:
    @functools.wraps(function)
    def gated(*args: Any, **kwargs: Any) -> Any:
        local = is_local_execution()
        key = (spec, profile)
        # One pod is one process: in a cluster the cache is the pod's own gate. Locally all
        # tasks share this process and its (CPU) devices, so the gate runs once per spec.
        result = _GATE_PROCESS_CACHE.get(key) if local else None
        if result is None:
            result = run_gate(spec, profile=profile, policy=policy, local=local)
            if local:
                _GATE_PROCESS_CACHE[key] = result
        render_deck(result)
        return function(*args, **kwargs)

    setattr(gated, GATED_ATTRIBUTE, spec)
    return gated
