"""Hostile input, property by property: specs, pods and platform options raise only our
documented errors (:class:`AcceleratorError`), never change what they were given, and what
they return is a pod Kubernetes accepts, asking for exactly the devices the spec names.

Settings are sized for CI (about 20 s of CPU on the 2-vCPU VM, whatever the hypothesis
profile): 1,000 texts and counts, 1,500 hostile pods, 2,000 option values, 60 valid pods run
through the Kubernetes schema.
"""

from __future__ import annotations

import copy
import itertools
import json
import unicodedata
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accelerators import AcceleratorSpec
from accelerators.errors import AcceleratorError
from accelerators.kubernetes import apply_to_pod, get_platform, platforms, to_pod_fragment
from accelerators.kubernetes._platform import COMMON_OPTIONS

QUICK = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _printable(message: str) -> str | None:
    """The first character a terminal would act on instead of showing, if any."""
    for ch in message:
        if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp", "Co", "Cn"):
            return repr(ch)
    return None


# ---------------------------------------------------------------------------------- specs
PIECES = [
    "H100-SXM",
    "A100",
    "80GB",
    "40gb",
    ":",
    "8",
    "0.5",
    "@",
    "1g.10gb",
    "|",
    ",",
    "!",
    "+",
    " ",
    "nvidia",
    "-",
    ".",
    "x",
    "v5e",
    "2x2",
    "MI300X",
    "any",
    "B200+",
    "\x1b[2J",
    "\x00",
    "\u202e",
    "\t",
    "\u0663",
    "\uff28",
    "$",
    "(",
    "GB",
    "9007199254740993",
]


@QUICK
@given(st.one_of(st.text(max_size=80), st.lists(st.sampled_from(PIECES), max_size=8).map("".join)))
def test_any_text_parses_or_raises_our_error_printably(text: str) -> None:
    message = ""
    try:
        AcceleratorSpec.parse(text)
    except AcceleratorError as exc:
        message = str(exc)
    assert _printable(message) is None, message


@QUICK
@given(
    st.one_of(
        st.decimals(min_value=0, max_value=2**60, allow_nan=False, allow_infinity=False),
        st.integers(2**52, 2**54).map(lambda n: Decimal(n) + Decimal("0.5")),
    )
)
def test_a_count_is_read_exactly_or_refused(count: Decimal) -> None:
    text = f"H100-SXM:{count:f}"
    try:
        spec = AcceleratorSpec.parse(text)
    except AcceleratorError:
        return
    read = Decimal(repr(spec.count))
    if read == read.to_integral_value():  # a whole count only ever from a whole number
        assert read == count, text
    else:
        assert abs(read - count) <= abs(count) * Decimal("1e-15"), text


def test_long_spec_text_is_refused_quickly_and_clearly() -> None:
    with pytest.raises(AcceleratorError, match=r"at most 1,000 characters.*got 2,000,000"):
        AcceleratorSpec.parse("H100 " * 400_000)


# ----------------------------------------------------------------------------------- pods
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 9) | st.floats() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
SLOTS: list[tuple[str, ...]] = [
    ("affinity",),
    ("affinity", "nodeAffinity"),
    ("affinity", "nodeAffinity", REQUIRED),
    ("affinity", "nodeAffinity", REQUIRED, "nodeSelectorTerms"),
    ("affinity", "nodeAffinity", PREFERRED),
    ("nodeSelector",),
    ("tolerations",),
    ("containers",),
    ("runtimeClassName",),
    ("resourceClaims",),
    ("initContainers",),
]
SHAPES = st.sampled_from(
    [
        None,
        {},
        [],
        [None],
        {"nodeAffinity": None},
        {"nodeSelectorTerms": [None]},
        {"nodeSelectorTerms": [{"matchExpressions": None}]},
        [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}],
        [{"key": "k", "operator": "Exists"}],
        {"zone": "a"},
    ]
)
SPECS = [
    "H100-SXM:8",
    "A100@1g.10gb",
    "T4",
    "H100-SXM:8 | A100-80GB:8",
    "MI300X:2",
    "trn1",
    "v5e@2x2",
    "L4:0.5",
    "40GB+",
]


@st.composite
def hostile_pods(draw: st.DrawFn) -> dict[str, Any]:
    main: dict[str, Any] = {"name": "main", "image": "busybox"}
    spec: dict[str, Any] = {"containers": [main]}
    for _ in range(draw(st.integers(0, 3))):
        where = draw(
            st.sampled_from(
                [*SLOTS, ("containers", 0, "resources"), ("containers", 0, "resources", "limits")]
            )
        )
        value = copy.deepcopy(draw(st.one_of(JSON, SHAPES)))  # SHAPES are shared objects
        _put(spec, where, value)
    if draw(st.booleans()):
        resource = draw(st.sampled_from(["nvidia.com/gpu", "amd.com/gpu", "google.com/tpu"]))
        sidecar = {"name": "side", "image": "x", "resources": {"limits": {resource: "1"}}}
        if isinstance(spec.get("containers"), list):
            spec["containers"] = [*spec["containers"], sidecar]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


