"""Pod plumbing shared by the operators, decorators and executor helpers.

``KubernetesPodOperator`` and the KubernetesExecutor build a pod from a base (a pod template
file, a template dict or ``full_pod_spec``) and the operator's own arguments, and for
``nodeSelector``, ``tolerations``, ``affinity`` and the container's ``resources`` the
argument *replaces* the base's value. :func:`layer` puts back what the base had under the
arguments, so that nothing the user wrote is lost; the accelerator is then merged in by the
core's :func:`accelerators.kubernetes.apply_to_pod`, which raises
:class:`~accelerators.PlacementError` on a real conflict.

Everything here works on camelCase dicts; :func:`to_dict` and :func:`to_pod` convert
``kubernetes.client`` models.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from typing import Any

from accelerators import AcceleratorError, AcceleratorSpec
from accelerators.kubernetes import merge_fragment

__all__ = [
    "HOSTNAME_LABEL",
    "avoid_nodes",
    "layer",
    "pin_to_node",
    "resolve_spec",
    "to_dict",
    "to_pod",
]

#: The well-known label every node carries with its own name.
HOSTNAME_LABEL = "kubernetes.io/hostname"

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def resolve_spec(value: Any, *, what: str = "accelerator") -> AcceleratorSpec:
    """``value`` (a spec string, constant, :class:`AcceleratorSpec` or list) as a spec.

    :raises AcceleratorError: ``value`` is empty or not a valid spec; the message names ``what``.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        raise AcceleratorError(
            f"{what}: expected an accelerator spec such as 'H100:8', 'A100@1g.10gb' or "
            f"accelerators.H100, got {value!r}"
        )
    if isinstance(value, AcceleratorSpec):
        return value
    return AcceleratorSpec.parse(value)


def is_template(value: Any) -> bool:
    """True for a string that Airflow will still render with Jinja."""
    return isinstance(value, str) and ("{{" in value or "{%" in value)


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


def _spec(pod: dict[str, Any]) -> dict[str, Any]:
    spec = pod.setdefault("spec", {})
    if not isinstance(spec, dict):
        raise AcceleratorError(f"Expected the pod's spec to be a mapping, got {spec!r}")
    return spec


def _container(spec: Mapping[str, Any], name: str | None, *, first: bool) -> dict[str, Any] | None:
    containers = spec.get("containers") or []
    if first:
        return containers[0] if containers else None
    return next((c for c in containers if c.get("name") == name), None)


def layer(
    pod: Mapping[str, Any], base: Mapping[str, Any], *, container: str | None
) -> dict[str, Any]:
    """``pod`` with what ``base`` had for the fields Airflow replaces instead of merging.

    ``pod`` is what Airflow built (its arguments over ``base``); ``base`` is the pod template
    it started from. The result has the union of node selectors (``pod`` wins a key both
    set), the base's tolerations and then the pod's, both node affinities (the required terms
    ANDed, preferred terms and pod (anti-)affinity terms concatenated) and, for the container
    ``container`` (Airflow pairs it with the base's first container), the union of resource
    limits and requests (``pod`` wins a key both set).

    :param pod: the built pod, camelCase.
    :param base: the template pod, camelCase.
    :param container: the name of the pod's main container.
    """
    out = copy.deepcopy(dict(pod))
    spec = _spec(out)
    base_spec = dict(base.get("spec") or {})
    selector = {**(base_spec.get("nodeSelector") or {}), **(spec.get("nodeSelector") or {})}
    if selector:
        spec["nodeSelector"] = selector
    base_affinity = dict(base_spec.get("affinity") or {})
    fragment: dict[str, Any] = {"tolerations": list(base_spec.get("tolerations") or [])}
    if base_affinity.get("nodeAffinity"):
        fragment["affinity"] = {"nodeAffinity": base_affinity["nodeAffinity"]}
    out = merge_fragment(out, fragment)
    spec = _spec(out)
    # The core merge keeps the pod's tolerations first; the template's come first in ours.
    tolerations = list(base_spec.get("tolerations") or [])
    tolerations += [t for t in spec.get("tolerations") or [] if t not in tolerations]
    if tolerations:
        spec["tolerations"] = tolerations
    for kind in ("podAffinity", "podAntiAffinity"):
        extra = base_affinity.get(kind)
        if not extra:
            continue
        affinity = spec.setdefault("affinity", {})
        current = dict(affinity.get(kind) or {})
        for key in (_REQUIRED, _PREFERRED):
            items = list(current.get(key) or [])
            items += [copy.deepcopy(i) for i in extra.get(key) or [] if i not in items]
            if items:
                current[key] = items
        affinity[kind] = current
    base_main = _container(base_spec, None, first=True)
    main = _container(spec, container, first=container is None)
    if base_main and main is not None and base_main.get("resources"):
        resources = dict(main.get("resources") or {})
        for section in ("limits", "requests"):
            merged = {
                **(base_main["resources"].get(section) or {}),
                **(resources.get(section) or {}),
            }
            if merged:
                resources[section] = merged
        main["resources"] = resources
    return out


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
