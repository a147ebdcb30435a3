"""A spec's alternatives that a platform has no placement for are left out, said so, and the
pod runs on the others; only a spec none of whose alternatives can be placed is refused.

Issue 32: a bare ``V100`` is the family ``V100-16GB | V100-32GB`` (Beam's V100 accepts 32 GB
workers, SkyPilot's is the 16 GB card), and GKE has no label for the 32 GB V100. The user asked
for either, so the 16 GB card satisfies them. Every platform with a label table is checked:
GKE, EKS, Karpenter, the GPU Operator's GFD labels (``nvidia``) and Flyte's propeller labels,
with the pods validated against the real Kubernetes schema.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accelerators import AcceleratorSpec, catalog
from accelerators.errors import PlacementError
from accelerators.kubernetes import build_pod, get_platform, place

LABELLED = ("gke", "eks", "karpenter", "nvidia", "flyte")

#: What each platform selects for a bare V100: the members it has a label for.
V100_SELECTS: dict[str, tuple[str, ...]] = {
    "gke": ("V100-16GB",),  # GKE has no 32 GB V100
    "eks": ("V100-16GB",),  # no k8s.amazonaws.com/accelerator value for it either
    "karpenter": ("V100-16GB", "V100-32GB"),  # gpu-name v100, told apart by gpu-memory
    "nvidia": ("V100-16GB", "V100-32GB"),  # GFD's gpu.product names both
    "flyte": ("V100-16GB", "V100-32GB"),  # a device string per model
}


def _unplaceable(platform: str) -> tuple[str, str]:
    """Two models ``platform`` has no placement for, from the catalog (not a list), NVIDIA
    GPUs first (the GPU Operator and propeller's labels place every NVIDIA GPU, so there they
    are another vendor's device or a TPU without a GKE label)."""
    configured = get_platform(platform)
    entries = sorted(
        (a for a in catalog.all() if a.default_for_model),
        key=lambda a: a.vendor != "nvidia" or a.device_class != "gpu",
    )
    found: list[str] = []
    for acc in entries:
        try:
            configured.place(AcceleratorSpec.parse(f"{acc.model}:4"))
        except PlacementError:
            found.append(acc.model)
            if len(found) == 2:
                return found[0], found[1]
    raise AssertionError(f"platform {platform!r} places every model: nothing to leave out")


def _values(pod_spec: dict[str, Any]) -> set[str]:
    """Every node-label value the pod's placement names."""
    found = set((pod_spec.get("nodeSelector") or {}).values())
    required = (
        (pod_spec.get("affinity") or {})
        .get("nodeAffinity", {})
        .get("requiredDuringSchedulingIgnoredDuringExecution", {})
    )
    for term in required.get("nodeSelectorTerms", ()):
        for expr in term.get("matchExpressions", ()):
            found.update(expr.get("values", ()))
    return found


@pytest.mark.parametrize("platform", LABELLED)
def test_a_bare_v100_places_on_the_members_the_platform_has(
    platform: str, k8s_validate: Callable[..., None]
) -> None:
    spec = AcceleratorSpec.parse("V100:4")
    assert str(spec) == "V100-16GB:4 | V100-32GB:4"
    placed = place(spec, platform)
    assert placed.ok, placed.problems
    pod = build_pod(spec, platform=platform)
    k8s_validate(pod)
    assert pod["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "4"}
    selects = V100_SELECTS[platform]
    # what is left out is said, naming the member and the platform
    left_out = placed.left_out
    missing = [m for m in ("V100-16GB", "V100-32GB") if m not in selects]
    assert len(left_out) == len(missing)
    for model, reason in zip(missing, left_out, strict=True):
        assert f"Cannot place '{model}:4' on platform {platform!r}" in reason
    if missing:  # one member: a plain selector on its label, nothing of the other
        assert "nodeSelector" in pod["spec"]
        assert "affinity" not in pod["spec"]
        alone = build_pod(f"{selects[0]}:4", platform=platform)["spec"]
        assert _values(pod["spec"]) == _values(alone)
    else:
        assert "affinity" in pod["spec"]


@pytest.mark.parametrize("platform", LABELLED)
def test_an_alternative_without_a_placement_is_left_out_on_every_labelled_platform(
    platform: str, k8s_validate: Callable[..., None]
) -> None:
    other, _ = _unplaceable(platform)
    spec = AcceleratorSpec.parse(f"{other}:4 | V100-16GB:4")
    placed = place(spec, platform)
    assert placed.ok, placed.problems
    (reason,) = placed.left_out
    assert f"Cannot place '{other}:4' on platform {platform!r}" in reason
    alone = place("V100-16GB:4", platform)
    assert placed.fragment == alone.fragment  # the pod is the placeable member's alone
    pod = build_pod(spec, platform=platform)
    k8s_validate(pod)
    assert _values(pod["spec"]) == _values(build_pod("V100-16GB:4", platform=platform)["spec"])


@pytest.mark.parametrize("platform", LABELLED)
def test_a_spec_none_of_whose_alternatives_can_be_placed_is_refused_naming_each(
    platform: str,
) -> None:
    first, second = _unplaceable(platform)
    placed = place(f"{first}:4 | {second}:4", platform)
    assert not placed.ok
    (problem,) = placed.problems
    assert "none of its alternatives can be placed here" in problem
    assert f"Cannot place '{first}:4' on platform {platform!r}" in problem
    assert f"Cannot place '{second}:4' on platform {platform!r}" in problem
    assert placed.left_out == ()
    with pytest.raises(PlacementError, match="none of its alternatives"):
        build_pod(f"{first}:4 | {second}:4", platform=platform)


def test_a_spec_of_one_alternative_keeps_its_own_refusal() -> None:
    with pytest.raises(PlacementError, match=r"^Cannot place 'V100-32GB' on platform 'gke'"):
        build_pod("V100-32GB", platform="gke")


def test_a_users_selector_is_judged_against_the_placed_members_only() -> None:
    # the pod runs on the 16 GB card on GKE: a selector for another card contradicts it,
    # even though the unplaced 32 GB member has no label to contradict
    def selecting(label: str) -> Any:
        selector = {"cloud.google.com/gke-accelerator": label}
        pod = {"spec": {"containers": [{"name": "main"}], "nodeSelector": selector}}
        return place("V100:4", "gke", arguments=pod)

    placed = selecting("nvidia-l4")
    assert not placed.ok
    assert any("nvidia-l4" in p for p in placed.problems), placed.problems
    fine = selecting("nvidia-tesla-v100")
    assert fine.ok, fine.problems


def test_the_cli_notes_what_it_left_out() -> None:
    typer = pytest.importorskip("typer", reason="typer (the [cli] extra) is missing")
    testing = pytest.importorskip("typer.testing")
    pytest.importorskip("yaml", reason="PyYAML is missing")
    from accelerators.cli import _k8s

    application = typer.Typer()

    @application.callback()
    def root() -> None:
        """Test root."""

    _k8s.register(application)
    result = testing.CliRunner().invoke(application, ["k8s", "V100:8", "--platform", "gke"])
    assert result.exit_code == 0, result.output
    assert "nvidia-tesla-v100" in result.stdout
    assert "note: left out 'V100-32GB:8' on platform 'gke'" in result.stderr
    assert "the pod runs on the spec's other alternatives" in result.stderr
    assert "note:" not in result.stdout
    quiet = testing.CliRunner().invoke(application, ["k8s", "V100:8", "--platform", "nvidia"])
    assert quiet.exit_code == 0
    assert "note:" not in quiet.stderr


def test_an_alternative_no_node_can_hold_is_left_out_when_others_fit(
    k8s_validate: Callable[..., None],
) -> None:
    # H100:8 is any H100 model; no node we know has 8 H100 NVL cards, but the SXM card fits
    placed = place("H100:8", "flyte")
    assert placed.ok, placed.problems
    (crowded,) = placed.left_out
    assert crowded.startswith("'H100-NVL:8' on flyte: no node has 8")
    k8s_validate(build_pod("H100:8", platform="flyte"))
    # ... and alone it is refused, as before
    alone = place("H100-NVL:8", "flyte")
    assert not alone.ok
    assert alone.problems[0].startswith("'H100-NVL:8' on flyte: no node has 8")
    # when no alternative fits, each is a problem (no node size is known for the PCIe card, so
    # H100:16 is not refused: an unknown size is no problem, as for a spec of one model)
    none_fit = place("H100-SXM:16 | H100-NVL:16", "flyte")
    assert [p.split(":")[0] for p in none_fit.problems] == ["'H100-SXM", "'H100-NVL"]
    assert place("H100:16", "flyte").ok


def test_warn_left_out_says_what_the_platform_left_out() -> None:
    import warnings

    from accelerators.kubernetes import LeftOutWarning, place

    with pytest.warns(LeftOutWarning, match=r"^V100:2 on gke: Cannot place 'V100-32GB:2'"):
        place("V100:2", "gke").warn_left_out("V100:2 on gke: ")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing left out: no warning
        place("V100-16GB:2", "gke").warn_left_out()
