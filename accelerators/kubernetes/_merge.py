"""Merge a pod fragment into a user's pod, or a pod template under a task's pod.

Both go through the one engine, :mod:`._reconcile`, whose module docstring gives the one
order of every field (the lower layer's entries first, then the higher layer's):

* :func:`merge_fragment` lays a fragment (an accelerator's, a node pin) *over* a pod, pod
  template or pod spec: a key both set to different values is a :class:`PlacementError`
  (``nodeSelector``, a container resource, ``runtimeClassName``, a resource claim), and so
  is another container that already asks for the fragment's device resource. The target
  container is ``container=`` by name, else the first.
* :func:`reconcile_placement` puts a pod template *under* the pod Airflow built from it: the
  fields Airflow replaces instead of merging (``nodeSelector``, ``tolerations``,
  ``affinity``, the main container's ``resources``) get the template's entries back, and the
  pod's own value wins a key both set, as in Airflow's merge.

The pods are checked first (:mod:`._podcheck`): a malformed part (containers given as a
mapping, resources as a string, a ``None`` term) raises :class:`AcceleratorError` naming
its path. After the merge, every required ``nodeSelectorTerm`` is checked together with the
``nodeSelector``: terms that no node could match (``gke-accelerator=nvidia-tesla-t4`` and
``gke-accelerator In (nvidia-h100-80gb)``) are dropped, and if none is left the pod could
never schedule, which raises :class:`PlacementError` naming both layers' requirements.

The input is never mutated. ``kubernetes.client`` models (``V1Pod``, ``V1PodTemplateSpec``,
``V1PodSpec``) given to :func:`merge_fragment` come back as the same type (needs the
``[k8s]`` extra).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple, TypeVar

from accelerators.errors import AcceleratorError, PlacementError
from accelerators.kubernetes._podcheck import (
    REQUIRED,
    NodeRequirement,
    check_pod_shape,
    describe,
    unsatisfiable,
)
from accelerators.kubernetes._reconcile import reconcile_specs

__all__ = ["fragment_spec", "merge_fragment", "reconcile_placement"]

T = TypeVar("T")

_SNAKE_KEYS = ("node_selector", "api_version", "runtime_class_name", "resource_claims")
_POD_KEYS = ("nodeSelector", "tolerations", "affinity", "runtimeClassName", "resourceClaims")


class _Blame(NamedTuple):
    """How an unschedulable pod's message names the two layers."""

    lead: str  # "The pod could never schedule with this accelerator"
    others: str  # "the pod requires": the requirements of the layer not marked
    marked: str  # "the accelerator needs": the marked layer's requirements
    advice: str


_FRAGMENT_BLAME = _Blame(
    "The pod could never schedule with this accelerator",
    "the pod requires",
    "the accelerator needs",
    "Remove the pod's own requirement or ask for the accelerator it names",
)
_TEMPLATE_BLAME = _Blame(
    "The pod could never schedule",
    "the task's own arguments require",
    "its pod template requires",
    "Remove one of the two requirements (the task's arguments or its pod template)",
)


def merge_fragment(pod: T, fragment: Mapping[str, Any], *, container: str | None = None) -> T:
    """Return a copy of ``pod`` with ``fragment`` merged in (see module docstring).

    :param pod: a Pod, PodTemplateSpec, PodTemplate, PodSpec, or a workload with
        ``spec.template`` (Job, Deployment…) as a camelCase dict, or a ``kubernetes.client``
        ``V1Pod`` / ``V1PodTemplateSpec`` / ``V1PodSpec``.
    :param fragment: a pod fragment.
    :param container: name of the container that gets the resources; default the first.
    """
    if not isinstance(pod, Mapping):
        from accelerators.kubernetes import _models

        if _models.is_model(pod):
            data = _models.to_dict(pod)
            merged = merge_fragment(data, fragment, container=container)
            return _models.from_dict(merged, type(pod))  # type: ignore[no-any-return]
        raise AcceleratorError(
            f"Expected a pod, pod template or pod spec as a dict or kubernetes.client model, "
            f"got {type(pod).__name__}"
        )
    data = copy.deepcopy(dict(pod))
    spec, path = _pod_spec(data, "pod")
    check_pod_shape(spec, path)
    upper = fragment_spec(copy.deepcopy(dict(fragment)))
    reconcile_specs(spec, upper, keep="lower", container=container, conflicts="raise")
    _check_schedulable(spec, upper, _FRAGMENT_BLAME)
    return data  # type: ignore[return-value]


