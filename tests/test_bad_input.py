"""Bad input found by fuzzing gets our documented errors, with short messages."""

from __future__ import annotations

import json

import pytest

from accelerators import catalog
from accelerators.catalog._names import resolve_name
from accelerators.errors import (
    AcceleratorError,
    InvalidSpecError,
    SpecSyntaxError,
    UnknownAcceleratorError,
)
from accelerators.spec import MAX_COUNT, AcceleratorSpec


@pytest.mark.parametrize("count", [2**53, 2**53 - 1, 123456789012345])
def test_large_counts_stay_exact(count: int) -> None:
    spec = AcceleratorSpec.parse(f"H100-SXM:{count}")
    assert spec.count == count
    assert isinstance(spec.count, int)
    assert str(spec) == f"H100-SXM:{count}"
    assert AcceleratorSpec.model_validate_json(spec.model_dump_json()).count == count
    assert AcceleratorSpec(accelerator="H100-SXM", count=count).count == count


@pytest.mark.parametrize("count", [2**53 + 1, 10**400, float(2**60), 1e300])
def test_counts_above_the_maximum_are_refused(count: float) -> None:
    with pytest.raises(InvalidSpecError, match=r"at most 2\*\*53") as built:
        AcceleratorSpec(accelerator="H100-SXM", count=count)
    text = str(count) if isinstance(count, int) else f"{count:f}"
    with pytest.raises(InvalidSpecError, match=r"at most 2\*\*53") as caught:
        AcceleratorSpec.parse(f"H100-SXM:{text}")
    # The same mistake, the same type, whichever way it was written.
    assert type(caught.value) is type(built.value) is InvalidSpecError
    assert len(str(caught.value)) < 400


def test_max_count_is_documented_as_two_to_the_53() -> None:
    assert MAX_COUNT == 2**53
    assert json.loads(json.dumps(MAX_COUNT)) == float(MAX_COUNT)


@pytest.mark.parametrize(
    "text",
    [
        "H100-SXM:8 " + "x" * 1_000_000,
        "x" * 1_000_000,
        "H100-SXM@" + "1g" * 500_000,
        "H100-SXM:" + "9" * 5000,
    ],
)
def test_messages_cut_long_input_around_the_caret(text: str) -> None:
    with pytest.raises(AcceleratorError) as caught:
        AcceleratorSpec.parse(text)
    message = str(caught.value)
    assert len(message) < 1000
    if caught.value.source is not None:  # an error about the text shows it, cut
        shown, caret = message.splitlines()[-2:]
        assert "^" in caret
        assert len(shown) <= 4 + 3 + 40 + 80 + 40 + 3


def test_the_caret_still_points_at_the_span_in_a_cut_source() -> None:
    text = "H100-SXM | " * 30 + "H100-SXM:x" + " | H100-SXM" * 30
    with pytest.raises(SpecSyntaxError) as caught:
        AcceleratorSpec.parse(text)
    shown, caret = str(caught.value).splitlines()[-2:]
    assert shown.startswith("    ...")
    assert shown.endswith("...")
    assert shown[caret.index("^")] == "x"


@pytest.mark.parametrize(
    ("text", "char"),
    [
        ("\u212a80", "\u212a"),
        ("\u0410100", "\u0410"),
        ("H\u200b100", "\u200b"),
        ("T\uff14", "\uff14"),
    ],
)
def test_catalog_get_refuses_look_alike_characters_as_the_parser_does(text: str, char: str) -> None:
    with pytest.raises(UnknownAcceleratorError, match=f"U\\+{ord(char):04X}"):
        catalog.get(text)
    with pytest.raises(UnknownAcceleratorError):
        resolve_name(text)
    with pytest.raises(AcceleratorError):
        AcceleratorSpec.parse(text)


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        ("nvidia:16000MB", "16GB"),
        ("1.5TB+", "1500GB+"),
        ("80GB+", "80GB+"),
        ("amd:0.192TB", "192GB"),
    ],
)
def test_memory_in_mb_and_tb(text: str, memory: str) -> None:
    assert str(AcceleratorSpec.parse(text).memory) == memory


def test_equality_and_hashing_agree_with_text() -> None:
    spec = AcceleratorSpec.parse("h100-sxm:8")
    assert spec == "H100-SXM:8"
    assert hash(spec) == hash("H100-SXM:8")
    assert len({spec, "H100-SXM:8", AcceleratorSpec.parse("H100-SXM:8")}) == 1
    assert spec != "h100-sxm:8"  # another spelling: parse it first
    assert spec == AcceleratorSpec.parse("h100-sxm:8")
