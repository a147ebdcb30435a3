"""A placement oracle: what flytepropeller v1.16.8 sends for a registered task, and where the
Kubernetes scheduler can put it.

Input is what ``pyflyte serialize`` writes (``TaskSpec`` / ``WorkflowSpec`` protobufs, read back
from the bytes, see :func:`registered`), or a ``DynamicJobSpec`` a ``@dynamic`` returns. Output:

1. :func:`propeller_pod`: the pod spec propeller builds for one task node, following the
   rules of ``flyteplugins/go/tasks/pluginmachinery/flytek8s`` at tag v1.16.8. The rules are
   restated here as data (the tables below), each with the Go function it comes from; the
   steps that read them are written for this test, not translated line by line;
2. :func:`schedule`: for each node of an :data:`INVENTORY` (labels, taints, allocatable
   resources, as the GPU Operator, GKE, AMD's device plugin and Flyte's own node labels set
   them) whether the pod can go there, and if not, why (node selector, required node affinity,
   taints against tolerations, requests against allocatable);
3. :func:`gate_accepts`: whether the benchmark gate's expectation accepts the device a node
   really has (the gate's rule: a spec without a partition means whole devices).

Nothing here imports ``accelerators.kubernetes``: the oracle must not agree with the code under
test by construction.
"""

from __future__ import annotations

import tempfile
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from flyteidl.admin.task_pb2 import TaskSpec
from flyteidl.admin.workflow_pb2 import WorkflowSpec
from flyteidl.core import tasks_pb2, workflow_pb2
from google.protobuf.json_format import MessageToDict

# -- propeller's configuration: config.go, K8sPluginConfig defaults (v1.16.8) ----------------------
PROPELLER_DEFAULTS: Mapping[str, Any] = {
    "gpu-device-node-label": "k8s.amazonaws.com/accelerator",
    "gpu-partition-size-node-label": "k8s.amazonaws.com/gpu-partition-size",
    "gpu-unpartitioned-node-selector-requirement": None,
    "gpu-unpartitioned-toleration": None,
    "gpu-resource-name": "nvidia.com/gpu",
    "resource-tolerations": {},
    "add-tolerations-for-extended-resources": (),
    "default-cpus": "1000m",
    "default-memory": "1024Mi",
}

# -- the rules, as data ----------------------------------------------------------------------------
#: utils.go ``ToK8sResourceList``: IDL resource names of a Container target and of node
#: overrides. GPU is the literal ``nvidia.com/gpu`` (``ResourceNvidiaGPU``), not the configured
#: name; zero values are dropped.
IDL_RESOURCE_NAMES: Mapping[str, str] = {
    "CPU": "cpu",
    "MEMORY": "memory",
    "GPU": "nvidia.com/gpu",
    "EPHEMERAL_STORAGE": "ephemeral-storage",
}
#: container_helper.go ``SanitizeGPUResourceRequirements``: in every container the key
#: ``gpu`` (what flytekit's ``_serialize_pod_spec`` writes) becomes ``gpu-resource-name``.
SANITIZED_KEY = "gpu"
#: pod_helper.go ``BuildRawPod``: a node override's pod template replaces the pod spec of either
#: target (``ApplyPodTemplateOverride``), and names the primary container.
OVERRIDE_POD_TEMPLATE_REPLACES = True
#: pod_helper.go ``ApplyFlytePodConfiguration`` -> container_helper.go
#: ``AddFlyteCustomizationsToContainerWithPodTemplate``: the primary container merges the node
#: override's resources key by key (``MergeResources``), then ``ApplyResourceOverrides`` with
#: defaults assigned; other containers are only kept in range (nothing assigned).
PRIMARY_MODE, OTHER_MODE = "merge-existing", "ensure-in-range"
#: container_helper.go ``ApplyResourceOverrides`` -> ``AdjustOrDefaultResource``: for cpu,
#: memory, ephemeral storage (when set) and the GPU resource (when requested or limited) a
#: missing request takes the limit and a missing limit takes the request; cpu and memory
#: requests default to ``default-cpus`` / ``default-memory``. No other resource is touched.
ADJUSTED = ("cpu", "memory")
#: pod_helper.go ``applyExtendedResourcesOverrides``: each field of the node's
#: ``ExtendedResources`` that is set replaces the task's, whole.
EXTENDED_RESOURCE_FIELDS = ("gpu_accelerator", "shared_memory")
#: pod_helper.go ``ApplyGPUNodeSelectors``: nothing unless a container *limits*
#: ``gpu-resource-name``; then ``device -> In [device]`` and an ``Equal``/``NoSchedule``
#: toleration, and per partition oneof the requirement and toleration below (``None``: the
#: configured value, if any). ``AddRequiredNodeSelectorRequirements`` ANDs each requirement
#: into every existing required term (or makes the first term).
PARTITION_RULES: Mapping[str, tuple[str, str | None]] = {
    # oneof field: (requirement operator, toleration operator)
    "partition_size": ("In", "Equal"),
    "unpartitioned": ("DoesNotExist", None),
}
#: k8s_resource_adds.go ``GetPodTolerations``: ``resource-tolerations`` for each resource any
#: container requests or limits. pod_helper.go ``AddTolerationsForExtendedResources``: an
#: ``Exists``/``NoSchedule`` toleration for each listed resource a container *requests*.

