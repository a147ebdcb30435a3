"""The placement oracle for task plugins: every pod flytepropeller v1.16.8's kubeflow PyTorch and
Ray plugins build from one registered task, and whether they can all run at once.

Input: a registered ``TaskTemplate`` (read back from the bytes ``pyflyte serialize`` writes, see
``placement_oracle.registered``) and its node's overrides. :func:`job_pods` decodes the plugin's
``custom`` as the backend does (``utils.UnmarshalStruct``, unknown fields allowed) and builds each
replica's pod from ``placement_oracle.propeller_pod`` (``ToK8sPodSpec``), following the plugins at
tag v1.16.8 (restated, not translated):

* ``pytorch`` (task type version 1; ``kfoperators/pytorch/pytorch.go`` ``BuildResource``,
  ``kfoperators/common/common_operator.go`` ``ToReplicaSpecWithOverrides``): a master and a
  worker replica spec, each the task's pod with the node's overrides, except that a replica's own
  resources, when it has any, replace the node's resources with defaults assigned
  (``ApplyK8sResourceOverrides`` then ``flytek8s.WithResources``); the primary container is
  renamed ``pytorch`` (``OverridePrimaryContainerName``); the master has one replica, the workers
  ``replicas``; an ``elastic_config`` removes the master;
* ``ray`` (``k8s/ray/ray.go`` ``constructRayJob``): the task's pod spec (``ToK8sPodSpec``,
  overrides included) copied for the head (primary renamed ``ray-head``) and each worker group
  (``ray-worker``, ``replicas`` pods), each merged with the group's ``k8s_pod`` spec
  (``MergeOverlayPodSpecOntoBase``: mergo ``WithOverride``/``WithAppendSlice``, each base
  container merged with the overlay's container of the same name, overlay-only containers
  dropped); and the job's submitter pod, a copy of the task's pod spec
  (``buildSubmitterPodTemplate``: it asks for the same devices, and runs ``ray job submit``, not
  the task);
* any other task type: one pod (``ToK8sPodSpec``), as propeller's pod plugin builds it; a team's
  own plugin whose backend builds one pod from the task is the same.

Which pods run the task's code (and so a gate in its ``execute``): the PyTorch master and
workers; the Ray head (the job's driver; a gated Ray task gates the workers through Ray itself);
the one pod otherwise.

:func:`place_job` then places every pod of a job at once on a node list: each on the first node
where ``placement_oracle.schedule`` says it fits once the pods placed before it took their
requests. The default scheduler does not gang-schedule; a pod that fits nowhere stays Pending,
and a job (a rendezvous, a Ray cluster) waits for all of its pods.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import placement_oracle as oracle
from flyteidl.core import tasks_pb2, workflow_pb2
from flyteidl.plugins import ray_pb2
from flyteidl.plugins.kubeflow import pytorch_pb2
from google.protobuf.json_format import MessageToDict, ParseDict

#: kubeflow's required container names (``kubeflowv1.PyTorchJobDefaultContainerName``) and Ray's.
PYTORCH_CONTAINER, RAY_HEAD, RAY_WORKER = "pytorch", "ray-head", "ray-worker"


@dataclass
class Replica:
    """One replica type of a job: how many pods, the pod each gets, whether it runs the task."""

    role: str
    count: int
    pod: dict[str, Any]
    runs_task: bool


def job_pods(
    task: tasks_pb2.TaskTemplate,
    overrides: workflow_pb2.TaskNodeOverrides | None = None,
    config: Mapping[str, Any] = oracle.PROPELLER_DEFAULTS,
) -> list[Replica]:
    """Every replica type the backend plugin for ``task.type`` creates (module docstring)."""
    overrides = overrides or workflow_pb2.TaskNodeOverrides()
    if task.type == "pytorch":
        return _pytorch(task, overrides, config)
    if task.type == "ray":
        return _ray(task, overrides, config)
    return [Replica("pod", 1, oracle.propeller_pod(task, overrides, config), True)]


def _custom(task: tasks_pb2.TaskTemplate, message: Any) -> Any:
    ParseDict(MessageToDict(task.custom), message, ignore_unknown_fields=True)
    return message


def _primary(task: tasks_pb2.TaskTemplate, overrides: workflow_pb2.TaskNodeOverrides) -> str:
    return oracle._raw_pod(task, overrides)[1]


def _rename(pod: dict[str, Any], old: str, new: str) -> None:
    for container in pod["containers"]:
        if container["name"] == old:
            container["name"] = new
            return


def _pytorch(
    task: tasks_pb2.TaskTemplate,
    overrides: workflow_pb2.TaskNodeOverrides,
    config: Mapping[str, Any],
) -> list[Replica]:
    if task.task_type_version != 1:
        raise ValueError(f"pytorch task type version {task.task_type_version}: not modelled")
    job = _custom(task, pytorch_pb2.DistributedPyTorchTrainingTask())
    specs = [("worker", job.worker_replicas, False)]
    if not job.HasField("elastic_config"):
        specs.insert(0, ("master", job.master_replicas, True))
    primary = _primary(task, overrides)
    out = []
    for role, spec, is_master in specs:
        common = spec.common if spec.HasField("common") else spec
        replica_resources = None
        if common.resources.limits or common.resources.requests:
            replica_resources = oracle._idl_resources(common.resources)
            oracle._adjust(replica_resources, config, assign=True)
        pod = oracle.propeller_pod(task, overrides, config, replica_resources=replica_resources)
        _rename(pod, primary, PYTORCH_CONTAINER)
        out.append(Replica(role, 1 if is_master else common.replicas, pod, True))
    return out


def _ray(
    task: tasks_pb2.TaskTemplate,
    overrides: workflow_pb2.TaskNodeOverrides,
    config: Mapping[str, Any],
) -> list[Replica]:
    job = _custom(task, ray_pb2.RayJob())
    base = oracle.propeller_pod(task, overrides, config)
    primary = _primary(task, overrides)
    cluster = job.ray_cluster
    groups: list[tuple[str, int, str, Any, bool]] = [
        ("head", 1, RAY_HEAD, cluster.head_group_spec.k8s_pod, True)
    ]
    groups += [
        (f"worker:{g.group_name}", g.replicas, RAY_WORKER, g.k8s_pod, False)
        for g in cluster.worker_group_spec
    ]
    out = []
    for role, count, name, k8s_pod, runs in groups:
        pod = copy.deepcopy(base)
        _rename(pod, primary, name)
        if k8s_pod.HasField("pod_spec"):
            pod = merge_overlay(pod, MessageToDict(k8s_pod.pod_spec))
        out.append(Replica(role, count, pod, runs))
    out.append(Replica("submitter", 1, copy.deepcopy(base), False))
    return out


# -- MergeOverlayPodSpecOntoBase -----------------------------------------------------------------
def merge_overlay(base: Mapping[str, Any], overlay: Mapping[str, Any]) -> dict[str, Any]:
    """pod_helper.go ``MergeOverlayPodSpecOntoBase`` on camelCase dicts."""
    merged = copy.deepcopy(dict(base))
    _mergo(merged, {k: v for k, v in overlay.items() if k not in ("containers", "initContainers")})
    for field in ("containers", "initContainers"):
        out = []
        for container in base.get(field) or []:
            mine = copy.deepcopy(container)
            for other in overlay.get(field) or []:
                if other.get("name") == mine.get("name"):
                    _mergo(mine, other)
            out.append(mine)
        if out or field in merged:
            merged[field] = out
    return merged


def _mergo(dst: dict[str, Any], src: Mapping[str, Any]) -> None:
    """``mergo.Merge(dst, src, WithOverride, WithAppendSlice)``: maps merge key by key, slices
    append, other set values replace; a zero value in ``src`` changes nothing."""
    for key, value in src.items():
        if value in (None, "", 0, False, [], {}):
            continue
        if isinstance(value, Mapping) and isinstance(dst.get(key), dict):
            _mergo(dst[key], value)
        elif isinstance(value, list) and isinstance(dst.get(key), list):
            dst[key] = dst[key] + copy.deepcopy(value)
        else:
            dst[key] = copy.deepcopy(value)


# -- the cluster ---------------------------------------------------------------------------------
def pool(name: str, size: int) -> tuple[oracle.Node, ...]:
    """``size`` nodes like inventory node ``name`` (its labels, taints, allocatable and device),
    each with its own hostname: a node pool."""
    node = oracle.NODES[name]
    out = []
    for index in range(size):
        host = f"{name}-{index}"
        labels = {**node.labels, "kubernetes.io/hostname": host}
        out.append(dataclasses.replace(node, name=host, labels=labels))
    return tuple(out)


def place_job(replicas: Iterable[Replica], nodes: Iterable[oracle.Node]) -> list[tuple[str, str]]:
    """``(pod, node)`` for every pod of the job, ``node`` ``""`` for a pod that stays Pending.

    Pods are ``<role>-<index>``, placed in order, each on the first node it fits once the pods
    before it took their requests.
    """
    free = [copy.copy(n) for n in nodes]
    out = []
    for replica in replicas:
        for index in range(replica.count):
            where = ""
            for i, node in enumerate(free):
                if not oracle.schedule(replica.pod, [node])[node.name]:
                    where = node.name
                    free[i] = _take(node, oracle._pod_requests(replica.pod))
                    break
            out.append((f"{replica.role}-{index}", where))
    return out


def _take(node: oracle.Node, requests: Mapping[str, Decimal]) -> oracle.Node:
    left = dict(node.allocatable)
    for name, amount in requests.items():
        left[name] = str(oracle._quantity(left.get(name, "0")) - amount)
    return dataclasses.replace(node, allocatable=left)
