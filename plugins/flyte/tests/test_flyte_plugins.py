"""Issue 28 item 1: ``accelerator_task(..., task_config=...)`` keeps a flytekit task plugin's task
type and config with our accelerator and gate (kfpytorch ``Elastic`` and ``PyTorch``, Ray, a
plugin registered here), or refuses the ones a gate cannot prove, naming them.

Each task is serialised as ``pyflyte serialize`` writes it, read back from the bytes, and turned
into every pod flytepropeller v1.16.8's plugin builds (``job_oracle``), then placed on a node pool.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import Any

import composition_cases as cases
import job_oracle
import placement_oracle as oracle
import pytest
from flyte_helpers import SETTINGS
from flytekit import Resources, task
from flytekit.configuration import SerializationSettings
from flytekit.core.python_function_task import PythonFunctionTask
from flytekit.extend import TaskPlugins
from flytekitplugins.accelerators import accelerator_task, check, run_gate, task_args
from flytekitplugins.kfpytorch import Master, PyTorch, Worker
from flytekitplugins.ray import HeadNodeConfig, RayJobConfig, WorkerNodeConfig
from google.protobuf.json_format import MessageToDict

from accelerators import AcceleratorError, PlacementError

warnings.simplefilter("ignore", UserWarning)
GATE_KEYS = {"accelerators_gate", "accelerators_gate_policy", "accelerators_gate_profile"}


# -- a team's own plugin, registered here ---------------------------------------------------------
@dataclass(frozen=True)
class TeamQueue:
    queue: str


class TeamQueueTask(PythonFunctionTask[TeamQueue]):  # type: ignore[misc]
    def __init__(self, task_config: TeamQueue, task_function: Any, **kwargs: Any) -> None:
        super().__init__(
            task_config=task_config,
            task_function=task_function,
            task_type="team-queue",
            task_type_version=3,
            **kwargs,
        )

    def get_custom(self, settings: SerializationSettings) -> dict[str, Any]:
        return {"queue": self.task_config.queue, "priority": 7}


TaskPlugins.register_pythontask_plugin(TeamQueue, TeamQueueTask)


@dataclass(frozen=True)
class TeamDask:
    workers: int


class TeamDaskTask(PythonFunctionTask[TeamDask]):  # type: ignore[misc]
    def __init__(self, task_config: TeamDask, task_function: Any, **kwargs: Any) -> None:
        super().__init__(task_config, task_function, task_type="dask", **kwargs)


TaskPlugins.register_pythontask_plugin(TeamDask, TeamDaskTask)


@accelerator_task("H100-SXM:1", task_config=TeamQueue("batch"))
def team_gated(a: int) -> int:
    return a


@task(task_config=TeamQueue("batch"), **task_args("H100-SXM:1"))
def team_plain(a: int) -> int:
    return a


def _pod(template: Any) -> dict[str, Any]:
    """The task's pod spec without the container's command (it names the task)."""
    pod = MessageToDict(template.k8s_pod.pod_spec) if template.HasField("k8s_pod") else {}
    for container in pod.get("containers", []):
        container.pop("args", None)
    return pod


def _template(entity: Any) -> Any:
    [template] = oracle.registered(entity, SETTINGS).tasks.values()
    return template


# -- the task keeps the plugin's type, version, custom and pod template ----------------------------
@pytest.mark.parametrize(
    ("gated", "plain", "task_type"),
    [
        (cases.elastic_gated, cases.elastic_plain, "pytorch"),
        (cases.pytorch_gated, cases.pytorch_plain, "pytorch"),
        (cases.ray_gated, cases.ray_plain, "ray"),
        (team_gated, team_plain, "team-queue"),
    ],
    ids=["elastic", "pytorch", "ray", "team-plugin"],
)
def test_item1_the_plugins_type_and_config_are_kept_with_the_gate(
    gated: Any, plain: Any, task_type: str
) -> None:
    mine, theirs = _template(gated), _template(plain)
    assert mine.type == theirs.type == task_type
    assert mine.task_type_version == theirs.task_type_version
    assert mine.custom == theirs.custom  # byte-for-byte the plugin's own config
    assert _pod(mine) == _pod(theirs)  # the same pod template: device, selection, theirs
    assert mine.extended_resources == theirs.extended_resources  # the accelerator
    # the gate is written where no backend plugin reads: TaskTemplate.config
    assert {k: mine.config[k] for k in GATE_KEYS} == {
        "accelerators_gate": "H100-SXM:8" if task_type != "team-queue" else "H100-SXM",
        "accelerators_gate_policy": "fail",
        "accelerators_gate_profile": "quick",
    }
    assert not GATE_KEYS & set(theirs.config)
    assert check(gated) == []  # gated in every pod: nothing to report


def test_item1_an_elastic_job_is_two_pytorch_workers_each_running_the_gate() -> None:
    replicas = job_oracle.job_pods(_template(cases.elastic_gated))
    assert [(r.role, r.count, r.runs_task) for r in replicas] == [("worker", 2, True)]
    [worker] = replicas
    assert oracle.device_request(worker.pod) == {"nvidia.com/gpu": "8"}
    assert oracle.env(worker.pod, "pytorch")["ACCELERATORS_PLACED_SPEC"] == "H100-SXM:8"
    placed = job_oracle.place_job(replicas, job_oracle.pool("h100-whole", 2))
    assert placed == [("worker-0", "h100-whole-0"), ("worker-1", "h100-whole-1")]


def test_item1_a_pytorch_job_gates_master_and_workers() -> None:
    replicas = job_oracle.job_pods(_template(cases.pytorch_gated))
    assert [(r.role, r.count, r.runs_task) for r in replicas] == [
        ("master", 1, True),
        ("worker", 2, True),
    ]
    for replica in replicas:
        assert set(oracle.lands_on(replica.pod)) == {"h100-whole"}
    nodes = [n for _, n in job_oracle.place_job(replicas, job_oracle.pool("h100-whole", 3))]
    assert sorted(nodes) == ["h100-whole-0", "h100-whole-1", "h100-whole-2"]


def test_item1_a_ray_job_puts_the_device_on_head_and_workers() -> None:
    replicas = job_oracle.job_pods(_template(cases.ray_gated))
    assert [(r.role, r.count, r.runs_task) for r in replicas] == [
        ("head", 1, True),
        ("worker:gpu", 2, False),  # gated through Ray by the head (test_flyte_ray_gate)
        ("submitter", 1, False),  # propeller v1.16.8 copies the task's pod spec: same devices
    ]
    for replica in replicas:
        assert set(oracle.lands_on(replica.pod)) == {"h100-whole"}, replica.role
        assert oracle.device_request(replica.pod) == {"nvidia.com/gpu": "8"}


def test_item1_the_gated_pods_run_the_gate_then_the_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    from flytekitplugins.accelerators import _tasks

    ran: list[str] = []

    def on_node(expect: Any, **kwargs: Any) -> Any:
        ran.append(str(expect))
        kwargs.update(local=False, run=cases.on("H100-SXM", devices=1))
        return run_gate(expect, **kwargs)

    monkeypatch.setattr(_tasks, "run_gate", on_node)
    assert isinstance(team_gated, TeamQueueTask)  # the plugin's own class runs the task
    assert team_gated(a=3) == 3
    assert ran == ["H100-SXM"]
    # a wrong device fails the task before its function (or the plugin) runs
    monkeypatch.setattr(_tasks, "_GATE_PROCESS_CACHE", {})
    monkeypatch.setattr(_tasks, "run_gate", functools.partial(_wrong, run=cases.on("L4")))
    with pytest.raises(AcceleratorError, match="wrong_accelerator"):
        team_gated(a=3)


def _wrong(expect: Any, *, run: Any, **kwargs: Any) -> Any:
    kwargs.update(local=False, run=run)
    return run_gate(expect, **kwargs)


# -- refused when written --------------------------------------------------------------------------
def test_item1_a_plugin_a_gate_cannot_prove_is_refused_naming_it() -> None:
    with pytest.raises(AcceleratorError) as caught:

        @accelerator_task("H100-SXM:8", task_config=TeamDask(workers=4))
        def crunch(a: int) -> int:
            return a

    message = str(caught.value)
    assert "TeamDask task (task type 'dask')" in message
    assert "worker pods would never be gated" in message

    # without the gate the plugin is simply kept
    @accelerator_task("H100-SXM:8", gate=False, task_config=TeamDask(workers=4))
    def crunch_ungated(a: int) -> int:
        return a

    assert crunch_ungated.task_type == "dask"
    assert [f.code for f in check(crunch_ungated)] == ["ungated-plugin", "no-gate"]


@pytest.mark.parametrize(
    "config",
    [
        PyTorch(worker=Worker(replicas=2, limits=Resources(gpu="4"))),
        PyTorch(master=Master(requests=Resources(gpu="1")), worker=Worker(replicas=1)),
        RayJobConfig(worker_node_config=[WorkerNodeConfig("g", 2, limits=Resources(gpu="2"))]),
        RayJobConfig(
            head_node_config=HeadNodeConfig(requests=Resources(gpu="1")),
            worker_node_config=[WorkerNodeConfig("g", 1)],
        ),
    ],
    ids=["pytorch-worker", "pytorch-master", "ray-worker", "ray-head"],
)
def test_item1_replica_resources_that_change_the_device_count_are_refused(config: Any) -> None:
    with pytest.raises(PlacementError, match="leave gpu out of the replica resources"):
        accelerator_task("H100-SXM:8", task_config=config)


def test_item1_the_linter_sees_replica_gpus_on_a_plain_plugin_task() -> None:
    config = PyTorch(worker=Worker(replicas=2, limits=Resources(gpu="4")))

    @task(task_config=config, **task_args("H100-SXM:8"))
    def train(a: int) -> int:
        return a

    assert "replica-device" in [f.code for f in check(train)]
    [worker] = [r for r in job_oracle.job_pods(_template(train)) if r.role == "worker"]
    assert oracle.device_request(worker.pod) == {"nvidia.com/gpu": "4"}  # not the spec's 8


def test_item1_the_gate_itself_is_refused_as_a_task_config() -> None:
    from flytekitplugins.accelerators import Gate

    with pytest.raises(AcceleratorError, match="is the gate accelerator_task makes itself"):
        accelerator_task("H100-SXM", task_config=Gate("H100-SXM"))


@pytest.mark.slow
def test_item1_in_a_cluster_a_plugins_gate_measures_in_a_child_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # torch elastic's agent and a Ray driver start their own processes on the devices: the
    # gate's CUDA context must not outlive it in the task's process. In a cluster the gate of a
    # plugin task benchmarks in a spawned child (the real quick bench on this CPU, which is not
    # the H100 the pod was placed for) and the policy is applied in the task's process.
    from flytekitplugins.accelerators import _tasks

    def in_process(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the gate ran in the task's own process")

    monkeypatch.setattr(_tasks, "is_local_execution", lambda: False)
    monkeypatch.setattr(_tasks, "run_gate", in_process)
    monkeypatch.setenv("ACCELERATORS_PLACED_SPEC", "H100-SXM:8")
    with pytest.raises(AcceleratorError, match=r"expected H100-SXM:8") as caught:
        _tasks.gate_first(cases.elastic_gated.gate, isolated=True)
    assert caught.value.report.expect == "H100-SXM:8"  # type: ignore[attr-defined]