# -- the cluster side ------------------------------------------------------------------------------
#: Kubernetes' ``ExtendedResourceToleration`` admission plugin (enabled on GKE): a pod that
#: requests an extended resource gets ``{key: <resource>, operator: Exists, effect: NoSchedule}``.
EXTENDED_RESOURCE_TOLERATION = True
#: Resources the API server refuses to overcommit: an extended resource (a name with a domain
#: other than kubernetes.io) must have a limit, and a request equal to it
#: (``ValidateResourceRequirements``).
_NATIVE = ("cpu", "memory", "ephemeral-storage")


@dataclass(frozen=True)
class Node:
    """One node of the inventory and the device a pod on it really gets."""

    name: str
    labels: Mapping[str, str]
    allocatable: Mapping[str, str]
    taints: tuple[Mapping[str, str], ...] = ()
    #: the catalog entry and partition a container on this node is given ("" for none)
    device: str = ""
    partition: str | None = None


_CPU = {"cpu": "190", "memory": "1800Gi"}
_FLYTE_D = "k8s.amazonaws.com/accelerator"
_FLYTE_P = "k8s.amazonaws.com/gpu-partition-size"
_GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


def _node(name: str, labels: Mapping[str, str], **kwargs: Any) -> Node:
    return Node(name, {"kubernetes.io/hostname": name, **labels}, **kwargs)


