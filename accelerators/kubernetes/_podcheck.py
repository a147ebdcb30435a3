"""Checks on the user's pod before and after a fragment is merged into it.

* :func:`check_pod_shape` walks the parts of a pod spec that the merge reads (containers,
  resources, nodeSelector, tolerations, node affinity, resource claims) and raises
  :class:`~accelerators.errors.AcceleratorError` naming the path of the first malformed
  part, what it is and what was expected, instead of a ``KeyError`` or ``TypeError``.
* :func:`unsatisfiable` tells whether a conjunction of node requirements (a
  ``nodeSelectorTerm`` plus the ``nodeSelector``) can match any node at all, and if not,
  which requirements contradict each other.

Node-affinity semantics (Kubernetes ``NodeSelectorNodeRequirement``): ``In``/``NotIn`` take
one or more values, ``Exists``/``DoesNotExist`` none, ``Gt``/``Lt`` exactly one integer;
``Gt``/``Lt`` match only nodes whose label value parses as an integer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple, cast

from accelerators._text import shorten
from accelerators.errors import AcceleratorError

__all__ = ["NodeRequirement", "check_pod_shape", "describe", "unsatisfiable"]

OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


# -- shape ------------------------------------------------------------------------------------
def _what(value: object) -> str:
    return f"{type(value).__name__} {shorten(repr(value), 60)}"


def _expect(value: object, kind: type | tuple[type, ...], path: str, expected: str) -> None:
    if not isinstance(value, kind):
        raise AcceleratorError(f"Malformed pod: {path} should be {expected}, got {_what(value)}")


def _mapping(parent: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any] | None:
    value = parent.get(key)
    if value is None:
        return None
    _expect(value, Mapping, f"{path}.{key}", "a mapping")
    return cast("Mapping[str, Any]", value)


def _items(parent: Mapping[str, Any], key: str, path: str) -> list[Any]:
    value = parent.get(key)
    if value is None:
        return []
    _expect(value, (list, tuple), f"{path}.{key}", "a list")
    return list(value)


def _strings(values: Mapping[str, Any], path: str, *, numbers: bool = False) -> None:
    allowed: tuple[type, ...] = (str, int, float) if numbers else (str,)
    for key, value in values.items():
        _expect(key, str, f"{path} key", "a string")
        if isinstance(value, bool) or not isinstance(value, allowed):
            expected = "a string or number" if numbers else "a string"
            raise AcceleratorError(
                f"Malformed pod: {path}[{key!r}] should be {expected}, got {_what(value)}"
            )


def check_pod_shape(spec: Mapping[str, Any], path: str = "spec") -> None:
    """Raise :class:`AcceleratorError` for the first part of ``spec`` the merge cannot read."""
    selector = _mapping(spec, "nodeSelector", path)
    if selector is not None:
        _strings(selector, f"{path}.nodeSelector")
    for key in ("initContainers", "containers"):  # the requests <= limits check reads both
        for i, container in enumerate(_items(spec, key, path)):
            _check_container(container, f"{path}.{key}[{i}]")
    for i, toleration in enumerate(_items(spec, "tolerations", path)):
        _expect(toleration, Mapping, f"{path}.tolerations[{i}]", "a toleration mapping")
    for i, claim in enumerate(_items(spec, "resourceClaims", path)):
        _expect(claim, Mapping, f"{path}.resourceClaims[{i}]", "a mapping with a name")
        _expect(claim.get("name"), str, f"{path}.resourceClaims[{i}].name", "a string")
    for name in ("runtimeClassName",):
        if spec.get(name) is not None:
            _expect(spec[name], str, f"{path}.{name}", "a string")
    affinity = _mapping(spec, "affinity", path)
    node = _mapping(affinity, "nodeAffinity", f"{path}.affinity") if affinity else None
    if node is None:
        return
    where = f"{path}.affinity.nodeAffinity"
    required = _mapping(node, REQUIRED, where)
    if required is not None:
        terms = _items(required, "nodeSelectorTerms", f"{where}.{REQUIRED}")
        for i, term in enumerate(terms):
            _check_term(term, f"{where}.{REQUIRED}.nodeSelectorTerms[{i}]")
    for i, item in enumerate(_items(node, PREFERRED, where)):
        _expect(item, Mapping, f"{where}.{PREFERRED}[{i}]", "a mapping (weight, preference)")
        preference = item.get("preference")
        if preference is not None:
            _check_term(preference, f"{where}.{PREFERRED}[{i}].preference")


def _check_container(container: object, where: str) -> None:
    _expect(container, Mapping, where, "a container mapping (name, image, resources)")
    resources = _mapping(cast("Mapping[str, Any]", container), "resources", where)
    if resources is None:
        return
    for section in ("limits", "requests"):
        values = _mapping(resources, section, f"{where}.resources")
        if values is not None:
            _strings(values, f"{where}.resources.{section}", numbers=True)
    for j, claim in enumerate(_items(resources, "claims", f"{where}.resources")):
        _expect(claim, Mapping, f"{where}.resources.claims[{j}]", "a mapping with a name")


def _check_term(term: object, path: str) -> None:
    _expect(term, Mapping, path, "a nodeSelectorTerm mapping (matchExpressions, matchFields)")
    for key in ("matchExpressions", "matchFields"):
        for i, expr in enumerate(_items(cast("Mapping[str, Any]", term), key, path)):
            NodeRequirement.read(expr, f"{path}.{key}[{i}]")


# -- satisfiability ----------------------------------------------------------------------------
class NodeRequirement(NamedTuple):
    """One node requirement: ``key operator values`` (a nodeSelector entry is ``In [v]``)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    @classmethod
    def read(cls, expr: object, path: str) -> NodeRequirement:
        _expect(expr, Mapping, path, "a mapping (key, operator, values)")
        fields = cast("Mapping[str, Any]", expr)
        key, operator = fields.get("key"), fields.get("operator")
        _expect(key, str, f"{path}.key", "a string")
        if operator not in OPERATORS:
            raise AcceleratorError(
                f"Malformed pod: {path}.operator should be one of {', '.join(OPERATORS)}, got "
                f"{_what(operator)}"
            )
        raw = fields.get("values") or []
        _expect(raw, (list, tuple), f"{path}.values", "a list of strings")
        values = tuple(raw)
        if not all(isinstance(v, str) for v in values):
            raise AcceleratorError(
                f"Malformed pod: {path}.values should be strings, got {_what(list(values))}"
            )
        return cls(str(key), str(operator), values)

    def __str__(self) -> str:
        if self.operator in ("Exists", "DoesNotExist"):
            return f"{self.key} {self.operator}"
        if self.operator == "In" and len(self.values) == 1:
            return f"{self.key}={self.values[0]}"
        return f"{self.key} {self.operator} ({', '.join(self.values)})"


