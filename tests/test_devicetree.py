"""A device-tree compatible string that names its board (``nvidia,jetson-nano``) reads as that
board, not as a choice of any NVIDIA device or the board; a choice of vendors stays one."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec
from accelerators.errors import UnknownAcceleratorError


def test_a_compatible_string_names_its_board_not_a_choice() -> None:
    spec = AcceleratorSpec.parse("nvidia,jetson-nano")
    assert [alt.accelerator.model for alt in spec.alternatives] == ["JETSON-NANO-4GB"]
    assert spec.accelerator.vendor == "nvidia"


def test_a_choice_of_vendors_and_of_models_stays_a_choice() -> None:
    assert [alt.vendor for alt in AcceleratorSpec.parse("nvidia,amd").alternatives] == [
        "nvidia",
        "amd",
    ]
    models = [alt.accelerator.model for alt in AcceleratorSpec.parse("A10,A10G").alternatives]
    assert models == ["A10", "A10G"]


def test_a_compatible_string_the_catalog_cannot_name_is_refused_with_its_name() -> None:
    with pytest.raises(UnknownAcceleratorError, match="jetson-cv"):
        AcceleratorSpec.parse("nvidia,jetson-cv")
