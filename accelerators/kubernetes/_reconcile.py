"""The one merge engine for pods: two layers of placement reconciled in small named steps.

A pod is built in layers, lowest first: a pod template, then the task's own arguments (what
Airflow's ``KubernetesPodOperator`` or ``pod_override`` sets), then the accelerator's
fragment, and the cluster's policy (``pod_mutation_hook``) last. Kubernetes and Airflow
*replace* a lower layer's ``nodeSelector``, ``tolerations``, ``affinity`` and container
``resources`` with a higher layer's; these steps merge them instead, always in **one order:
the lower layer's entries first, then the higher layer's that are not already there**:

* tolerations: the lower layer's, then the higher layer's not already present (two that
  differ only in empty fields are the same toleration);
* ``nodeSelector``: the union, the lower layer's keys first;
* required node affinity: the higher layer's requirements ANDed into **each** of the lower
  layer's ``nodeSelectorTerms`` (as flytepropeller does); with several higher terms (a
  fallback chain) every lower term is combined with every higher term, lower terms outer;
* preferred node-affinity terms and pod (anti-)affinity terms: the lower layer's, then the
  higher layer's not already present;
* container resources (``limits``, ``requests``): the union, the lower layer's keys first;
  DRA ``claims``: the lower layer's, then the higher layer's;
* ``runtimeClassName``: the higher layer's if it sets one; ``resourceClaims``: by name, the
  lower layer's first.

Where both layers set one key to different values, ``conflicts`` decides: ``"raise"`` (an
accelerator's fragment: a :class:`PlacementError` naming both values) or ``"upper"`` (a
task's arguments over its template: the higher layer wins, as Airflow's own merge does).

Every step takes private copies (the callers in :mod:`._merge` deep-copy their inputs once)
and may share their parts with what it returns.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from accelerators.errors import AcceleratorError, PlacementError
from accelerators.kubernetes._podcheck import PREFERRED, REQUIRED

__all__ = [
    "Conflicts",
    "reconcile_affinity",
    "reconcile_claims",
    "reconcile_containers",
    "reconcile_node_affinity",
    "reconcile_resources",
    "reconcile_runtime_class",
    "reconcile_selectors",
    "reconcile_specs",
    "reconcile_terms",
    "reconcile_tolerations",
]

#: What a key both layers set to different values does: raise, or the higher layer wins.
Conflicts = Literal["raise", "upper"]

_POD_AFFINITIES = ("podAffinity", "podAntiAffinity")
_RESOURCE_LISTS = ("limits", "requests", "claims")


def reconcile_specs(
    lower: dict[str, Any],
    upper: dict[str, Any],
    *,
    keep: Literal["lower", "upper"],
    container: str | None,
    conflicts: Conflicts,
) -> None:
    """Reconcile both pod specs' placement into the one named by ``keep``, in place.

    A fragment is a one-container spec (:func:`accelerators.kubernetes._merge.fragment_spec`);
    everything but the placement fields stays as the kept spec has it.
    """
    out, other = (lower, upper) if keep == "lower" else (upper, lower)
    steps = (
        ("nodeSelector", reconcile_selectors),
        ("tolerations", reconcile_tolerations),
        ("affinity", reconcile_affinity),
        ("runtimeClassName", reconcile_runtime_class),
        ("resourceClaims", reconcile_claims),
    )
    for key, step in steps:
        merged = step(lower.get(key), upper.get(key), conflicts=conflicts)
        if merged:
            out[key] = merged
    reconcile_containers(out, other, keep=keep, container=container, conflicts=conflicts)


def reconcile_selectors(
    lower: Mapping[str, Any] | None, upper: Mapping[str, Any] | None, *, conflicts: Conflicts
) -> dict[str, Any]:
    """The union of two ``nodeSelector`` maps, the lower layer's keys first."""
    out = dict(lower or {})
    for key, value in (upper or {}).items():
        if key in out and str(out[key]) != str(value) and conflicts == "raise":
            raise PlacementError(
                f"nodeSelector conflict on {key!r}: the pod has {out[key]!r} but the "
                f"accelerator needs {value!r}"
            )
        out[key] = value
    return out


