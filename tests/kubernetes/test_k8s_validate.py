"""``validate_fragment``: the semantic checks kubernetes-validate does not make."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from accelerators.errors import PlacementError
from accelerators.kubernetes import to_pod_fragment, validate_claim_template, validate_fragment

GOOD: dict[str, Any] = {
    "resources": {
        "limits": {"nvidia.com/gpu": "2", "cpu": "500m"},
        "requests": {"nvidia.com/gpu": "2"},
    },
    "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-l4"},
    "tolerations": [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "sku", "operator": "Equal", "value": "gpu"},
        {"operator": "Exists"},
        {"key": "x", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
    ],
    "affinity": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "nvidia.com/gpu.memory", "operator": "Gt", "values": ["76292"]},
                            {"key": "p", "operator": "DoesNotExist"},
                            {"key": "q", "operator": "NotIn", "values": ["a", "b"]},
                        ]
                    }
                ]
            },
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 1,
                    "preference": {"matchExpressions": [{"key": "a", "operator": "Exists"}]},
                }
            ],
        }
    },
    "runtimeClassName": "nvidia",
    "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "pod-gpu"}],
}


def with_change(path: str, value: Any) -> dict[str, Any]:
    fragment = copy.deepcopy(GOOD)
    *parents, last = path.split("/")
    target: Any = fragment
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    if value is DELETE:
        del target[int(last) if last.isdigit() else last]
    else:
        target[int(last) if last.isdigit() else last] = value
    return fragment


DELETE = object()
REQUIRED = "affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution"
TERM = f"{REQUIRED}/nodeSelectorTerms/0/matchExpressions"


def test_good_fragment_passes() -> None:
    validate_fragment(GOOD)


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        # -- resources
        (
            "resources/limits",
            {"nvidia.com/gpu": "0.5"},
            "extended resources take positive whole numbers as strings, got '0.5'",
        ),
        ("resources/limits", {"nvidia.com/gpu": 2}, "got 2"),
        ("resources/limits", {"nvidia.com/gpu": "0"}, "got '0'"),
        ("resources/requests", {"nvidia.com/gpu": "1"}, "requests ('1') must equal limits ('2')"),
        ("resources/requests", {}, "requests (None) must equal limits ('2')"),
        ("resources/limits", {"nvidia.com/-gpu": "2"}, "label key name '-gpu'"),
        # -- nodeSelector
        (
            "nodeSelector",
            {"cloud.google.com/gke-accelerator": "nvidia l4"},
            "label value 'nvidia l4'",
        ),
        ("nodeSelector", {"Bad_Prefix/x": "a"}, "label key prefix 'Bad_Prefix'"),
        ("nodeSelector", {"k": "x" * 64}, "must be at most 63 characters"),
        # -- tolerations
        ("tolerations/0/operator", "Bogus", "operator 'Bogus' is not one of Exists, Equal"),
        ("tolerations/0/effect", "NoScheduleX", "effect 'NoScheduleX' is not one of"),
        ("tolerations/0/value", "present", "operator 'Exists' takes no value"),
        ("tolerations/1/key", DELETE, "an empty key needs operator 'Exists'"),
        ("tolerations/1/value", "a b", "label value 'a b'"),
        (
            "tolerations/3/effect",
            "NoSchedule",
            "tolerationSeconds applies only to effect 'NoExecute'",
        ),
        ("tolerations/3/tolerationSeconds", "30", "tolerationSeconds must be an integer"),
        ("tolerations/0/keyy", "x", "unknown toleration field(s) ['keyy']"),
        # -- affinity
        (f"{TERM}/0/operator", "GreaterThan", "operator 'GreaterThan' is not one of In, NotIn"),
        (f"{TERM}/0/values", ["1", "2"], "operator 'Gt' needs exactly one integer value"),
        (
            f"{TERM}/0/values",
            ["80GB"],
            "operator 'Gt' needs exactly one integer value, got ['80GB']",
        ),
        (f"{TERM}/1/values", ["x"], "operator 'DoesNotExist' takes no values"),
        (f"{TERM}/2/values", [], "operator 'NotIn' needs at least one value"),
        (TERM, [], "an empty node selector term matches no node"),
        (
            "affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms",
            [],
            "nodeSelectorTerms must not be empty",
        ),
        (
            "affinity/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/0/weight",
            101,
            "weight must be an integer in 1..100, got 101",
        ),
        # -- the rest
        ("runtimeClassName", "NVIDIA", "'NVIDIA' is not a DNS subdomain"),
        ("resourceClaims/0/name", "GPU", "claim name 'GPU' is not a DNS label"),
        ("nodeName", "x", "unknown key(s) ['nodeName']"),
    ],
)
def test_each_problem_is_named(path: str, value: Any, message: str) -> None:
    with pytest.raises(PlacementError, match=re.escape(message)) as info:
        validate_fragment(with_change(path, value))
    assert str(info.value).startswith("Invalid pod fragment at ")


def test_not_a_mapping() -> None:
    with pytest.raises(PlacementError, match="expected a mapping, got list"):
        validate_fragment([])  # type: ignore[arg-type]


def test_user_tolerations_are_checked() -> None:
    with pytest.raises(PlacementError, match=re.escape("operator 'exists' is not one of")):
        to_pod_fragment("T4", platform="gke", tolerations=[{"key": "a", "operator": "exists"}])


def test_user_label_key_is_checked() -> None:
    with pytest.raises(PlacementError, match="label key"):
        to_pod_fragment("T4", platform="gke", labels={"accelerator": "bad key/x y"})


def test_claim_template_checks() -> None:
    template = {
        "metadata": {"name": "x"},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpu",
                            "exactly": {"deviceClassName": "gpu.nvidia.com", "count": 0},
                        }
                    ]
                }
            }
        },
    }
    with pytest.raises(PlacementError, match="count must be a positive integer, got 0"):
        validate_claim_template(template)
    template["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] = 1  # type: ignore[index]
    validate_claim_template(template)
    template["metadata"]["name"] = "X"
    with pytest.raises(PlacementError, match="not a DNS subdomain"):
        validate_claim_template(template)
