"""``kubernetes.client`` conversions (the ``[k8s]`` extra; ``kubernetes`` is imported lazily).

>>> from accelerators.kubernetes import to_pod_fragment, fragment_models  # doctest: +SKIP
>>> models = fragment_models(to_pod_fragment(spec, platform="gke"))      # doctest: +SKIP
>>> KubernetesPodOperator(container_resources=models.resources,           # doctest: +SKIP
...                       node_selector=models.node_selector, affinity=models.affinity,
...                       tolerations=models.tolerations, ...)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "FragmentModels",
    "as_mapping",
    "fragment_models",
    "from_dict",
    "is_model",
    "pod_model",
    "to_dict",
]

_IMPORT_ERROR = (
    "kubernetes.client models need the 'kubernetes' package: pip install 'accelerators[k8s]'"
)


def _client() -> Any:
    try:
        import kubernetes.client
    except ImportError as exc:  # pragma: no cover - exercised without the extra only
        raise ImportError(_IMPORT_ERROR) from exc
    return kubernetes.client


def is_model(obj: object) -> bool:
    """Whether ``obj`` is a ``kubernetes.client`` model (checked without importing it)."""
    return type(obj).__module__.startswith("kubernetes.client.models") and hasattr(
        obj, "openapi_types"
    )


def to_dict(obj: Any) -> dict[str, Any]:
    """A model as a camelCase dict (``ApiClient().sanitize_for_serialization``)."""
    result: dict[str, Any] = _client().ApiClient().sanitize_for_serialization(obj)
    return result


def as_mapping(value: Any, expected: str) -> Mapping[str, Any]:
    """``value`` as given when it is a mapping, a model as its camelCase dict; anything else
    is an :class:`~accelerators.errors.AcceleratorError` saying what was ``expected``."""
    if isinstance(value, Mapping):
        return value
    if not is_model(value):
        from accelerators.errors import AcceleratorError

        raise AcceleratorError(
            f"Expected {expected} as a dict or kubernetes.client model, got {type(value).__name__}"
        )
    return to_dict(value)


class _Response:
    """The shape ``ApiClient.deserialize`` reads (``.data`` holding JSON text)."""

    def __init__(self, data: Any) -> None:
        self.data = json.dumps(data)


def from_dict(data: Mapping[str, Any], model: type | str) -> Any:
    """A camelCase dict as a ``kubernetes.client`` model of type ``model`` (or its name)."""
    name = model if isinstance(model, str) else model.__name__
    return _client().ApiClient().deserialize(_Response(dict(data)), name)


def pod_model(pod: Mapping[str, Any]) -> Any:
    """A Pod manifest dict as a ``kubernetes.client.V1Pod``."""
    return from_dict(pod, "V1Pod")


@dataclass(frozen=True)
class FragmentModels:
    """A pod fragment as the ``kubernetes.client`` models Airflow's operators take.

    :param resources: ``V1ResourceRequirements`` (``container_resources=``).
    :param node_selector: a plain dict (``node_selector=``), or ``None``.
    :param affinity: ``V1Affinity`` (``affinity=``), or ``None``.
    :param tolerations: ``V1Toleration`` list (``tolerations=``).
    :param runtime_class_name: ``runtimeClassName``, or ``None``.
    :param resource_claims: ``V1PodResourceClaim`` list (DRA), empty otherwise.
    """

    resources: Any
    node_selector: dict[str, str] | None
    affinity: Any
    tolerations: list[Any]
    runtime_class_name: str | None
    resource_claims: list[Any]


def fragment_models(fragment: Mapping[str, Any]) -> FragmentModels:
    """Convert a pod fragment into :class:`FragmentModels`.

    :param fragment: a fragment from :func:`~accelerators.kubernetes.to_pod_fragment`.
    """
    return FragmentModels(
        resources=from_dict(fragment.get("resources") or {}, "V1ResourceRequirements"),
        node_selector=dict(fragment["nodeSelector"]) if fragment.get("nodeSelector") else None,
        affinity=from_dict(fragment["affinity"], "V1Affinity")
        if fragment.get("affinity")
        else None,
        tolerations=[from_dict(t, "V1Toleration") for t in fragment.get("tolerations") or ()],
        runtime_class_name=fragment.get("runtimeClassName"),
        resource_claims=[
            from_dict(c, "V1PodResourceClaim") for c in fragment.get("resourceClaims") or ()
        ],
    )
