"""``close_matches``: spelling distance, plus letters typed for look-alike digits."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec, UnknownAcceleratorError
from accelerators.errors import close_matches


def test_letters_for_digits_find_the_name_first() -> None:
    names = ["H100", "H200", "A100", "MI300X", "MI355X", "MI350X", "L4", "L40"]
    assert close_matches("H1OO", names)[0] == "H100"
    assert close_matches("MI3OOX", names)[0] == "MI300X"
    assert close_matches("L4O", names)[0] == "L40"
    assert close_matches("h1oo", names)[0] == "H100"  # case-insensitive, own spelling back


def test_words_without_look_alikes_are_unchanged() -> None:
    assert close_matches("gkee", ["gke", "nvidia", "karpenter"]) == ["gke"]
    assert close_matches("xyz", ["gke", "nvidia"]) == []
    assert close_matches("nvidai", ["nvidia", "amd"], n=1) == ["nvidia"]


@pytest.mark.parametrize(
    ("typed", "meant"), [("H1OO", "H100"), ("H1OO:8", "H100"), ("A1OO", "A100")]
)
def test_the_grammar_suggests_the_name(typed: str, meant: str) -> None:
    with pytest.raises(UnknownAcceleratorError) as raised:
        AcceleratorSpec.parse(typed)
    assert raised.value.suggestions[0] == meant
    assert f"did you mean {meant!r}" in str(raised.value)
