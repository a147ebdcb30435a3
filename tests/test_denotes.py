"""``AcceleratorSpec.parse(text, denotes=...)``: what a source's names stand for.

A name states a count or it does not. Read as a device (the default), ``H100`` is one H100. A
source whose names stand for nodes (HPC partitions, node pools, instance tiers) leaves the
count of a name that states none to its system: the reader refuses it rather than read 1. A
source whose names are products as sold counts a dual-GPU board's two devices. A source whose
list mixes those kinds reads a name as a device where a device's and a board's reading agree,
and refuses a product of several devices that states no count.
"""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec
from accelerators.errors import CountNotStatedError, InvalidSpecError, UnknownAcceleratorError


@pytest.mark.parametrize(
    ("text", "denotes", "canonical"),
    [
        # a name is one device by default, whatever it names
        ("Tesla K80", "device", "K80"),
        ("MI250", "device", "MI250"),
        # a board as sold holds its devices: the K80 and the MI250 two, the A16 four
        ("Tesla K80", "board", "K80:2"),
        ("MI250", "board", "MI250:2"),
        ("NVIDIA A16", "board", "A16:4"),
        ("2x MI250", "board", "MI250:4"),  # two boards
        ("H100", "board", "H100-SXM | H100-PCIE | H100-NVL"),  # one device per board
        # a share or a slice of a board stays what it says
        ("M60-2Q", "board", "M60:0.25"),
        # a count the spec itself gives is a count of devices, whatever the names stand for
        ("K80:3", "board", "K80:3"),
        # a node's name that states its count is read; a spec's count completes one that
        # does not; an instance type's count is its table's
        ("h100x8", "node", "H100-SXM:8"),
        ("gpu-a100:4", "node", "A100-40GB:4 | A100-80GB:4"),
        ("p4d.24xlarge", "node", "A100-40GB:8"),
        # a slice is no node
        ("A100@1g.10gb", "node", "A100-40GB@1g.10gb | A100-80GB@1g.10gb"),
        ("tpu-v5litepod-8", "node", "TPU-V5E@2x4:8"),
        # a mixed list: a name whose device and board readings agree is one device; a count
        # the name or the spec states, a slice or a share is read as it is
        ("H100", "mixed", "H100-SXM | H100-PCIE | H100-NVL"),
        ("NVIDIA A100", "mixed", "A100-40GB | A100-80GB"),
        ("gpu-a100:2", "mixed", "A100-40GB:2 | A100-80GB:2"),  # ("gpu-a100" alone: see below)
        ("2x MI250", "mixed", "MI250:2"),
        ("MI250:2", "mixed", "MI250:2"),
        ("k80x8", "mixed", "K80:8"),
        ("1x Tesla K80 (2 GPUs)", "mixed", "K80:2"),
        ("M60-2Q", "mixed", "M60:0.25"),
    ],
)
def test_names_read_as_what_their_source_says_they_stand_for(
    text: str, denotes: str, canonical: str
) -> None:
    assert str(AcceleratorSpec.parse(text, denotes=denotes)) == canonical


@pytest.mark.parametrize("text", ["gpu-a100", "H100", "gpu_a100", "NVIDIA Tesla K80"])
def test_a_node_name_that_states_no_count_is_refused_not_read_as_one(text: str) -> None:
    with pytest.raises(InvalidSpecError, match="denotes='node'") as info:
        AcceleratorSpec.parse(text, denotes="node")
    message = str(info.value)
    assert "how many devices it holds is not in the name" in message
    assert f"{text}:8" in message  # how to say it
    assert info.value.source == text
    assert "^" in message
    # read as devices, the same name is one device (the reading before denotes=)
    assert AcceleratorSpec.parse(text, denotes="device").count == 1


@pytest.mark.parametrize(
    ("text", "name", "devices"),
    [
        ("MI250", "MI250", 2),
        ("Tesla K80", "Tesla K80", 2),
        ("NVIDIA-A16", "NVIDIA-A16", 4),
        ("amd-mi250x", "amd-mi250x", 2),
        ("MI200", "MI200", 2),  # the MI250, MI250X and MI210: products that hold up to 2
        ("T4 | MI250", "MI250", 2),  # in a list of alternatives too, pointed at
    ],
)
def test_a_mixed_list_refuses_a_product_of_several_devices_that_states_no_count(
    text: str, name: str, devices: int
) -> None:
    with pytest.raises(CountNotStatedError, match="denotes='mixed'") as info:
        AcceleratorSpec.parse(text, denotes="mixed")
    message = str(info.value)
    assert f"{devices} devices" in message
    assert f"'{name}:1' for one device" in message
    assert f"'{name}:{devices}' for the board" in message
    assert info.value.name == name
    start, end = info.value.span
    assert text[start:end] == name  # the caret is under the name
    # each reading it stands between: one device, or the whole board
    assert AcceleratorSpec.parse(text, denotes="device").count == 1
    assert str(AcceleratorSpec.parse(f"{name}:{devices}", denotes="mixed")).endswith(f":{devices}")


