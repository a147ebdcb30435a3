"""``accelerators.kubernetes.place``: a spec placed once into a task's layers, every problem
named by its layer, the pod or every problem back (issue 34, item 2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accelerators import AcceleratorError, AcceleratorSpec, PlacementError
from accelerators.kubernetes import PlacedPod, Platform, place, platform_name, platforms

TYPE = "node.kubernetes.io/instance-type"
GKE = "cloud.google.com/gke-accelerator"


def _pod(container: str = "main", **spec: Any) -> dict[str, Any]:
    resources = spec.pop("resources", None)
    main: dict[str, Any] = {"name": container}
    if resources is not None:
        main["resources"] = resources
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {},
        "spec": {"containers": [main], **spec},
    }


@pytest.fixture
def placements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    original: Callable[..., Any] = Platform.fragment

    def counted(self: Platform, spec: AcceleratorSpec) -> Any:
        calls.append(str(spec))
        return original(self, spec)

    monkeypatch.setattr(Platform, "fragment", counted)
    return calls


def test_the_layers_and_the_accelerator_make_one_pod(placements: list[str]) -> None:
    base = _pod(
        nodeSelector={"pool": "gpu"},
        tolerations=[{"key": "spot", "operator": "Exists"}],
        resources={"limits": {"memory": "16Gi"}},
    )
    arguments = _pod(nodeSelector={"team": "ml"}, resources={"limits": {"cpu": "8"}})
    placed = place("L4:2", "gke", base=base, arguments=arguments)
    assert placed.ok
    assert placements == ["L4:2"]
    pod = placed.check()
    assert pod["spec"]["nodeSelector"] == {"pool": "gpu", "team": "ml", GKE: "nvidia-l4"}
    assert [t["key"] for t in pod["spec"]["tolerations"]] == ["spot", "nvidia.com/gpu"]
    limits = pod["spec"]["containers"][0]["resources"]["limits"]
    assert limits == {"memory": "16Gi", "cpu": "8", "nvidia.com/gpu": "2"}
    assert placed.spec == AcceleratorSpec.parse("L4:2")
    assert placed.platform.name == "gke"
    assert placed.fragment["nodeSelector"] == {GKE: "nvidia-l4"}


def test_every_problem_is_named_by_its_layer(placements: list[str]) -> None:
    base = _pod(resources={"limits": {"memory": "16Gi"}})
    arguments = _pod(
        nodeSelector={TYPE: "a2-highgpu-8g"}, resources={"requests": {"memory": "64Gi"}}
    )
    placed = place(
        "H100-SXM:16",
        "gke",
        base=base,
        arguments=arguments,
        base_source="pod_template_file 'gpu.yaml'",
        arguments_source="the operator's arguments",
        resources_source="container_resources",
    )
    assert placed.pod is None
    assert placements == ["H100-SXM:16"]  # the problems come from the one placement
    requests, count, conflict = placed.problems
    assert requests.startswith(
        "container 'main' requests memory 64Gi (container_resources) above its limit 16Gi "
        "(pod_template_file 'gpu.yaml')"
    )
    assert count.startswith("'H100-SXM:16' on gke: no node has 16")
    assert conflict.startswith(
        "the operator's arguments: no node it selects can host 'H100-SXM:16'"
    )
    with pytest.raises(PlacementError) as raised:
        placed.check("task 'train': ")
    assert str(raised.value) == "task 'train': " + "; ".join(placed.problems)


def test_without_layer_names_the_requests_read_as_check_resources() -> None:
    placed = place(
        "L4", "gke", arguments=_pod(resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}})
    )
    (problem,) = placed.problems
    assert problem.startswith("Invalid pod: container 'main' requests cpu 2, more than its limit 1")


def test_a_spec_the_platform_cannot_place_is_the_only_problem(placements: list[str]) -> None:
    placed = place("MI300X", "gke", base=_pod(nodeSelector={TYPE: "a2-highgpu-8g"}))
    (problem,) = placed.problems
    assert problem.startswith("Cannot place 'MI300X' on platform 'gke'")
    assert placed.fragment == {}
    assert placed.conflicts(_pod()) == ()


def test_layers_that_select_no_node_together_skip_the_later_steps() -> None:
    base = _pod(nodeSelector={GKE: "nvidia-tesla-t4"})
    term = {"matchExpressions": [{"key": GKE, "operator": "In", "values": ["nvidia-l4"]}]}
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
        }
    }
    placed = place("L4", "gke", base=base, arguments=_pod(affinity=affinity))
    (problem,) = placed.problems
    assert "could never schedule" in problem


def test_a_value_on_a_key_the_platform_sets_is_refused_by_the_merge() -> None:
    placed = place("H100-SXM:8", "gke", arguments=_pod(nodeSelector={GKE: "nvidia-l4"}))
    (problem,) = placed.problems
    assert "nvidia-l4" in problem
    assert "nvidia-h100" in problem


def test_a_pod_spec_comes_back_a_pod_spec() -> None:
    spec = {"containers": [{"name": "primary"}], "nodeSelector": {"pool": "gpu"}}
    pod = place("L4", "gke", arguments=spec).check()
    assert set(pod) >= {"containers", "nodeSelector"}
    assert pod["nodeSelector"] == {"pool": "gpu", GKE: "nvidia-l4"}
    assert place("L4", "gke").check()["spec"]["containers"][0]["name"] == "main"


def test_kubernetes_models_are_layers_too() -> None:
    from kubernetes.client import V1Container, V1PodSpec, V1Toleration

    base = V1PodSpec(
        containers=[V1Container(name="main")],
        tolerations=[V1Toleration(key="spot", operator="Exists")],
    )
    pod = place("L4", "gke", base=base).check()
    assert [t["key"] for t in pod["tolerations"]] == ["spot", "nvidia.com/gpu"]


def test_bad_input_raises_rather_than_being_a_problem() -> None:
    with pytest.raises(AcceleratorError, match=r"Unknown platform 'gkee'.*did you mean 'gke'"):
        place("L4", "gkee")
    with pytest.raises(AcceleratorError, match="Unknown option 'lables'"):
        place("L4", "gke", lables={})
    with pytest.raises(AcceleratorError, match=r"place\(\)'s base as a Pod or PodSpec"):
        place("L4", "gke", base="pod.yaml")
    with pytest.raises(AcceleratorError, match="Malformed pod"):
        place("L4", "gke", base={"spec": {"containers": {"name": "main"}}}, arguments=_pod())


def test_conflicts_of_another_pod_judge_the_platforms_own_keys(placements: list[str]) -> None:
    placed = place("H100-SXM:8", "gke")
    other = {"containers": [{}], "nodeSelector": {GKE: "nvidia-l4"}}
    (found,) = placed.conflicts(other, source="pod_template")
    assert found.startswith("pod_template: no node it selects can host 'H100-SXM:8'")
    assert placed.conflicts(other, own_keys=False) == ()
    assert placements == ["H100-SXM:8"]


def test_single_process_problems_are_not_the_pods() -> None:
    placed = place("A100-40GB@1g.10gb:2", "nvidia")
    assert placed.ok
    (problem,) = placed.single_process_problems
    assert "2 MIG slices in one container" in problem


def test_a_configured_platform_is_used_as_it_is() -> None:
    from accelerators.kubernetes import get_platform

    configured = get_platform("nvidia", runtime_class_name="nvidia")
    placed = place("H100-SXM", configured)
    assert placed.platform is configured
    assert placed.check()["spec"]["runtimeClassName"] == "nvidia"


def test_platform_name_is_the_one_unknown_platform_message() -> None:
    assert platform_name(" GKE ") == "gke"
    airflow = tuple(p for p in platforms() if p != "flyte")
    with pytest.raises(AcceleratorError) as raised:
        platform_name("flyt", among=airflow)
    assert "flyte" not in str(raised.value).partition("expected one of")[2]
    with pytest.raises(AcceleratorError, match=r"Unknown platform 3: expected one of gke"):
        platform_name(3)


def test_placed_pod_is_a_small_typed_result() -> None:
    placed = place("L4", "gke")
    assert isinstance(placed, PlacedPod)
    with pytest.raises(AttributeError):
        placed.pod = None  # type: ignore[misc]


@pytest.mark.parametrize(
    "spec",
    [
        "H100-SXM:8",
        "A100-40GB@1g.10gb",
        "H100-SXM:8 | A100-80GB:8",
        "MI300X:8",
        "TPU-V5E@2x4",
        "T4:0.5",
    ],
)
def test_without_layers_the_pod_is_the_fragment_merged_into_an_empty_pod(spec: str) -> None:
    """No layers: the pod is built from the fragment alone, as the merge would build it."""
    from accelerators.kubernetes import merge_fragment

    for platform in platforms():
        try:
            placed = place(spec, platform)
        except AcceleratorError:  # a platform that needs options
            continue
        if not placed.ok:
            continue
        empty = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {},
            "spec": {"containers": [{"name": "c"}]},
        }
        assert place(spec, platform, container="c").check() == merge_fragment(
            empty, placed.fragment
        )
