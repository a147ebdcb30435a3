"""``close_matches``: spelling distance, plus letters typed for look-alike digits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accelerators import AcceleratorSpec, UnknownAcceleratorError
from accelerators.errors import _DIGIT_LOOKALIKES, _has_digit_lookalike, close_matches


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


def _difflib_way(word: str, candidates: list[str], n: int, cutoff: float) -> list[str]:
    """What close_matches returned when it handed every candidate to difflib (the reference:
    the fast path must return the same list in the same order)."""
    import difflib

    by_folded: dict[str, str] = {}
    for candidate in candidates:
        by_folded.setdefault(candidate.casefold(), candidate)
    folded = word.casefold()
    found: list[str] = []
    if _has_digit_lookalike(folded):
        wanted = folded.translate(_DIGIT_LOOKALIKES)
        found = [k for k in by_folded if k.translate(_DIGIT_LOOKALIKES) == wanted][:n]
    for key in difflib.get_close_matches(folded, list(by_folded), n=n, cutoff=cutoff):
        if key not in found and len(found) < n:
            found.append(key)
    return [by_folded[f] for f in found]


def _catalog_spellings() -> list[str]:
    from accelerators.catalog._spellings import current_index

    return list(current_index().displays)


def test_the_catalogs_spellings_give_what_difflib_gives() -> None:
    # a spread of spellings, mangled four ways, against the 2,400 the reader suggests from
    spellings = _catalog_spellings()
    for i, name in enumerate(spellings[::60]):
        for typed in (name, name[1:], name[:-1] + "x", f"nvidia {name} {i}", name.swapcase()):
            for n, cutoff in ((3, 0.6), (1, 0.8)) if i % 8 else ((3, 0.6), (5, 0.0)):
                assert close_matches(typed, spellings, n, cutoff) == _difflib_way(
                    typed, spellings, n, cutoff
                ), (typed, n, cutoff)


@settings(max_examples=300, deadline=None)
@given(
    word=st.text(alphabet="aA01oOlL -_x", max_size=12),
    candidates=st.lists(st.text(alphabet="aA01oOlL -_x", max_size=12), max_size=30),
    n=st.integers(1, 4),
    cutoff=st.sampled_from([0.0, 0.3, 0.6, 0.75, 1.0]),
)
def test_any_words_give_what_difflib_gives(
    word: str, candidates: list[str], n: int, cutoff: float
) -> None:
    # small alphabets make ties, repeats, empty texts and look-alike digits common
    assert close_matches(word, candidates, n, cutoff) == _difflib_way(word, candidates, n, cutoff)


def test_bad_arguments_raise_as_difflib_does() -> None:
    with pytest.raises(ValueError, match="n must be > 0"):
        close_matches("h100", ["H100"], n=0)
    with pytest.raises(ValueError, match="cutoff must be in"):
        close_matches("h100", ["H100"], cutoff=1.5)
