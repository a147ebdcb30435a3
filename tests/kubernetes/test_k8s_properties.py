"""Properties over random specs and platforms: valid or PlacementError, merges are idempotent."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accelerators import catalog
from accelerators.errors import PlacementError
from accelerators.kubernetes import apply_to_pod, platforms, to_pod_fragment, validate_fragment
from accelerators.spec import AcceleratorSpec

ENTRIES = catalog.all()


@st.composite
def specs(draw: st.DrawFn) -> AcceleratorSpec:
    acc = draw(st.sampled_from(ENTRIES))
    partition = draw(st.sampled_from((None, *acc.partitions)))
    count: float = draw(st.sampled_from((1, 2, 4, 8, 0.5, 0.25)))
    return AcceleratorSpec(
        accelerator=acc.name, exact=draw(st.booleans()), partition=partition, count=count
    )


def pod() -> dict[str, Any]:
    return {
        "spec": {
            "nodeSelector": {"pool": "a"},
            "tolerations": [{"key": "x", "operator": "Exists"}],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "z", "operator": "In", "values": ["1"]}]},
                            {"matchExpressions": [{"key": "z", "operator": "In", "values": ["2"]}]},
                        ]
                    }
                }
            },
            "containers": [{"name": "c", "image": "i", "resources": {"limits": {"memory": "1Gi"}}}],
        }
    }


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=specs(), fallbacks=st.lists(specs(), max_size=2), platform=st.sampled_from(platforms()))
def test_fragment_is_valid_or_placement_error(
    spec: AcceleratorSpec, fallbacks: list[AcceleratorSpec], platform: str
) -> None:
    chain = spec.model_copy(update={"fallbacks": tuple(fallbacks)})
    refusal = None
    try:
        fragment = to_pod_fragment(chain, platform=platform)
    except PlacementError as exc:
        refusal = str(exc)
    if refusal is not None:
        assert f"platform {platform!r}" in refusal
        return
    validate_fragment(fragment)
    limits = fragment["resources"]["limits"]
    assert limits == fragment["resources"]["requests"]
    assert all(v.isdigit() and int(v) >= 1 for v in limits.values())
    assert fragment["tolerations"]
    original = pod()
    merged = apply_to_pod(original, chain, platform=platform)
    assert original == pod()
    assert apply_to_pod(merged, chain, platform=platform) == merged  # idempotent
    spec_out = merged["spec"]
    assert spec_out["nodeSelector"]["pool"] == "a"
    assert {"key": "x", "operator": "Exists"} in spec_out["tolerations"]
    assert spec_out["containers"][0]["resources"]["limits"]["memory"] == "1Gi"
    terms = spec_out["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    assert all(t["matchExpressions"][0]["key"] == "z" for t in terms)


@settings(max_examples=50, deadline=None)
@given(spec=specs())
def test_platform_options_give_valid_fragments_or_placement_errors(spec: AcceleratorSpec) -> None:
    for platform, options in (
        ("nvidia", {"mig_strategy": "single", "rename_by_default": False}),
        ("gke", {"sharing": "mps"}),
        ("neuron", {"unit": "core"}),
        ("flyte", {"labels": {"device": "example.com/device"}}),
    ):
        with contextlib.suppress(PlacementError):
            validate_fragment(to_pod_fragment(copy.deepcopy(spec), platform=platform, **options))