@pytest.mark.parametrize("text", ["gpu-a40-1", "gpu-6000ada-3", "GPU-L40S-2"])
def test_a_number_after_a_model_and_a_device_word_is_no_count_in_a_mixed_list(text: str) -> None:
    # A cloud names its instance "GPU-L40S-2" (two L40S), a cluster its host "gpu-a40-1" (the
    # first of its A40 hosts, ten GPUs each): alike, so in a list of several kinds the number
    # is read as a count only beside a host figure, and refused with what else it may be
    with pytest.raises(UnknownAcceleratorError, match="a host's number"):
        AcceleratorSpec.parse(text, denotes="mixed")
    count = int(text.rsplit("-", 1)[1])
    assert AcceleratorSpec.parse(text, denotes="node").count == count  # an instance's
    assert AcceleratorSpec.parse(text).count == count  # a device list's, as before
    # beside a host figure the number is a count in a mixed list too
    assert AcceleratorSpec.parse("vm-16cpu-a40-2", denotes="mixed").count == 2


@pytest.mark.parametrize("text", ["gpu_h200", "gpu-l40", "GPU_L4", "gpu.mi100"])
def test_a_processor_word_before_the_model_may_start_a_partitions_name(text: str) -> None:
    # Yale's partition gpu_h200 holds nodes of 8, a Kueue flavour gpu-h100 names one GPU's
    # type: alike, so in a list of several kinds the count is the spec's to give
    with pytest.raises(CountNotStatedError, match="hosts' and partitions' names"):
        AcceleratorSpec.parse(text, denotes="mixed")
    assert AcceleratorSpec.parse(f"{text}:8", denotes="mixed").count == 8
    assert AcceleratorSpec.parse(text).count == 1  # one device each, as the default reads
    # glued (Exoscale's instance family), beside the host's figures (a cloud's flavour) or
    # with a count of its own, it still reads in a mixed list
    for name, count in [("gpua5000", 1), ("gpu-t4-16g-12cpu-128g", 1), ("GPU-h20-4Cards", 4)]:
        assert AcceleratorSpec.parse(name, denotes="mixed").count == count


def test_a_reading_with_denotes_leaves_the_next_reading_alone() -> None:
    AcceleratorSpec.parse("Tesla K80", denotes="board")
    with pytest.raises(InvalidSpecError):
        AcceleratorSpec.parse("gpu-a100", denotes="node")
    assert str(AcceleratorSpec.parse("Tesla K80")) == "K80"
    assert str(AcceleratorSpec.parse("gpu-a100")) == "A100-40GB | A100-80GB"


@pytest.mark.parametrize(
    ("value", "hint"),
    [("nodes", "did you mean 'node'"), ("Board", "did you mean 'board'"), (None, "got None")],
)
def test_denotes_must_be_one_of_four(value: object, hint: str) -> None:
    with pytest.raises(InvalidSpecError, match="Expected denotes= to be 'device'") as info:
        AcceleratorSpec.parse("H100", denotes=value)  # type: ignore[arg-type]
    assert hint in str(info.value)


def test_explain_reads_with_denotes_too() -> None:
    explained = AcceleratorSpec.explain("gpu-a100", denotes="node")
    assert explained.spec is None
    assert explained.error is not None
    assert "denotes='node'" in explained.error
    assert explained.names[0].result == "A100-40GB | A100-80GB"  # the name itself reads
    assert AcceleratorSpec.explain("Tesla K80", denotes="board").spec == "K80:2"


