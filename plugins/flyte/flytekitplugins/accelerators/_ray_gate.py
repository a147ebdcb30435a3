"""The gate on every node of a Ray cluster, for a gated Ray task.

A Flyte Ray task runs as the Ray job's driver on the head pod (flytepropeller's Ray plugin puts
the task's command in the RayJob's ``entrypoint``); the head and every worker pod are built from
the task's own pod spec, devices included. The gate in the task's ``execute`` proves the head's
devices; :func:`gate_ray_nodes` then runs one gate on every other alive node of the cluster, as a
Ray task pinned to that node (``NodeAffinitySchedulingStrategy``, not soft) that takes all of
the node's GPUs, so Ray gives it exactly the devices the node's pod has.

The nodes gated are those alive when the task starts (KubeRay starts the job once the cluster is
up): nodes an autoscaler adds later are not gated. A failing node fails the task with the
node's report, per the gate's policy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flytekitplugins.accelerators._gate import GateResult
    from flytekitplugins.accelerators._tasks import Gate

__all__ = ["gate_ray_nodes", "node_gate"]


def node_gate(spec: str, profile: str, local: bool, run: Any) -> GateResult:
    """:func:`~flytekitplugins.accelerators._gate.measure_gate`, positionally (a Ray task)."""
    from flytekitplugins.accelerators._gate import measure_gate

    return measure_gate(spec, profile=profile, local=local, run=run)


def gate_ray_nodes(gate: Gate, *, local: bool, run: Any = None) -> list[GateResult]:
    """Run ``gate`` on every alive Ray node but this one; raise per its policy on a failure.

    Each node's gate is a Ray task of :func:`node_gate` (the result, never raised, so the
    driver sees every node's report) with ``max_calls=1``:
    the Ray worker process exits after it, and with it the gate's CUDA context.

    :param gate: the task's gate.
    :param local: the driver's local-run rule (passed on: a Ray worker process has no flytekit
        execution context).
    :param run: a stand-in for ``accelerators.bench.run`` (tests; must pickle).
    :returns: the nodes' results, in ``ray.nodes()`` order.
    :raises AcceleratorGateError: a node failed and the policy is ``fail``.
    :raises FlyteRecoverableException: a node failed and the policy is ``retry``.
    """
    import ray
    from flytekitplugins.accelerators._gate import settle
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    here = ray.get_runtime_context().get_node_id()
    remote = ray.remote(max_calls=1)(node_gate)
    pending = []
    for node in ray.nodes():  # type: ignore[no-untyped-call]  # ray: untyped
        if not node.get("Alive") or node["NodeID"] == here:
            continue
        gpus = float(node.get("Resources", {}).get("GPU", 0))
        strategy = NodeAffinitySchedulingStrategy(node_id=node["NodeID"], soft=False)
        options: dict[str, Any] = {"scheduling_strategy": strategy, "num_cpus": 0}
        if gpus:
            options["num_gpus"] = gpus
        call = remote.options(**options)
        pending.append(call.remote(gate.spec, gate.profile, local, run))
    results: list[GateResult] = ray.get(pending)
    failed = [r for r in results if not r.passed]
    if failed:
        where = ", ".join(r.node or r.host or "?" for r in failed)
        settle(
            failed[0],
            gate.policy,
            prefix=f"{len(failed)} of {len(results)} Ray worker node(s) failed the gate "
            f"({where}): ",
        )
    return results