#: The node pools a Flyte deployment on GKE with the GPU Operator might have. Labels: Flyte's
#: defaults (``k8s.amazonaws.com/*``, set on the pools by the operator of the cluster), GKE's
#: (cloud.google.com/gke-accelerator, gke-gpu-partition-size, gke-tpu-*; GKE docs) and GPU
#: Feature Discovery's (nvidia.com/gpu.product, with the ``-MIG-<profile>`` suffix under the
#: single MIG strategy; k8s-device-plugin ``internal/lm``). GKE taints GPU and TPU pools with
#: ``nvidia.com/gpu=present`` / ``google.com/tpu=present``.
INVENTORY: tuple[Node, ...] = (
    _node(
        "h100-whole",
        {
            _FLYTE_D: "nvidia-h100",
            "cloud.google.com/gke-accelerator": "nvidia-h100-80gb",
            "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
            "nvidia.com/gpu.count": "8",
        },
        allocatable={**_CPU, "nvidia.com/gpu": "8"},
        taints=(_GPU_TAINT,),
        device="H100-SXM",
    ),
    _node(
        "h100-mig-1g10gb",
        {
            _FLYTE_D: "nvidia-h100",
            _FLYTE_P: "1g.10gb",
            "cloud.google.com/gke-accelerator": "nvidia-h100-80gb",
            "cloud.google.com/gke-gpu-partition-size": "1g.10gb",
            "nvidia.com/mig.strategy": "single",
            "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb",
            "nvidia.com/gpu.count": "56",
        },
        allocatable={**_CPU, "nvidia.com/gpu": "56"},
        taints=(_GPU_TAINT,),
        device="H100-SXM",
        partition="1g.10gb",
    ),
    _node(
        "h200-whole",
        {
            _FLYTE_D: "nvidia-h200",
            "cloud.google.com/gke-accelerator": "nvidia-h200-141gb",
            "nvidia.com/gpu.product": "NVIDIA-H200",
        },
        allocatable={**_CPU, "nvidia.com/gpu": "8"},
        taints=(_GPU_TAINT,),
        device="H200-SXM",
    ),
    _node(
        "a100-80gb",
        {
            _FLYTE_D: "nvidia-a100-80gb",
            "cloud.google.com/gke-accelerator": "nvidia-a100-80gb",
            "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB",
        },
        allocatable={**_CPU, "nvidia.com/gpu": "8"},
        taints=(_GPU_TAINT,),
        device="A100-80GB-SXM",
    ),
    _node(
        "a100-40gb-mig-1g5gb",
        {
            _FLYTE_D: "nvidia-tesla-a100",
            _FLYTE_P: "1g.5gb",
            "cloud.google.com/gke-accelerator": "nvidia-tesla-a100",
            "cloud.google.com/gke-gpu-partition-size": "1g.5gb",
            "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb",
        },
        allocatable={**_CPU, "nvidia.com/gpu": "56"},
        taints=(_GPU_TAINT,),
        device="A100-40GB-SXM",
        partition="1g.5gb",
    ),
    _node(
        "a100-40gb-mig-2g10gb",
        {
            _FLYTE_D: "nvidia-tesla-a100",
            _FLYTE_P: "2g.10gb",
            "cloud.google.com/gke-accelerator": "nvidia-tesla-a100",
            "cloud.google.com/gke-gpu-partition-size": "2g.10gb",
            "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB-MIG-2g.10gb",
        },
        allocatable={**_CPU, "nvidia.com/gpu": "24"},
        taints=(_GPU_TAINT,),
        device="A100-40GB-SXM",
        partition="2g.10gb",
    ),
    _node(
        "mi300x",
        {
            _FLYTE_D: "amd-mi300x",
            "amd.com/gpu.product-name": "AMD_Instinct_MI300X_OAM",
        },
        allocatable={**_CPU, "amd.com/gpu": "8"},
        taints=({"key": "amd.com/gpu", "value": "present", "effect": "NoSchedule"},),
        device="MI300X",
    ),
    _node(
        "tpu-v5p-2x2x1",
        {
            "cloud.google.com/gke-tpu-accelerator": "tpu-v5p-slice",
            "cloud.google.com/gke-tpu-topology": "2x2x1",
        },
        allocatable={**_CPU, "google.com/tpu": "4"},
        taints=({"key": "google.com/tpu", "value": "present", "effect": "NoSchedule"},),
        device="TPU-V5P",
        partition="2x2x1",
    ),
    _node(
        "l4",
        {
            _FLYTE_D: "nvidia-l4",
            "cloud.google.com/gke-accelerator": "nvidia-l4",
            "nvidia.com/gpu.product": "NVIDIA-L4",
        },
        allocatable={**_CPU, "nvidia.com/gpu": "8"},
        taints=(_GPU_TAINT,),
        device="L4",
    ),
    _node("cpu", {}, allocatable=_CPU),
)
NODES = {n.name: n for n in INVENTORY}


# -- serialised entities ---------------------------------------------------------------------------
@dataclass
class Registered:
    """What ``pyflyte serialize`` wrote for an entity, read back from the ``.pb`` bytes."""

    tasks: dict[str, tasks_pb2.TaskTemplate] = field(default_factory=dict)
    workflows: dict[str, workflow_pb2.WorkflowTemplate] = field(default_factory=dict)

    def task(self, suffix: str) -> tasks_pb2.TaskTemplate:
        """The task whose name ends with ``suffix``."""
        [found] = [t for name, t in self.tasks.items() if name.endswith(suffix)]
        return found

    def nodes(self, workflow: str = "") -> list[workflow_pb2.Node]:
        """Task nodes of the workflow whose name ends with ``workflow`` (the only one if ""),
        a map task's (array node's) inner node included."""
        [template] = [t for n, t in self.workflows.items() if n.endswith(workflow)]
        found = []
        for node in template.nodes:
            if node.HasField("array_node"):
                node = node.array_node.node
            if node.HasField("task_node"):
                found.append(node)
        return found

    def pods(self, workflow: str = "") -> list[tuple[str, dict[str, Any]]]:
        """``(task name, pod spec)`` of each task node, as propeller builds them."""
        out = []
        for node in self.nodes(workflow):
            task = self.tasks[node.task_node.reference_id.name]
            out.append((task.id.name, propeller_pod(task, node.task_node.overrides)))
        return out


