"""Gated flytekit tasks: ``accelerator_task(spec)``, a task whose pod runs the benchmark gate
before the user's function.

**The gate runs inside each guarded task's pod, before the user's code.** It proves something
about the exact devices the code gets: on an 8-GPU node, or a node cut into MIG slices, another
pod on the same node is given other devices, so a gate in another pod says nothing about them
even when pinned to the node. It costs one gate per task (about 10 s on an H100) and no
scheduling constraint. (The other way, a gate node and tasks pinned to its node, is in
:mod:`flytekitplugins.accelerators._gate_node`.)

The task is an :class:`AcceleratorTask`, flytekit's ``PythonFunctionTask`` with a
:class:`Gate` as its ``task_config`` (registered as a flytekit task plugin), built around the
user's own function: flytekit names, registers and loads it exactly as a plain ``@task``
(module and name from the function, the default resolver), also from a script run as
``__main__``. ``@task(task_config=Gate("H100:8"), **task_args("H100:8"))`` is the same task.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flytekit import PodTemplate, Resources, task
from flytekit.configuration import SerializationSettings
from flytekit.core.python_function_task import PythonFunctionTask
from flytekit.extend import TaskPlugins
from flytekitplugins.accelerators._args import _task_args
from flytekitplugins.accelerators._deck import writing_decks
from flytekitplugins.accelerators._gate import (
    RETRY_POLICY_RETRIES,
    GateResult,
    check_gate_options,
    is_local_execution,
    measure_gate,
    render_deck,
    run_gate,
    settle,
)
from flytekitplugins.accelerators._plugins import GatedPlugin, check_plugin_config

from accelerators import AcceleratorError, AcceleratorSpec

if TYPE_CHECKING:
    from accelerators import SpecLike

__all__ = ["AcceleratorTask", "Gate", "accelerator_task"]

_GATE_PROCESS_CACHE: dict[tuple[str, str], GateResult] = {}


@dataclasses.dataclass(frozen=True, init=False)
class Gate:
    """``task_config`` of a task whose pod runs the benchmark gate before its function.

    :param spec: the spec the task is declared with, kept as its canonical text (a spec is
        not parsed again; a node override that places it elsewhere with ``task_args`` moves
        the gate's expectation along: ``$ACCELERATORS_PLACED_SPEC``).
    :param policy: ``fail`` or ``retry``.
    :param profile: the bench profile (``quick``).
    """

    spec: str
    policy: str = "fail"
    profile: str = "quick"

    def __init__(self, spec: SpecLike, policy: str = "fail", profile: str = "quick") -> None:
        canonical = str(AcceleratorSpec.coerce(spec))
        object.__setattr__(self, "spec", canonical)
        object.__setattr__(self, "policy", policy)
        object.__setattr__(self, "profile", profile)
        check_gate_options(policy, profile, where=f"Gate({canonical!r})")

    @classmethod
    def of(cls, spec: AcceleratorSpec, policy: str = "fail", profile: str = "quick") -> Gate:
        """The gate of a spec already parsed (``Gate(spec)`` does the same: a spec is not
        parsed again)."""
        return cls(spec, policy, profile)


class AcceleratorTask(PythonFunctionTask[Gate]):  # type: ignore[misc]  # flytekit: untyped
    """A ``PythonFunctionTask`` that runs the benchmark gate first, in its own pod."""

    def __init__(self, task_config: Gate, task_function: Callable[..., Any], **kwargs: Any):
        super().__init__(task_config=task_config, task_function=task_function, **kwargs)

    def get_custom(self, settings: SerializationSettings) -> dict[str, Any]:
        """The gate, in the registered ``TaskTemplate.custom`` (for linters and readers)."""
        config = self.task_config
        return {
            "accelerators": {
                "gate": config.spec,
                "policy": config.policy,
                "profile": config.profile,
            }
        }

    def execute(self, **kwargs: Any) -> Any:
        """The gate (raising per the policy when the devices are wrong), then the function."""
        gate_first(self.task_config)
        return super().execute(**kwargs)

    def _write_decks(self, *args: Any, **kwargs: Any) -> Any:
        """flytekit's, then (a local run) the ``deck.html`` it wrote is logged."""
        with writing_decks(self.task_config.spec):
            return super()._write_decks(*args, **kwargs)


def gate_first(config: Gate, *, isolated: bool = False) -> GateResult:
    """Run ``config``'s gate in this pod (raising per its policy) and show it in the Deck.

    :param isolated: in a cluster, benchmark in a child process, so no CUDA context outlives
        the gate in this one (a task plugin that starts its own workers on the devices: torch
        elastic's agent, a Ray driver); the policy is applied here.
    """
    local = is_local_execution()
    key = (config.spec, config.profile)
    # One pod is one process: in a cluster the cache is the pod's own gate. Locally all
    # tasks share this process and its (CPU) devices, so the gate runs once per spec.
    result = _GATE_PROCESS_CACHE.get(key) if local else None
    if result is None and isolated and not local:
        result = settle(_in_child(config), config.policy)
    if result is None:
        result = run_gate(config.spec, profile=config.profile, policy=config.policy, local=local)
        if local:
            _GATE_PROCESS_CACHE[key] = result
    render_deck(result)
    return result


TaskPlugins.register_pythontask_plugin(Gate, AcceleratorTask)


def _in_child(config: Gate) -> GateResult:
    """The gate's measurement in a fresh (spawned) process: its devices are free once it ends."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        future = pool.submit(measure_gate, config.spec, profile=config.profile, local=False)
        return future.result()


def accelerator_task(
    spec: SpecLike,
    *,
    gate: bool = True,
    gate_policy: str = "fail",
    gate_profile: str = "quick",
    platform: str = "flyte",
    requests: Resources | None = None,
    limits: Resources | None = None,
    resources: Resources | None = None,
    pod_template: PodTemplate | None = None,
    platform_options: dict[str, Any] | None = None,
    **task_kwargs: Any,
) -> Callable[[Callable[..., Any]], Any]:
    """``@task`` on ``spec``'s accelerator, the gate running first in the task's own pod.

    >>> from flytekit import Resources
    >>> @accelerator_task("H100-SXM:8", requests=Resources(cpu="16"))
    ... def train(epochs: int) -> float:
    ...     return 0.0
    >>> train.accelerator
    <Partition H100-SXM@whole>

    :param spec: the accelerator spec.
    :param gate: run the gate before the function (the default; see the module docstring).
    :param gate_policy: ``fail`` or ``retry`` (``retry`` gives the task
        ``retries=2`` unless you set them).
    :param gate_profile: the bench profile.
    :param platform: as for :func:`task_args`.
    :param requests: other requests (cpu, mem).
    :param limits: other limits.
    :param resources: flytekit's ``Resources`` for both, as ``@task(resources=...)``.
    :param pod_template: your pod template, merged.
    :param platform_options: platform options for :func:`task_args`.
    :param task_kwargs: anything else ``@task`` takes (``retries``, ``cache``…), a task
        plugin's ``task_config`` included (``Elastic``, ``PyTorch``, ``RayJobConfig``, your
        own): the task keeps the plugin's type and config, and the gate runs in each of its
        pods (:mod:`flytekitplugins.accelerators._plugins`).
    :raises AcceleratorError: a spec, policy or profile that cannot work, a plugin whose pods a
        gate cannot all prove (MPI, Dask, Spark…), or replica resources that contradict the
        spec, when the task is written (not in the pod).
    """
    args, placed = _task_args(  # the spec is parsed and placed there, once
        spec,
        platform=platform,
        requests=requests,
        limits=limits,
        resources=resources,
        pod_template=pod_template,
        **(platform_options or {}),
    )
    parsed = placed.spec
    config = Gate.of(parsed, gate_policy, gate_profile) if gate else None
    where = f"accelerator_task({str(parsed)!r})"
    plugin = task_kwargs.pop("task_config", None)
    clash = sorted(set(args) & set(task_kwargs))
    if clash:
        raise AcceleratorError(
            f"{where} sets {', '.join(clash)} from the spec; pass "
            "requests=, limits=, resources= or pod_template= to accelerator_task itself"
        )
    if isinstance(plugin, Gate):
        raise AcceleratorError(
            f"{where}: task_config={plugin!r} is the gate accelerator_task makes itself; give "
            "gate_policy= and gate_profile= instead"
        )
    if plugin is not None:
        [count] = placed.fragment["resources"]["limits"].values()
        check_plugin_config(plugin, parsed, count)
    if config is not None:
        task_kwargs.setdefault("enable_deck", True)
        _retries_for(config.policy, task_kwargs, where)
        task_kwargs["task_config"] = config if plugin is None else GatedPlugin(plugin, config)
    elif plugin is not None:
        task_kwargs["task_config"] = plugin

    def decorator(function: Callable[..., Any]) -> Any:
        return task(**args, **task_kwargs)(function)

    return decorator


def _retries_for(policy: str, kwargs: dict[str, Any], where: str) -> None:
    """A ``retry`` policy needs retries: the default, or the user's (at least one)."""
    if policy != "retry":
        return
    retries = kwargs.setdefault("retries", RETRY_POLICY_RETRIES)
    if not isinstance(retries, int) or retries < 1:
        raise AcceleratorError(
            f"{where}: gate policy 'retry' with retries={retries!r} never retries; give "
            f"retries >= 1 (default {RETRY_POLICY_RETRIES}) or use policy 'fail'"
        )
