"""``apply_to_pod`` never returns a pod that contradicts itself, and reads any pod safely.

Conflicts: the base pod's nodeSelector, required node affinity (every term and operator)
and resource limits against what the accelerator needs. Malformed pods (found by fuzzing)
get an :class:`AcceleratorError` naming the path, never a ``KeyError`` or ``TypeError``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accelerators.errors import AcceleratorError, PlacementError
from accelerators.kubernetes import apply_to_pod, build_manifests
from accelerators.kubernetes._podcheck import NodeRequirement, unsatisfiable

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
GKE = "cloud.google.com/gke-accelerator"


def pod(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "main", "image": "x"}], **spec},
    }


def required(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            REQUIRED: {"nodeSelectorTerms": [{"matchExpressions": list(term)} for term in terms]}
        }
    }


def expr(key: str, operator: str, *values: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


# -- conflicts ---------------------------------------------------------------------------------
CONFLICTS = [
    # (platform, spec, base pod spec, words the message must name)
    (
        "gke",
        "H100-SXM",
        {"nodeSelector": {GKE: "nvidia-tesla-t4"}},
        ["nvidia-tesla-t4", "nvidia-h100"],
    ),
    ("gke", "T4", {"nodeSelector": {GKE: "nvidia-l4"}}, ["nvidia-l4", "nvidia-tesla-t4"]),
    ("gke", "H100-SXM", {"affinity": required([expr(GKE, "In", "nvidia-l4")])}, ["nvidia-l4"]),
    (
        "gke",
        "H100-SXM",
        {"affinity": required([expr(GKE, "NotIn", "nvidia-h100-80gb", "nvidia-h100-mega-80gb")])},
        ["NotIn"],
    ),
    ("gke", "H100-SXM", {"affinity": required([expr(GKE, "DoesNotExist")])}, ["DoesNotExist"]),
    (
        "gke",
        "T4",
        {
            "affinity": required(
                [expr(GKE, "In", "nvidia-l4")], [expr(GKE, "In", "nvidia-a100-80gb")]
            )
        },
        ["nvidia-l4"],
    ),
    ("gke", "H100-SXM | A100", {"nodeSelector": {GKE: "nvidia-l4"}}, ["nvidia-l4"]),
    ("nvidia", "H100-SXM", {"nodeSelector": {"nvidia.com/gpu.product": "Tesla-T4"}}, ["Tesla-T4"]),
    (
        "nvidia",
        "80GB+",
        {"affinity": required([expr("nvidia.com/gpu.memory", "Lt", "40000")])},
        ["Lt", "Gt"],
    ),
    (
        "karpenter",
        "H100-SXM",
        {"nodeSelector": {"karpenter.k8s.aws/instance-gpu-name": "t4"}},
        ["t4", "h100"],
    ),
]


@pytest.mark.parametrize(("platform", "spec", "base", "named"), CONFLICTS)
def test_a_pod_that_could_never_schedule_raises(
    platform: str, spec: str, base: dict[str, Any], named: list[str]
) -> None:
    original = pod(**copy.deepcopy(base))
    with pytest.raises(PlacementError) as caught:
        apply_to_pod(original, spec, platform=platform)
    for word in named:
        assert word in str(caught.value)
    assert original == pod(**base)  # the input is untouched


def test_contradicting_terms_are_dropped_when_another_term_fits() -> None:
    base = pod(affinity=required([expr(GKE, "In", "nvidia-l4")], [expr("zone", "In", "a")]))
    merged = apply_to_pod(base, "H100-SXM", platform="gke")
    terms = merged["spec"]["affinity"]["nodeAffinity"][REQUIRED]["nodeSelectorTerms"]
    assert len(terms) == 1
    assert expr("zone", "In", "a") in terms[0]["matchExpressions"]
    keys = [e["key"] for e in terms[0]["matchExpressions"]]
    assert keys == ["zone", GKE, "cloud.google.com/gke-gpu-partition-size"]


def test_compatible_requirements_are_kept() -> None:
    base = pod(
        nodeSelector={GKE: "nvidia-h100-80gb"},
        affinity=required([expr(GKE, "NotIn", "nvidia-l4"), expr("pool", "Exists")]),
    )
    merged = apply_to_pod(base, "H100-SXM", platform="gke")
    assert merged["spec"]["nodeSelector"] == {GKE: "nvidia-h100-80gb"}
    (term,) = merged["spec"]["affinity"]["nodeAffinity"][REQUIRED]["nodeSelectorTerms"]
    assert len(term["matchExpressions"]) == 4  # NotIn, Exists, In, partition DoesNotExist


@pytest.mark.parametrize("section", ["limits", "requests"])
def test_resource_conflicts_in_either_section_raise(section: str) -> None:
    base = pod()
    base["spec"]["containers"][0]["resources"] = {section: {"nvidia.com/gpu": "2"}}
    with pytest.raises(PlacementError, match=rf"already has {section} nvidia.com/gpu: '2'"):
        apply_to_pod(base, "T4:4", platform="gke")
    same = apply_to_pod(base, "T4:2", platform="gke")
    assert same["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "2"}


@pytest.mark.parametrize(
    ("group", "ok"),
    [
        ([("k", "In", ("a", "b")), ("k", "NotIn", ("a",))], True),
        ([("k", "In", ("a",)), ("k", "NotIn", ("a",))], False),
        ([("k", "Exists", ()), ("k", "DoesNotExist", ())], False),
        ([("k", "NotIn", ("a",)), ("k", "DoesNotExist", ())], True),
        ([("k", "Gt", ("5",)), ("k", "Lt", ("7",))], True),
        ([("k", "Gt", ("5",)), ("k", "Lt", ("6",))], False),
        ([("k", "Gt", ("5",)), ("k", "Lt", ("7",)), ("k", "NotIn", ("6",))], False),
        ([("k", "In", ("10", "x")), ("k", "Gt", ("9",))], True),
        ([("k", "In", ("x",)), ("k", "Gt", ("9",))], False),
        ([("k", "Gt", ("nine",))], False),
        ([("a", "In", ("1",)), ("b", "In", ("2",))], True),
    ],
)
def test_satisfiability_rules(group: list[tuple[str, str, tuple[str, ...]]], ok: bool) -> None:
    assert (unsatisfiable([NodeRequirement(*r) for r in group]) is None) is ok


# -- malformed pods ----------------------------------------------------------------------------
def _with(path: str, value: Any) -> dict[str, Any]:
    out = pod()
    target = out["spec"]
    *parents, last = path.split(".")
    for part in parents:
        target = target[int(part)] if part.isdigit() else target.setdefault(part, {})
    if last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return out


MALFORMED = [
    {"spec": {"containers": {"main": {}}}},
    {"spec": {"containers": [None]}},
    {"spec": {"containers": ["main"]}},
    {"spec": {"containers": 3}},
    {"spec": 5},
    {"spec": {"template": {"spec": {"containers": "x"}}}},
    {"containers": [{"resources": "1 gpu"}]},
    _with("containers.0.resources", "big"),
    _with("containers.0.resources", {"limits": "nvidia.com/gpu=1"}),
    _with("containers.0.resources", {"limits": {"nvidia.com/gpu": None}}),
    _with("containers.0.resources", {"requests": [1]}),
    _with("containers.0.resources", {"claims": "gpu"}),
    _with("tolerations", {"key": "x"}),
    _with("tolerations", [None]),
    _with("nodeSelector", ["a=b"]),
    _with("nodeSelector", {"a": {"b": 1}}),
    _with("affinity", "gpu"),
    _with("affinity", {"nodeAffinity": []}),
    _with("affinity", {"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": [None]}}}),
    _with("affinity", {"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": {"a": 1}}}}),
    _with("affinity", {"nodeAffinity": {REQUIRED: [{"matchExpressions": []}]}}),
    _with("affinity", required([{"key": "k", "operator": "Near"}])),
    _with("affinity", required([{"key": 3, "operator": "In", "values": ["a"]}])),
    _with("affinity", required([{"key": "k", "operator": "In", "values": "a"}])),
    _with("affinity", required([None])),
    _with("affinity", {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [0]}}),
    _with("resourceClaims", [{"name": None}]),
    _with("runtimeClassName", 7),
]


@pytest.mark.parametrize("base", MALFORMED, ids=range(len(MALFORMED)))
@pytest.mark.parametrize("spec", ["H100-SXM:2", "A100@1g.5gb", "T4 | L4"])
def test_malformed_pods_get_our_error(base: dict[str, Any], spec: str) -> None:
    with pytest.raises(AcceleratorError, match=r"Malformed pod: pod\.|Expected a Pod"):
        apply_to_pod(base, spec, platform="gke")


_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
_json = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "key",
                    "operator",
                    "values",
                    "name",
                    "limits",
                    "requests",
                    "matchExpressions",
                    "nodeSelectorTerms",
                    "nodeAffinity",
                    REQUIRED,
                ]
            ),
            inner,
            max_size=3,
        )
    ),
    max_leaves=8,
)
_PLACES = [
    "containers",
    "containers.0",
    "containers.0.resources",
    "tolerations",
    "nodeSelector",
    "affinity",
    "affinity.nodeAffinity",
    f"affinity.nodeAffinity.{REQUIRED}",
    "resourceClaims",
    "runtimeClassName",
]


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(place=st.sampled_from(_PLACES), value=_json, spec=st.sampled_from(["H100-SXM:2", "T4 | L4"]))
def test_fuzzed_pods_raise_only_our_errors(place: str, value: Any, spec: str) -> None:
    try:
        base = _with(place, value)
    except (TypeError, AttributeError, IndexError, KeyError):
        return  # the fuzzed parent itself is not a mapping or list: nothing to place
    try:
        merged = apply_to_pod(base, spec, platform="gke")
    except AcceleratorError as exc:
        message = str(exc)
        merged = None
    if merged is None:
        assert message  # our documented error, with a message
        return
    limits = merged["spec"]["containers"][0]["resources"]["limits"]
    assert limits["nvidia.com/gpu"] in ("1", "2")


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("namespace", "Not Valid!"),
        ("namespace", "x" * 64),
        ("container_name", "Main"),
        ("name", "UPPER"),
        ("image", " "),
    ],
)
def test_build_manifests_refuses_invalid_names(option: str, value: str) -> None:
    with pytest.raises(AcceleratorError, match=r"not valid|Expected a container image"):
        build_manifests("T4", platform="gke", **{option: value})
