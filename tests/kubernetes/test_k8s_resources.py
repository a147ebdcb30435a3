"""``requests <= limits``: quantities compared as Kubernetes does, every container checked,
and ``apply_to_pod`` refusing a merged pod the API server would reject."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from accelerators import AcceleratorError, PlacementError
from accelerators.kubernetes import apply_to_pod, check_resources, resource_problems
from accelerators.kubernetes._resources import parse_quantity


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("16Gi", Decimal(16 * 1024**3)),
        ("64G", Decimal(64 * 10**9)),
        ("500m", Decimal("0.5")),
        ("2", Decimal(2)),
        (2, Decimal(2)),
        (0.5, Decimal("0.5")),
        ("1.5Mi", Decimal("1.5") * 1024**2),
        ("1e3", Decimal(1000)),
        ("12E-1", Decimal("1.2")),
        ("100n", Decimal("1E-7")),
        (".5", Decimal("0.5")),
    ],
)
def test_quantities_read_as_kubernetes_reads_them(text: Any, value: Decimal) -> None:
    assert parse_quantity(text) == value


@pytest.mark.parametrize("text", ["16GB", "lots", "", "Gi", True, None, "1.2.3"])
def test_bad_quantities_are_refused_by_name(text: Any) -> None:
    with pytest.raises(AcceleratorError, match="Kubernetes quantity"):
        parse_quantity(text)


def _pod(resources: dict[str, Any], *, init: dict[str, Any] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "base", "image": "i", "resources": resources}]}
    if init is not None:
        spec["initContainers"] = [{"name": "setup", "image": "i", "resources": init}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


def test_requests_above_limits_are_found_in_every_container() -> None:
    pod = _pod(
        {"limits": {"memory": "16Gi", "cpu": "2"}, "requests": {"memory": "64Gi", "cpu": "1500m"}},
        init={"limits": {"cpu": "500m"}, "requests": {"cpu": "1"}},
    )
    problems = resource_problems(pod)
    assert [(p.container, p.resource, p.request, p.limit) for p in problems] == [
        ("setup", "cpu", "1", "500m"),
        ("base", "memory", "64Gi", "16Gi"),
    ]
    with pytest.raises(PlacementError) as raised:
        check_resources(pod)
    message = str(raised.value)
    assert "'base' requests memory 64Gi, more than its limit 16Gi" in message
    assert "'setup' requests cpu 1, more than its limit 500m" in message


def test_equal_or_lower_requests_and_requests_without_limits_pass() -> None:
    check_resources(_pod({"limits": {"memory": "1Gi"}, "requests": {"memory": "1024Mi"}}))
    check_resources(_pod({"requests": {"memory": "64Gi"}}))  # no limit: nothing to exceed
    check_resources(_pod({"limits": {"cpu": "1"}, "requests": {"cpu": "999m"}}))
    check_resources({"spec": {"template": {"spec": {"containers": [{"name": "c"}]}}}})


def test_models_are_checked_too() -> None:
    from kubernetes.client import models as k8s

    pod = k8s.V1Pod(
        spec=k8s.V1PodSpec(
            containers=[
                k8s.V1Container(
                    name="base",
                    resources=k8s.V1ResourceRequirements(
                        limits={"memory": "1Gi"}, requests={"memory": "2Gi"}
                    ),
                )
            ]
        )
    )
    assert [p.resource for p in resource_problems(pod)] == ["memory"]
    with pytest.raises(AcceleratorError, match="model"):
        resource_problems(42)


def test_a_bad_quantity_names_its_container_and_resource() -> None:
    with pytest.raises(AcceleratorError, match=r"container 'base' memory: .*'16GB'"):
        resource_problems(_pod({"limits": {"memory": "16GB"}, "requests": {"memory": "1Gi"}}))


def test_apply_to_pod_refuses_a_merged_pod_the_api_server_would_reject() -> None:
    pod = _pod({"limits": {"memory": "16Gi"}, "requests": {"memory": "64Gi"}})
    with pytest.raises(PlacementError, match="requests memory 64Gi, more than its limit 16Gi"):
        apply_to_pod(pod, "L4", platform="gke")
    ok = apply_to_pod(_pod({"limits": {"memory": "64Gi"}}), "L4", platform="gke")
    assert ok["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1"
