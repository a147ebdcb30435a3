"""Issue 28 item 1 on Ray: a gated Ray task gates every node of its Ray cluster, not only the head.

A real Ray cluster of two nodes on this machine (``ray.cluster_utils.Cluster``: a head and a
worker, each its own raylet). The worker's gate runs in a Ray worker process on the worker node,
pinned there; the fake bench devices travel pickled, as they would not in production (where the
node's own devices are benchmarked).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import composition_cases as cases
import pytest
from flytekit.exceptions.user import FlyteRecoverableException
from flytekitplugins.accelerators import Gate, GateResult, last_gate_result
from flytekitplugins.accelerators._ray_gate import gate_ray_nodes

from accelerators import AcceleratorGateError

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def two_nodes() -> Iterator[Any]:
    from ray.cluster_utils import Cluster

    ray.cloudpickle.register_pickle_by_value(cases)  # the fake bench travels by value
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    worker = cluster.add_node(num_cpus=1, resources={"worker_node": 1})
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
    cluster.wait_for_nodes()
    try:
        yield worker
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_every_other_node_is_gated_where_it_runs(two_nodes: Any) -> None:
    [result] = gate_ray_nodes(Gate("H100-SXM:1"), local=False, run=cases.FakeRun("H100-SXM"))
    assert isinstance(result, GateResult)
    assert result.passed
    assert result.expected == "H100-SXM"
    # it ran on the worker node, not on the driver's (which the in-pod gate covers)
    here = ray.get_runtime_context().get_node_id()
    assert two_nodes.node_id != here


def test_a_bad_worker_node_fails_the_task_per_policy(two_nodes: Any) -> None:
    with pytest.raises(AcceleratorGateError, match=r"1 of 1 Ray worker node\(s\) failed"):
        gate_ray_nodes(Gate("H100-SXM:1"), local=False, run=cases.FakeRun("L4"))
    with pytest.raises(FlyteRecoverableException, match="retrying on a new pod"):
        gate_ray_nodes(Gate("H100-SXM:1", policy="retry"), local=False, run=cases.FakeRun("L4"))


def test_a_gated_ray_task_gates_head_then_workers_then_runs(
    two_nodes: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # locally: the real quick gate, health and speed only, on the head and on the worker
    from flytekitplugins.accelerators import _ray_gate

    monkeypatch.setenv("ACCELERATORS_GATE_EXPECT", "none")
    gated: list[Any] = []
    real = _ray_gate.gate_ray_nodes

    def spy(gate: Gate, *, local: bool, run: Any = None) -> list[GateResult]:
        gated.extend(real(gate, local=local, run=run))
        return gated

    monkeypatch.setattr(_ray_gate, "gate_ray_nodes", spy)
    assert cases.ray_gated(a=5) == 5
    head = last_gate_result("H100-SXM:8")
    assert head is not None
    assert head.local
    [worker] = gated
    assert worker.passed
    assert worker.local
