"""The name index is built in two steps (``accelerators/catalog/_spellings.py``).

A process that resolves only the catalog's own names (``H100``, ``A100-80GB``, as DAG files
do) builds the exact table of those names and nothing else; the rest comes on the first name
that needs it. Either way the tables and every resolution must be what one pass builds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from accelerators import catalog
from accelerators.catalog import _names, _spellings
from accelerators.errors import AcceleratorError


@pytest.fixture
def fresh_index() -> Iterator[None]:
    _names.cache_clear()
    yield
    _names.cache_clear()


def _one_pass() -> _spellings.Index:
    """Every table filled as each spelling is added, as the index was built in one step."""
    index = _spellings.Index(catalog.all())
    index.complete = True  # add() then fills every table at once
    _spellings._add_identity(index)
    _spellings._add_systems(index)
    return index


def _tables(index: _spellings.Index) -> dict[str, object]:
    return {
        "exact": index.exact,
        "loose": index.loose,
        "words": index.words,
        "displays": list(index.displays),
        "loose_display": list(index.loose_display.items()),
    }


def test_two_steps_build_the_tables_of_one_pass(fresh_index: None) -> None:
    first = _spellings.current_index(complete=False)
    assert not first.complete
    assert first.exact[0] == _one_pass().exact[0]  # the first step's table is complete
    assert first.exact[1] == {}
    assert first.loose == ({}, {})
    assert first.words == ({}, {})
    full = _spellings.current_index()
    assert full is first
    assert full.complete
    assert _tables(full) == _tables(_one_pass())


def test_a_catalog_name_does_not_build_the_rest(fresh_index: None) -> None:
    for text in ("H100-SXM", "A100-80GB", " a100-80gb ", "H100_SXM", "TPU-V5E"):
        _names.resolve_name(text)
    assert not _spellings.current_index(complete=False).complete
    _names.resolve_name("nvidia-tesla-t4")  # GKE's name: another system's spelling
    assert _spellings.current_index(complete=False).complete


def _resolutions(texts: list[str], resolve: Callable[[str], _names.NameMatch]) -> dict[str, object]:
    out: dict[str, object] = {}
    for text in texts:
        try:
            match = resolve(text)
        except AcceleratorError as exc:  # the error itself is compared
            out[text] = (type(exc).__name__, str(exc))
        else:
            out[text] = (match.accelerator.name, match.pinned, match.count, match.partition)
    return out


def test_every_name_resolves_as_with_the_whole_index(fresh_index: None) -> None:
    """resolve_name's shortcut for catalog names agrees with the tiers over the whole index."""
    spellings = list(_names.known_spellings())
    texts = spellings + [f"8x {t}" for t in spellings[:60]] + [f"{t} x2" for t in spellings[:60]]
    texts += ["", "  ", "H100 94GB", "A100 80G", "a100x8", "NVIDIA A100", "H1OO", "8x"]
    whole = _spellings.current_index()
    by_tiers = _resolutions(texts, lambda text: _names._resolve(whole, text))
    _names.cache_clear()
    assert _resolutions(texts, _names.resolve_name) == by_tiers
    assert sum(1 for t in texts if _names._catalog_name(whole, t) is not None) > 200
