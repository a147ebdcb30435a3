"""Properties of specs and of the parser, checked with Hypothesis over catalog data."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accelerators import catalog
from accelerators.catalog._names import known_spellings
from accelerators.errors import AcceleratorError
from accelerators.spec import AcceleratorSpec, MemoryRequest

#: 2000 examples per property on CI (env CI set), fewer locally.
EXAMPLES = 2000 if os.environ.get("CI") else 200
PROPERTY = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

ENTRIES = catalog.all()
VENDORS = sorted({acc.vendor for acc in ENTRIES})

# -- strategies ------------------------------------------------------------------------------
counts = st.one_of(
    st.integers(min_value=1, max_value=64),
    st.sampled_from([0.5, 0.25, 0.125, 1.5, 0.1, 0.3]),
    st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False).filter(
        lambda value: value > 0
    ),
)
sizes = st.one_of(
    st.integers(min_value=1, max_value=2048),
    st.floats(min_value=0.001, max_value=4096, allow_nan=False, allow_infinity=False),
)


@st.composite
def named_specs(draw: st.DrawFn) -> AcceleratorSpec:
    acc = draw(st.sampled_from(ENTRIES))
    fields: dict[str, Any] = {
        "accelerator": acc,
        "count": draw(counts),
        "exact": draw(st.booleans()),
    }
    if acc.partitions:
        choice = draw(st.sampled_from([None, "whole", *acc.partitions]))
        if choice == "whole":
            fields["unpartitioned"] = True
        elif choice is not None:
            fields["partition"] = choice
    if draw(st.booleans()):
        at_least = draw(st.booleans())
        per_device = acc.device_memory_gb  # what a memory request is compared with
        gb = per_device if not at_least else draw(st.sampled_from([per_device, 1.0]))
        fields["memory"] = MemoryRequest(gb=gb, at_least=at_least)
    if draw(st.booleans()):
        fields["vendor"] = acc.vendor
    return AcceleratorSpec(**fields)


@st.composite
def unnamed_specs(draw: st.DrawFn) -> AcceleratorSpec:
    fields: dict[str, Any] = {"count": draw(counts)}
    if draw(st.booleans()):
        fields["memory"] = MemoryRequest(gb=draw(sizes), at_least=draw(st.booleans()))
    if "memory" not in fields or draw(st.booleans()):
        fields["vendor"] = draw(st.sampled_from(VENDORS))
    return AcceleratorSpec(**fields)


single_specs = st.one_of(named_specs(), unnamed_specs())


@st.composite
def specs(draw: st.DrawFn) -> AcceleratorSpec:
    first = draw(single_specs)
    fallbacks = draw(st.lists(single_specs, max_size=4))
    return AcceleratorSpec(**{**first._fields(), "fallbacks": tuple(fallbacks)})


def _meaning(spec: AcceleratorSpec) -> list[tuple[Any, ...]]:
    """What each alternative asks for: the fields that affect placement."""
    out = []
    for alt in spec.alternatives:
        acc = alt.accelerator
        if acc is None:
            who: Any = ("memory", alt.memory, alt.vendor)
        elif alt.exact:
            who = ("sku", acc.name)
        else:
            who = ("model", acc.model)
        out.append((who, alt.count, alt.partition, alt.unpartitioned))
    return out


# -- round trips -----------------------------------------------------------------------------
@PROPERTY
@given(specs())
def test_canonical_text_round_trips(spec: AcceleratorSpec):
    text = str(spec)
    again = AcceleratorSpec.parse(text)
    assert again == spec
    assert str(again) == text
    assert _meaning(again) == _meaning(spec)
    assert hash(again) == hash(spec)


@PROPERTY
@given(specs())
def test_json_round_trips(spec: AcceleratorSpec):
    again = AcceleratorSpec.model_validate_json(spec.model_dump_json())
    assert again == spec
    assert again.model_dump() == spec.model_dump()


@PROPERTY
@given(st.lists(single_specs, min_size=1, max_size=5))
def test_list_form_matches_the_text_form(items: list[AcceleratorSpec]):
    from_list = AcceleratorSpec.coerce([str(item) for item in items])
    from_text = AcceleratorSpec.parse(" | ".join(str(item) for item in items))
    assert from_list == from_text
    assert len(from_list.alternatives) == len(items)


@PROPERTY
@given(named_specs(), st.sampled_from([str.upper, str.lower, str.swapcase]))
def test_letter_case_does_not_matter(spec: AcceleratorSpec, case: Any):
    assert AcceleratorSpec.parse(case(str(spec))) == spec


# -- nothing but AcceleratorError ------------------------------------------------------------
def _parse_or_error(text: str) -> None:
    try:
        spec = AcceleratorSpec.parse(text)
    except AcceleratorError as exc:
        message = str(exc)
    else:
        # Whatever parses has canonical text that parses to the same spec.
        assert AcceleratorSpec.parse(str(spec)) == spec
        return
    assert message


@PROPERTY
@given(st.text())
def test_any_text_parses_or_raises_an_accelerator_error(text: str):
    _parse_or_error(text)


NAMES = list(known_spellings())
TOKENS = st.one_of(
    st.sampled_from(NAMES),
    st.sampled_from(["|", ",", ":", "@", "!", "+", "(", ")", " ", "  ", "\t", "\n", "x", "-"]),
    st.sampled_from(["nvidia", "amd", "google", "80GB", "24G", "0GB", "1g.5gb", "2x4", "whole"]),
    st.sampled_from(["1g.10gb+me", "2x2x1", "8x ", " x8", "-MIG-", "-8", "GB", "e3", ".5"]),
    st.integers(min_value=0, max_value=10**6).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.text(max_size=3),
)


@PROPERTY
@given(st.lists(TOKENS, max_size=12).map("".join))
def test_token_soup_parses_or_raises_an_accelerator_error(text: str):
    _parse_or_error(text)


@PROPERTY
@given(specs(), st.integers(min_value=0, max_value=200), st.text(max_size=4))
def test_edited_canonical_text_parses_or_raises_an_accelerator_error(
    spec: AcceleratorSpec, position: int, insert: str
):
    text = str(spec)
    position = min(position, len(text))
    _parse_or_error(text[:position] + insert + text[position:])
    _parse_or_error(text[:position] + text[position + 1 :])


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def _deep_dict(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    "value",
    [
        *(None, 3.5, 8, True, {"H100-SXM": 8}, {"H100-SXM"}, b"H100-SXM", object()),
        *([None], [[]], [["H100-SXM"]], _nested(5000), _deep_dict(5000)),
    ],
)
def test_non_text_values_raise_an_accelerator_error(value: Any):
    with pytest.raises(AcceleratorError):
        AcceleratorSpec.coerce(value)
    with pytest.raises(AcceleratorError):
        AcceleratorSpec.parse(value)


# -- long inputs are handled in linear-ish time ----------------------------------------------
LONG_INPUTS = {
    "one long name": "H100 " * 2000,
    "many alternatives": "H100-SXM:8 | " * 1100 + "T4",
    "mixed alternatives": " | ".join(["A100:80GB", "tpu-v5litepod-8", "a10g-largex2"] * 350),
    "separator run": "-" * 10_000 + "1x",
    "blank run": "a" + " " * 9_998 + "b",
    "digits": "9" * 10_000,
    "open parentheses": "a" + "(" * 10_000,
    "nested parentheses": "a" + "(a " * 3_000,
    "colons": "H100-SXM" + ":" * 10_000,
    "count": "H100-SXM:" + "1" * 10_000,
    "memory": "1" * 10_000 + "GB",
    "partition": "A100@" + "1g." * 3_000,
    "mig suffixes": "A100-mig-" * 1_100,
    "size suffixes": "tpu-v5e-" + "8-" * 5_000,
    "count suffixes": "H100 x" * 1_600 + "8",
    "count prefixes": "1x " * 3_300 + "H100-SXM",
}


@pytest.mark.serial  # a wall-clock bound per input
@pytest.mark.parametrize("text", LONG_INPUTS.values(), ids=LONG_INPUTS.keys())
def test_long_inputs(text: str):
    start = time.perf_counter()
    _parse_or_error(text)
    assert time.perf_counter() - start < 3.0


@pytest.mark.parametrize(
    ("text", "needed"),
    [("H100-SXM:8", 8), ("H100-SXM", 1), ("T4:0.5", 1), ("A100:1.5", 2), ("T4@shared:2", 2)],
)
def test_devices_needed_rounds_up_and_is_at_least_one(text: str, needed: int) -> None:
    assert AcceleratorSpec.parse(text).devices_needed == needed
