"""Counts written as prose (``Two Tesla T4s``, ``8 A100s``, ``2 Tesla T4 GPUs``, ``384 A100 40GB
GPUs``), a TPU topology standing as a part of its own, and the ``vgpu`` and ``vm`` words: read,
or refused saying why."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec
from accelerators.errors import UnknownAcceleratorError


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # a number word before the model is its count; vendor and line words may stand between
        ("Two Tesla T4s", "T4:2"),
        ("One Tesla T4", "T4"),
        ("eight H100s", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8"),
        ("two-h100", "H100-SXM:2 | H100-PCIE:2 | H100-NVL:2"),
        # a plural ending on the model, beside a count
        ("8 A100s", "A100-40GB:8 | A100-80GB:8"),
        ("8 MI300Xs", "MI300X:8"),
        ("2 Tesla T4 GPUs", "T4:2"),
        ("8 NVIDIA A100", "A100-40GB:8 | A100-80GB:8"),
        # a model whose name ends in S is that model, not a plural
        ("L40s", "L40S"),
        ("V100S", "V100S"),
        ("GPU-12xCPU-128GB-1xL40s", "L40S"),  # UpCloud writes the L40S so
        ("gpu_4x_l40s", "L40S:4"),
        # a TPU topology as its own part: a 2x4 slice, not 4 slices of 2
        ("tpu-v5e-2x4", "TPU-V5E@2x4:8"),
        ("google-tpu-v5e-2x2:4", "TPU-V5E@2x2:4"),
        # "vgpu" beside a MIG profile is the vGPU on that instance; alone, a shared slot
        ("vgpu.a100.2g.20gb", "A100-80GB@2g.20gb"),
        ("vgpu-t4", "T4@shared"),
        ("vm.l40s", "L40S"),
        # an instance described with its machine's figures; a '/' before them offers no choice
        ("1xL40S / 16 vCPU / 232GiB RAM", "L40S"),
        ("2x H100 / 32 vCPU / 400 GB RAM", "H100-SXM:2 | H100-PCIE:2 | H100-NVL:2"),
        ("k8s-l4", "L4"),
    ],
)
def test_prose_counts_and_words_read(text: str, canonical: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == canonical


@pytest.mark.parametrize(
    ("text", "says"),
    [
        # a plural with no count: how many?
        ("A100s", "no count says how many"),
        ("NVIDIA H100s", "no count says how many"),
        # after a prose count, "L40s" could be the L40S or L40 cards
        ("8 L40s", "could be the L40S or L40s"),
        ("eight V100s", "could be the V100S or V100s"),
        # a number word anywhere but before the model places nothing
        ("a100-two", "'two' is a count only right before the model"),
        # time-slicing and MIG together are no one slot
        ("shared a100 1g.10gb", "both a MIG profile and a shared slot"),
        # "vm" is a word, but a number after the model is still unplaced
        ("vm.a6000.4", "'4'"),
        # a '/' between a model and a bare number is still a choice
        ("H100 / 8", "a choice of boards"),
    ],
)
def test_prose_counts_that_say_too_little_are_refused(text: str, says: str) -> None:
    with pytest.raises(UnknownAcceleratorError, match=says.replace("(", r"\(")):
        AcceleratorSpec.parse(text)


def test_a_plural_ending_is_read_only_after_a_model_number() -> None:
    # MLPerf's "AS-4126GS-..." server: the S of 4126GS is no plural of a memory size
    spec = AcceleratorSpec.parse("AS-4126GS-NBR-LCC_B200-SXM-180GBx8_TRT")
    assert str(spec) == "B200:8"


def test_explain_names_the_number_word_and_the_plural() -> None:
    reading = AcceleratorSpec.explain("Two Tesla T4s")
    roles = {t.text: (t.role, t.meaning) for n in reading.names for t in n.tokens}
    assert roles["Two"] == ("count", "2 devices (a number word before the model)")
    assert roles["s"][0] == "count marker"


#: A number before the model that a plural device word after it confirms is the count of
#: devices, however large (a paper's training hardware); without the plural, a large number
#: before the model stays unplaced and the name is refused.
PLURAL_COUNTED = [
    ("384 A100 40GB GPUs", "A100-40GB:384"),
    ("4 80GB A100 GPUs", "A100-80GB:4"),
    ("10 NVIDIA A5000 GPUs", "RTX-A5000:10"),
    ("512 NVIDIA A100 40GB GPUs", "A100-40GB:512"),
    # the plural says the number counts cards, though 24 GB is the RTX 3090's memory
    ("24 RTX 3090 GPUs", "RTX-3090:24"),
]


@pytest.mark.parametrize("denotes", ["device", "board", "node", "mixed"])
@pytest.mark.parametrize(("text", "spec"), PLURAL_COUNTED, ids=[r[0] for r in PLURAL_COUNTED])
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


def test_the_explanation_says_a_plural_device_word_counts_the_number() -> None:
    explanation = str(AcceleratorSpec.explain("384 A100 40GB GPUs"))
    assert "384 devices (before the model, which a plural device word follows)" in explanation
