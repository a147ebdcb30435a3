"""A number before the model that a plural device word after it confirms is the count of
devices, however large (prose's "384 A100 40GB GPUs", a paper's training hardware); without
the plural, a large number before the model stays unplaced and the name is refused."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec
from accelerators.errors import UnknownAcceleratorError

READ = [
    ("384 A100 40GB GPUs", "A100-40GB:384"),
    ("4 80GB A100 GPUs", "A100-80GB:4"),
    ("10 NVIDIA A5000 GPUs", "RTX-A5000:10"),
    ("512 NVIDIA A100 40GB GPUs", "A100-40GB:512"),
    # the plural says the number counts cards, though 24 GB is the RTX 3090's memory
    ("24 RTX 3090 GPUs", "RTX-3090:24"),
]


@pytest.mark.parametrize("denotes", ["device", "board", "node", "mixed"])
@pytest.mark.parametrize(("text", "spec"), READ, ids=[r[0] for r in READ])
def test_a_plural_device_word_makes_the_number_before_the_model_a_count(
    text: str, spec: str, denotes: str
) -> None:
    assert str(AcceleratorSpec.parse(text, denotes=denotes)) == spec


@pytest.mark.parametrize(
    "text",
    [
        "256 A100",  # no plural: a count, a size or a host's number
        "24-RTX 3090",  # h2oGPT's host named by the card's 24 GB
        "384 A100 40GB GPU",  # singular: no count confirmed
        "384 A100 GPUs per 48 nodes",  # a word the reader cannot place after the plural
    ],
)
def test_without_the_plural_a_large_number_stays_unplaced(text: str) -> None:
    with pytest.raises(UnknownAcceleratorError):
        AcceleratorSpec.parse(text, denotes="mixed")


def test_the_explanation_says_why_the_number_counts() -> None:
    explanation = str(AcceleratorSpec.explain("384 A100 40GB GPUs"))
    assert "384 devices (before the model, which a plural device word follows)" in explanation
