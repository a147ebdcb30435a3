"""The gate as a workflow node: ``gate(spec)``, then tasks pinned to its node (``pinned``).

One gate for several tasks, whose pods require ``kubernetes.io/hostname`` = the gate's node.
Use it when the tasks take whole nodes (all the node's GPUs), so the devices are the same ones;
a pinned task waits if the node goes away, and fails to schedule if it was recycled.

``gate(spec)`` is a node of a task made for that placement (:class:`GateTask`): the
accelerator, the device resources and the pod template are in the task's template, not in node
overrides, so nothing chained on the node (``.with_overrides(retries=3)``, which in flytekit
resets a node's ``extended_resources``) can take them away. Such tasks are built on demand, so
a resolver (:data:`gate_task_resolver`) rebuilds them in the pod from their name, the way
flytekit's own plugins load tasks that are not module attributes.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flytekit import Resources, task
from flytekit.configuration import SerializationSettings
from flytekit.core.base_task import TaskResolverMixin
from flytekit.core.python_function_task import PythonFunctionTask
from flytekit.core.tracker import TrackedInstance
from flytekit.extend import TaskPlugins
from flytekitplugins.accelerators._args import pod_template_for, task_args
from flytekitplugins.accelerators._deck import writing_decks
from flytekitplugins.accelerators._gate import (
    GateResult,
    check_gate_options,
    chosen_alternative,
    render_deck,
    run_gate,
)
from flytekitplugins.accelerators._tasks import _retries_for

from accelerators import AcceleratorError, AcceleratorSpec

if TYPE_CHECKING:
    from accelerators import SpecLike

__all__ = ["GateTask", "benchmark_gate", "gate", "gate_task_resolver", "pinned"]

_NAME_PREFIX = "flytekitplugins.accelerators.gate."
_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


class _ChecksOptions:
    """Calling the gate task in a workflow checks a literal ``policy``/``profile`` there, when
    the workflow is written (compiled); a Promise (a workflow input) is checked by the gate
    itself at run start, before the benchmark."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        check_literal_options(
            kwargs.get("policy", "fail"), kwargs.get("profile", "quick"), where=_where(kwargs)
        )
        return super().__call__(*args, **kwargs)  # type: ignore[misc]


@dataclass(frozen=True)
class _GateOptions:
    """``task_config`` of :data:`benchmark_gate` (selects its task class; nothing is sent)."""


class _BenchmarkGateTask(_ChecksOptions, PythonFunctionTask[_GateOptions]):  # type: ignore[misc]
    """:data:`benchmark_gate`'s class: a ``PythonFunctionTask`` that checks its options when
    called in a workflow."""


TaskPlugins.register_pythontask_plugin(_GateOptions, _BenchmarkGateTask)


def check_literal_options(policy: Any, profile: Any, *, where: str) -> None:
    """Check the gate options known when the workflow is written: literal values; a Promise (a
    workflow input, known at run start) is left to the gate, which checks it first.

    :raises AcceleratorError: an unknown literal policy or profile, with a did-you-mean.
    """
    from flytekit.core.promise import Promise

    check_gate_options(
        "fail" if isinstance(policy, Promise) else policy,
        "quick" if isinstance(profile, Promise) else profile,
        where=where,
    )


def _where(kwargs: dict[str, Any]) -> str:
    expect = kwargs.get("expect")
    return f"benchmark_gate(expect={expect!r})" if isinstance(expect, str) else "benchmark_gate"


@task(  # type: ignore[untyped-decorator]
    task_config=_GateOptions(),
    enable_deck=True,
    pod_template=pod_template_for({}, node_name_env=True),
    cache=False,
)
def benchmark_gate(expect: str, profile: str = "quick", policy: str = "fail") -> GateResult:
    """Run ``accelerators.bench`` on this pod's accelerator; return the typed result.

    Placed nowhere by itself: ``gate(spec)`` makes the node that runs it on ``spec``'s
    accelerator. Fails per ``policy`` (``fail`` or ``retry``) when the verdict is ``fail``;
    the Deck shows the verdict, the reasons, the tables and the chart.
    """
    result = run_gate(expect, profile=profile, policy=policy)
    render_deck(result)
    return result


