"""NVIDIA vGPU type names (accelerators.catalog._vgpu) and the reader's words for CI labels and
inference profiles: operating systems, number formats, parallel degrees, CPU counts, sockets
and runners."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec
from accelerators.catalog import _store
from accelerators.errors import AcceleratorError, InvalidSpecError, UnknownAcceleratorError


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # board codes: NVIDIA's names for boards, read only inside a vGPU type
        ("A100D-16C", "A100-80GB-PCIE!:0.2"),  # 16 of 80 GB: one of 5
        ("A100DX-4C", "A100-80GB-SXM!:0.05"),
        ("A100X-40C", "A100-40GB-SXM!"),  # the whole framebuffer is one GPU
        ("A100-40C", "A100-40GB-PCIE!"),  # a plain A100 in a vGPU type is the PCIe 40GB card
        ("H100-40C", "H100-PCIE!:0.5"),  # and a plain H100 the PCIe 80GB card
        ("H100XM-80C", "H100-SXM!"),
        ("H100L-23C", "H100-NVL!:0.25"),  # 23 GB fits 4 times in the NVL's 94 GB
        ("H200-70C", "H200-NVL!:0.5"),
        ("V100D-16C", "V100-32GB-PCIE!:0.5"),
        ("V100L-16C", "V100-16GB-FHHL!"),  # the FHHL card, a SKU of catalog 2026.11.29
        ("A800-8C", "A800-40GB!:0.2"),  # a plain A800 in a vGPU type is the 40 GB active card
        ("RTX6000P-8Q", "QUADRO-RTX-6000!:0.3333333333333333"),
        # any other board is an ordinary name
        ("T4-16Q", "T4"),
        ("A10-12C", "A10:0.5"),
        ("L40S-1Q", "L40S:0.03125"),  # at most 32 per GPU, not the 48 its memory would hold
        ("GRID M60-0B", "M60:0.0625"),  # a "0" GB profile holds 512 MB: one of 16 per M60 GPU
        ("GRID M60-0Q", "M60:0.0625"),
        ("RTX5000-Ada-4Q", "RTX-5000-ADA:0.125"),
        ("RTX 6000 Ada-48C", "RTX-6000-ADA"),
        # MIG-backed types: one instance of the profile (+me with CME)
        ("A100-1-5C", "A100-40GB-PCIE!@1g.5gb"),
        ("A30-2-12CME", "A30@2g.12gb+me"),
        ("H100XM-1-10CME", "H100-SXM!@1g.10gb+me"),
        # the prefixes hypervisors and Kubernetes resources keep
        ("GRID A100D-80C", "A100-80GB-PCIE!"),
        ("grid_a100-40c", "A100-40GB-PCIE!"),
        ("nvidia.com/GRID_T4-1Q", "T4:0.0625"),
        ("NVIDIA A10-4Q", "A10:0.16666666666666666"),
    ],
)
def test_a_vgpu_type_reads_as_its_board_and_share(text: str, canonical: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == canonical


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("H800L-94C", "H800 PCIe 94GB \\(H800 NVL\\)"),  # not the catalog's SXM5 H800
        ("H800-80C", "H800 PCIe 80GB"),  # not the catalog's SXM5 H800
        ("H100XS-4-32C", "H100 SXM5 64GB"),
    ],
)
def test_a_vgpu_type_of_a_board_the_catalog_lacks_is_refused_naming_the_board(
    text: str, says: str
) -> None:
    with pytest.raises(UnknownAcceleratorError, match=says) as caught:
        AcceleratorSpec.parse(text)
    assert caught.value.name == text


@pytest.mark.parametrize(
    "text",
    [
        "A100-3-40C",  # no 3g.40gb instance on a 40 GB A100
        "A100D-96C",  # more than the 80 GB of the board the code names
        "RTX4090-4Q",  # NVIDIA's vGPU software runs on no GeForce card
        "A100D-1-5CME",  # the 80 GB A100 has no 1g.5gb instance
        "H100XM-10CME",  # ME comes only with a MIG-backed type
    ],
)
def test_a_vgpu_type_the_board_cannot_have_is_refused(text: str) -> None:
    with pytest.raises(AcceleratorError):
        AcceleratorSpec.parse(text)


def test_slices_before_a_size_on_a_board_without_mig_are_left_to_the_token_reader() -> None:
    # an L4 has no MIG: "l4-1-8c" is no MIG-backed vGPU type, and the reader places the numbers
    # (or refuses naming them); a board with MIG but not that profile is refused as a vGPU type
    with pytest.raises(UnknownAcceleratorError) as caught:
        AcceleratorSpec.parse("l4-1-8c")
    assert "MIG-backed" not in str(caught.value)
    with pytest.raises(UnknownAcceleratorError, match="MIG-backed"):
        AcceleratorSpec.parse("A100-3-40C")


def test_a_size_larger_than_the_board_after_an_ordinary_name_is_host_cores() -> None:
    # Ori's "l40s-112c": 112 host cores beside an L40S, no 112 GB vGPU type
    assert str(AcceleratorSpec.parse("l40s-112c")) == "L40S"


def test_every_vgpu_board_code_names_a_catalog_sku_or_none() -> None:
    from accelerators import catalog

    boards = _store.LOADED.file().vgpu_boards
    assert {b.code for b in boards} >= {"A100D", "H100XM", "H100L", "A800", "H800"}
    for board in boards:
        if board.sku:
            assert catalog.get(board.sku).name == board.sku
        assert board.source in catalog.sources()


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # NIM's and TensorRT-LLM's profiles: number formats and serving words say nothing of
        # the device; tp x pp counts the devices
        ("tensorrt_llm-b200-fp8-tp1-pp1-throughput", "B200"),
        ("tensorrt_llm-h100_nvl-fp8-tp2-pp2-throughput", "H100-NVL:4"),
        ("vllm-a10g-bf16-tp4-latency", "A10G:4"),
        # CI runner labels: operating systems and runtimes are noise
        ("linux-a100", "A100-40GB | A100-80GB"),
        ("cuda_a10g", "A10G"),
        # UpCloud's plans: 12xCPU is 12 vCPUs and 128GB beside it the host's RAM
        ("GPU-12xCPU-128GB-1xL4", "L4"),
        ("GPU-96xCPU-1920GB-8xH100", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8"),
        # DGX Spark is the GB10 superchip (a DGX system's count is the spec's:
        # tests/test_runner_labels.py)
        ("DGX Spark", "GB10"),
    ],
)
def test_words_of_ci_labels_profiles_and_plans(text: str, canonical: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == canonical


def test_a_parallel_degree_given_twice_or_zero_is_refused() -> None:
    with pytest.raises(UnknownAcceleratorError, match="parallel degree twice"):
        AcceleratorSpec.parse("h100-tp2-tp4")
    with pytest.raises(UnknownAcceleratorError, match="0 devices"):
        AcceleratorSpec.parse("h100-tp0")


def test_noise_words_run_together_are_one_unknown_word() -> None:
    # TensorRT-LLM's CI label b200-trtllm is a 4-GPU runner: "trt" + "llm" glued is no word the
    # vocabulary knows, and an unknown word may hide a count
    with pytest.raises(UnknownAcceleratorError, match="'trtllm' is not a word"):
        AcceleratorSpec.parse("b200-trtllm")
    # a case change separates them
    assert str(AcceleratorSpec.parse("DataCenter H100")) == "H100-SXM | H100-PCIE | H100-NVL"


@pytest.mark.parametrize(
    ("text", "counted", "read"),
    [
        ("DGX1-V100-CPU-SOCKET", "DGX1-V100-CPU-SOCKET:4", "V100-16GB:4 | V100-32GB:4"),
        ("amd-mi355x-runner", "amd-mi355x-runner:8", "MI355X:8"),
    ],
)
def test_a_socket_or_a_runner_leaves_the_count_to_the_spec(
    text: str, counted: str, read: str
) -> None:
    with pytest.raises(InvalidSpecError, match="is a node or pool"):
        AcceleratorSpec.parse(text)
    assert str(AcceleratorSpec.parse(counted)) == read


def test_explain_names_the_new_roles() -> None:
    lines = AcceleratorSpec.explain("tensorrt_llm-h100_nvl-fp8-tp2-pp2-throughput")
    text = str(lines)
    assert "tensor-parallel degree 2" in text
    assert "a number format" in text


def test_explain_reads_a_vgpu_type_part_by_part() -> None:
    from accelerators.catalog._explain import explain_name

    reading = explain_name("GRID A100D-1-10CME")
    assert reading.method == "vGPU type"
    parts = [(t.text, t.role) for t in reading.tokens]
    assert parts == [
        ("GRID", "product line"),
        ("A100D", "vgpu board"),
        ("1", "partition"),
        ("10C", "vgpu profile"),
        ("ME", "partition"),
    ]
    assert "A100 PCIe 80GB" in reading.tokens[1].meaning
    assert reading.result == "A100-80GB-PCIE!@1g.10gb+me"
    assert "one of 4 per GPU" in explain_name("H100L-23C").tokens[-1].meaning
