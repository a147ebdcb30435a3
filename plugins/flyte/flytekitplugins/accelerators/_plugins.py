"""Gated task plugins: ``accelerator_task(spec, task_config=Elastic(nnodes=2, ...))``.

A flytekit task plugin is a ``PythonFunctionTask`` subclass registered for the type of its
``task_config`` (``TaskPlugins``). :func:`~flytekitplugins.accelerators.accelerator_task` keeps
it: the task is an instance of a subclass of the plugin's own class that runs the benchmark gate
first, in every pod that executes the task, then the plugin's own ``execute``. Task type, task
type version, ``custom`` and the pod template are the plugin's (byte-identical to
``@task(task_config=..., **task_args(spec))``); the gate is written to ``TaskTemplate.config``
(``accelerators_gate``, ``accelerators_gate_policy``, ``accelerators_gate_profile``), which no
backend plugin reads.

Which pods run the task, and so the gate (flytepropeller v1.16.8's plugins):

* kfpytorch ``Elastic``: ``nnodes=1`` is one pod; more is a PyTorchJob whose every worker pod
  runs the task (the torch elastic agent): a gate per pod, before the rendezvous;
* kfpytorch ``PyTorch``: the master and every worker pod run it: a gate per pod;
* Ray: the task is the Ray job's driver on the head pod; the gate runs there, then on every other
  node of the Ray cluster, as a Ray task pinned to that node with its GPUs
  (:mod:`flytekitplugins.accelerators._ray_gate`): a gate per pod;
* a plugin of your own that runs the task in its pod: the gate runs there.

Refused when written (the gate could not prove every pod): task types :data:`UNGATEABLE`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flytekit.configuration import SerializationSettings
from flytekit.core.python_function_task import PythonFunctionTask
from flytekit.extend import TaskPlugins

from accelerators import AcceleratorError, AcceleratorSpec, PlacementError

if TYPE_CHECKING:
    from flytekitplugins.accelerators._tasks import Gate

__all__ = [
    "UNGATEABLE",
    "GatedPlugin",
    "gate_of",
    "replica_count",
    "replica_device_problems",
]

#: Task types whose pods a gate in the task's ``execute`` cannot all prove, and why.
UNGATEABLE: Mapping[str, str] = {
    "mpi": "mpirun starts the task once per slot, so the gate would run once per rank, all at "
    "once on the same GPUs",
    "dask": "the task runs in the Dask job runner's pod; the scheduler and worker pods would "
    "never be gated",
    "spark": "the task runs in the Spark driver's pod; the executors would never be gated",
    "tensorflow": "parameter-server and evaluator replicas run the task on pods built from the "
    "same template (not modelled by this plugin)",
}
#: The ``TaskTemplate.config`` keys of a gated plugin task.
CONFIG_KEYS = ("accelerators_gate", "accelerators_gate_policy", "accelerators_gate_profile")


@dataclass(frozen=True)
class GatedPlugin:
    """``task_config`` of a gated plugin task: the plugin's own config and the gate."""

    config: Any
    gate: Gate


class _GateFirst:
    """Mixed in before a plugin's class: the gate, then the plugin's ``execute``.

    In a cluster the gate measures in a child process (``gate_first(isolated=True)``): a plugin
    may start its own processes on the devices (torch elastic's workers, Ray's), which must not
    find a CUDA context of the gate left in this one."""

    gate: Gate

    def execute(self, **kwargs: Any) -> Any:
        from flytekitplugins.accelerators._tasks import gate_first

        result = gate_first(self.gate, isolated=True)
        if getattr(self, "task_type", "") == "ray":
            from flytekitplugins.accelerators._ray_gate import gate_ray_nodes

            gate_ray_nodes(self.gate, local=result.local)
        return super().execute(**kwargs)  # type: ignore[misc]

    def get_config(self, settings: SerializationSettings) -> dict[str, str] | None:
        config = dict(super().get_config(settings) or {})  # type: ignore[misc]
        gate = self.gate
        config.update(zip(CONFIG_KEYS, (gate.spec, gate.policy, gate.profile), strict=True))
        return config


@functools.cache
def _gated_class(plugin: type) -> type:
    name = f"Gated{plugin.__name__}"
    return type(name, (_GateFirst, plugin), {"__module__": __name__, "__qualname__": name})