class GateTask(_ChecksOptions, PythonFunctionTask[None]):  # type: ignore[misc]  # flytekit: untyped
    """``benchmark_gate`` on one placement: its accelerator, resources and pod template are the
    task's own. Loaded in the pod by :data:`gate_task_resolver` (from its name)."""

    def __init__(self, name: str, spec: str = "", **placement: Any) -> None:
        super().__init__(
            task_config=None,
            task_function=benchmark_gate.task_function,
            task_resolver=gate_task_resolver,
            enable_deck=True,
            **placement,
        )
        self._name = name
        self.spec = spec
        # flytekit gives a task built while a workflow compiles that workflow as its resolver,
        # which finds it only once the workflow is compiled again in the pod; ours rebuilds it
        # from its name alone.
        self._task_resolver = gate_task_resolver

    @property
    def name(self) -> str:
        """The placement's own name (never prefixed with the module that built it)."""
        return self._name

    def get_custom(self, settings: SerializationSettings) -> dict[str, Any]:
        """The spec the node is placed for, in ``TaskTemplate.custom`` (for linters)."""
        return {"accelerators": {"gate_node": self.spec}}

    def _write_decks(self, *args: Any, **kwargs: Any) -> Any:
        """flytekit's, then (a local run) the ``deck.html`` it wrote is logged."""
        with writing_decks(self.spec):
            return super()._write_decks(*args, **kwargs)


class GateTaskResolver(TrackedInstance, TaskResolverMixin):  # type: ignore[misc]
    """Rebuilds a :class:`GateTask` in the pod from its name (``gate-task <name>``)."""

    def name(self) -> str:
        return "accelerators gate task resolver"

    def load_task(self, loader_args: list[str]) -> GateTask:
        if len(loader_args) != 2 or loader_args[0] != "gate-task":
            raise AcceleratorError(
                f"Expected loader arguments ['gate-task', <name>], got {loader_args!r}"
            )
        return GateTask(loader_args[1])

    def loader_args(self, settings: SerializationSettings, t: Any) -> list[str]:
        return ["gate-task", t.name]

    def get_all_tasks(self) -> list[Any]:
        return list(_GATE_TASKS.values())


#: The resolver of every :class:`GateTask` (its ``location`` is this module attribute).
gate_task_resolver = GateTaskResolver()
_GATE_TASKS: dict[str, GateTask] = {}


def gate_task(
    spec: SpecLike,
    *,
    platform: str = "flyte",
    requests: Resources | None = None,
    limits: Resources | None = None,
    resources: Resources | None = None,
    **platform_options: Any,
) -> GateTask:
    """The :class:`GateTask` placed on ``spec`` (one object per placement)."""
    parsed = AcceleratorSpec.coerce(spec)
    args = task_args(
        parsed,
        platform=platform,
        requests=requests,
        limits=limits,
        resources=resources,
        **platform_options,
    )
    extra = repr((platform, requests, limits, resources, sorted(platform_options.items())))
    name = _NAME_PREFIX + _NAME_CHARS.sub("_", str(parsed))
    if extra != repr(("flyte", None, None, None, [])):
        name += "." + hashlib.sha256(extra.encode()).hexdigest()[:8]
    found = _GATE_TASKS.get(name)
    if found is None:
        found = _GATE_TASKS[name] = GateTask(name, str(parsed), **args)
    return found


