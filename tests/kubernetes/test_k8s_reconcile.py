"""The one merge engine: a template, a task's own pod and an accelerator, layered in one order.

``reconcile_placement`` (a template under the pod Airflow built from it: the pod wins a key
both set) and ``merge_fragment`` (a fragment over a pod: a key both set differently is an
error) share the steps of ``accelerators.kubernetes._reconcile``; every layered field lists
the lower layer's entries first.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from accelerators.errors import AcceleratorError, PlacementError
from accelerators.kubernetes import merge_fragment, reconcile_placement, to_pod_fragment
from accelerators.kubernetes._reconcile import reconcile_selectors, reconcile_terms

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _term(*pairs: tuple[str, str]) -> dict[str, Any]:
    return {"matchExpressions": [{"key": k, "operator": "In", "values": [v]} for k, v in pairs]}


def _pod(
    name: str,
    *,
    selector: dict[str, str] | None = None,
    term: dict[str, Any] | None = None,
    limits: dict[str, str] | None = None,
    anti: list[Any] | None = None,
) -> dict[str, Any]:
    """A pod whose every layered field carries entries named after the layer."""
    affinity: dict[str, Any] = {
        "nodeAffinity": {
            REQUIRED: {"nodeSelectorTerms": [term or _term((f"{name}-zone", "a"))]},
            PREFERRED: [{"weight": 1, "preference": _term((f"{name}-pref", "x"))}],
        }
    }
    if anti is not None:
        affinity["podAntiAffinity"] = {PREFERRED: anti}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "containers": [
                {"name": "base", "image": f"{name}:1", "resources": {"limits": limits or {}}}
            ],
            "nodeSelector": selector if selector is not None else {f"{name}-pool": "yes"},
            "tolerations": [{"key": name, "operator": "Exists"}],
            "affinity": affinity,
        },
    }


def _anti(team: str) -> dict[str, Any]:
    return {
        "weight": 5,
        "podAffinityTerm": {
            "topologyKey": "kubernetes.io/hostname",
            "labelSelector": {"matchLabels": {"team": team}},
        },
    }


def test_three_layers_read_lowest_first_in_every_field(
    k8s_validate: Callable[..., None],
) -> None:
    template = _pod("template", limits={"memory": "1Gi"}, anti=[_anti("template")])
    task = _pod("task", limits={"cpu": "4"}, anti=[_anti("task")])
    layered = reconcile_placement(template, task, container="base")
    fragment = to_pod_fragment("H100-SXM:8", platform="gke")
    pod = merge_fragment(layered, fragment, container="base")
    k8s_validate(pod)
    spec = pod["spec"]
    assert [t["key"] for t in spec["tolerations"]] == ["template", "task", "nvidia.com/gpu"]
    assert list(spec["nodeSelector"])[:2] == ["template-pool", "task-pool"]
    (term,) = spec["affinity"]["nodeAffinity"][REQUIRED]["nodeSelectorTerms"]
    keys = [e["key"] for e in term["matchExpressions"]]
    assert keys == [
        "template-zone",
        "task-zone",
        "cloud.google.com/gke-accelerator",
        "cloud.google.com/gke-gpu-partition-size",  # whole GPUs: DoesNotExist
    ]
    preferred = spec["affinity"]["nodeAffinity"][PREFERRED]
    assert [p["preference"]["matchExpressions"][0]["key"] for p in preferred] == [
        "template-pref",
        "task-pref",
    ]
    anti = spec["affinity"]["podAntiAffinity"][PREFERRED]
    assert [a["podAffinityTerm"]["labelSelector"]["matchLabels"]["team"] for a in anti] == [
        "template",
        "task",
    ]
    limits = spec["containers"][0]["resources"]["limits"]
    assert list(limits) == ["memory", "cpu", "nvidia.com/gpu"]
    assert spec["containers"][0]["image"] == "task:1"  # the rest is the task's pod


def test_the_task_wins_a_key_both_set_and_the_inputs_stay_as_they_were() -> None:
    template = _pod("template", selector={"pool": "cpu"}, limits={"cpu": "1", "memory": "1Gi"})
    task = _pod("task", selector={"pool": "gpu"}, limits={"cpu": "4"})
    before = copy.deepcopy((template, task))
    out = reconcile_placement(template, task, container=None)
    assert out["spec"]["nodeSelector"] == {"pool": "gpu"}
    assert out["spec"]["containers"][0]["resources"]["limits"] == {"cpu": "4", "memory": "1Gi"}
    assert (template, task) == before
    out["spec"]["tolerations"].append({"key": "later"})
    out["spec"]["affinity"]["nodeAffinity"][REQUIRED]["nodeSelectorTerms"][0][
        "matchExpressions"
    ].append({"key": "later", "operator": "Exists"})
    assert (template, task) == before  # the result shares nothing with them


def test_an_accelerator_fragment_raises_where_a_template_yields() -> None:
    with pytest.raises(PlacementError, match=r"nodeSelector conflict on 'pool'.*'cpu'.*'gpu'"):
        reconcile_selectors({"pool": "cpu"}, {"pool": "gpu"}, conflicts="raise")
    assert reconcile_selectors({"pool": "cpu"}, {"pool": "gpu"}, conflicts="upper") == {
        "pool": "gpu"
    }
    pod = _pod("pod", limits={"nvidia.com/gpu": "1"})
    with pytest.raises(PlacementError, match=r"already has limits nvidia\.com/gpu: '1'"):
        merge_fragment(pod, to_pod_fragment("H100-SXM:8", platform="nvidia"))


def test_terms_are_combined_lower_terms_outer_and_merged_twice_once() -> None:
    lower = [_term(("zone", "a")), _term(("zone", "b"))]
    upper = [_term(("gpu", "h100")), _term(("gpu", "h200"))]
    combined = reconcile_terms(lower, upper)
    assert [[e["values"][0] for e in t["matchExpressions"]] for t in combined] == [
        ["a", "h100"],
        ["a", "h200"],
        ["b", "h100"],
        ["b", "h200"],
    ]
    assert reconcile_terms(combined, upper) == combined
    assert reconcile_terms([], upper) == upper


def test_a_template_and_a_task_no_node_could_satisfy_name_both() -> None:
    template = _pod("template", selector={}, term=_term(("zone", "a")))
    task = _pod("task", selector={"zone": "b"}, term=_term(("disk", "ssd")))
    with pytest.raises(PlacementError) as caught:
        reconcile_placement(template, task)
    message = str(caught.value)
    assert "The pod could never schedule: the task's own arguments require zone=b" in message
    assert "its pod template requires zone=a" in message


def test_a_malformed_template_is_named_by_its_path() -> None:
    template = _pod("template")
    template["spec"]["tolerations"] = {"key": "a"}
    with pytest.raises(AcceleratorError, match=r"template\.spec\.tolerations should be a list"):
        reconcile_placement(template, _pod("task"))
    with pytest.raises(AcceleratorError, match=r"pod\.spec should be a mapping"):
        reconcile_placement(_pod("template"), {"spec": ["x"]})


def test_the_template_fills_what_the_task_leaves_empty() -> None:
    template = _pod("template", limits={"memory": "1Gi"})
    template["spec"]["runtimeClassName"] = "nvidia"
    template["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "t"}]
    task: dict[str, Any] = {"spec": {"containers": [{"name": "main", "image": "i"}]}}
    spec = reconcile_placement(template, task)["spec"]
    assert spec["runtimeClassName"] == "nvidia"
    assert spec["resourceClaims"] == template["spec"]["resourceClaims"]
    assert spec["containers"] == [
        {"name": "main", "image": "i", "resources": {"limits": {"memory": "1Gi"}}}
    ]
    assert spec["tolerations"] == template["spec"]["tolerations"]