class _GatedPluginTask(PythonFunctionTask):  # type: ignore[misc]  # flytekit: untyped
    """What ``TaskPlugins`` finds for a :class:`GatedPlugin`: builds the plugin's gated task."""

    def __new__(
        cls, task_config: GatedPlugin, task_function: Callable[..., Any], **kwargs: Any
    ) -> Any:
        plugin = TaskPlugins.find_pythontask_plugin(type(task_config.config))
        instance = _gated_class(plugin)(task_config.config, task_function, **kwargs)
        instance.gate = task_config.gate
        refuse_ungateable(instance.task_type, type(task_config.config).__name__)
        return instance


TaskPlugins.register_pythontask_plugin(GatedPlugin, _GatedPluginTask)


def refuse_ungateable(task_type: str, config_name: str) -> None:
    """:raises AcceleratorError: ``task_type`` is in :data:`UNGATEABLE`."""
    why = UNGATEABLE.get(task_type)
    if why is not None:
        raise AcceleratorError(
            f"accelerator_task cannot gate a {config_name} task (task type {task_type!r}): "
            f"{why}. Declare it with @task(task_config=..., **task_args(spec)) and run "
            "run_gate(spec) in each of its processes that owns devices, or put a gate(spec) "
            "node before it"
        )


def gate_of(task: Any) -> Gate | None:
    """The gate ``task`` runs in its own pods (an ``AcceleratorTask`` or a gated plugin task)."""
    from flytekitplugins.accelerators._tasks import AcceleratorTask, Gate

    if isinstance(task, AcceleratorTask):
        return task.task_config  # type: ignore[no-any-return]
    gate = getattr(task, "gate", None) if isinstance(task, _GateFirst) else None
    return gate if isinstance(gate, Gate) else None


# -- replicas ------------------------------------------------------------------------------------
def replica_count(config: Any) -> int:
    """How many pods a task with this ``task_config`` runs, each built from the task's own pod
    template (the node's override included): 1 for a plain task."""
    name = type(config).__name__
    if name == "Elastic":
        from torch.distributed import run

        return int(run.parse_min_max_nnodes(str(config.nnodes))[1])
    if name == "PyTorch":
        workers = config.num_workers or config.worker.replicas or 0
        return 1 + int(workers)
    if name == "RayJobConfig":
        workers = sum(int(max(w.replicas, w.max_replicas or 0)) for w in config.worker_node_config)
        return 2 + workers  # the head, the job's submitter pod, the workers
    return 1


def replica_device_problems(config: Any, spec: AcceleratorSpec, count: str) -> list[str]:
    """Replica settings of a plugin config that would replace the spec's device count.

    kfpytorch's ``Master``/``Worker`` resources replace the node's resources for that replica
    (``ToReplicaSpecWithOverrides``); Ray's head and worker ``requests``/``limits`` become a
    pod spec merged over the task's, key by key (``MergeOverlayPodSpecOntoBase``). A GPU there
    that is not the spec's count gives those pods other devices than the gate expects.
    """
    name = type(config).__name__
    replicas: list[tuple[str, Any]] = []
    if name == "PyTorch":
        replicas = [("Master", config.master), ("Worker", config.worker)]
    elif name == "RayJobConfig":
        head = [("HeadNodeConfig", config.head_node_config)] if config.head_node_config else []
        workers = [(f"WorkerNodeConfig({w.group_name!r})", w) for w in config.worker_node_config]
        replicas = head + workers
    problems = []
    for label, replica in replicas:
        for side in ("requests", "limits"):
            gpu = getattr(getattr(replica, side, None), "gpu", None)
            if gpu is not None and str(gpu) != count:
                problems.append(
                    f"{label}({side}=Resources(gpu={gpu!r})) gives those pods {gpu} GPU(s), "
                    f"but {str(spec)!r} asks for {count} per pod: leave gpu out of the replica "
                    "resources, the spec sets it"
                )
    return problems


def check_plugin_config(config: Any, spec: AcceleratorSpec, count: str) -> None:
    """:raises PlacementError: the plugin config contradicts the spec's devices."""
    problems = replica_device_problems(config, spec, count)
    if problems:
        raise PlacementError(f"{type(config).__name__} with {str(spec)!r}: " + "; ".join(problems))
