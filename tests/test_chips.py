"""An AMD chip's code name beside the model reads as its chip when the catalog gives that chip
for the model; another chip, or one the catalog does not record, refuses the name by it."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec
from accelerators.errors import UnknownAcceleratorError


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("SIFT_CHIPID_NAVI21_W6800", "W6800"),
        ("Navi 21 W6800", "W6800"),
        ("navi21-rx-6800-xt", "RX-6800-XT"),
        ("SIFT_CHIPID_VEGA20_VII", "VII"),
    ],
)
def test_the_model_s_own_chip_reads(text: str, spec: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == spec


def test_the_chip_is_explained() -> None:
    assert "the chip (Navi 21) of the model" in str(AcceleratorSpec.explain("Navi 21 W6800"))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Navi 10 W6800", "'Navi 10' names a chip the catalog does not give W6800"),
        # the catalog records no chip for the V620: the name may be another board's
        ("SIFT_CHIPID_NAVI21_V620", "'NAVI21' names a chip the catalog does not record for V620"),
    ],
)
def test_another_or_an_unrecorded_chip_refuses_the_name(text: str, why: str) -> None:
    with pytest.raises(UnknownAcceleratorError, match=why):
        AcceleratorSpec.parse(text)