def reconcile_placement(
    base: Mapping[str, Any], pod: Mapping[str, Any], *, container: str | None = None
) -> dict[str, Any]:
    """A copy of ``pod`` with the placement of ``base``, the template it was built from, kept.

    Airflow's ``KubernetesPodOperator`` and KubernetesExecutor build ``pod`` from ``base``
    (a pod template file, a template dict, ``full_pod_spec``) and the task's arguments, and
    for ``nodeSelector``, ``tolerations``, ``affinity`` and the main container's
    ``resources`` an argument *replaces* the template's value. This puts the template's
    entries back under the pod's (module docstring of :mod:`._reconcile` for the order); the
    pod's value wins a key both set. Airflow pairs the template's first container with the
    pod's main one: ``container`` by name, else the first.

    :param base: the template, a Pod as a camelCase dict.
    :param pod: the pod built from it, a Pod as a camelCase dict.
    :raises AcceleratorError: either pod is malformed (the message names the path).
    :raises PlacementError: the two layers' required node affinity and node selectors
        together match no node.
    """
    data = copy.deepcopy(dict(pod))
    spec = data.setdefault("spec", {})
    lower = copy.deepcopy(base.get("spec") or {})
    for part, path in ((spec, "pod.spec"), (lower, "template.spec")):
        if not isinstance(part, dict):
            raise AcceleratorError(f"Malformed pod: {path} should be a mapping, got {part!r}")
        check_pod_shape(part, path)
    reconcile_specs(lower, spec, keep="upper", container=container, conflicts="upper")
    _check_schedulable(spec, lower, _TEMPLATE_BLAME)
    return data


def fragment_spec(fragment: Mapping[str, Any]) -> dict[str, Any]:
    """A pod fragment as the pod spec it stands for: its pod fields, and its ``resources``
    in one container (the engine reconciles pod specs)."""
    spec = {key: fragment[key] for key in _POD_KEYS if fragment.get(key)}
    if fragment.get("resources"):
        spec["containers"] = [{"resources": fragment["resources"]}]
    return spec


def _pod_spec(data: dict[str, Any], path: str) -> tuple[dict[str, Any], str]:
    """The pod spec inside ``data`` and its path (``pod.spec.template.spec``)."""
    inner = data.get("spec")
    snake = [k for k in _SNAKE_KEYS if k in data or (isinstance(inner, dict) and k in inner)]
    if snake:
        raise AcceleratorError(
            f"The pod uses snake_case keys ({', '.join(snake)}), as kubernetes.client's "
            "to_dict() writes them; pass the model itself or a camelCase dict from "
            "ApiClient().sanitize_for_serialization(obj)"
        )
    if "containers" in data:
        return data, path
    if isinstance(inner, dict):
        if "containers" in inner:
            return inner, f"{path}.spec"
        if isinstance(inner.get("template"), dict):
            return _pod_spec(inner["template"], f"{path}.spec.template")
    if isinstance(data.get("template"), dict):
        return _pod_spec(data["template"], f"{path}.template")
    keys = sorted(str(k) for k in data)
    raise AcceleratorError(
        "Expected a Pod or PodTemplateSpec (spec.containers), a PodSpec (containers), a "
        f"PodTemplate (template) or a workload (spec.template); {path} has keys {keys}"
    )


def _requirements(term: Mapping[str, Any], path: str) -> list[NodeRequirement]:
    return [
        NodeRequirement.read(expr, f"{path}.matchExpressions[{i}]")
        for i, expr in enumerate(term.get("matchExpressions") or [])
    ]


def _check_schedulable(spec: dict[str, Any], marked: Mapping[str, Any], blame: _Blame) -> None:
    """Drop required terms no node can match; raise if none is left (module docstring).

    :param marked: the layer whose requirements the message names second (``blame.marked``).
    """
    required = _required(spec)
    terms = list(required.get("nodeSelectorTerms") or [])
    if not terms:
        return  # nodeSelector keys are unique, and clashes were caught while merging them
    selector = _selector_requirements(spec)
    kept: list[Any] = []
    conflicts: dict[tuple[NodeRequirement, ...], None] = {}  # ordered, found in O(1)
    for i, term in enumerate(terms):
        bad = unsatisfiable([*selector, *_requirements(term, f"nodeSelectorTerms[{i}]")])
        if bad is None:
            kept.append(term)
        else:
            conflicts.setdefault(bad)
    if not kept:
        raise PlacementError(_unschedulable(list(conflicts), marked, blame))
    if len(kept) < len(terms):
        required["nodeSelectorTerms"] = kept


def _required(spec: Mapping[str, Any]) -> Any:
    """The required node affinity of ``spec`` (the dict itself, or an empty one)."""
    return ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(REQUIRED) or {}


def _described(requirements: Iterable[NodeRequirement]) -> str:
    return describe(requirements) or "(nothing on this key)"


def _selector_requirements(spec: Mapping[str, Any]) -> list[NodeRequirement]:
    return [
        NodeRequirement(str(key), "In", (str(value),))
        for key, value in (spec.get("nodeSelector") or {}).items()
    ]


def _unschedulable(
    conflicts: list[tuple[NodeRequirement, ...]], marked: Mapping[str, Any], blame: _Blame
) -> str:
    """The message for a pod none of whose required terms any node can match."""
    terms = _required(marked).get("nodeSelectorTerms") or ()
    ours = {*_selector_requirements(marked), *(r for t in terms for r in _requirements(t, ""))}
    lines = [
        f"{blame.others} {_described(r for r in group if r not in ours)}, but "
        f"{blame.marked} {_described(r for r in group if r in ours)}"
        for group in conflicts[:3]
    ]
    more = f" (and {len(conflicts) - 3} more)" if len(conflicts) > 3 else ""
    return f"{blame.lead}: {'; '.join(lines)}{more}. {blame.advice}"
