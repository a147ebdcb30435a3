"""Tolerations as plain camelCase dicts: built by the platforms, or read from a user's value.

Standard library and :mod:`accelerators.errors` only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelerators.errors import PlacementError

__all__ = ["normalise_toleration", "toleration"]


def toleration(
    key: str, operator: str = "Exists", value: str | None = None, effect: str | None = "NoSchedule"
) -> dict[str, Any]:
    """A toleration dict with keys in Kubernetes order, ``None`` fields left out."""
    out: dict[str, Any] = {"key": key, "operator": operator}
    if value is not None:
        out["value"] = value
    if effect is not None:
        out["effect"] = effect
    return out


def normalise_toleration(value: Any) -> dict[str, Any]:
    """Accept a camelCase dict or a ``kubernetes.client.V1Toleration``; return a dict.

    :param value: the toleration as the user gave it.
    :raises PlacementError: for anything else (a platform cannot read it).
    """
    if isinstance(value, Mapping):
        data = dict(value)
    elif callable(getattr(value, "to_dict", None)):
        data = value.to_dict()
    else:
        raise PlacementError(
            f"Expected a toleration as a dict or V1Toleration, got {type(value).__name__}: "
            f"{value!r}"
        )
    if "toleration_seconds" in data:
        data["tolerationSeconds"] = data.pop("toleration_seconds")
    order = ("key", "operator", "value", "effect", "tolerationSeconds")
    out = {k: data[k] for k in order if data.get(k) is not None}
    out.update({k: v for k, v in data.items() if k not in order and v is not None})
    return out