def registered(entity: Any, settings: Any) -> Registered:
    """Serialise ``entity`` as ``pyflyte serialize`` does and read the protobufs back.

    ``get_serializable`` then ``persist_registrable_entities`` (flytekit's own writer for
    ``pyflyte serialize``/``package``) into a temporary folder; the files are parsed with
    flyteidl's ``TaskSpec``/``WorkflowSpec``, as flyteadmin reads them.
    """
    from flytekit.tools.serialize_helpers import persist_registrable_entities
    from flytekit.tools.translator import get_serializable

    mapping: OrderedDict[Any, Any] = OrderedDict()
    get_serializable(mapping, settings, entity)
    with tempfile.TemporaryDirectory() as folder:
        entities = [e for e in mapping.values() if type(e).__name__ in ("TaskSpec", "WorkflowSpec")]
        persist_registrable_entities(entities, folder)
        return read_folder(Path(folder))


def read_folder(folder: Path) -> Registered:
    """Read the ``*_1.pb`` (tasks) and ``*_2.pb`` (workflows) files ``pyflyte serialize`` wrote."""
    out = Registered()
    for path in sorted(folder.glob("*.pb")):
        data = path.read_bytes()
        if path.name.endswith("_1.pb"):
            template = TaskSpec.FromString(data).template
            out.tasks[template.id.name] = template
        elif path.name.endswith("_2.pb"):
            template = WorkflowSpec.FromString(data).template
            out.workflows[template.id.name] = template
    return out


def dynamic_job(job: Any) -> Registered:
    """A ``DynamicJobSpec`` a ``@dynamic`` returned, as the same two maps (from its bytes)."""
    from flyteidl.core.dynamic_job_pb2 import DynamicJobSpec

    spec = DynamicJobSpec.FromString(job.to_flyte_idl().SerializeToString())
    out = Registered()
    for task in spec.tasks:
        out.tasks[task.id.name] = task
    out.workflows["dynamic"] = workflow_pb2.WorkflowTemplate(nodes=spec.nodes)
    return out


# -- propeller -------------------------------------------------------------------------------------
def propeller_pod(
    task: tasks_pb2.TaskTemplate,
    overrides: workflow_pb2.TaskNodeOverrides | None = None,
    config: Mapping[str, Any] = PROPELLER_DEFAULTS,
    *,
    replica_resources: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, Any]:
    """The pod spec (camelCase dict) propeller's ``ToK8sPodSpec`` builds for ``task`` on a node
    with ``overrides`` (a workflow node's ``task_node.overrides``).

    ``replica_resources`` (k8s names, defaults assigned): what a task plugin's replica spec puts
    in place of the node's resources (``flytek8s.WithResources``, kubeflow's
    ``ToReplicaSpecWithOverrides``); see ``job_oracle``.
    """
    overrides = overrides or workflow_pb2.TaskNodeOverrides()
    pod, primary = _raw_pod(task, overrides)
    gpu = config["gpu-resource-name"]
    override_resources: Mapping[str, Mapping[str, str]] = (
        _idl_resources(overrides.resources) if replica_resources is None else replica_resources
    )
    requested: list[Mapping[str, Any]] = []
    for container in pod.get("containers", []):
        resources = container.setdefault("resources", {})
        for side in ("limits", "requests"):
            values = resources.setdefault(side, {})
            if SANITIZED_KEY in values:
                values[gpu] = values.pop(SANITIZED_KEY)
        if container["name"] == primary:  # PRIMARY_MODE
            for side in ("limits", "requests"):
                resources[side].update(override_resources.get(side, {}))
            _adjust(resources, config, assign=True)
        else:  # OTHER_MODE
            _adjust(resources, config, assign=False)
        requested.append(resources)
    if not any(c["name"] == primary for c in pod.get("containers", [])):
        raise ValueError(f"primary container {primary!r} not defined (BadTaskSpecification)")
    tolerations = [
        dict(t)
        for name in sorted({k for r in requested for side in r.values() for k in side})
        for t in config["resource-tolerations"].get(name, ())
    ]
    pod["tolerations"] = tolerations + list(pod.get("tolerations", []))
    extended = _merge_extended(task.extended_resources, overrides.extended_resources)
    if extended.HasField("gpu_accelerator"):
        _gpu_node_selectors(pod, extended.gpu_accelerator, config)
    for name in config["add-tolerations-for-extended-resources"]:
        if any(name in c.get("resources", {}).get("requests", {}) for c in pod["containers"]):
            wanted = {"key": name, "operator": "Exists", "effect": "NoSchedule"}
            if wanted not in pod["tolerations"]:
                pod["tolerations"].append(wanted)
    return pod


