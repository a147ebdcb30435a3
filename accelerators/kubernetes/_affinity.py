"""Node affinity rendered from node requirements (:class:`~accelerators.kubernetes.Requirement`).

One alternative's requirements become one required ``nodeSelectorTerm``; a fallback chain
(``H100 | A100-80GB``) becomes a required part that allows every alternative and a preferred
part that weighs earlier alternatives more (:data:`WEIGHTS`).

Standard library and the fragment types (:mod:`._fragment`) only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accelerators.kubernetes._fragment import Requirement

__all__ = ["WEIGHTS", "fallback_affinity", "node_affinity"]

#: ``preferredDuringScheduling`` weights for the 1st, 2nd, … alternative of a fallback chain.
WEIGHTS: tuple[int, ...] = (100, 50, 25, 12, 6, 3)


def node_affinity(
    required: Sequence[tuple[Requirement, ...]],
    preferred: Sequence[tuple[int, tuple[Requirement, ...]]],
) -> dict[str, Any]:
    """``{"nodeAffinity": ...}`` requiring any of the ``required`` terms (each ANDed) and
    preferring the ``preferred`` ones with their weights; ``{}`` when both are empty."""
    node: dict[str, Any] = {}
    if required:
        node["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [
                {"matchExpressions": [r.to_dict() for r in term]} for term in required
            ]
        }
    if preferred:
        node["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": weight, "preference": {"matchExpressions": [r.to_dict() for r in term]}}
            for weight, term in preferred
        ]
    return {"nodeAffinity": node} if node else {}


def fallback_affinity(terms: Sequence[tuple[Requirement, ...]]) -> dict[str, Any]:
    """Required: every alternative allowed; preferred: earlier alternatives weigh more.

    When the alternatives differ only in the values of one ``In`` requirement the
    required part is one term with the values united (``In [a, b, c]``); otherwise it is
    one term per alternative (terms are ORed). An alternative with no requirements allows
    every node, so then nothing is required.
    """
    preferred = [
        (WEIGHTS[i] if i < len(WEIGHTS) else 1, term) for i, term in enumerate(terms) if term
    ]
    distinct = list(dict.fromkeys(terms))
    if len(distinct) == 1:
        # Same node requirements for every alternative: nothing to prefer.
        return node_affinity([distinct[0]] if distinct[0] else [], [])
    if any(not term for term in terms):
        return node_affinity([], preferred)
    return node_affinity(_merge_terms(distinct), preferred)


def _merge_terms(terms: Sequence[tuple[Requirement, ...]]) -> list[tuple[Requirement, ...]]:
    shapes = {tuple((r.key, r.operator) for r in term) for term in terms}
    if len(shapes) == 1:
        shape = next(iter(shapes))
        columns = list(zip(*terms, strict=True))
        differing = [i for i, column in enumerate(columns) if len(set(column)) > 1]
        if len(differing) == 1 and shape[differing[0]][1] == "In":
            i = differing[0]
            values = tuple(dict.fromkeys(v for req in columns[i] for v in req.values))
            merged = list(terms[0])
            merged[i] = Requirement(merged[i].key, "In", values)
            return [tuple(merged)]
    return list(terms)
