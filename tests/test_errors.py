"""``accelerators.errors``: one family of error types, what each carries, where each is exported.

Which input raises which type, with its message, is tested where the input is read
(``test_grammar.py``, ``test_bad_input.py``, ``kubernetes/``, ``sizing/``...); the close matches
a message offers, in ``test_close_matches.py``.
"""

from __future__ import annotations

import pytest

import accelerators
from accelerators import AcceleratorSpec, bench, errors, kubernetes, sizing
from accelerators.errors import (
    AcceleratorError,
    CatalogDataError,
    CountNotStatedError,
    InvalidSpecError,
    PlacementError,
    SpecSyntaxError,
    UnknownAcceleratorError,
    UnknownPartitionError,
)

#: Every public error type of the core, by where it is exported.
PUBLIC = {
    "accelerators.errors": [getattr(errors, n) for n in errors.__all__ if n.endswith("Error")],
    "accelerators.bench": [bench.AcceleratorGateError],
    "accelerators.sizing": [sizing.SizingError, sizing.InfeasibleJobError],
}


@pytest.mark.parametrize(
    "error", [e for found in PUBLIC.values() for e in found], ids=lambda e: e.__name__
)
def test_every_error_is_an_accelerator_error_and_a_value_error(error: type[Exception]) -> None:
    assert issubclass(error, AcceleratorError)
    assert issubclass(error, ValueError)  # catching either catches every one


def test_the_errors_module_lists_each_type() -> None:
    assert set(PUBLIC["accelerators.errors"]) == {
        AcceleratorError,
        CatalogDataError,
        CountNotStatedError,
        InvalidSpecError,
        PlacementError,
        SpecSyntaxError,
        UnknownAcceleratorError,
        UnknownPartitionError,
    }
    # catching InvalidSpecError catches every spec that cannot be, grammar breaks included, and
    # a name whose count is its system's to say
    assert issubclass(SpecSyntaxError, InvalidSpecError)
    assert issubclass(CountNotStatedError, InvalidSpecError)


def test_the_top_level_exports_the_same_types() -> None:
    for error in [*PUBLIC["accelerators.errors"], bench.AcceleratorGateError]:
        assert getattr(accelerators, error.__name__) is error


def test_an_unknown_name_is_a_lookup_error_with_the_name_and_the_close_matches() -> None:
    with pytest.raises(LookupError) as unknown:
        AcceleratorSpec.parse("H10O")
    assert isinstance(unknown.value, UnknownAcceleratorError)
    assert unknown.value.name == "H10O"
    assert "H100" in unknown.value.suggestions
    assert issubclass(UnknownPartitionError, LookupError)


def test_a_syntax_error_shows_the_text_with_a_caret_under_the_failure() -> None:
    with pytest.raises(SpecSyntaxError) as caught:
        AcceleratorSpec.parse("H100-SXM:x")
    error = caught.value
    assert (error.source, error.span) == ("H100-SXM:x", (9, 10))
    assert str(error).splitlines()[1:] == ["    H100-SXM:x", "             ^"]


def test_a_placement_error_names_the_platform() -> None:
    with pytest.raises(PlacementError, match="amd"):
        kubernetes.to_pod_fragment("A100@1g.10gb", platform="amd")