def reconcile_tolerations(
    lower: Sequence[Any] | None, upper: Sequence[Any] | None, *, conflicts: Conflicts
) -> list[Any]:
    """The lower layer's tolerations, then the higher layer's that are not already there."""
    del conflicts  # tolerations add up; two never conflict
    out = list(lower or [])
    for item in upper or ():
        if not any(_same(item, existing) for existing in out):
            out.append(dict(item))
    return out


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    def clean(m: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in m.items() if v not in (None, "")}

    return clean(a) == clean(b)


def reconcile_affinity(
    lower: Mapping[str, Any] | None, upper: Mapping[str, Any] | None, *, conflicts: Conflicts
) -> dict[str, Any]:
    """Both layers' ``affinity``: node affinity reconciled, pod (anti-)affinity appended."""
    del conflicts  # requirements are ANDed; a contradiction is found after the merge
    out = dict(lower or {})
    upper = upper or {}
    node = reconcile_node_affinity(out.get("nodeAffinity"), upper.get("nodeAffinity"))
    if node:
        out["nodeAffinity"] = node
    for kind in _POD_AFFINITIES:
        if upper.get(kind):
            current = dict(out.get(kind) or {})
            for key in (REQUIRED, PREFERRED):
                items = _appended(current.get(key), upper[kind].get(key))
                if items:
                    current[key] = items
            out[kind] = current
    return out


