"""One boundary: ``AcceleratorSpec.coerce`` converts, ``parse`` reads text, and the core's
public functions convert once at their entry and pass only specs inward (issue 34)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

import accelerators
from accelerators import AcceleratorSpec, InvalidSpecError, SpecSyntaxError, kubernetes
from accelerators.constants import constant_for, flyte2_name
from accelerators.kinds import is_nvidia


# -- coerce ------------------------------------------------------------------------------------
def test_coerce_reads_every_kind_of_spec() -> None:
    spec = AcceleratorSpec.parse("H100-SXM:8")
    assert AcceleratorSpec.coerce(spec) is spec
    assert AcceleratorSpec.coerce("H100-SXM:8") == spec
    assert AcceleratorSpec.coerce(accelerators.H100) == AcceleratorSpec.parse("H100-SXM")
    partition = accelerators.A100.partition_2g_10gb
    assert AcceleratorSpec.coerce(partition) == partition.to_spec()
    chain = AcceleratorSpec.coerce([accelerators.H100, "A100-80GB:8 | L4", spec])
    assert str(chain) == "H100-SXM | A100-80GB:8 | L4 | H100-SXM:8"
    assert AcceleratorSpec.coerce(("L4", "T4")) == AcceleratorSpec.parse("L4 | T4")


@pytest.mark.parametrize(
    ("value", "got"),
    [
        (None, "got None"),
        (3.5, "got float: 3.5"),
        ({"H100": 8}, "got dict: {'H100': 8}"),
        (b"H100", "got bytes: b'H100'"),
    ],
)
def test_coerce_names_what_is_not_a_spec(value: Any, got: str) -> None:
    with pytest.raises(InvalidSpecError) as raised:
        AcceleratorSpec.coerce(value)
    message = str(raised.value)
    assert message.startswith("Expected an accelerator spec such as 'H100:8'")
    assert "accelerators.H100" in message
    assert message.endswith(got)


def test_coerce_of_nothing_gives_the_empty_value_message() -> None:
    with pytest.raises(SpecSyntaxError, match="got an empty string"):
        AcceleratorSpec.coerce("   ")
    with pytest.raises(InvalidSpecError, match=r"at least one accelerator .*, got \[\]"):
        AcceleratorSpec.coerce([])


def test_a_to_spec_that_returns_no_spec_is_not_a_spec() -> None:
    class Odd:
        def to_spec(self) -> str:
            return "H100-SXM"

    with pytest.raises(InvalidSpecError, match="got Odd"):
        AcceleratorSpec.coerce(Odd())  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [AcceleratorSpec.parse("L4"), accelerators.L4, ["L4"], None, 8])
def test_parse_takes_text_only_and_points_at_coerce(value: Any) -> None:
    with pytest.raises(InvalidSpecError) as raised:
        AcceleratorSpec.parse(value)
    message = str(raised.value)
    assert f"got {type(value).__name__}" in message
    assert "AcceleratorSpec.coerce(value)" in message


# -- one parse per text, none for a spec -------------------------------------------------------
POD = {"spec": {"containers": [{"name": "main", "image": "busybox"}]}}

#: Every public function of accelerators.kubernetes that takes a spec, called with one.
PLACING: dict[str, Callable[[Any], object]] = {
    "to_pod_fragment": lambda s: kubernetes.to_pod_fragment(s, platform="gke"),
    "to_dra_fragment": lambda s: kubernetes.to_dra_fragment(s),
    "apply_to_pod": lambda s: kubernetes.apply_to_pod(POD, s, platform="gke"),
    "build_pod": lambda s: kubernetes.build_pod(s, platform="nvidia"),
    "build_manifests": lambda s: kubernetes.build_manifests(s, platform="gke", dra=True),
    "placement_problems": lambda s: kubernetes.placement_problems(s, platform="gke"),
    "node_count_problems": lambda s: kubernetes.node_count_problems(s, platform="gke"),
    "check_node_count": lambda s: kubernetes.check_node_count(s, platform="gke"),
    "placement_conflicts": lambda s: kubernetes.placement_conflicts(s, POD, platform="gke"),
    "check_placement_conflicts": lambda s: kubernetes.check_placement_conflicts(
        s, POD, platform="gke"
    ),
    "guard_problems": lambda s: kubernetes.guard_problems(s, s),
    "place": lambda s: kubernetes.place(s, "gke", base=POD),
}


def test_the_table_names_every_public_kubernetes_function_that_takes_a_spec() -> None:
    taking_a_spec = {
        name
        for name in kubernetes.__all__
        if inspect.isfunction(getattr(kubernetes, name))
        and any(
            "SpecLike" in str(p.annotation)
            for p in inspect.signature(getattr(kubernetes, name)).parameters.values()
        )
    }
    assert taking_a_spec == set(PLACING)


@pytest.mark.parametrize("name", sorted(PLACING))
def test_a_coerced_spec_is_never_parsed_again(name: str, spec_parses: list[str]) -> None:
    spec = AcceleratorSpec.coerce("H100-SXM:8")
    assert spec_parses == ["H100-SXM:8"]
    PLACING[name](spec)
    assert spec_parses == ["H100-SXM:8"], f"{name} parsed {spec_parses[1:]}"


@pytest.mark.parametrize("name", sorted(PLACING))
def test_spec_text_is_parsed_once_at_the_entry(name: str, spec_parses: list[str]) -> None:
    PLACING[name]("H100-SXM:8")
    # guard_problems takes two specs: each text is parsed once
    assert spec_parses == ["H100-SXM:8"] * (2 if name == "guard_problems" else 1)


def test_the_rest_of_the_core_reads_a_spec_without_parsing_it(spec_parses: list[str]) -> None:
    spec = AcceleratorSpec.coerce("H100-SXM:8")
    assert is_nvidia(spec)
    assert constant_for(spec) is accelerators.H100
    assert flyte2_name(AcceleratorSpec.coerce("H100-SXM")) == "H100"
    assert AcceleratorSpec.coerce(spec) is spec
    assert str(spec) == "H100-SXM:8"
    assert spec_parses == ["H100-SXM:8", "H100-SXM"]


def test_explain_parses_its_text_once(spec_parses: list[str]) -> None:
    explained = AcceleratorSpec.explain("2x-gpu-nvidia-h100")
    assert explained.spec == "H100-SXM:2 | H100-PCIE:2 | H100-NVL:2"
    assert spec_parses == ["2x-gpu-nvidia-h100"]
