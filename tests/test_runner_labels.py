"""CI runner label lists, plain ``gpu=`` label keys, system words that hide a count (a DGX
system, an HGX baseboard) and release-channel words: read, or refused saying why."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec
from accelerators.errors import InvalidSpecError, SpecSyntaxError, UnknownAcceleratorError


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # GitHub Actions' runs-on lists, as YAML flow lists and JSON arrays: every label read
        ("[self-hosted, nvidia, cu121, v100]", "V100-16GB | V100-32GB"),
        ('["self-hosted", "H100"]', "H100-SXM | H100-PCIE | H100-NVL"),
        ("[self-hosted, amd, mi100]", "MI100"),
        ("[self-hosted, gpu-ci, gpu-l40s, l40s-1gpu]", "L40S"),
        ("[v100]", "V100-16GB | V100-32GB"),
    ],
)
def test_a_runner_label_list_reads_as_its_labels_together(text: str, canonical: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == canonical


@pytest.mark.parametrize(
    ("text", "error", "says"),
    [
        ("[]", SpecSyntaxError, "Expected a runner label"),
        ("[self-hosted,]", SpecSyntaxError, "Expected a runner label"),
        ("[h100, a100]", UnknownAcceleratorError, "more than one accelerator"),
        # a site's own word ("142") is no word the reader knows: it may hide a count
        ("[self-hosted, linux-a100-142]", UnknownAcceleratorError, "'142'"),
        ("[self-hosted, nvidia, cu121]", UnknownAcceleratorError, "Unknown accelerator"),
    ],
)
def test_a_runner_label_list_that_names_no_one_accelerator_is_refused(
    text: str, error: type[Exception], says: str
) -> None:
    with pytest.raises(error, match=says):
        AcceleratorSpec.parse(text)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("gpu=l4", "L4"),  # machine.dev's job labels
        ("accelerator=nvidia-tesla-v100", "V100-16GB"),
        ("gpu=l4,nvidia.com/gpu.count=2", "L4:2"),
    ],
)
def test_a_plain_gpu_key_reads_its_value(text: str, canonical: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == canonical


def test_a_plain_gpu_key_with_an_unknown_value_names_the_value() -> None:
    with pytest.raises(UnknownAcceleratorError, match="'banana'"):
        AcceleratorSpec.parse("gpu=banana")
    # LSF's request keys are ':'-separated: "gpu=" is none of them
    with pytest.raises(SpecSyntaxError, match="no LSF -gpu key"):
        AcceleratorSpec.parse("gpu=l4:num=2")


@pytest.mark.parametrize(
    "text",
    [
        "HGX A100",  # a baseboard of 4 or 8
        "8x DGX A100",  # 8 systems, not 8 GPUs
        "DGX-GB200",  # a rack system, whose compute trays hold 4
        "DGX Station V100",  # the first DGX Station's V100s: the spec's to count
    ],
)
def test_a_dgx_system_or_hgx_board_leaves_the_count_to_the_spec(text: str) -> None:
    with pytest.raises(InvalidSpecError, match="is a node or pool"):
        AcceleratorSpec.parse(text)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("dgx_a100", "A100-40GB:8 | A100-80GB:8"),  # Megatron-LM's cluster: 8 A100s a DGX A100
        ("DGX H100", "H100-SXM:8"),  # eight SXM5 modules, never the PCIe card or the NVL
        # a DGX Station holds 4 A100s or one GB300, never a DGX's 8
        ("DGX Station A100", "A100-40GB:4 | A100-80GB:4"),
        ("dgx_station_gb300", "GB300"),
    ],
)
def test_a_dgx_named_for_its_gpu_holds_eight_sxm_modules(text: str, canonical: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == canonical


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("dgx_a100:8", "A100-40GB:8 | A100-80GB:8"),
        ("HGX H100 SXM5 8-way", "H100-SXM!:8"),  # the name counts its GPUs
        ("DGX-H100_H100-SXM-80GBx8", "H100-SXM!:8"),
        ("GB100 [HGX GB200]", "GB200"),  # pci.ids: the board's name in brackets
        ("linux-amd64-gpu-t4-latest", "T4"),  # a release channel
    ],
)
def test_a_system_word_with_a_count_or_a_board_name_reads(text: str, canonical: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == canonical


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("AMD Instinct\u2122 MI300X", "MI300X"),  # ROCm's docs print the trademark sign
        ("AMD Radeon\u2122 Pro W7900", "W7900"),
        ("Intel\u00ae Gaudi\u00ae 2", "GAUDI2"),
    ],
)
def test_a_trademark_sign_is_no_word(text: str, canonical: str) -> None:
    from accelerators import catalog

    assert str(AcceleratorSpec.parse(text)) == canonical
    assert catalog.get(text).model == canonical


def test_other_non_ascii_characters_are_still_refused() -> None:
    from accelerators import catalog
    from accelerators.errors import AcceleratorError

    with pytest.raises(UnknownAcceleratorError, match="non-ASCII"):
        catalog.get("H100 \u212a")  # a Kelvin sign, not a K
    with pytest.raises(AcceleratorError, match="Unexpected"):
        AcceleratorSpec.parse("A100 \u212a")


def test_a_racks_nvlink_domain_counts_its_gpus_unless_racks_are_counted() -> None:
    # Nscale reserves "GB300 NVL72": a rack of 72 GPUs, not one
    assert str(AcceleratorSpec.parse("GB300 NVL72")) == "GB300:72"
    assert str(AcceleratorSpec.parse("GB300 NVL72:72")) == "GB300:72"
    # MLPerf's "39x NVIDIA GB200 NVL72" counts racks: the GPUs are the spec's to give
    with pytest.raises(InvalidSpecError, match="is a node or pool"):
        AcceleratorSpec.parse("39x NVIDIA GB200 NVL72")
    # MLPerf's system names count the GPUs themselves
    assert str(AcceleratorSpec.parse("GB200-NVL72_GB200-186GB_aarch64x72_TRT")) == "GB200:72"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("CHIP_TYPE_TPU_V2", "TPU-V2"),  # a serving system's enum: the generation after TPU
        ("tpu_v4_chip", "TPU-V4"),
        ("Whole A40", "A40"),  # a notebook form's whole GPU beside its MIG parts
        ("IS_H100", "H100-SXM | H100-PCIE | H100-NVL"),  # a test suite's flag
        ("nebius-h100-example", "H100-SXM | H100-PCIE | H100-NVL"),  # a cloud's name beside it
        ("(runpod) RTX 4090", "RTX-4090"),  # a results table's leading qualifier
        # an EC2 type inside a name: the chip family and the size (TorchX, an MLPerf harness)
        ("aws_trn1.32xlarge", "TRAINIUM1:16"),
        ("Triton_Inferentia_INF1_6XLARGE", "INFERENTIA1:4"),
    ],
)
def test_enum_flag_cloud_and_whole_words_around_a_model(text: str, canonical: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == canonical


def test_a_size_that_makes_no_ec2_type_with_the_model_is_the_systems_to_count() -> None:
    for text in ("gpu.mi100.4xlarge", "V100-8XLarge"):
        with pytest.raises(InvalidSpecError, match="is an instance size"):
            AcceleratorSpec.parse(text)


def test_a_leading_bracket_must_lead_to_a_name() -> None:
    for text in ("(H100)", "(H100 | A100)"):
        with pytest.raises(SpecSyntaxError, match="parentheses are not part of the grammar"):
            AcceleratorSpec.parse(text)


def test_a_weak_tpu_generation_is_still_a_version_away_from_the_word_tpu() -> None:
    with pytest.raises(UnknownAcceleratorError):
        AcceleratorSpec.parse("gpu-standard-v3")  # Yandex's VM platform, no TPU v3
    with pytest.raises(UnknownAcceleratorError, match="'my'"):
        AcceleratorSpec.parse("my_tpu_v4")


def test_a_count_in_brackets_is_read_however_it_is_joined() -> None:
    # an inference calculator's "NVIDIA HGX B200 (8-GPU)": the bracket was set aside as a
    # qualifier and the board read as one GPU
    assert str(AcceleratorSpec.parse("NVIDIA HGX B200 (8-GPU)")) == "B200:8"
    assert str(AcceleratorSpec.parse("B200 (8 GPUs)")) == "B200:8"
    assert str(AcceleratorSpec.parse("A40 (compute mode)")) == "A40"  # a qualifier still is


def test_an_hgx_board_is_no_one_gpu() -> None:
    # catalog 2026.11.47: HGX-B200, HGX-B300 and HGX-B100 were aliases of one GPU
    for text in ("HGX-B200", "NVIDIA HGX B300", "HGX B100"):
        with pytest.raises(InvalidSpecError, match="is a node or pool"):
            AcceleratorSpec.parse(text)
    assert str(AcceleratorSpec.parse("HGX-B200:8")) == "B200:8"


def test_a_count_beside_a_tpu_slice_counts_slices_and_is_refused() -> None:
    # Google's TPU recipes: "4x-v6e-256" is four slices of 256 chips, not one slice of 256
    for text in ("4x-v6e-256", "collectives-2xv6e-256", "2x v6e-256"):
        with pytest.raises(UnknownAcceleratorError, match="counts slices"):
            AcceleratorSpec.parse(text)
    assert str(AcceleratorSpec.parse("v6e-256")) == "TPU-V6E@16x16:256"


def test_a_grace_superchips_nvlink_domain_of_any_size_counts_its_gpus() -> None:
    # the GB200 NVL4 board holds 4 Blackwell GPUs, the GH200 NVL2 2 superchips
    assert str(AcceleratorSpec.parse("GB200 NVL4")) == "GB200:4"
    assert str(AcceleratorSpec.parse("GB300-NVL4")) == "GB300:4"
    assert str(AcceleratorSpec.parse("GH200 NVL2")).startswith("GH200-96GB:2 | GH200-144GB:2")
    # beside any other GPU a small domain is a card's bridge or one GPU's system (DCGM's
    # "H20 NVL16" is one H20; H200 NVL cards bridge 2- or 4-way): the count is the spec's
    for text in ("H200 NVL4", "H20 NVL16", "h200 nvl1"):
        with pytest.raises(InvalidSpecError, match="is a node or pool"):
            AcceleratorSpec.parse(text)
    # a count given beside it must agree
    with pytest.raises(InvalidSpecError, match="already means a count of 4"):
        AcceleratorSpec.parse("GB200 NVL4:8")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("a100-pcie-40", "A100-40GB-PCIE!"),  # Grid'5000's short names: model, form, memory
        ("v100-sxm2-32", "V100-32GB-SXM2!"),
    ],
)
def test_a_memory_size_without_unit_may_follow_the_form_factor(text: str, canonical: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == canonical


def test_a_bare_number_that_could_be_a_count_after_the_form_factor_is_refused() -> None:
    with pytest.raises(UnknownAcceleratorError, match="'16' follows the model"):
        AcceleratorSpec.parse("p100-pcie-16")  # 16 GB, or 16 P100s?
