"""``requests <= limits`` for every container: what the API server checks and schemas do not.

The API server rejects a pod whose container requests more of a resource than its limit
("must be less than or equal to cpu limit"); ``kubernetes-validate`` does not check it. Such a
pod arises from merging: a template's ``limits.memory: 16Gi`` under an operator argument that
requests ``64Gi``. :func:`resource_problems` finds each case in a pod (every container and
init container), comparing quantities as Kubernetes does (``1Gi`` is 1024 ``Mi``, ``500m`` is
half a CPU); :func:`check_resources` raises :class:`~accelerators.PlacementError` naming the
container, the resource and both values.

Quantities follow Kubernetes' ``resource.Quantity`` grammar: a signed decimal number, then a
binary suffix (``Ki Mi Gi Ti Pi Ei``), a decimal suffix (``n u m k M G T P E``) or an exponent
(``e3``, ``E-2``). YAML may give plain numbers (``cpu: 2``, ``cpu: 0.5``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple

from accelerators.errors import AcceleratorError, PlacementError

__all__ = [
    "ResourceProblem",
    "check_resources",
    "invalid_pod",
    "parse_quantity",
    "resource_problems",
]

_QUANTITY = re.compile(r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(.*)$")
_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_EXPONENT = re.compile(r"^[eE]([+-]?[0-9]+)$")


class ResourceProblem(NamedTuple):
    """A container whose request of ``resource`` exceeds its limit."""

    container: str
    resource: str
    request: str
    limit: str

    def __str__(self) -> str:
        return (
            f"container {self.container!r} requests {self.resource} {self.request}, more than "
            f"its limit {self.limit}"
        )


def parse_quantity(value: Any) -> Decimal:
    """A Kubernetes quantity (``"64Gi"``, ``"500m"``, ``2``) as an exact number.

    :raises AcceleratorError: ``value`` is not a quantity.
    """
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise AcceleratorError(f"Expected a Kubernetes quantity such as '16Gi', got {value!r}")
    text = str(value).strip()
    match = _QUANTITY.match(text)
    if match is None:
        raise AcceleratorError(f"Expected a Kubernetes quantity such as '16Gi', got {value!r}")
    number, suffix = match.groups()
    try:
        base = Decimal(number)
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        raise AcceleratorError(f"Expected a Kubernetes quantity, got {value!r}") from None
    if suffix in _BINARY:
        return base * (Decimal(1024) ** _BINARY[suffix])
    if suffix in _DECIMAL:
        return base.scaleb(_DECIMAL[suffix])
    exponent = _EXPONENT.match(suffix)
    if exponent is not None:
        return base.scaleb(int(exponent.group(1)))
    raise AcceleratorError(
        f"Expected a Kubernetes quantity such as '16Gi' or '500m', got {value!r}: unknown suffix "
        f"{suffix!r} (binary {', '.join(_BINARY)}; decimal n, u, m, k, M, G, T, P, E; or e<N>)"
    )


def _pod_spec(pod: Mapping[str, Any]) -> Mapping[str, Any]:
    """The PodSpec inside a Pod, PodTemplateSpec, PodSpec or workload dict ({} if none)."""
    if "containers" in pod:
        return pod
    inner = pod.get("spec")
    if isinstance(inner, Mapping):
        if "containers" in inner:
            return inner
        template = inner.get("template")
        if isinstance(template, Mapping):
            return _pod_spec(template)
    template = pod.get("template")
    return _pod_spec(template) if isinstance(template, Mapping) else {}


def _containers(spec: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for key in ("initContainers", "containers"):
        for item in spec.get(key) or ():
            if isinstance(item, Mapping):
                yield item


def resource_problems(pod: Any) -> tuple[ResourceProblem, ...]:
    """Every container resource of ``pod`` whose request exceeds its limit.

    :param pod: a Pod, PodTemplateSpec, PodSpec or workload as a camelCase dict, or a
        ``kubernetes.client`` model of one.
    :raises AcceleratorError: a request or limit is not a quantity.
    """
    if not isinstance(pod, Mapping):
        from accelerators.kubernetes import _models

        if not _models.is_model(pod):
            raise AcceleratorError(
                f"Expected a pod as a dict or kubernetes.client model, got {type(pod).__name__}"
            )
        pod = _models.to_dict(pod)
    found: list[ResourceProblem] = []
    for container in _containers(_pod_spec(pod)):
        resources = container.get("resources")
        if not isinstance(resources, Mapping):
            continue
        limits = resources.get("limits") or {}
        requests = resources.get("requests") or {}
        name = str(container.get("name"))
        for resource, request in requests.items():
            if resource not in limits:
                continue  # no limit: the request stands alone (limits default to requests)
            where = f"container {name!r} {resource}"
            try:
                over = parse_quantity(request) > parse_quantity(limits[resource])
            except AcceleratorError as exc:
                raise AcceleratorError(f"{where}: {exc}") from None
            if over:
                found.append(ResourceProblem(name, resource, str(request), str(limits[resource])))
    return tuple(found)


def check_resources(pod: Any) -> None:
    """Raise :class:`PlacementError` when a container of ``pod`` requests more than its limit.

    The message names every such container and resource, with both values, because the API
    server would refuse the pod.
    """
    problems = resource_problems(pod)
    if problems:
        raise PlacementError(invalid_pod(problems))


def invalid_pod(problems: tuple[ResourceProblem, ...]) -> str:
    """The message of :func:`check_resources` for ``problems``."""
    return (
        "Invalid pod: "
        + "; ".join(str(p) for p in problems)
        + ". The API server rejects requests above limits: raise the limit or lower the request"
    )