def _raw_pod(
    task: tasks_pb2.TaskTemplate, overrides: workflow_pb2.TaskNodeOverrides
) -> tuple[dict[str, Any], str]:
    """pod_helper.go ``BuildRawPod``."""
    target = task.WhichOneof("target")
    if target == "container":
        container = {
            "name": "task-container",
            "image": task.container.image,
            "args": list(task.container.args),
            "env": [{"name": e.key, "value": e.value} for e in task.container.env],
            "resources": _idl_resources(task.container.resources),
        }
        pod: dict[str, Any] = {"containers": [container]}
        primary = container["name"]
    elif target == "k8s_pod":
        pod = MessageToDict(task.k8s_pod.pod_spec)
        primary = task.config["primary_container_name"]
    else:
        raise ValueError(f"task target {target!r}: not a pod")
    replaced = overrides.HasField("pod_template") and overrides.pod_template.HasField("pod_spec")
    if OVERRIDE_POD_TEMPLATE_REPLACES and replaced:
        pod = MessageToDict(overrides.pod_template.pod_spec)
        primary = overrides.pod_template.primary_container_name
    return pod, primary


def _idl_resources(resources: tasks_pb2.Resources) -> dict[str, dict[str, str]]:
    """utils.go ``ToK8sResourceRequirements``."""
    names = tasks_pb2.Resources.ResourceName.Name
    out: dict[str, dict[str, str]] = {}
    for side, entries in (("limits", resources.limits), ("requests", resources.requests)):
        values = {
            IDL_RESOURCE_NAMES[names(e.name)]: e.value
            for e in entries
            if names(e.name) in IDL_RESOURCE_NAMES and _quantity(e.value) != 0
        }
        if values:
            out[side] = values
    return out


def _adjust(resources: dict[str, Any], config: Mapping[str, Any], *, assign: bool) -> None:
    """container_helper.go ``ApplyResourceOverrides`` (no platform limits configured)."""
    limits, requests = resources.setdefault("limits", {}), resources.setdefault("requests", {})
    names = list(ADJUSTED)
    if "ephemeral-storage" in limits or "ephemeral-storage" in requests:
        names.append("ephemeral-storage")
    gpu = config["gpu-resource-name"]
    if gpu in limits or gpu in requests:
        names.append(gpu)
    defaults = {"cpu": config["default-cpus"], "memory": config["default-memory"]}
    for name in names:
        request, limit = requests.get(name), limits.get(name)
        if assign:  # AdjustOrDefaultResource
            request = request or limit or defaults.get(name)
            limit = limit or request
        if request is not None and limit is not None and _quantity(request) > _quantity(limit):
            request = limit  # ensureResourceRange: request <= limit
        if request is not None:
            requests[name] = request
        if limit is not None:
            limits[name] = limit


def _merge_extended(
    base: tasks_pb2.ExtendedResources, override: tasks_pb2.ExtendedResources
) -> tasks_pb2.ExtendedResources:
    """pod_helper.go ``applyExtendedResourcesOverrides``."""
    merged = tasks_pb2.ExtendedResources()
    merged.CopyFrom(base)
    for name in EXTENDED_RESOURCE_FIELDS:
        if override.HasField(name):
            getattr(merged, name).CopyFrom(getattr(override, name))
    return merged


