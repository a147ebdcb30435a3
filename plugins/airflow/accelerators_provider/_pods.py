"""Pod plumbing shared by the operators, decorators and executor helpers.

``KubernetesPodOperator`` and the KubernetesExecutor build a pod from a base (a pod template
file, a template dict or ``full_pod_spec``) and the operator's own arguments, and for
``nodeSelector``, ``tolerations``, ``affinity`` and the container's ``resources`` the
argument *replaces* the base's value. The callers choose the layers and the core merges them
with its one engine, in its one order (the template's entries, then the task's arguments',
then the accelerator's): :func:`accelerators.kubernetes.reconcile_placement` puts back what
the base had under the arguments, so that nothing the user wrote is lost, and
:func:`accelerators.kubernetes.apply_to_pod` merges the accelerator in, raising
:class:`~accelerators.PlacementError` on a real conflict. The deployment's cluster policy
(``pod_mutation_hook``) still runs last, when Airflow builds the pod.

Everything here works on camelCase dicts; :func:`to_dict` and :func:`to_pod` convert
``kubernetes.client`` models.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from accelerators import AcceleratorError, AcceleratorSpec, PlacementError
from accelerators.errors import close_matches
from accelerators.kubernetes import (
    merge_fragment,
    placement_conflicts,
    platforms,
    resource_problems,
)

__all__ = [
    "HOSTNAME_LABEL",
    "airflow_platforms",
    "avoid_nodes",
    "base_first",
    "check_conflicts",
    "check_platform",
    "check_profile",
    "check_requests",
    "has_template",
    "main_container",
    "pin_to_node",
    "put_back",
    "read_template",
    "refuse_template",
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


#: The built-in platforms an Airflow task can name (checked first, without a registry walk).
_BUILTIN_FOR_AIRFLOW = frozenset(
    ("gke", "nvidia", "karpenter", "eks", "amd", "neuron", "gaudi", "intel", "generic")
)


def airflow_platforms() -> tuple[str, ...]:
    """The platforms an Airflow task can name: all but ``flyte`` (flytepropeller's)."""
    return tuple(name for name in platforms() if name != "flyte")


def check_platform(platform: Any) -> None:
    """Raise :class:`PlacementError` unless ``platform`` names a platform for Airflow tasks
    (a Jinja template or a ``Platform`` instance passes); a missing one is named as such."""
    if platform is None or (isinstance(platform, str) and not platform.strip()):
        raise PlacementError(
            f"platform= is required: the cluster's platform, one of "
            f"{', '.join(airflow_platforms())} (it picks the node labels, resources and "
            "tolerations of the pod; docs/kubernetes.md)"
        )
    if not isinstance(platform, str) or is_template(platform):
        return
    name = platform.strip().lower()
    if name in _BUILTIN_FOR_AIRFLOW:
        return
    known = airflow_platforms()
    if name in known:
        return
    if name == "flyte":
        raise PlacementError(
            "platform 'flyte' places pods as flytepropeller does and is for Flyte tasks; on "
            f"Airflow name your cluster's platform: one of {', '.join(known)}"
        )
    hints = close_matches(name, known)
    hint = f"; did you mean {hints[0]!r}?" if hints else ""
    raise PlacementError(f"Unknown platform {platform!r}: expected one of {', '.join(known)}{hint}")


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


def check_requests(
    pod: Mapping[str, Any],
    *,
    arguments: Mapping[str, Any],
    template: str,
    container: str,
    argument: str = "container_resources",
) -> None:
    """Raise :class:`PlacementError` when the layered pod requests more than a limit, naming
    where the request and the limit come from: the task's own argument or the template.

    :param pod: the pod of the task's arguments layered over its template.
    :param arguments: the resources the task's arguments give (``limits``, ``requests``).
    :param template: how to name the template in the message (``pod_template_file 'x.yaml'``).
    :param container: the main container's name.
    :param argument: how to name the task's own argument.
    """
    problems = resource_problems(pod)
    if not problems:
        return

    def origin(section: str, resource: str, name: str) -> str:
        own = arguments.get(section) or {}
        return argument if name == container and resource in own else template

    lines = [
        f"container {p.container!r} requests {p.resource} {p.request} "
        f"({origin('requests', p.resource, p.container)}) above its limit {p.limit} "
        f"({origin('limits', p.resource, p.container)})"
        for p in problems
    ]
    raise PlacementError(
        "; ".join(lines) + ". The API server rejects a pod whose requests exceed its limits: "
        "raise the limit (limits in the same argument as the request) or lower the request"
    )


def check_conflicts(
    spec: AcceleratorSpec,
    pod: Mapping[str, Any],
    *,
    layers: Sequence[tuple[Mapping[str, Any] | None, str]],
    platform: str,
    options: Mapping[str, Any],
) -> None:
    """Raise :class:`PlacementError` when the task's own placement contradicts ``spec``: a
    selector, affinity or device resource no node can meet with it (the core's
    :func:`~accelerators.kubernetes.placement_conflicts`, on every platform), naming both
    sides and the layer that says it (``the task's arguments``, ``pod_template_file 'x'``).

    :param pod: the task's layers merged (its template under its arguments), as built.
    :param layers: each layer as given and how to name it, the task's arguments first; a
        layer that contradicts the spec on its own is named, else all of them together.
    """
    together = " and ".join(name for layer, name in layers if layer) or "the task"
    found = placement_conflicts(
        spec, pod, platform=platform, source=together, own_keys=False, **options
    )
    if not found:
        return
    for layer, name in layers:
        if layer:
            alone = placement_conflicts(
                spec, layer, platform=platform, source=name, own_keys=False, **options
            )
            if alone:
                raise PlacementError("; ".join(alone))
    raise PlacementError("; ".join(found))


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
