"""The types a platform speaks: a :class:`Placement` of one alternative, made of resources,
node requirements (:class:`Requirement`) and tolerations, and the camelCase
:class:`PodFragment` rendered from the placements of all alternatives (:meth:`Platform.fragment
<accelerators.kubernetes.Platform.fragment>`).

Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

__all__ = ["Placement", "PodFragment", "Requirement"]


class PodFragment(TypedDict, total=False):
    """The pod-spec pieces a spec needs, in Kubernetes camelCase.

    ``resources`` belongs to the target container; everything else to the pod spec.
    """

    resources: dict[str, Any]
    nodeSelector: dict[str, str]
    affinity: dict[str, Any]
    tolerations: list[dict[str, Any]]
    runtimeClassName: str
    resourceClaims: list[dict[str, str]]


@dataclass(frozen=True)
class Requirement:
    """One ``nodeSelectorRequirement`` (``key``, ``operator``, ``values``)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        return out


@dataclass(frozen=True)
class Placement:
    """How one alternative lands on one platform, before rendering.

    :param resources: extended resource name -> whole count, for the target container.
    :param requirements: node requirements, ANDed.
    :param tolerations: tolerations the alternative needs (plain camelCase dicts).
    :param affinity_only: render single-value ``In`` requirements as node affinity, never
        as ``nodeSelector`` (Flyte does this).
    """

    resources: Mapping[str, int]
    requirements: tuple[Requirement, ...] = ()
    tolerations: tuple[Mapping[str, Any], ...] = ()
    affinity_only: bool = False