def _gpu_node_selectors(
    pod: dict[str, Any], accelerator: tasks_pb2.GPUAccelerator, config: Mapping[str, Any]
) -> None:
    """pod_helper.go ``ApplyGPUNodeSelectors``."""
    gpu = config["gpu-resource-name"]
    if not any(gpu in c.get("resources", {}).get("limits", {}) for c in pod["containers"]):
        return
    requirements: list[dict[str, Any]] = []
    device_label = config["gpu-device-node-label"]
    if accelerator.device:
        requirements.append({"key": device_label, "operator": "In", "values": [accelerator.device]})
        pod["tolerations"].append(_equal(device_label, accelerator.device))
    which = accelerator.WhichOneof("partition_size_value")
    if which == "unpartitioned" and not accelerator.unpartitioned:
        which = None
    if which is not None:
        operator, toleration = PARTITION_RULES[which]
        label = config["gpu-partition-size-node-label"]
        if which == "partition_size":
            requirements.append(
                {"key": label, "operator": operator, "values": [accelerator.partition_size]}
            )
            if toleration == "Equal":
                pod["tolerations"].append(_equal(label, accelerator.partition_size))
        else:
            configured = config["gpu-unpartitioned-node-selector-requirement"]
            requirements.append(configured or {"key": label, "operator": operator})
            if config["gpu-unpartitioned-toleration"]:
                pod["tolerations"].append(config["gpu-unpartitioned-toleration"])
    if not requirements:
        return
    affinity = pod.setdefault("affinity", {}).setdefault("nodeAffinity", {})
    required = affinity.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})
    terms = required.setdefault("nodeSelectorTerms", [])
    if terms:  # AddRequiredNodeSelectorRequirements: AND into every term
        for term in terms:
            term.setdefault("matchExpressions", []).extend(dict(r) for r in requirements)
    else:
        terms.append({"matchExpressions": requirements})


def _equal(key: str, value: str) -> dict[str, str]:
    return {"key": key, "value": value, "operator": "Equal", "effect": "NoSchedule"}


# -- the scheduler ---------------------------------------------------------------------------------
def schedule(pod: Mapping[str, Any], nodes: Iterable[Node] = INVENTORY) -> dict[str, str]:
    """Node name -> ``""`` where the pod fits, else the first reason it does not.

    An invalid pod (what the API server refuses) fits nowhere: every node gets the reason.
    """
    problem = api_server_rejects(pod)
    tolerations = list(pod.get("tolerations", []))
    if EXTENDED_RESOURCE_TOLERATION:
        for name in sorted(_pod_requests(pod)):
            if name not in _NATIVE:
                tolerations.append({"key": name, "operator": "Exists", "effect": "NoSchedule"})
    out: dict[str, str] = {}
    for node in nodes:
        out[node.name] = problem or _misfit(pod, tolerations, node)
    return out


def lands_on(pod: Mapping[str, Any], nodes: Iterable[Node] = INVENTORY) -> list[str]:
    """Names of the nodes the pod can be scheduled on."""
    return [name for name, why in schedule(pod, nodes).items() if not why]


def api_server_rejects(pod: Mapping[str, Any]) -> str:
    """Why the API server refuses the pod (extended resources), or ``""``."""
    for container in pod.get("containers", []):
        resources = container.get("resources", {})
        limits, requests = resources.get("limits", {}), resources.get("requests", {})
        for name in {*limits, *requests} - set(_NATIVE):
            if name not in limits:
                return f"{container['name']}: {name} requested without a limit"
            if name in requests and _quantity(requests[name]) != _quantity(limits[name]):
                return f"{container['name']}: {name} request must equal its limit"
    return ""


def device_request(pod: Mapping[str, Any]) -> dict[str, str]:
    """The extended resources the pod's containers limit (what they are given)."""
    out: dict[str, str] = {}
    for container in pod.get("containers", []):
        for name, value in container.get("resources", {}).get("limits", {}).items():
            if name not in _NATIVE:
                out[name] = value
    return out