def reconcile_node_affinity(
    lower: Mapping[str, Any] | None, upper: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Required terms ANDed (:func:`reconcile_terms`), preferred terms appended."""
    node = dict(lower or {})
    upper = upper or {}
    ours = (upper.get(REQUIRED) or {}).get("nodeSelectorTerms") or []
    if ours:
        theirs = (node.get(REQUIRED) or {}).get("nodeSelectorTerms") or []
        terms = reconcile_terms(theirs, ours)
        node[REQUIRED] = {**(node.get(REQUIRED) or {}), "nodeSelectorTerms": terms}
    preferred = _appended(node.get(PREFERRED), upper.get(PREFERRED))
    if preferred:
        node[PREFERRED] = preferred
    return node


def _appended(lower: Sequence[Any] | None, upper: Sequence[Any] | None) -> list[Any]:
    out = list(lower or [])
    out += [item for item in upper or () if item not in out]
    return out


def reconcile_terms(lower: Sequence[Any], upper: Sequence[Any]) -> list[Any]:
    """Each lower ``nodeSelectorTerm`` ANDed with each upper one, lower terms outer.

    A lower term that already holds every requirement of one upper term (a merged pod merged
    again) is kept as it is. Linear in the lower terms: duplicates are found by a canonical
    key, not by comparing each new term with every earlier one (10,000 terms took 7 s).
    """
    if not lower:
        return list(upper)
    terms: dict[str, Any] = {}  # canonical text -> term, in order
    for old in lower:
        present = {_canonical(e) for e in old.get("matchExpressions") or []}
        if any(_contains(present, term) for term in upper):
            terms.setdefault(_canonical(old), old)
            continue
        for term in upper:
            combined = _and_terms(old, term)
            terms.setdefault(_canonical(combined), combined)
    return list(terms.values())


def _and_terms(old: Mapping[str, Any], term: Mapping[str, Any]) -> dict[str, Any]:
    """``old`` with the requirements of ``term`` it does not have appended."""
    expressions = list(old.get("matchExpressions") or [])
    have = {_canonical(e) for e in expressions}
    for expr in term.get("matchExpressions") or []:
        if _canonical(expr) not in have:
            have.add(_canonical(expr))
            expressions.append(expr)
    return {**old, "matchExpressions": expressions}


def _contains(expressions: set[str], term: Mapping[str, Any]) -> bool:
    return all(_canonical(expr) in expressions for expr in term.get("matchExpressions") or [])


def _canonical(value: object) -> str:
    """One text per distinct JSON value (keys sorted), to find equal terms in a set."""
    return json.dumps(value, sort_keys=True, default=repr)


def reconcile_runtime_class(
    lower: str | None, upper: str | None, *, conflicts: Conflicts
) -> str | None:
    """The higher layer's ``runtimeClassName`` if it sets one, else the lower layer's."""
    if upper and lower not in (None, "", upper) and conflicts == "raise":
        raise PlacementError(
            f"runtimeClassName conflict: the pod has {lower!r} but {upper!r} was asked for"
        )
    return upper or lower


def reconcile_claims(
    lower: Sequence[Any] | None, upper: Sequence[Any] | None, *, conflicts: Conflicts
) -> list[Any]:
    """The pod's DRA ``resourceClaims`` by name, the lower layer's first."""
    out = list(lower or [])
    for claim in upper or ():
        same = [i for i, c in enumerate(out) if c.get("name") == claim.get("name")]
        if not same:
            out.append(dict(claim))
        elif out[same[0]] != claim and conflicts == "raise":
            raise PlacementError(
                f"resourceClaims conflict: the pod already has a claim named "
                f"{claim['name']!r} ({out[same[0]]!r}); pick another claim_name"
            )
        else:
            out[same[0]] = claim
    return out


def reconcile_containers(
    out: dict[str, Any],
    other: Mapping[str, Any],
    *,
    keep: Literal["lower", "upper"],
    container: str | None,
    conflicts: Conflicts,
) -> None:
    """The resources of ``other``'s main container reconciled into ``out``'s main one.

    In both, the main container is the one named ``container``, else the first: a template
    with a sidecar first gives its ``base`` container's resources, not the sidecar's
    (Airflow's own merge pairs containers by position; the Airflow operators hand it the main
    container first). A fragment is a one-container spec. With ``conflicts="raise"`` a
    missing container is an error and so is another container of ``out`` that already asks
    for one of the resources (they would add up).
    """
    named = _main_container(other, container, required=False) if container else None
    source = named or (other.get("containers") or [{}])[0] or {}
    theirs = source.get("resources") or {}
    if not theirs:
        return
    target = _main_container(out, container, required=conflicts == "raise")
    if target is None:
        return
    if conflicts == "raise":
        _check_others(out, target, theirs)
    mine = target.get("resources") or {}
    lower, upper = (mine, theirs) if keep == "lower" else (theirs, mine)
    target["resources"] = reconcile_resources(
        lower, upper, conflicts=conflicts, container=target.get("name")
    )


def _main_container(spec: Mapping[str, Any], name: str | None, *, required: bool) -> Any:
    containers = spec.get("containers") or []
    found = [c for c in containers if name is None or c.get("name") == name][:1]
    if found or not required:
        return found[0] if found else None
    if not containers:
        raise AcceleratorError("The pod has no containers to give the accelerator resources to")
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
            total = _total(have, value)
            raise PlacementError(
                f"Container {other.get('name')!r} already asks for {key}: {have!r}, and the "
                f"accelerator's {value!r} would go to container {target.get('name')!r}: the pod "
                f"would ask for {total} in all, more than the spec names. Give the accelerator "
                "to the container that uses it (container=...) and remove the other request"
            )


def _total(have: object, value: object) -> str:
    try:
        return f"{int(str(have)) + int(str(value))}"
    except ValueError:
        return f"{have} + {value}"


def reconcile_resources(
    lower: Mapping[str, Any],
    upper: Mapping[str, Any],
    *,
    conflicts: Conflicts,
    container: object = None,
) -> dict[str, Any]:
    """One container's ``resources``: ``limits`` and ``requests`` united, ``claims`` appended.

    With ``conflicts="raise"`` a resource the lower layer sets, in either section (extended
    resources need requests equal to limits), to another value is a :class:`PlacementError`.
    """
    out = {**lower, **{k: v for k, v in upper.items() if k not in _RESOURCE_LISTS}}
    for section in ("limits", "requests"):
        merged = dict(lower.get(section) or {})
        for key, value in (upper.get(section) or {}).items():
            if conflicts == "raise":
                _check_resource(out, key, value, container)
            merged[key] = value
        if merged:
            out[section] = merged
    claims = _appended(lower.get("claims"), upper.get("claims"))
    if claims:
        out["claims"] = claims
    return out


def _check_resource(
    resources: Mapping[str, Any], key: str, value: object, container: object
) -> None:
    """Raise unless ``resources`` sets ``key`` to ``value`` or not at all, in both sections."""
    for section in ("limits", "requests"):
        have = (resources.get(section) or {}).get(key)
        if have is not None and str(have) != str(value):
            raise PlacementError(
                f"Container {container!r} already has {section} {key}: {have!r}, which "
                f"conflicts with the accelerator's {value!r}"
            )