def _put(target: Any, where: tuple[Any, ...], value: Any) -> None:
    """Set ``value`` at ``where``, making the mappings on the way; a list slot that is not
    there (the containers were replaced by junk) leaves the pod as it is."""
    for key, following in itertools.pairwise(where):
        if isinstance(key, int):
            if not isinstance(target, list) or len(target) <= key:
                return
            child = target[key]
        else:
            child = target.get(key)
        wanted = list if isinstance(following, int) else dict
        if not isinstance(child, wanted):
            if wanted is list:
                return
            child = {}
            target[key] = child
        target = child
    if isinstance(target, dict):
        target[where[-1]] = value


def _count(pod: dict[str, Any], resource: str) -> int:
    total = 0
    for container in pod["spec"]["containers"]:
        value = ((container.get("resources") or {}).get("limits") or {}).get(resource)
        if value is not None:
            total += int(value)
    return total


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pod=hostile_pods(), text=st.sampled_from(SPECS), platform=st.sampled_from(platforms()))
def test_a_hostile_pod_merges_or_raises_our_error_and_is_never_changed(
    pod: dict[str, Any], text: str, platform: str
) -> None:
    try:
        fragment = to_pod_fragment(text, platform=platform)
    except AcceleratorError:
        return
    before = copy.deepcopy(pod)
    message = ""
    try:
        merged = apply_to_pod(pod, text, platform=platform)
    except AcceleratorError as exc:
        message, merged = str(exc), None
    assert _printable(message) is None, message
    assert pod == before
    if merged is not None:
        json.dumps(merged)
        for resource, value in fragment["resources"]["limits"].items():
            assert _count(merged, resource) == int(value), (resource, merged["spec"]["containers"])


@st.composite
def valid_pods(draw: st.DrawFn) -> dict[str, Any]:
    """Pods Kubernetes accepts: selectors, tolerations, many terms, sidecars without devices."""
    terms = [
        {"matchExpressions": [{"key": f"zone-{i}", "operator": "In", "values": [f"z{i}"]}]}
        for i in range(draw(st.integers(0, 40)))
    ]
    spec: dict[str, Any] = {
        "containers": [
            {"name": "main", "image": "busybox", "resources": {"limits": {"memory": "1Gi"}}},
            *([{"name": "side", "image": "x"}] if draw(st.booleans()) else []),
        ]
    }
    if terms:
        spec["affinity"] = {"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": terms}}}
    if draw(st.booleans()):
        spec["nodeSelector"] = {"pool": draw(st.sampled_from(["a", "gpu"]))}
    if draw(st.booleans()):
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


@SLOW
@given(pod=valid_pods(), text=st.sampled_from(SPECS), platform=st.sampled_from(platforms()))
def test_a_valid_pod_stays_valid(pod: dict[str, Any], text: str, platform: str) -> None:
    kubernetes_validate = pytest.importorskip("kubernetes_validate")
    try:
        merged = apply_to_pod(pod, text, platform=platform)
    except AcceleratorError:
        return
    kubernetes_validate.validate(merged, "1.33", strict=True)


@pytest.mark.serial  # compares wall times of two sizes
def test_merging_into_ten_thousand_terms_is_linear() -> None:
    import time

    def merge(n: int) -> float:
        terms = [
            {"matchExpressions": [{"key": f"z{i}", "operator": "In", "values": ["a"]}]}
            for i in range(n)
        ]
        pod = {
            "spec": {
                "containers": [{"name": "m"}],
                "affinity": {"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": terms}}},
            }
        }
        start = time.perf_counter()
        merged = apply_to_pod(pod, "H100-SXM:8", platform="flyte")
        spent = time.perf_counter() - start
        assert len(merged["spec"]["affinity"]["nodeAffinity"][REQUIRED]["nodeSelectorTerms"]) == n
        return spent

    merge(100)  # warm
    small, large = min(merge(1000) for _ in range(2)), min(merge(10_000) for _ in range(2))
    assert large < 30 * small + 0.05, (small, large)  # 10x the terms: ~10x the time, not 100x


# -------------------------------------------------------------------------- platform options
ODD = st.sampled_from([object(), b"x", (1, 2), {1, 2}, 1j, float("nan"), -1, 10**30])
OPTION_VALUES = st.one_of(JSON, ODD, SHAPES)
OPTIONS = [
    (platform, option)
    for platform in platforms()
    for option in (*COMMON_OPTIONS, *type(get_platform(platform)).options)
]
SPEC_FOR = {"neuron": "trn1", "amd": "MI300X", "gaudi": "Gaudi3", "intel": "Max-1550"}


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choice=st.sampled_from(OPTIONS), value=OPTION_VALUES)
def test_platform_options_of_any_type_raise_only_our_error(
    choice: tuple[str, str], value: Any
) -> None:
    platform, option = choice
    before = repr(value)
    message, fragment = "", None
    try:
        fragment = to_pod_fragment(
            SPEC_FOR.get(platform, "H100-SXM:8"), platform=platform, **{option: value}
        )
    except AcceleratorError as exc:
        message = str(exc)
    assert repr(value) == before  # the option as given, unchanged
    assert _printable(message) is None, message
    if fragment is None:
        return
    json.dumps(fragment)
    for key, label in (fragment.get("nodeSelector") or {}).items():
        assert isinstance(key, str)
        assert isinstance(label, str)
    assert isinstance(fragment.get("runtimeClassName", ""), str)
    for item in fragment.get("tolerations") or ():
        assert all(isinstance(item[k], str) for k in ("key", "operator", "effect") if k in item)