def env(pod: Mapping[str, Any], container: str | None = None) -> dict[str, Any]:
    """Environment of the named container (the first when ``None``), name -> value/valueFrom."""
    found = pod["containers"][0] if container is None else _container(pod, container)
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in found.get("env", [])}


def _container(pod: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    return next(c for c in pod["containers"] if c["name"] == name)


def _pod_requests(pod: Mapping[str, Any]) -> dict[str, Decimal]:
    """Requests the scheduler counts: containers summed (a missing request takes the limit)."""
    total: dict[str, Decimal] = {}
    for container in pod.get("containers", []):
        resources = container.get("resources", {})
        limits, requests = resources.get("limits", {}), resources.get("requests", {})
        for name in {*limits, *requests}:
            value = requests.get(name, limits.get(name))
            total[name] = total.get(name, Decimal(0)) + _quantity(value)
    return total


def _misfit(pod: Mapping[str, Any], tolerations: Sequence[Mapping[str, Any]], node: Node) -> str:
    for key, value in (pod.get("nodeSelector") or {}).items():
        if node.labels.get(key) != value:
            return f"nodeSelector {key}={value}"
    required = (
        (pod.get("affinity") or {})
        .get("nodeAffinity", {})
        .get("requiredDuringSchedulingIgnoredDuringExecution")
    )
    if required is not None:
        terms = required.get("nodeSelectorTerms", [])
        if not any(_term_matches(t, node.labels) for t in terms):
            return "required node affinity: " + " OR ".join(_show_term(t) for t in terms)
    for taint in node.taints:
        if taint["effect"] in ("NoSchedule", "NoExecute") and not any(
            _tolerates(t, taint) for t in tolerations
        ):
            return f"taint {taint['key']}={taint.get('value', '')}:{taint['effect']}"
    for name, amount in _pod_requests(pod).items():
        have = _quantity(node.allocatable.get(name, "0"))
        if amount > have:
            return f"insufficient {name} (asks {amount}, node has {have})"
    return ""


def _term_matches(term: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    expressions = term.get("matchExpressions", [])
    if not expressions and not term.get("matchFields"):
        return False  # an empty term matches no node
    return all(_expression(e, labels) for e in expressions)


def _expression(expression: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key, operator = expression["key"], expression["operator"]
    values = expression.get("values", [])
    present = key in labels
    if operator == "In":
        return present and labels[key] in values
    if operator == "NotIn":
        return not present or labels[key] not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt"):
        if not present or not labels[key].lstrip("-").isdigit():
            return False
        number, bound = int(labels[key]), int(values[0])
        return number > bound if operator == "Gt" else number < bound
    raise ValueError(f"unknown operator {operator!r}")


def _tolerates(toleration: Mapping[str, Any], taint: Mapping[str, str]) -> bool:
    if toleration.get("effect") and toleration["effect"] != taint["effect"]:
        return False
    if toleration.get("operator", "Equal") == "Exists":
        return not toleration.get("key") or toleration["key"] == taint["key"]
    return toleration.get("key") == taint["key"] and toleration.get("value", "") == taint.get(
        "value", ""
    )


def _show_term(term: Mapping[str, Any]) -> str:
    return " AND ".join(
        f"{e['key']} {e['operator']} {e.get('values', '')}".rstrip()
        for e in term.get("matchExpressions", [])
    )


_SUFFIXES = {
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "m": Decimal("0.001"),
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
}


def _quantity(value: Any) -> Decimal:
    text = str(value)
    for suffix, factor in _SUFFIXES.items():
        if text.endswith(suffix):
            return Decimal(text[: -len(suffix)]) * Decimal(factor)
    return Decimal(text)


# -- the gate's view -------------------------------------------------------------------------------
def gate_accepts(expected: Any, node: Node) -> bool:
    """Whether a gate expecting ``expected`` passes the identity check on ``node``'s device.

    The gate's rule (``accelerators.bench``): the device must be a candidate of an alternative,
    and a spec without a partition wants whole devices (a MIG slice fails ``mig_slice``).
    """
    from accelerators import AcceleratorSpec, catalog

    if not node.device:
        return False
    entry = catalog.get(node.device)
    spec = AcceleratorSpec.parse(expected)
    return any(
        entry in alt.candidates and alt.partition == node.partition for alt in spec.alternatives
    )