def test_the_cli_takes_denotes() -> None:
    typer_testing = pytest.importorskip("typer.testing")
    from accelerators.cli import build_app

    runner = typer_testing.CliRunner()
    app = build_app()
    board = runner.invoke(app, ["parse", "--denotes", "board", "Tesla K80"])
    assert board.exit_code == 0, board.output
    assert "K80:2" in board.stdout
    node = runner.invoke(app, ["parse", "--denotes", "node", "gpu-a100"])
    assert node.exit_code == 2
    assert "denotes='node'" in node.output
    mixed = runner.invoke(app, ["parse", "--denotes", "mixed", "MI250"])
    assert mixed.exit_code == 2
    assert "'MI250:2' for the board" in mixed.output
    wrong = runner.invoke(app, ["parse", "--denotes", "nodes", "gpu-a100"])
    assert wrong.exit_code == 2
    assert "did you mean 'node'" in wrong.output


@pytest.mark.parametrize("text", ["DGX-1 V100 32G", "gpu-a100-large", "HGX H100"])
def test_a_system_word_leaves_the_count_to_the_spec_whatever_denotes_says(text: str) -> None:
    # a DGX system, an instance size, an HGX board: the count is the system's, even read
    # as a device (a DGX-1's number is no count of its GPUs)
    for denotes in ("device", "board", "node"):
        with pytest.raises(CountNotStatedError, match="the system's to say"):
            AcceleratorSpec.parse(text, denotes=denotes)
    assert AcceleratorSpec.parse(f"{text}:8").count == 8


@pytest.mark.parametrize("text", ["32gb", "48g", "nvidia"])
def test_a_node_feature_with_no_model_states_no_count_either(text: str) -> None:
    # Mila's memory features ("32gb": nodes whose GPUs have 32 GB) and a bare vendor read as
    # a memory or vendor request of one device; a node's holds as many as the node has
    with pytest.raises(CountNotStatedError, match="denotes='node'"):
        AcceleratorSpec.parse(text, denotes="node")
    # in a list of several kinds (NJIT's GRES types "10gb", a MIG slice's memory; FlagGems'
    # runner "iluvatar") it may name a node too
    with pytest.raises(CountNotStatedError, match=r"may name a node.*denotes='mixed'"):
        AcceleratorSpec.parse(text, denotes="mixed")
    assert AcceleratorSpec.parse(text).count == 1
    assert AcceleratorSpec.parse(f"{text}:4", denotes="node").count == 4
    assert AcceleratorSpec.parse(f"{text}:4", denotes="mixed").count == 4


@pytest.mark.parametrize("name", ["gpu_v100_long", "gpu_p100_debug", "gpu-h200-141g-short"])
def test_a_scheduler_queues_word_leaves_the_count_to_the_spec(name: str) -> None:
    # an HPC partition's qualifier: its nodes hold as many GPUs as the site says, so even
    # read as a device the name is refused rather than read as one
    with pytest.raises(CountNotStatedError, match="scheduler queue"):
        AcceleratorSpec.parse(name)
    assert AcceleratorSpec.parse(f"{name}:4").count == 4


def test_a_queues_word_beside_a_stated_count_keeps_the_count() -> None:
    assert str(AcceleratorSpec.parse("gpuA100x4-interactive")) == "A100-40GB:4 | A100-80GB:4"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("NVIDIA A16 64GB", "A16:4"),  # the board's memory: its four GPUs, counted once
        ("mi250-128gb", "MI250:2"),
        ("1x Tesla K80 (2 GPUs)", "K80:2"),  # the bracket counts devices already
        ("4x A16 (16 GPUs)", "A16:16"),
        ("MI250 (2 GCD)", "MI250:2"),
        ("2x MI250", "MI250:4"),  # a count of boards: each holds two
    ],
)
def test_a_board_never_multiplies_a_count_of_devices(name: str, expected: str) -> None:
    # read as boards, a count the name gives in devices is not multiplied again (it read 16
    # for Dell's "A16 ... 64GB" option, and 4 K80 devices for "1x Tesla K80 (2 GPUs)")
    assert str(AcceleratorSpec.parse(name, denotes="board")) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("m1_max", "M1-MAX-32GB | M1-MAX-64GB"),  # InstructLab's profile of a Mac: one chip
        ("APPLE M2", "M2-8GB | M2-16GB | M2-24GB"),
        ("macos-m1-stable", "M1-8GB | M1-16GB"),
        ("jetson-orin-nano", "JETSON-ORIN-NANO-8GB | JETSON-ORIN-NANO-4GB"),  # one module
        ("GB10/DGX Spark", "GB10"),  # a DGX Spark holds one GB10
    ],
)
def test_a_node_of_a_device_a_machine_holds_one_of_counts_one(text: str, expected: str) -> None:
    # the catalog's per_machine: a Mac has one Apple chip, a Jetson one module
    spec = AcceleratorSpec.parse(text, denotes="node")
    assert str(spec) == expected
    assert spec.count == 1


