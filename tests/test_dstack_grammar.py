"""dstack's resource grammar where it fits ours (``docs/grammar.md``, "dstack's forms")."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec
from accelerators.errors import SpecSyntaxError

VALID = [
    # text, canonical, count, count_range
    ("H100-SXM:1..2", "H100-SXM:1..2", 1, (1, 2)),
    ("MI300X:4..", "MI300X:4..", 4, (4, None)),
    ("A10:..8", "A10:1..8", 1, (1, 8)),
    ("A100:80GB:2..8", "A100-80GB:2..8", 2, (2, 8)),
    ("nvidia:B200:8", "B200:8", 8, None),
    ("amd:MI300X:4..8", "MI300X:4..8", 4, (4, 8)),
    ("24GB..80GB:2", "24GB..80GB:2", 2, None),
    ("24GB..", "24GB+", 1, None),
]


@pytest.mark.parametrize(("text", "canonical", "count", "count_range"), VALID)
def test_dstack_forms(text: str, canonical: str, count: int, count_range) -> None:
    spec = AcceleratorSpec.parse(text)
    assert str(spec) == canonical
    assert (spec.count, spec.count_range) == (count, count_range)
    assert AcceleratorSpec.parse(str(spec)) == spec  # the canonical text round-trips
    assert AcceleratorSpec.model_validate_json(spec.model_dump_json()) == spec


def test_a_memory_range_bounds_the_candidates() -> None:
    spec = AcceleratorSpec.parse("40GB..80GB")
    memories = {acc.device_memory_gb for acc in spec.candidates}
    assert memories
    assert all(40 <= m <= 80 for m in memories)
    assert 24 not in memories
    assert 141 not in memories


def test_names_joined_by_comma_share_the_last_count() -> None:
    spec = AcceleratorSpec.parse("A10,A10G:2")
    assert [(alt.accelerator.model, alt.count) for alt in spec.alternatives] == [
        ("A10", 2),
        ("A10G", 2),
    ]
    # '|' keeps each alternative's own count, and so do names that carry one
    assert [a.count for a in AcceleratorSpec.parse("A10 | A10G:2").alternatives] == [1, 2]
    assert [a.count for a in AcceleratorSpec.parse("H100-SXM:4, A100-80GB:8").alternatives] == [
        4,
        8,
    ]
    assert [a.count for a in AcceleratorSpec.parse("A10, A10G:2 | T4").alternatives] == [2, 2, 1]


def test_a_range_requests_its_low_end() -> None:
    spec = AcceleratorSpec.parse("H100-SXM:2..8")
    assert spec.devices_needed == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("H100-SXM:0..8", "at least one device"),
        ("H100-SXM:8..2", "from low to high"),
        ("H100-SXM:..", "count range such as 1..2"),
        ("80GB..24GB", "from low to high"),
        ("amd:H100:8", "H100-SXM is made by nvidia, not amd"),
        ("T4@shared:1..2", "whole devices"),
    ],
)
def test_what_does_not_fit_is_refused_with_our_form(text: str, message: str) -> None:
    with pytest.raises((SpecSyntaxError, ValueError), match=message):
        AcceleratorSpec.parse(text)
