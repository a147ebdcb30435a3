"""Shared fixtures for the ``accelerators.kubernetes`` tests (no cluster needed).

``k8s_validate(manifest, versions)`` runs ``kubernetes_validate.validate(..., strict=True)``
with the JSON schemas loaded once per process (the library re-reads them on every call).
``node_requirements(pod)`` flattens ``nodeSelector`` and a single required affinity term
into ``{key: (operator, values)}`` for assertions.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

import pytest

#: Kubernetes versions every Pod is validated against; DRA objects need 1.34+.
POD_VERSIONS: tuple[str, ...] = ("1.30", "1.37")
DRA_VERSIONS: tuple[str, ...] = ("1.34", "1.37")


@pytest.fixture(scope="session")
def k8s_validate() -> Callable[..., None]:
    kubernetes_validate = pytest.importorskip(
        "kubernetes_validate", reason="kubernetes-validate (the [dev] extra) is not installed"
    )
    utils = pytest.importorskip("kubernetes_validate.utils")
    if not hasattr(utils.schema_contents, "cache_info"):
        utils.schema_contents = functools.cache(utils.schema_contents)

    def validate(manifest: dict[str, Any], versions: Iterable[str] = POD_VERSIONS) -> None:
        for version in versions:
            kubernetes_validate.validate(manifest, version, strict=True)

    return validate


def flatten_requirements(pod_spec: dict[str, Any]) -> dict[str, tuple[str, tuple[str, ...]]]:
    out: dict[str, tuple[str, tuple[str, ...]]] = {
        key: ("In", (value,)) for key, value in (pod_spec.get("nodeSelector") or {}).items()
    }
    required = (
        (pod_spec.get("affinity") or {})
        .get("nodeAffinity", {})
        .get("requiredDuringSchedulingIgnoredDuringExecution")
    )
    if required:
        terms = required["nodeSelectorTerms"]
        assert len(terms) == 1, terms
        for expr in terms[0]["matchExpressions"]:
            assert expr["key"] not in out, expr
            out[expr["key"]] = (expr["operator"], tuple(expr.get("values", ())))
    return out


@pytest.fixture(scope="session")
def node_requirements() -> Callable[[dict[str, Any]], dict[str, tuple[str, tuple[str, ...]]]]:
    def run(pod_or_spec: dict[str, Any]) -> dict[str, tuple[str, tuple[str, ...]]]:
        spec = pod_or_spec.get("spec", pod_or_spec)
        return flatten_requirements(spec)

    return run