@pytest.mark.parametrize(
    "text",
    [
        "M-2",  # a cloud's memory-optimised CPU size: no word says it is Apple's chip
        "m4pro.medium",  # an instance size: a slice of the machine, not the machine
        "gpu-a100",  # a server holds as many boards as its system says
        "gpu-gh200",  # a GH200 node may hold one to four superchips
    ],
)
def test_other_node_names_still_leave_the_count_to_their_system(text: str) -> None:
    with pytest.raises(CountNotStatedError):
        AcceleratorSpec.parse(text, denotes="node")


def test_explain_says_why_a_machine_word_leaves_no_count_open() -> None:
    explained = AcceleratorSpec.explain("GB10/DGX Spark")
    assert explained.spec == "GB10"
    dgx = next(t for t in explained.names[0].tokens if t.text == "DGX")
    assert dgx.role == "noise"
    assert "holds 1 of this device" in dgx.meaning  # not "the spec must give it (:N)"


def test_per_machine_is_set_only_where_the_product_fixes_it() -> None:
    from accelerators import catalog

    fixed = {a.model for a in catalog.all() if a.per_machine is not None}
    assert all(catalog.get(m).per_machine == 1 for m in fixed)
    apple = {a.model for a in catalog.all() if a.vendor == "apple"}
    jetson = {a.model for a in catalog.all() if a.model.startswith("JETSON-")}
    assert fixed == apple | jetson | {"GB10"}


@pytest.mark.parametrize("name", ["v100-full", "v100s.full", "a100-half"])
def test_a_whole_or_half_machine_leaves_the_count_to_the_spec(name: str) -> None:
    # BMRC's OpenStack flavour "v100-full" is a whole node of three V100s
    with pytest.raises(CountNotStatedError, match="instance size"):
        AcceleratorSpec.parse(name, denotes="mixed")
    assert AcceleratorSpec.parse(f"{name}:3").count == 3


def test_full_as_prose_is_no_machine_size() -> None:
    # Dell's "Single Wide Full Height GPU": the card's bracket, one L4
    name = "NVIDIA L4, PCIe, 72W, 24GB Passive, Single Wide Full Height GPU"
    assert str(AcceleratorSpec.parse(name, denotes="board")) == "L4"


@pytest.mark.parametrize("denotes", ["mixed", "node"])
@pytest.mark.parametrize("name", ["TPU v5e pod", "TPU v4 Pod", "TPU v3 slice"])
def test_a_tpu_pod_or_slice_without_its_size_is_refused_outside_a_device_list(
    name: str, denotes: str
) -> None:
    # a book's "TPU v5e pod" is 256 chips: a pod or slice word with no size is never one chip
    with pytest.raises(UnknownAcceleratorError, match="a pod or slice of how many chips"):
        AcceleratorSpec.parse(name, denotes=denotes)


def test_a_tpu_pod_word_names_the_type_in_a_device_list_and_a_size_settles_it() -> None:
    # Vertex AI's accelerator enum and GKE's label name the device's type: one chip each
    assert str(AcceleratorSpec.parse("TPU_V4_POD")) == "TPU-V4"
    assert str(AcceleratorSpec.parse("tpu-v5p-slice")) == "TPU-V5P"
    # with its size or topology, the slice is read in any list
    assert AcceleratorSpec.parse("16x16 TPU v3 slice", denotes="mixed").count == 256
    assert AcceleratorSpec.parse("v5litepod-16", denotes="mixed").count == 16


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("n1-standard-4-t4-1", "T4"),  # Conductor's machine: 4 vCPUs, one T4
        ("n1-standard-64-v100-8", "V100-16GB:8 | V100-32GB:8"),
    ],
)
def test_a_compute_engine_machine_types_vcpus_are_no_count(name: str, canonical: str) -> None:
    assert str(AcceleratorSpec.parse(name, denotes="mixed")) == canonical
    # without a count after the device, the machine's vCPUs never count its devices
    with pytest.raises(UnknownAcceleratorError, match="'n1' is not a word it can place"):
        AcceleratorSpec.parse("n1-standard-4-t4", denotes="mixed")