def describe(requirements: Iterable[NodeRequirement]) -> str:
    return "; ".join(str(r) for r in requirements)


def _integer(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def unsatisfiable(requirements: Iterable[NodeRequirement]) -> tuple[NodeRequirement, ...] | None:
    """The requirements on one key that no node label can meet together, or None if some can.

    >>> t4, h100 = NodeRequirement("gpu", "In", ("t4",)), NodeRequirement("gpu", "In", ("h100",))
    >>> unsatisfiable([t4, h100]) == (t4, h100)
    True
    >>> unsatisfiable([t4, NodeRequirement("gpu", "NotIn", ("h100",))]) is None
    True
    """
    by_key: dict[str, list[NodeRequirement]] = {}
    for requirement in requirements:
        by_key.setdefault(requirement.key, []).append(requirement)
    for group in by_key.values():
        if not _key_satisfiable(group):
            return tuple(group)
    return None


def _key_satisfiable(group: list[NodeRequirement]) -> bool:
    absent = any(r.operator == "DoesNotExist" for r in group)
    present = any(r.operator in ("In", "Exists", "Gt", "Lt") for r in group)
    if absent:
        return not present  # NotIn is met by a missing label
    allowed: set[str] | None = None
    excluded: set[str] = set()
    low, high = None, None  # value > low, value < high
    for r in group:
        if r.operator == "In":
            allowed = set(r.values) if allowed is None else allowed & set(r.values)
        elif r.operator == "NotIn":
            excluded |= set(r.values)
        elif r.operator in ("Gt", "Lt"):
            bound = _integer(r.values[0]) if len(r.values) == 1 else None
            if bound is None:
                return False  # the API server rejects it; no node matches it either
            if r.operator == "Gt":
                low = bound if low is None else max(low, bound)
            else:
                high = bound if high is None else min(high, bound)

    def in_bounds(value: str) -> bool:
        if low is None and high is None:
            return True
        number = _integer(value)
        return (
            number is not None and (low is None or number > low) and (high is None or number < high)
        )

    if allowed is not None:
        return any(v not in excluded and in_bounds(v) for v in allowed)
    if low is not None and high is not None:
        # Integers strictly between the bounds, other than the excluded ones.
        room = high - low - 1
        if room <= 0:
            return False
        blocked = {n for v in excluded if (n := _integer(v)) is not None and low < n < high}
        return room > len(blocked)
    return True