def gate(
    spec: SpecLike,
    *,
    policy: str = "fail",
    profile: str = "quick",
    platform: str = "flyte",
    retries: int | None = None,
    timeout: Any = None,
    interruptible: bool | None = None,
    name: str | None = None,
    requests: Resources | None = None,
    limits: Resources | None = None,
    resources: Resources | None = None,
    **platform_options: Any,
) -> Any:
    """Inside a ``@workflow``: the gate node, on the same accelerator as ``spec``.

    :param spec: the accelerator of the tasks it guards.
    :param policy: ``fail`` or ``retry`` (``retry`` gives the node 2 retries unless you set
        ``retries``); a literal is checked when the workflow is written, a workflow input (a
        Promise) by the gate at run start, before the benchmark.
    :param profile: the bench profile.
    :param platform: as for :func:`task_args`.
    :param retries: node retries (a new pod each, possibly on another node).
    :param timeout: node timeout (seconds or a ``timedelta``).
    :param interruptible: run on interruptible (spot) nodes.
    :param name: the node's display name.
    :param requests: the gate pod's cpu/memory requests, as for :func:`task_args`.
    :param limits: its limits.
    :param resources: both, as flytekit's ``resources=``.
    :param platform_options: as for :func:`task_args`.
    :returns: the node's promise of a :class:`GateResult`; ``.with_overrides`` on it keeps the
        placement.
    :raises AcceleratorError: a policy, profile, retries or spec that cannot work.
    """
    parsed = AcceleratorSpec.coerce(spec)
    where = f"gate({str(parsed)!r})"
    check_literal_options(policy, profile, where=where)
    node: dict[str, Any] = {"retries": retries} if retries is not None else {}
    if isinstance(policy, str):  # a Promise's policy is known at run start only
        _retries_for(policy, node, where)
    node.update(
        {
            k: v
            for k, v in (("timeout", timeout), ("interruptible", interruptible), ("name", name))
            if v is not None
        }
    )
    placed = gate_task(
        parsed,
        platform=platform,
        requests=requests,
        limits=limits,
        resources=resources,
        **platform_options,
    )
    promise = placed(expect=str(parsed), profile=profile, policy=policy)
    return promise.with_overrides(**node) if node else promise


def pinned(
    spec: SpecLike,
    result: GateResult,
    *,
    platform: str = "flyte",
    task: Any = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """``with_overrides`` arguments for a task guarded by a gate node: ``spec``, on its node.

    Call it in a ``@dynamic`` (where ``result`` is a value, not a promise). The task gets its
    own spec: the gate's device only picks among its alternatives (a gate that found an
    A100-80GB gives ``H100:8 | A100-80GB:8`` the ``A100-80GB:8``), and a device that is none
    of them is refused.

    :param spec: the task's accelerator spec.
    :param result: the gate's result.
    :param task: the node's task: its own pod template, cpu and memory are carried into the
        override (as ``task_args(..., task=)``), and a task that runs several pods
        (``Elastic(nnodes=2)``, ``PyTorch``, Ray) is refused: every pod would require the
        gate's one node.
    :param kwargs: as for :func:`task_args` (``requests``, ``pod_template``…).
    :raises AcceleratorError: in a cluster, the gate did not report a node name; the gate's
        device is none of ``spec``'s alternatives; ``task`` runs several pods.
    """
    if not result.node and not result.local:
        raise AcceleratorError(
            f"The gate for {result.expected} ran in a cluster but reported no node name "
            "($NODE_NAME was not set), so the guarded task cannot be pinned to the node it "
            "checked; run the gate with gate(spec), whose pod template sets it"
        )
    chosen = chosen_alternative(spec, result)
    if task is not None:
        _refuse_replicas(task, chosen)
    if not result.node:
        return task_args(chosen, platform=platform, task=task, **kwargs)
    return task_args(chosen, platform=platform, pin_node=result.node, task=task, **kwargs)


def _refuse_replicas(task: Any, spec: AcceleratorSpec) -> None:
    from flytekitplugins.accelerators._plugins import replica_count

    config = getattr(task, "task_config", None)
    pods = replica_count(config)
    if pods > 1:
        raise AcceleratorError(
            f"pinned({str(spec)!r}) on {task.name}: its {type(config).__name__} runs {pods} "
            "pods, each built from the node's pod template, so each would require the gate's "
            "one node: one is scheduled and the others stay Pending (the job never starts). "
            f"Gate every pod instead: accelerator_task({str(spec)!r}, task_config=...) runs the "
            "gate in each of them, with no pinning"
        )
