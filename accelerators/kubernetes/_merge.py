"""Merge a pod fragment into a user's pod, pod template or pod spec, keeping what it had.

Airflow's ``KubernetesPodOperator`` and KubernetesExecutor *replace* ``nodeSelector``,
``tolerations``, ``affinity`` and a container's ``resources`` instead of merging them, so
this merge is complete:

* tolerations: the pod's, then the fragment's that are not already there;
* ``nodeSelector``: the union; the same key with another value is a :class:`PlacementError`;
* required node affinity: the fragment's requirements are ANDed into **each** existing
  ``nodeSelectorTerm`` (as flytepropeller does); with several fragment terms (a fallback
  chain) every existing term is combined with every fragment term;
* preferred terms: appended;
* the target container (``container=`` by name, else the first): the fragment's resources
  are added, other resources kept; the same resource with another value is an error;
* ``runtimeClassName`` and ``resourceClaims``: set, unless they conflict.

The pod is checked first (:mod:`._podcheck`): a malformed part (containers given as a
mapping, resources as a string, a ``None`` term) raises :class:`AcceleratorError` naming
its path. After the merge, every required ``nodeSelectorTerm`` is checked together with the
``nodeSelector``: terms that no node could match (``gke-accelerator=nvidia-tesla-t4`` and
``gke-accelerator In (nvidia-h100-80gb)``) are dropped, and if none is left the pod could
never schedule, which raises :class:`PlacementError` naming the pod's requirement and the
accelerator's. A resource the pod already sets in ``limits`` or ``requests`` to another
value than the accelerator needs is a :class:`PlacementError` too.

The input is never mutated. ``kubernetes.client`` models (``V1Pod``, ``V1PodTemplateSpec``,
``V1PodSpec``) come back as the same type (needs the ``[k8s]`` extra).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any, TypeVar

from accelerators.errors import AcceleratorError, PlacementError
from accelerators.kubernetes._podcheck import (
    PREFERRED,
    REQUIRED,
    NodeRequirement,
    check_pod_shape,
    describe,
    unsatisfiable,
)

__all__ = ["merge_fragment"]

T = TypeVar("T")

_SNAKE_KEYS = ("node_selector", "api_version", "runtime_class_name", "resource_claims")


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
    _merge_spec(spec, fragment, container)
    _check_schedulable(spec, fragment)
    return data  # type: ignore[return-value]


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


def _merge_spec(spec: dict[str, Any], fragment: Mapping[str, Any], container: str | None) -> None:
    selector = dict(spec.get("nodeSelector") or {})
    for key, value in (fragment.get("nodeSelector") or {}).items():
        if key in selector and str(selector[key]) != value:
            raise PlacementError(
                f"nodeSelector conflict on {key!r}: the pod has {selector[key]!r} but the "
                f"accelerator needs {value!r}"
            )
        selector[key] = value
    if selector:
        spec["nodeSelector"] = selector
    tolerations = list(spec.get("tolerations") or [])
    for item in fragment.get("tolerations") or ():
        if not any(_same(item, existing) for existing in tolerations):
            tolerations.append(copy.deepcopy(dict(item)))
    if tolerations:
        spec["tolerations"] = tolerations
    if fragment.get("affinity"):
        spec["affinity"] = _merge_affinity(spec.get("affinity") or {}, fragment["affinity"])
    runtime = fragment.get("runtimeClassName")
    if runtime:
        if spec.get("runtimeClassName") not in (None, runtime):
            raise PlacementError(
                f"runtimeClassName conflict: the pod has {spec['runtimeClassName']!r} but "
                f"{runtime!r} was asked for"
            )
        spec["runtimeClassName"] = runtime
    if fragment.get("resourceClaims"):
        claims = list(spec.get("resourceClaims") or [])
        for claim in fragment["resourceClaims"]:
            same = [c for c in claims if c.get("name") == claim["name"]]
            if same and same[0] != claim:
                raise PlacementError(
                    f"resourceClaims conflict: the pod already has a claim named "
                    f"{claim['name']!r} ({same[0]!r}); pick another claim_name"
                )
            if not same:
                claims.append(dict(claim))
        spec["resourceClaims"] = claims
    if fragment.get("resources"):
        target = _container(spec, container)
        _check_others(spec, target, fragment["resources"])
        _merge_resources(target, fragment["resources"])


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    def clean(m: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in m.items() if v not in (None, "")}

    return clean(a) == clean(b)


def _merge_affinity(existing: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``existing`` (the pod's own: already a private copy) with ``extra``'s terms ANDed in."""
    out = dict(existing)
    ours = extra.get("nodeAffinity") or {}
    node = dict(out.get("nodeAffinity") or {})
    required_key, preferred_key = REQUIRED, PREFERRED
    our_terms = (ours.get(required_key) or {}).get("nodeSelectorTerms") or []
    if our_terms:
        old_terms = (node.get(required_key) or {}).get("nodeSelectorTerms") or []
        if not old_terms:
            terms = copy.deepcopy(our_terms)
        else:
            # Linear in the pod's terms: duplicates are found by a canonical key, not by
            # comparing each new term with every earlier one (10,000 terms took 7 s).
            terms = []
            seen: set[str] = set()

            def add(term: dict[str, Any]) -> None:
                key = _canonical(term)
                if key not in seen:
                    seen.add(key)
                    terms.append(term)

            for old in old_terms:
                present = {_canonical(e) for e in old.get("matchExpressions") or []}
                if any(_contains(present, term) for term in our_terms):
                    # Already ANDed with one alternative (a merged pod merged again).
                    add(old)
                    continue
                for term in our_terms:
                    combined = old if len(our_terms) == 1 else copy.deepcopy(old)
                    expressions = list(combined.get("matchExpressions") or [])
                    have = {_canonical(e) for e in expressions}
                    for expr in term.get("matchExpressions") or []:
                        if _canonical(expr) not in have:
                            have.add(_canonical(expr))
                            expressions.append(copy.deepcopy(expr))
                    combined["matchExpressions"] = expressions
                    add(combined)
        node[required_key] = {**(node.get(required_key) or {}), "nodeSelectorTerms": terms}
    preferred = list(node.get(preferred_key) or [])
    for item in ours.get(preferred_key) or []:
        if item not in preferred:
            preferred.append(copy.deepcopy(item))
    if preferred:
        node[preferred_key] = preferred
    out["nodeAffinity"] = node
    return out


