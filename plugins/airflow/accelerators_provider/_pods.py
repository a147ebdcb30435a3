"""Pod plumbing shared by the operators, decorators and executor helpers.

``KubernetesPodOperator`` and the KubernetesExecutor build a pod from a base (a pod template
file, a template dict or ``full_pod_spec``) and the operator's own arguments, and for
``nodeSelector``, ``tolerations``, ``affinity`` and the container's ``resources`` the
argument *replaces* the base's value. The callers read the layers here, the same way
(:func:`template_pod`, :func:`arguments_pod`), and hand them to the core's one placement,
:func:`accelerators.kubernetes.place`: it puts back what the base had under the arguments, so
that nothing the user wrote is lost, checks requests against limits, the node count and the
layers' selectors against the spec, and merges the accelerator in, raising
:class:`~accelerators.PlacementError` on a real conflict (:func:`place_task`). The
deployment's cluster policy (``pod_mutation_hook``) still runs last, when Airflow builds the
pod.

Everything here works on camelCase dicts; :func:`to_dict` and :func:`to_pod` convert
``kubernetes.client`` models.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from accelerators import AcceleratorError, AcceleratorSpec, PlacementError
from accelerators.kubernetes import (
    merge_fragment,
    place,
    platform_name,
    platforms,
    reconcile_placement,
)

__all__ = [
    "HOSTNAME_LABEL",
    "airflow_platforms",
    "arguments_pod",
    "avoid_nodes",
    "base_first",
    "check_platform",
    "check_profile",
    "has_template",
    "main_container",
    "pin_to_node",
    "place_task",
    "put_back",
    "read_template",
    "read_template_dict",
    "refuse_template",
    "template_pod",
    "to_dict",
    "to_pod",
]

#: The well-known label every node carries with its own name.
HOSTNAME_LABEL = "kubernetes.io/hostname"

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def is_template(value: Any) -> TypeGuard[str]:
    """True for a string that Airflow will still render with Jinja."""
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def has_template(value: Any) -> bool:
    """Whether a Jinja template is anywhere in ``value`` (a dict, list or string)."""
    if isinstance(value, dict):
        return any(has_template(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(has_template(v) for v in value)
    return is_template(value)


def main_container(pod: Mapping[str, Any] | None, name: str) -> dict[str, Any]:
    """The container ``name`` of a pod dict, else its first (``{}``: none)."""
    containers = ((pod or {}).get("spec") or {}).get("containers") or []
    found = next((c for c in containers if c.get("name") == name), None)
    return dict(found or (containers[0] if containers else {}))


def refuse_template(value: Any, argument: str, *, decorator: str, operator: str) -> None:
    """Raise for a Jinja template given to an argument a decorator reads at parse time."""
    if is_template(value):
        raise AcceleratorError(
            f"{decorator}: {argument}={value!r} is a Jinja template, but a decorator's "
            f"{argument} is read when the DAG is parsed and is not templated. Use "
            f"{operator}, whose {argument} is a templated field, or a plain value"
        )


def airflow_platforms() -> tuple[str, ...]:
    """The platforms an Airflow task can name: all but ``flyte`` (flytepropeller's)."""
    return tuple(name for name in platforms() if name != "flyte")


def check_platform(platform: Any) -> None:
    """Raise :class:`PlacementError` unless ``platform`` names a platform for Airflow tasks
    (a Jinja template or a ``Platform`` instance passes); a missing one is named as such, and
    an unknown one as the core names it (:func:`accelerators.kubernetes.platform_name`)."""
    if platform is None or (isinstance(platform, str) and not platform.strip()):
        raise PlacementError(
            f"platform= is required: the cluster's platform, one of "
            f"{', '.join(airflow_platforms())} (it picks the node labels, resources and "
            "tolerations of the pod; docs/kubernetes.md)"
        )
    if not isinstance(platform, str) or is_template(platform):
        return
    if platform.strip().lower() == "flyte":
        raise PlacementError(
            "platform 'flyte' places pods as flytepropeller does and is for Flyte tasks; on "
            f"Airflow name your cluster's platform: one of {', '.join(airflow_platforms())}"
        )
    platform_name(platform, among=airflow_platforms())


def check_profile(profile: Any) -> None:
    """Raise :class:`AcceleratorError` unless ``profile`` names a benchmark profile (with
    did-you-mean); a Jinja template passes, and is checked once rendered."""
    if is_template(profile):
        return
    from accelerators.bench import profile_name

    profile_name(profile)


def read_template(path: str, *, argument: str = "pod_template_file") -> dict[str, Any]:
    """The pod template file at ``path`` as a camelCase dict.

    Airflow's own reader takes a path that does not exist for YAML text and fails later
    with an unrelated error; here it is refused by name.

    :raises AcceleratorError: ``path`` does not exist or is not a file.
    """
    import os

    if not os.path.isfile(path):
        where = "does not exist" if not os.path.exists(path) else "is not a file"
        raise AcceleratorError(
            f"{argument}: {path!r} {where}. A pod template file must be readable where the DAG "
            "is parsed and where the task runs (a path in the image, or a templated path that "
            "Airflow renders at run time)"
        )
    from airflow.providers.cncf.kubernetes.pod_generator import PodGenerator

    return to_dict(PodGenerator.deserialize_model_file(path))


def read_template_dict(value: Any, *, argument: str = "pod_template_dict") -> dict[str, Any]:
    """A ``pod_template_dict`` as ``KubernetesPodOperator`` reads it: deserialised into a
    ``V1Pod`` (its build does the same), as a camelCase dict.

    :raises AcceleratorError: a key that deserialising would drop (``node_selector`` for
        ``nodeSelector``, a misspelt field): the pod would lose it silently.
    """
    from airflow.providers.cncf.kubernetes.pod_generator import PodGenerator

    raw = to_dict(value)
    read = to_dict(PodGenerator.deserialize_model_dict(raw))
    lost = _lost_keys(raw, read, "")
    if lost:
        raise AcceleratorError(
            f"{argument}: KubernetesPodOperator reads it as a V1Pod, which has no "
            f"{', '.join(lost[:5])}{' ...' if len(lost) > 5 else ''}: the pod would lose "
            "them. Write the Kubernetes API's camelCase fields (nodeSelector, not "
            "node_selector), or pass a kubernetes.client model"
        )
    return read


def _lost_keys(raw: Any, read: Any, path: str) -> list[str]:
    """The paths of ``raw``'s keys (with a value) that ``read`` lacks."""
    if isinstance(raw, Mapping) and isinstance(read, Mapping):
        lost = []
        for key, value in raw.items():
            where = f"{path}.{key}" if path else str(key)
            if value is None:
                continue
            if key not in read:
                lost.append(where)
            else:
                lost += _lost_keys(value, read[key], where)
        return lost
    if isinstance(raw, list) and isinstance(read, list):
        return [
            lost
            for i, (item, kept) in enumerate(zip(raw, read, strict=False))
            for lost in _lost_keys(item, kept, f"{path}[{i}]")
        ]
    return []


def template_pod(
    *,
    pod_template_file: str | None,
    pod_template_dict: Any,
    full_pod_spec: Any,
    container: str,
) -> tuple[dict[str, Any] | None, str]:
    """The pod ``KubernetesPodOperator`` starts from (``None``: none) and how messages name
    it: the template file or dict, with ``full_pod_spec`` reconciled over it, as the operator
    and ``@task.accelerator`` both read them. A Jinja-templated path is the caller's to skip.
    """
    base: dict[str, Any] | None = None
    name = ""
    if pod_template_file:
        base = read_template(pod_template_file)
        name = f"pod_template_file {pod_template_file!r}"
    elif pod_template_dict:
        base = read_template_dict(pod_template_dict)
        name = "pod_template_dict"
    if full_pod_spec is not None:
        full = to_dict(full_pod_spec)
        base = full if base is None else reconcile_placement(base, full, container=container)
        name = f"{name} and full_pod_spec" if name else "full_pod_spec"
    return base, name


def arguments_pod(
    container: str,
    *,
    container_resources: Any = None,
    node_selector: Mapping[str, str] | None = None,
    tolerations: Sequence[Any] | None = None,
    affinity: Any = None,
    runtime_class_name: str | None = None,
) -> dict[str, Any] | None:
    """The placement a task's own ``KubernetesPodOperator`` arguments give, as a Pod
    (``None``: they give none)."""
    given = (container_resources, node_selector, tolerations, affinity, runtime_class_name)
    if not any(given):
        return None
    spec: dict[str, Any] = {
        "containers": [{"name": container, "resources": to_dict(container_resources)}],
        "nodeSelector": dict(node_selector or {}),
        "tolerations": [to_dict(t) for t in tolerations or []],
        "affinity": to_dict(affinity),
    }
    if runtime_class_name:
        spec["runtimeClassName"] = runtime_class_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": spec}


def place_task(
    spec: AcceleratorSpec,
    platform: str,
    options: Mapping[str, Any],
    *,
    base: tuple[dict[str, Any] | None, str],
    arguments: tuple[dict[str, Any] | None, str, str],
    container: str,
) -> dict[str, Any]:
    """The task's pod: ``spec`` placed into its layers by the core
    (:func:`accelerators.kubernetes.place`), the one placement of every entry point.

    :param base: the template pod and how to name it (:func:`template_pod`).
    :param arguments: the task's own layer, how to name it, and how to name the argument
        that gives its container's resources (``container_resources``, ``pod_override``).
    :raises PlacementError: every problem :func:`~accelerators.kubernetes.place` found.
    """
    pod, source, resources = arguments
    template, name = base
    placed = place(
        spec,
        platform,
        base=template,
        arguments=pod,
        container=container,
        base_source=name or resources,
        arguments_source=source,
        resources_source=resources,
        **options,
    )
    pod_dict = placed.check()
    placed.warn_left_out(f"{placed.spec}: ", stacklevel=3)
    return pod_dict


def to_dict(obj: Any) -> dict[str, Any]:
    """A ``kubernetes.client`` model (or dict) as a camelCase dict."""
    if obj is None:
        return {}
    if isinstance(obj, Mapping):
        return copy.deepcopy(dict(obj))
    data = _api_client().sanitize_for_serialization(obj)
    if not isinstance(data, dict):
        raise AcceleratorError(f"Expected a Kubernetes object, got {type(obj).__name__}")
    return data


@functools.cache
def _api_client() -> Any:
    """One ``ApiClient`` per process: building one sets up a ``Configuration`` and its loggers
    (a few ms, paid by every operator in every parse). It opens no connection and starts no
    thread until a request is made, and none is: it only serialises."""
    from kubernetes.client import ApiClient

    return ApiClient()


def to_pod(pod: Mapping[str, Any]) -> Any:
    """A Pod dict as a ``kubernetes.client.V1Pod``."""
    from accelerators.kubernetes import pod_model  # kubernetes.client: at run time only

    return pod_model(pod)


def _affinity_term(key: str, operator: str, values: Sequence[str]) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": key, "operator": operator, "values": list(values)}]}
    return {"affinity": {"nodeAffinity": {_REQUIRED: {"nodeSelectorTerms": [term]}}}}


def pin_to_node(pod: Mapping[str, Any], node: str) -> dict[str, Any]:
    """``pod`` required to run on ``node``: node affinity ``kubernetes.io/hostname In [node]``,
    ANDed into every existing required term."""
    return merge_fragment(dict(pod), _affinity_term(HOSTNAME_LABEL, "In", [node]))


def avoid_nodes(pod: Mapping[str, Any], nodes: Sequence[str]) -> dict[str, Any]:
    """``pod`` kept off ``nodes`` (``kubernetes.io/hostname NotIn``), e.g. where a gate failed."""
    if not nodes:
        return dict(pod)
    return merge_fragment(dict(pod), _affinity_term(HOSTNAME_LABEL, "NotIn", sorted(set(nodes))))


def base_first(pod: Mapping[str, Any], name: str) -> tuple[dict[str, Any], int | None]:
    """``pod`` (a camelCase dict) with its container ``name`` moved first, and where it was
    (``None``: no container of that name; the pod is returned as it is unless it moved).

    ``KubernetesPodOperator`` and the KubernetesExecutor pair a template's containers with
    their own by position, so a template with a sidecar first would give the sidecar the
    main container's image, command and resources.
    """
    containers = list((pod.get("spec") or {}).get("containers") or [])
    index = next((i for i, c in enumerate(containers) if c.get("name") == name), None)
    if not index:
        return dict(pod), index
    moved = copy.deepcopy(dict(pod))
    found = moved["spec"]["containers"].pop(index)
    moved["spec"]["containers"].insert(0, found)
    return moved, index


def put_back(pod: Any, name: str, index: int | None) -> Any:
    """A built ``V1Pod`` with its container ``name`` at ``index`` again, where the user's
    template had it (:func:`base_first` moved it first for the build)."""
    containers = list(pod.spec.containers or [])
    current = next((i for i, c in enumerate(containers) if c.name == name), None)
    if not index or current is None or current == index:
        return pod
    containers.insert(min(index, len(containers) - 1), containers.pop(current))
    pod.spec.containers = containers
    return pod
