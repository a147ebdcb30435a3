"""Semantic checks on pod fragments that schema validation does not make.

``kubernetes-validate`` accepts ``operator: Bogus`` tolerations, ``nvidia.com/gpu: "0.5"``
and requests that differ from limits; the API server or the scheduler rejects them later.
:func:`validate_fragment` catches them up front, and every fragment this package emits
goes through it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from accelerators.errors import PlacementError

__all__ = [
    "validate_claim_template",
    "validate_fragment",
    "validate_label_key",
    "validate_label_value",
]

_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
_NAME_RE = re.compile(rf"^{_NAME}$")
_DNS_LABEL_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_INTEGER_RE = re.compile(r"^[1-9][0-9]*$")
_SIGNED_INTEGER_RE = re.compile(r"^-?(0|[1-9][0-9]*)$")

_FRAGMENT_KEYS = frozenset(
    {"resources", "nodeSelector", "affinity", "tolerations", "runtimeClassName", "resourceClaims"}
)
_TOLERATION_OPERATORS = ("Exists", "Equal")
_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def _bad(where: str, problem: str) -> PlacementError:
    return PlacementError(f"Invalid pod fragment at {where}: {problem}")


def is_dns_subdomain(value: object) -> bool:
    return isinstance(value, str) and len(value) <= 253 and bool(_DNS_SUBDOMAIN_RE.match(value))


def is_dns_label(value: object) -> bool:
    return isinstance(value, str) and len(value) <= 63 and bool(_DNS_LABEL_RE.match(value))


def validate_label_key(key: object, where: str = "label key") -> None:
    """Raise :class:`PlacementError` unless ``key`` is ``[prefix/]name`` as Kubernetes wants."""
    if not isinstance(key, str) or not key:
        raise _bad(where, f"label key must be a non-empty string, got {key!r}")
    prefix, _, name = key.rpartition("/")
    if "/" in key and not is_dns_subdomain(prefix):
        raise _bad(where, f"label key prefix {prefix!r} of {key!r} is not a DNS subdomain")
    if len(name) > 63 or not _NAME_RE.match(name):
        raise _bad(
            where,
            f"label key name {name!r} of {key!r} must be 1-63 characters of "
            "[A-Za-z0-9-_.], alphanumeric at both ends",
        )


def validate_label_value(value: object, where: str = "label value") -> None:
    """Raise :class:`PlacementError` unless ``value`` is a valid label value (may be empty)."""
    if not isinstance(value, str):
        raise _bad(where, f"label value must be a string, got {type(value).__name__} {value!r}")
    if value and (len(value) > 63 or not _NAME_RE.match(value)):
        raise _bad(
            where,
            f"label value {value!r} must be at most 63 characters of [A-Za-z0-9-_.], "
            "alphanumeric at both ends",
        )


def validate_fragment(fragment: Mapping[str, Any]) -> None:
    """Check a pod fragment's semantics; raise :class:`PlacementError` on the first problem.

    Checks: only known keys; extended resources as positive integer strings with requests
    equal to limits; ``nodeSelector`` label syntax; toleration operators, effects and
    values; node-affinity operators and value counts (``Exists``/``DoesNotExist`` no
    values, ``Gt``/``Lt`` exactly one integer, ``In``/``NotIn`` at least one) and weights;
    ``runtimeClassName`` and resource-claim names.

    :param fragment: a fragment as :func:`~accelerators.kubernetes.to_pod_fragment` returns.
    """
    if not isinstance(fragment, Mapping):
        raise _bad("fragment", f"expected a mapping, got {type(fragment).__name__}")
    unknown = sorted(set(fragment) - _FRAGMENT_KEYS)
    if unknown:
        raise _bad("fragment", f"unknown key(s) {unknown}; expected {sorted(_FRAGMENT_KEYS)}")
    if "resources" in fragment:
        _check_resources(fragment["resources"])
    for key, value in (fragment.get("nodeSelector") or {}).items():
        validate_label_key(key, f"nodeSelector[{key!r}]")
        validate_label_value(value, f"nodeSelector[{key!r}]")
    for i, item in enumerate(fragment.get("tolerations") or ()):
        _check_toleration(item, f"tolerations[{i}]")
    if "affinity" in fragment:
        _check_affinity(fragment["affinity"])
    if "runtimeClassName" in fragment and not is_dns_subdomain(fragment["runtimeClassName"]):
        raise _bad("runtimeClassName", f"{fragment['runtimeClassName']!r} is not a DNS subdomain")
    for i, claim in enumerate(fragment.get("resourceClaims") or ()):
        where = f"resourceClaims[{i}]"
        if not is_dns_label(claim.get("name")):
            raise _bad(where, f"claim name {claim.get('name')!r} is not a DNS label")
        template = claim.get("resourceClaimTemplateName")
        if template is not None and not is_dns_subdomain(template):
            raise _bad(where, f"resourceClaimTemplateName {template!r} is not a DNS subdomain")


def _is_extended(name: str) -> bool:
    return "/" in name and not name.split("/", 1)[0].endswith("kubernetes.io")


def _check_resources(resources: Any) -> None:
    if not isinstance(resources, Mapping):
        raise _bad("resources", f"expected a mapping, got {type(resources).__name__}")
    limits = resources.get("limits") or {}
    requests = resources.get("requests") or {}
    for section, values in (("limits", limits), ("requests", requests)):
        for name, quantity in values.items():
            where = f"resources.{section}[{name!r}]"
            if not _is_extended(name):
                continue
            validate_label_key(name, where)
            if not isinstance(quantity, str) or not _INTEGER_RE.match(quantity):
                raise _bad(
                    where,
                    f"extended resources take positive whole numbers as strings, got {quantity!r}",
                )
    for name in set(limits) | set(requests):
        if _is_extended(name) and limits.get(name) != requests.get(name):
            raise _bad(
                f"resources[{name!r}]",
                f"requests ({requests.get(name)!r}) must equal limits "
                f"({limits.get(name)!r}) for an extended resource",
            )
    for i, claim in enumerate(resources.get("claims") or ()):
        if not is_dns_label(claim.get("name")):
            raise _bad(
                f"resources.claims[{i}]", f"claim name {claim.get('name')!r} is not a DNS label"
            )


def _check_toleration(item: Any, where: str) -> None:
    if not isinstance(item, Mapping):
        raise _bad(where, f"expected a mapping, got {type(item).__name__}")
    unknown = sorted(set(item) - {"key", "operator", "value", "effect", "tolerationSeconds"})
    if unknown:
        raise _bad(where, f"unknown toleration field(s) {unknown}")
    operator = item.get("operator", "Equal")
    if operator not in _TOLERATION_OPERATORS:
        raise _bad(where, f"operator {operator!r} is not one of {', '.join(_TOLERATION_OPERATORS)}")
    key = item.get("key", "")
    if key:
        validate_label_key(key, where)
    elif operator != "Exists":
        raise _bad(where, "an empty key needs operator 'Exists'")
    if operator == "Exists" and item.get("value"):
        raise _bad(where, f"operator 'Exists' takes no value, got {item['value']!r}")
    if operator == "Equal":
        validate_label_value(item.get("value", ""), where)
    effect = item.get("effect")
    if effect not in (None, "", *_TAINT_EFFECTS):
        raise _bad(where, f"effect {effect!r} is not one of {', '.join(_TAINT_EFFECTS)}")
    if "tolerationSeconds" in item:
        if effect != "NoExecute":
            raise _bad(where, "tolerationSeconds applies only to effect 'NoExecute'")
        if not isinstance(item["tolerationSeconds"], int) or isinstance(
            item["tolerationSeconds"], bool
        ):
            raise _bad(
                where, f"tolerationSeconds must be an integer, got {item['tolerationSeconds']!r}"
            )


def _check_affinity(affinity: Any) -> None:
    if not isinstance(affinity, Mapping):
        raise _bad("affinity", f"expected a mapping, got {type(affinity).__name__}")
    node = affinity.get("nodeAffinity") or {}
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required is not None:
        terms = required.get("nodeSelectorTerms") or []
        if not terms:
            raise _bad("affinity.required", "nodeSelectorTerms must not be empty")
        for i, term in enumerate(terms):
            _check_term(term, f"affinity.required.nodeSelectorTerms[{i}]")
    for i, pref in enumerate(node.get("preferredDuringSchedulingIgnoredDuringExecution") or ()):
        where = f"affinity.preferred[{i}]"
        weight = pref.get("weight")
        if not isinstance(weight, int) or isinstance(weight, bool) or not 1 <= weight <= 100:
            raise _bad(where, f"weight must be an integer in 1..100, got {weight!r}")
        _check_term(pref.get("preference") or {}, f"{where}.preference")


def _check_term(term: Any, where: str) -> None:
    expressions = term.get("matchExpressions") or []
    if not expressions and not term.get("matchFields"):
        raise _bad(where, "an empty node selector term matches no node")
    for j, expr in enumerate(expressions):
        at = f"{where}.matchExpressions[{j}]"
        validate_label_key(expr.get("key"), at)
        operator = expr.get("operator")
        values = expr.get("values") or []
        if operator not in _NODE_OPERATORS:
            raise _bad(at, f"operator {operator!r} is not one of {', '.join(_NODE_OPERATORS)}")
        if operator in ("Exists", "DoesNotExist") and values:
            raise _bad(at, f"operator {operator!r} takes no values, got {values!r}")
        if operator in ("In", "NotIn"):
            if not values:
                raise _bad(at, f"operator {operator!r} needs at least one value")
            for value in values:
                validate_label_value(value, at)
        if operator in ("Gt", "Lt") and (
            len(values) != 1
            or not isinstance(values[0], str)
            or not _SIGNED_INTEGER_RE.match(values[0])
        ):
            raise _bad(at, f"operator {operator!r} needs exactly one integer value, got {values!r}")


def validate_claim_template(manifest: Mapping[str, Any]) -> None:
    """Check a ``resource.k8s.io/v1`` ResourceClaimTemplate's names and counts.

    :param manifest: the manifest :func:`~accelerators.kubernetes.to_dra_fragment` returns.
    """
    if not is_dns_subdomain(manifest.get("metadata", {}).get("name")):
        raise _bad("metadata.name", "ResourceClaimTemplate name is not a DNS subdomain")
    requests = manifest["spec"]["spec"]["devices"]["requests"]
    for i, request in enumerate(requests):
        subrequests = (
            [request.get("exactly")] if "exactly" in request else request.get("firstAvailable", [])
        )
        if not is_dns_label(request.get("name")):
            raise _bad(f"requests[{i}].name", f"{request.get('name')!r} is not a DNS label")
        for sub in subrequests:
            if not is_dns_subdomain(sub.get("deviceClassName")):
                raise _bad(
                    f"requests[{i}]",
                    f"deviceClassName {sub.get('deviceClassName')!r} is not a DNS subdomain",
                )
            count = sub.get("count", 1)
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise _bad(f"requests[{i}]", f"count must be a positive integer, got {count!r}")
            if "name" in sub and not is_dns_label(sub["name"]):
                raise _bad(f"requests[{i}]", f"subrequest name {sub['name']!r} is not a DNS label")