def _contains(expressions: set[str], term: Mapping[str, Any]) -> bool:
    return all(_canonical(expr) in expressions for expr in term.get("matchExpressions") or [])


def _canonical(value: object) -> str:
    """One text per distinct JSON value (keys sorted), to find equal terms in a set."""
    return json.dumps(value, sort_keys=True, default=repr)


def _requirements(term: Mapping[str, Any], path: str) -> list[NodeRequirement]:
    return [
        NodeRequirement.read(expr, f"{path}.matchExpressions[{i}]")
        for i, expr in enumerate(term.get("matchExpressions") or [])
    ]


def _check_schedulable(spec: dict[str, Any], fragment: Mapping[str, Any]) -> None:
    """Drop required terms no node can match; raise if none is left (module docstring)."""
    selector = [
        NodeRequirement(str(key), "In", (str(value),))
        for key, value in (spec.get("nodeSelector") or {}).items()
    ]
    ours = {NodeRequirement(str(k), "In", (str(v),)) for k, v in _selector(fragment).items()}
    ours |= {r for term in _terms(fragment) for r in _requirements(term, "fragment")}
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(REQUIRED) or {}
    terms = list(required.get("nodeSelectorTerms") or [])
    if not terms:
        return  # nodeSelector keys are unique, and clashes were caught while merging them
    kept: list[Any] = []
    conflicts: dict[tuple[NodeRequirement, ...], None] = {}  # ordered, found in O(1)
    for i, term in enumerate(terms):
        bad = unsatisfiable([*selector, *_requirements(term, f"nodeSelectorTerms[{i}]")])
        if bad is None:
            kept.append(term)
        else:
            conflicts.setdefault(bad)
    if kept:
        if len(kept) < len(terms):
            required["nodeSelectorTerms"] = kept
        return
    lines = []
    for group in list(conflicts)[:3]:
        pods = [r for r in group if r not in ours]
        accelerator = [r for r in group if r in ours]
        lines.append(
            f"the pod requires {describe(pods) or '(nothing on this key)'}, but the "
            f"accelerator needs {describe(accelerator) or '(nothing on this key)'}"
        )
    more = f" (and {len(conflicts) - 3} more)" if len(conflicts) > 3 else ""
    raise PlacementError(
        "The pod could never schedule with this accelerator: "
        + "; ".join(lines)
        + more
        + ". Remove the pod's own requirement or ask for the accelerator it names"
    )


