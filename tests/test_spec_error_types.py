"""One error type per mistake, whatever the entry point (issue 34).

Each mistake is written every way a user can write it (spec text through ``parse``,
``coerce``, a fallback list and a placement; keyword fields through the constructor,
``model_validate`` and JSON; a factory or a constant call) and each way must raise the
same type, exactly (``type(error) is``, not ``isinstance``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

import accelerators
from accelerators import AcceleratorSpec, kubernetes
from accelerators.errors import (
    AcceleratorError,
    InvalidSpecError,
    PlacementError,
    SpecSyntaxError,
    UnknownAcceleratorError,
    UnknownPartitionError,
    with_caret,
)

S = AcceleratorSpec
Entry = Callable[[], object]
#: The type a mistake raises, its text, its fields, other ways to write it.
Mistake = tuple[type[AcceleratorError], str | None, dict[str, Any] | None, dict[str, Entry]]


def _text_entries(text: str) -> dict[str, Entry]:
    return {
        "parse": lambda: S.parse(text),
        "coerce": lambda: S.coerce(text),
        "coerce a list": lambda: S.coerce(["L4", text]),
        "to_pod_fragment": lambda: kubernetes.to_pod_fragment(text, platform="nvidia"),
    }


def _field_entries(fields: dict[str, Any]) -> dict[str, Entry]:
    def as_json() -> dict[str, Any]:
        out = dict(fields)
        if isinstance(out.get("memory"), accelerators.spec.MemoryRequest):
            out["memory"] = out["memory"].model_dump()
        return out

    return {
        "constructor": lambda: S(**fields),
        "model_validate": lambda: S.model_validate(fields),
        "model_validate_json": lambda: S.model_validate_json(json.dumps(as_json())),
    }


MISTAKES: dict[str, Mistake] = {
    "a partition of a device that has none": (
        InvalidSpecError,
        "T4@whole",
        {"accelerator": "T4", "unpartitioned": True},
        {
            "factory": lambda: S.NVIDIA.T4(partition="whole"),
            "constant": lambda: accelerators.T4(partition="whole"),
        },
    ),
    "a count of zero": (
        InvalidSpecError,
        "H100-SXM:0",
        {"accelerator": "H100-SXM", "count": 0},
        {
            "factory": lambda: S.NVIDIA.H100(count=0),
            "constant": lambda: accelerators.H100(count=0),
            "LSF request": lambda: S.parse("num=0:gmodel=NVIDIAH100"),
        },
    ),
    "a count beyond 2**53": (
        InvalidSpecError,
        f"H100-SXM:{2**53 + 1}",
        {"accelerator": "H100-SXM", "count": 2**53 + 1},
        {},
    ),
    "a memory size the model does not have": (
        InvalidSpecError,
        "A100:48GB",
        {"accelerator": "A100-40GB", "memory": {"gb": 48}},
        {"factory": lambda: S.NVIDIA.A100(memory="48GB")},
    ),
    "a pinned SKU and a memory size that disagree": (
        InvalidSpecError,
        "A100-40GB-PCIE:80GB",
        {"accelerator": "A100-40GB-PCIE", "exact": True, "memory": {"gb": 80}},
        {},
    ),
    "a vendor that does not make the accelerator": (
        InvalidSpecError,
        "amd:H100",
        {"accelerator": "H100-SXM", "vendor": "amd"},
        {},
    ),
    "a share stated twice": (
        InvalidSpecError,
        "T4@shared:0.5",
        {"accelerator": "T4", "shared": True, "count": 0.5},
        {},
    ),
    "a shared slot of a TPU": (
        InvalidSpecError,
        "V5E@shared",
        {"accelerator": "V5E", "shared": True},
        {},
    ),
    "a count range from high to low": (
        InvalidSpecError,
        "H100-SXM:4..2",
        {"accelerator": "H100-SXM", "count": 4, "count_range": (4, 2)},
        {},
    ),
    "a memory range from high to low": (
        InvalidSpecError,
        "80GB..24GB",
        {"memory": {"gb": 80, "at_least": True, "at_most": 24}},
        {},
    ),
    "no memory at all": (
        InvalidSpecError,
        "0GB",
        {"memory": {"gb": 0}},
        {},
    ),
    "an unknown accelerator": (
        UnknownAcceleratorError,
        "H10O",
        {"accelerator": "H10O"},
        {},
    ),
    "a MIG profile the accelerator lacks": (
        UnknownPartitionError,
        "A100-40GB@1g.20gb",
        {"accelerator": "A100-40GB", "partition": "1g.20gb"},
        {
            "factory": lambda: S.NVIDIA.A100(partition="1g.20gb"),
            "constant": lambda: accelerators.A100(partition="1g.20gb"),
            "partitioned": lambda: accelerators.A100.partitioned("1g.20gb"),
        },
    ),
    "something after '@' that is no partition": (
        UnknownPartitionError,
        "A100@foo",
        {"accelerator": "A100-40GB", "partition": "foo"},
        {"factory": lambda: S.NVIDIA.A100(partition="foo")},
    ),
    "text that breaks the grammar": (SpecSyntaxError, "H100-SXM:x", None, {}),
    "empty text": (SpecSyntaxError, "  ", None, {}),
    "no spec at all": (
        InvalidSpecError,
        None,
        None,
        {
            "parse": lambda: S.parse(None),  # type: ignore[arg-type]
            "coerce": lambda: S.coerce(None),
            "coerce a number": lambda: S.coerce(8),  # type: ignore[arg-type]
            "to_pod_fragment": lambda: kubernetes.to_pod_fragment(None, platform="gke"),  # type: ignore[arg-type]
            "model_validate": lambda: S.model_validate(None),
            "a field of the wrong type": lambda: S(accelerator=8),
        },
    ),
}


def _cases() -> list[tuple[str, str, type[AcceleratorError], Entry]]:
    cases: list[tuple[str, str, type[AcceleratorError], Entry]] = []
    for mistake, (error, text, fields, others) in MISTAKES.items():
        entries = {
            **(_text_entries(text) if text is not None else {}),
            **(_field_entries(fields) if fields is not None else {}),
            **others,
        }
        cases.extend((mistake, how, error, entry) for how, entry in entries.items())
    return cases


@pytest.mark.parametrize(
    ("mistake", "how", "error", "entry"),
    _cases(),
    ids=[f"{mistake} | {how}" for mistake, how, _, _ in _cases()],
)
def test_each_mistake_raises_one_type_whatever_the_entry_point(
    mistake: str, how: str, error: type[AcceleratorError], entry: Entry
) -> None:
    with pytest.raises(AcceleratorError) as raised:
        entry()
    assert type(raised.value) is error, f"{mistake} via {how}: {raised.value!r}"


@pytest.mark.parametrize(("mistake", "entry"), [(m, v[1]) for m, v in MISTAKES.items() if v[1]])
def test_an_error_about_text_points_into_it(mistake: str, entry: str) -> None:
    with pytest.raises(AcceleratorError) as raised:
        S.parse(entry)
    assert raised.value.source == entry
    assert raised.value.span is not None
    assert str(raised.value).splitlines()[-1].strip().endswith("^")


# -- placement: platforms and their options -------------------------------------------------
PLACEMENT_MISTAKES: dict[str, dict[str, Entry]] = {
    "an unknown platform": {
        "get_platform": lambda: kubernetes.get_platform("gek"),
        "to_pod_fragment": lambda: kubernetes.to_pod_fragment("H100-SXM", platform="gek"),
        "apply_to_pod": lambda: kubernetes.apply_to_pod({}, "H100-SXM", platform="gek"),
        "build_pod": lambda: kubernetes.build_pod("H100-SXM", platform="gek"),
        "node_count_problems": lambda: kubernetes.node_count_problems("H100-SXM", platform="gek"),
        "placement_conflicts": lambda: kubernetes.placement_conflicts(
            "H100-SXM", {}, platform="gek"
        ),
    },
    "an option the platform does not take": {
        "get_platform": lambda: kubernetes.get_platform("gke", sharng="mps"),
        "to_pod_fragment": lambda: kubernetes.to_pod_fragment("H100-SXM", platform="gke", foo=1),
        "options with a configured platform": lambda: kubernetes.get_platform(
            kubernetes.get_platform("gke"), sharing="mps"
        ),
    },
    "an option value the platform cannot read": {
        "sharing": lambda: kubernetes.to_pod_fragment("T4", platform="gke", sharing="nope"),
        "labels": lambda: kubernetes.to_pod_fragment("T4", platform="gke", labels="gpu"),
        "tolerations": lambda: kubernetes.to_pod_fragment("T4", platform="gke", tolerations=[3]),
        "mig_strategy": lambda: kubernetes.get_platform("nvidia", mig_strategy="all"),
        "label role": lambda: kubernetes.get_platform("gke", labels={"nope": "x"}),
    },
    "a spec the platform cannot place": {
        "to_pod_fragment": lambda: kubernetes.to_pod_fragment("A100@1g.5gb", platform="amd"),
        "build_pod": lambda: kubernetes.build_pod("MI300X", platform="neuron"),
    },
}


@pytest.mark.parametrize(
    ("mistake", "how"),
    [(mistake, how) for mistake, entries in PLACEMENT_MISTAKES.items() for how in entries],
)
def test_platform_mistakes_raise_placement_error(mistake: str, how: str) -> None:
    with pytest.raises(AcceleratorError) as raised:
        PLACEMENT_MISTAKES[mistake][how]()
    assert type(raised.value) is PlacementError, f"{mistake} via {how}: {raised.value!r}"


# -- with_caret ----------------------------------------------------------------------------
class _OwnError(PlacementError):
    def __init__(self, message: str, *, where: str) -> None:
        self.where = where
        super().__init__(message)


@pytest.mark.parametrize(
    "error",
    [
        InvalidSpecError("bad"),
        PlacementError("bad"),
        UnknownAcceleratorError("bad", name="H10O", suggestions=("H100-SXM",)),
        UnknownPartitionError("bad", accelerator="A100", partition="x", valid=("1g.5gb",)),
        _OwnError("bad", where="here"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_with_caret_keeps_the_type_and_the_fields(error: AcceleratorError) -> None:
    shown = with_caret(error, "H100-SXM:x", (5, 6))
    assert type(shown) is type(error)
    assert {k: v for k, v in vars(shown).items() if k not in ("source", "span")} == vars(error)
    assert (shown.source, shown.span) == ("H100-SXM:x", (5, 6))
    assert str(shown) == "bad\n    H100-SXM:x\n         ^"
    assert with_caret(shown, "other", (0, 1)) is shown  # already shows its source
    assert error.source is None  # the original is left as it was


def test_a_syntax_error_already_shows_its_source() -> None:
    error = SpecSyntaxError("bad", source="H100-SXM:x", span=(5, 6))
    assert with_caret(error, "other", (0, 1)) is error


def test_invalid_spec_errors_are_value_errors_and_syntax_errors_are_invalid_specs() -> None:
    assert issubclass(InvalidSpecError, ValueError)
    assert issubclass(SpecSyntaxError, InvalidSpecError)
    assert accelerators.InvalidSpecError is InvalidSpecError
