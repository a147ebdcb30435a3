"""``task_args`` parses and places a spec once (issue 34, item 2).

It used to place the spec three times (``placement_problems``, the fragment, and propeller's
default to subtract), and ``accelerator_task`` parsed it twice more (``Gate(str(parsed))``)
and placed it a fourth time for a task plugin's replica count. Each call of
``Platform.fragment``, the one place a spec is placed, is counted here, as is each parse of
text.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from flytekit import PodTemplate, task
from flytekitplugins.accelerators import Gate, accelerator_task, task_args
from flytekitplugins.kfpytorch import Elastic
from kubernetes.client import V1Container, V1PodSpec

from accelerators import AcceleratorSpec, PlacementError
from accelerators.kubernetes import Platform

warnings.simplefilter("ignore", UserWarning)


@pytest.fixture
def placements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    original: Callable[..., Any] = Platform.fragment

    def counted(self: Platform, spec: AcceleratorSpec) -> Any:
        calls.append(f"{spec} on {self.name}")
        return original(self, spec)

    monkeypatch.setattr(Platform, "fragment", counted)
    return calls


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    original = AcceleratorSpec.parse.__func__  # type: ignore[attr-defined]

    def counted(cls: type[AcceleratorSpec], value: Any) -> AcceleratorSpec:
        if not isinstance(value, AcceleratorSpec):
            calls.append(value)
        return original(cls, value)  # type: ignore[no-any-return]

    monkeypatch.setattr(AcceleratorSpec, "parse", classmethod(counted))
    return calls


def _template() -> PodTemplate:
    return PodTemplate(
        pod_spec=V1PodSpec(containers=[V1Container(name="primary")], node_selector={"a": "b"}),
        primary_container_name="primary",
    )


@pytest.mark.parametrize(
    "spec", ["H100-SXM:8", "A100-40GB@1g.10gb", "H100-SXM:8 | A100-80GB:8", "MI300X:8"]
)
def test_task_args_places_once(spec: str, placements: list[str], parses: list[Any]) -> None:
    task_args(spec, pod_template=_template())  # a warm process: the catalog's caches filled
    placements.clear()
    parses.clear()
    args = task_args(spec, pod_template=_template())
    assert len(placements) == 1
    assert parses == [spec]

    @task(**args)
    def train() -> None:
        return None

    assert len(placements) == 1  # flytekit reads the arguments; nothing is placed again


def test_the_problems_come_from_the_one_placement(placements: list[str]) -> None:
    with pytest.raises(PlacementError, match=r"'H100-SXM:16' on gke: no node has 16"):
        task_args("H100-SXM:16", platform="gke")
    with pytest.raises(PlacementError, match=r"2 MIG slices in one container"):
        task_args("A100-40GB@1g.10gb:2", platform="nvidia")
    assert placements == ["H100-SXM:16 on gke", "A100-40GB@1g.10gb:2 on nvidia"]


def test_accelerator_task_parses_and_places_once(placements: list[str], parses: list[Any]) -> None:
    @accelerator_task("H100-SXM:8")
    def train() -> None:
        return None

    assert (placements, parses) == (["H100-SXM:8 on flyte"], ["H100-SXM:8"])
    assert train.task_config == Gate("H100-SXM:8")  # Gate.of: the parsed spec's text, not re-parsed

    placements.clear()
    parses.clear()

    @accelerator_task("H100-SXM:8", task_config=Elastic(nnodes=2, nproc_per_node=8))
    def elastic() -> None:
        return None

    assert (placements, parses) == (["H100-SXM:8 on flyte"], ["H100-SXM:8"])


def test_platform_options_place_propellers_default_too(placements: list[str]) -> None:
    """With options on platform ``flyte``, what propeller adds itself is the default
    configuration's placement, subtracted from the configured one: two placements, each
    once."""
    task_args("H100-SXM:8", extended_resource_tolerations=True)
    assert placements == ["H100-SXM:8 on flyte", "H100-SXM:8 on flyte"]