def _selector(fragment: Mapping[str, Any]) -> Mapping[str, Any]:
    return fragment.get("nodeSelector") or {}


def _terms(fragment: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    required = ((fragment.get("affinity") or {}).get("nodeAffinity") or {}).get(REQUIRED) or {}
    return list(required.get("nodeSelectorTerms") or [])


def _container(spec: dict[str, Any], name: str | None) -> dict[str, Any]:
    containers = spec.get("containers") or []
    if not containers:
        raise AcceleratorError("The pod has no containers to give the accelerator resources to")
    if name is None:
        return containers[0]  # type: ignore[no-any-return]
    for item in containers:
        if item.get("name") == name:
            return item  # type: ignore[no-any-return]
    names = ", ".join(repr(c.get("name")) for c in containers)
    raise AcceleratorError(f"The pod has no container named {name!r}; its containers are {names}")


def _check_others(
    spec: Mapping[str, Any], target: Mapping[str, Any], resources: Mapping[str, Any]
) -> None:
    """A device resource another container already asks for would add up: a sidecar with
    ``nvidia.com/gpu: 1`` beside ``H100:8`` makes a pod of 9 GPUs, which no 8-GPU node fits.

    :raises PlacementError: naming the container, the resource and the total.
    """
    ours = {**(resources.get("requests") or {}), **(resources.get("limits") or {})}
    for other in spec.get("containers") or ():
        if other is target:
            continue
        theirs = other.get("resources") or {}
        for key, value in ours.items():
            have = (theirs.get("limits") or {}).get(key) or (theirs.get("requests") or {}).get(key)
            if have is None or str(have) in ("0", ""):
                continue
            try:
                total = f"{int(str(have)) + int(str(value))}"
            except ValueError:
                total = f"{have} + {value}"
            raise PlacementError(
                f"Container {other.get('name')!r} already asks for {key}: {have!r}, and the "
                f"accelerator's {value!r} would go to container {target.get('name')!r}: the pod "
                f"would ask for {total} in all, more than the spec names. Give the accelerator "
                "to the container that uses it (container=...) and remove the other request"
            )


def _merge_resources(target: dict[str, Any], resources: Mapping[str, Any]) -> None:
    current = dict(target.get("resources") or {})
    for section in ("limits", "requests"):
        values = resources.get(section)
        if not values:
            continue
        merged = dict(current.get(section) or {})
        for key, value in values.items():
            # Extended resources need requests equal to limits: check both sections.
            for other in ("limits", "requests"):
                have = (current.get(other) or {}).get(key)
                if have is not None and str(have) != str(value):
                    raise PlacementError(
                        f"Container {target.get('name')!r} already has {other} {key}: "
                        f"{have!r}, which conflicts with the accelerator's {value!r}"
                    )
            merged[key] = value
        current[section] = merged
    if resources.get("claims"):
        claims = list(current.get("claims") or [])
        for claim in resources["claims"]:
            if claim not in claims:
                claims.append(dict(claim))
        current["claims"] = claims
    target["resources"] = current
