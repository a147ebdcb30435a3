"""The structured name reader (``accelerators/catalog/_reader.py``): names no catalog spelling
carries, read by their parts; refused, with the reason, when the parts do not name one entry."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec
from accelerators.catalog._names import resolve_name
from accelerators.errors import AcceleratorError, InvalidSpecError, UnknownAcceleratorError

READ = [
    # (name, model, count, partition): driver, pci.ids, benchmark and config names
    ("GH100 [H100 SXM5 80GB]", "H100-SXM", None, None),
    ("GA100 [A100 PCIe 80GB]", "A100-80GB", None, None),
    # memory variants that are their own models (catalog 2026.11.11)
    ("NVIDIA RTX A2000 12GB", "RTX-A2000-12GB", None, None),
    ("NVIDIA GeForce RTX 4060 Ti 8GB", "RTX-4060-TI-8GB", None, None),
    ("NVIDIA GeForce RTX 4060 Ti 16GB", "RTX-4060-TI-16GB", None, None),
    ("RTX 5060 Ti:16GB", "RTX-5060-TI-16GB", None, None),
    ("Aqua Vanjaram [Instinct MI300X VF]", "MI300X", None, None),
    ("AMD Instinct MI300X VF", "MI300X", None, None),
    ("AMD_Instinct_MI300XHF_OAM", "MI300X", None, None),
    ("HGX-H100_H100-SXM-80GBx16_TRT", "H100-SXM", 16, None),
    ("B200-SXM-180GBx1_TRT", "B200", 1, None),
    ("8xMI300X_2xEPYC_9534", "MI300X", 8, None),  # 2 is the CPUs
    ("SR680a_V3_B200SXMx8_TRT", "B200", 8, None),
    ("HPE_PROLIANT_DL385_H200NVL_PCIE_141GBx2_TRT_TRT", "H200-NVL", 2, None),
    ("GB200-NVL72_GB200-186GB_aarch64x72_TRT", "GB200", 72, None),
    ("NVIDIA GH200 Grace Hopper Superchip 144GB", "GH200-144GB", None, None),
    ("R7715-H100-NVL-94GBx3_TRT", "H100-NVL", 3, None),
    ("gpu_8x_h100_sxm5", "H100-SXM", 8, None),
    ("gpu_1x_h100_pcie", "H100-PCIE", 1, None),
    ("Ponte Vecchio XT (2 Tile) [Data Center GPU Max 1550]", "MAX-1550", None, None),
    ("GB202GL [RTX PRO 6000 Blackwell Max-Q Workstation Edition]", "RTX-PRO-6000", None, None),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition MIG 1g.24gb", "RTX-PRO-6000", None, "1g.24gb"),
    ("TPU v6 lite", "TPU-V6E", None, None),  # JAX: Google's 'lite' TPUs are the 'e' ones
    # catalog 2026.11.6: SKUs and spellings the held-out corpus asked for
    ("GP100GL [Tesla P100 SXM2 16GB]", "P100", None, None),
    ("GP100GL [Tesla P100 PCIe 12GB]", "P100-12GB", None, None),
    ("GA100 [A800-SXM4-80GB]", "A800", None, None),
    ("GH100 [H100L 94GB]", "H100-NVL", None, None),
    ("HL-2000 AI Training Accelerator [Gaudi]", "GAUDI1", None, None),
    ("TPU v5", "TPU-V5P", None, None),  # JAX's device_kind of a v5p chip
    ("NVIDIA_GeForce_RTX_4090_D", "RTX-4090-D", None, None),
    ("Navi 32 GL-XL [AMD Radeon PRO V710]", "V710", None, None),
]


@pytest.mark.parametrize(("name", "model", "count", "partition"), READ, ids=[r[0] for r in READ])
def test_reads_names_by_their_parts(
    name: str, model: str, count: int | None, partition: str | None
) -> None:
    found = resolve_name(name)
    assert (found.accelerator.model, found.count, found.partition) == (model, count, partition)
    spec = AcceleratorSpec.parse(name)
    assert spec.accelerator is not None
    assert spec.accelerator.model == model
    assert spec.count == (count or 1)


def test_the_sku_the_parts_name_is_pinned() -> None:
    assert resolve_name("gpu_1x_h100_pcie").accelerator.name == "H100-PCIE"
    workstation = resolve_name("GB202GL [RTX PRO 6000 Blackwell Max-Q Workstation Edition]")
    assert (workstation.accelerator.name, workstation.pinned) == ("RTX-PRO-6000-MAXQ", True)


REFUSED = [
    # a variant the catalog does not carry is never read as its base model
    ("NVIDIA GeForce RTX 5090 D", "'d' follows the model"),
    ("NVIDIA_GeForce_RTX_5090_D", "'d' follows the model"),
    ("NVIDIA GeForce RTX 3050 Ti", "'ti' follows the model"),
    # a memory variant the catalog does not carry (a 5 GB GTX 1060, a 16 GB RTX 3070) is not
    # the ones it carries, nor another model of that memory
    ("NVIDIA GeForce GTX 1060 5GB", "has 5 GB \\(it has 3, 6 GB\\)"),
    ("NVIDIA GeForce RTX 3070 16GB", "has 16 GB \\(it has 8 GB\\)"),
    ("GK104GL [GRID K2]", "Cannot read|Unknown accelerator"),
    ("AD102GL [L40G]", "Unknown accelerator"),
    # a size, form factor or memory type no entry of that model has
    ("NVIDIA A100-SXM-64GB", "no A100 in the catalog has 64 GB"),
    ("GH100 [H100 SXM5 94GB]", "no H100 in the catalog is sxm"),
    ("NVIDIA H800 NVL", "no H800 in the catalog is nvl"),
    # two boards, two accelerators, a count that is not the accelerator's
    ("TU102GL [Quadro RTX 6000/8000]", "a choice of boards"),
    ("16xMI325X_8xMI300X_2xEPYC_9575F", "more than one accelerator"),
    ("H100-SXM-4-80G!", "Cannot read|Unknown"),  # not a catalog or instance name either
    ("H100 SXM 4", "'4' follows"),
]


@pytest.mark.parametrize(("name", "message"), REFUSED, ids=[r[0] for r in REFUSED])
def test_refuses_what_it_cannot_read_exactly(name: str, message: str) -> None:
    with pytest.raises(UnknownAcceleratorError, match=message):
        resolve_name(name)


def test_a_choice_of_boards_that_are_one_entry_is_that_entry() -> None:
    # pci.ids 10de:2342: the GH200 with 120 GB or 480 GB of CPU memory, one 96 GB HBM3 GPU
    found = resolve_name("GH100 [GH200 120GB / 480GB]")
    assert (found.accelerator.name, found.count) == ("GH200-96GB", None)
    # a choice between two entries reads as both, each a fallback of the one before
    # (torchtune's "RTX 3090/4090": either card runs the recipe), as dstack's "A,B" does
    choice = resolve_name("GH200 96GB / 144GB")
    assert [a.name for a in (choice.accelerator, *choice.family)] == ["GH200-96GB", "GH200-144GB"]
    assert str(AcceleratorSpec.parse("RTX 3090/4090")) == "RTX-3090 | RTX-4090"
    assert str(AcceleratorSpec.parse("A10/A30/A100")) == "A10 | A30 | A100-40GB | A100-80GB"
    # ... but only when every alternative reads alone as a whole board: a lone number, a
    # count or a pool is no board, and the choice stays refused with its candidates
    with pytest.raises(UnknownAcceleratorError, match="a choice of boards") as info:
        resolve_name("V100/3090")
    assert "V100-16GB" in info.value.suggestions
    with pytest.raises(InvalidSpecError, match="node or pool"):
        AcceleratorSpec.parse("H100/DGX H100")  # a DGX: its count is its system's to say
    # ... unless the product fixes it: a DGX Spark holds one GB10 (the catalog's per_machine)
    assert AcceleratorSpec.parse("GB10/DGX Spark").count == 1


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("V100/S", "V100-16GB | V100-32GB | V100S"),  # a reseller's row: a V100 or a V100S
        ("GTX 1070/Ti", "GTX-1070 | GTX-1070-TI"),
        ("RTX 4090/D", "RTX-4090 | RTX-4090-D"),
        ("RX 6800/XT", "RX-6800 | RX-6800-XT"),
    ],
)
def test_a_suffix_after_a_slash_offers_the_card_with_it_as_well(name: str, expected: str) -> None:
    # The loose spellings would run "V100/S" together into a V100S, dropping the V100 the name
    # offers first: the choice reads as both cards, the one without the suffix first.
    assert str(AcceleratorSpec.parse(name)) == expected
    # a suffix that makes no card of that number stays refused
    with pytest.raises(UnknownAcceleratorError):
        resolve_name("A100/Q")


def test_pinned_skus_of_a_variant_keep_their_figures() -> None:
    sxm = resolve_name("NVIDIA A800-SXM4-80GB")
    assert (sxm.accelerator.name, sxm.pinned) == ("A800-SXM", True)
    assert (sxm.accelerator.tdp_w, sxm.accelerator.bandwidth_tbps) == (400, 2.039)
    pcie = resolve_name("NVIDIA A800 80GB PCIe")
    assert (pcie.accelerator.name, pcie.accelerator.tdp_w) == ("A800", 300)
    p100 = resolve_name("Tesla P100-SXM2-16GB")
    assert (p100.accelerator.name, p100.accelerator.tflops["fp32"]) == ("P100-SXM2", 10.61)


def test_a_refusal_names_the_candidates() -> None:
    with pytest.raises(UnknownAcceleratorError) as info:
        resolve_name("16xMI325X_8xMI300X_2xEPYC_9575F")
    assert set(info.value.suggestions) == {"MI325X", "MI300X"}


def test_names_that_name_nothing_still_get_close_matches() -> None:
    with pytest.raises(UnknownAcceleratorError, match="did you mean"):
        resolve_name("H10O")


#: Names the fourteenth to eighteenth fresh corpora (and earlier ones) wrote that the reader
#: reads since, each with what it reads as (issue 32; the corpora's rows are guarded in
#: tests/test_peer_names.py, these pin the reading of each kind of name).
READ_FROM_CORPORA: list[tuple[str, str | None]] = [
    # the fourteenth corpus's spellings
    ("TPU4", "TPU-V4"),  # a generation glued to TPU, without its v
    ("tpu3", "TPU-V3"),
    ("TPU5e", "TPU-V5E"),
    ("XavierNX", "JETSON-XAVIER-NX-8GB | JETSON-XAVIER-NX-16GB"),  # Jetson's line word left out
    ("AGX Orin", "JETSON-AGX-ORIN-64GB | JETSON-AGX-ORIN-32GB"),
    ("Orin NX 16GB", "JETSON-ORIN-NX-16GB"),
    ("NVIDIA L20 PCle", "L20"),  # PCIe with a lower-case L
    ("Tesla V100-DGXS-32GB", "V100-32GB-SXM2!"),  # what nvidia-smi names a DGX Station's V100s
    ("NVIDIA Tesla K40s", "K40"),
    ("GeForce RTX 2060 KO 6 GB", "RTX-2060:6GB"),  # a board partner's edition word
    ("ASUS KO GeForce RTX 3060 Ti Gaming OC", "RTX-3060-TI"),
    # the earlier corpora's spellings
    ("Intel(R) Arc(tm) Pro A60 Graphics", "ARC-PRO-A60"),  # the sign cuts Arc from the card
    ("B580", "ARC-B580"),
    ("TPUv6", "TPU-V6E"),  # Google's only v6 is the v6e
    ("win10_nvidia_gtx_1660_experimental", "GTX-1660"),  # an OS and a release channel
    ("NVIDIA Ampere A10, PCIe, 150W, 24GB,GPU, V2", "A10"),  # commas that qualify one board
    ("NVIDIA Tesla T4 16GB, PCIe, 70W, Passive, Single Wide, Low Profile GPU", "T4"),
    ("A100, PCIe", "A100-40GB | A100-80GB"),
    # commas between alternatives keep their meaning
    ("A10,A10G:2", "A10:2 | A10G:2"),  # commas between boards stay alternatives
    ("A100, 80GB", "A100-40GB | A100-80GB | 80GB"),  # a memory request of its own
    ("A100, nvidia", "A100-40GB | A100-80GB | nvidia"),
    # AMD's bare series and model numbers
    ("MI350", "MI355X | MI350X"),  # AMD's MI350 series: two cards
    ("mi35x", "MI355X | MI350X"),
    ("linux.rocm.gpu.mi355.1", "MI355X"),
    ("AMD MI308", "MI308X"),
    # a PCIe link's lanes and Apple's GPU cores are no count (the fifteenth corpus's run)
    # the fifteenth corpus's one run read Raspberry Pi PCIe cards' "PCIe x16" as 16 devices
    # and Apple's "(48 GPU Core)" as 48
    ("AMD Radeon RX 6700 XT 12GB PCIe x16", "RX-6700-XT"),  # a slot's lanes, not 16 cards
    ("RTX 4090 PCIe 4.0 x16", "RTX-4090"),
    ("RX 6600 XT PCIe 4.0 x8", "RX-6600-XT"),
    ("A100 PCIe Gen4 x16", "A100-40GB | A100-80GB"),
    ("A100 PCIe x8", "A100-40GB:8 | A100-80GB:8"),  # a bare PCIe x8 may count eight cards
    ("H100 x16", "H100-SXM:16 | H100-PCIE:16 | H100-NVL:16"),
    ("M1 Ultra (48 GPU Core) 64GB", "M1-ULTRA-64GB | M1-ULTRA-128GB"),  # the chip's cores
    # a constant's identifier pins its SKU only written as such (the sixteenth corpus's run)
    # four unseen corpora's systems meant the 80 GB A100 PCIe or either V100 by these words
    ("A100_PCIE", "A100-40GB-PCIE!"),  # the constant's identifier: flytekit's 40 GB card
    ("A100-PCIe", "A100-40GB | A100-80GB"),  # the words: the A100 PCIe card of either size
    ("a100_pcie", "A100-40GB | A100-80GB"),
    ("V100_PCIE", "V100-16GB-PCIE!"),
    ("V100-PCIe", "V100-16GB | V100-32GB"),
    ("A100-PCIE-40GB", "A100-40GB-PCIE!"),  # a size the name states stays pinned
    # a card's retail edition names its GPU (the fifteenth corpus's run)
    ("Intel Arc A310 ECO", "ARC-A310"),
    ("Intel Arc A750 Limited Edition", "ARC-A750"),
    # Intel's data-centre series names (the sixteenth corpus's run)
    ("Max Series", "MAX-1550 | MAX-1100"),
    ("Intel Flex Series", "FLEX-170 | FLEX-140"),
    # the seventeenth corpus's spellings
    ("SM75_RTX2060_S", "RTX-2060-SUPER"),  # compute capability 7.5: the RTX 2060 SUPER's
    ("SM7_TITANV", "TITAN-V"),  # a major version alone: any 7.x
    ("sm100_b200", "B200"),
    ("A2 x86", "A2"),  # the CPU architecture, not 86 devices
    ("TPU_V7X", "TPU-V7"),
    # a memory type word narrows by its generation
    ("P100_HBM", "P100:16GB | P100-12GB"),  # HBM alone: any HBM generation (the P100's is HBM2)
    ("H100 HBM3", "H100-SXM | H100-NVL"),  # a generation: the PCIe H100's is HBM2e
    ("RTX 4090 GDDR6X", "RTX-4090"),
    # the eighteenth corpus's spellings
    ("NVIDIA Jetson AGX Xavier (32 GB ram)", "JETSON-AGX-XAVIER-32GB"),  # its shared memory
    ("M2 Max 64 GB RAM", "M2-MAX-64GB"),
    ("RTX 4090 (64 GB ram)", "RTX-4090"),  # a card's host RAM: the machine's
    ("Google TPU v7 Ironwood 192GB HBM3e", "TPU-V7"),  # the catalog says only "HBM"
    ("nvidia-b200-192gb", "B200"),  # the 192 GB the board carries (180 usable)
    # the nineteenth corpus's spellings
    ("[self-hosted, linux, x64, gpu, b200, 1gpu]", "B200"),  # x64 after the OS: no 64 devices
    ("linux-x64-h100", "H100-SXM | H100-PCIE | H100-NVL"),
    ("H100 x64", "H100-SXM:64 | H100-PCIE:64 | H100-NVL:64"),  # elsewhere it counts
    ("gpu-T4-trt7.1-fp32", "T4"),  # a software stack's version: the build, not the device
    ("MI300X-py310", "MI300X"),
    ("h100-cuda12.4", "H100-SXM | H100-PCIE | H100-NVL"),
    ("mi300x-rocm6.2", "MI300X"),
    ("cuda-t4-0", None),  # a bare index after the model stays unread (not a version)
    ("orin-nx-16gb-benchmarks", "JETSON-ORIN-NX-16GB"),  # what a CI job or benchmark does
    ("UnitTestMI300X", "MI300X"),
    ("NcclTestH100", "H100-SXM | H100-PCIE | H100-NVL"),
    ("sglang-model-accuracy-mi308", "MI308X"),
    # a developer kit is the module on its carrier board (the earlier corpora's top unplaced word)
    ("jetson-agx-orin-devkit-64gb", "JETSON-AGX-ORIN-64GB"),
    ("NVIDIA Jetson Orin Nano (Developer kit)", "JETSON-ORIN-NANO-8GB | JETSON-ORIN-NANO-4GB"),
    # the 2 GB Nano is in the catalog since the cat-jetson entries: a name that says no memory
    # (bar the plain "Jetson Nano", NVIDIA's name of the 4 GB module) is the Nano family
    ("jetson-nano-devkit-emmc", "JETSON-NANO-4GB | JETSON-NANO-2GB"),
    # the twentieth corpus's spellings
    ("A100-SXM4-40GB_1g_5gb", "A100-40GB-SXM!@1g.5gb"),  # a MIG profile with underscores
    ("h100-1g-80gb", None),  # a shape no H100 has as a profile: refused, never read
    ("onnxruntime-Win2022-GPU-T4", "T4"),  # an OS with its version
    ("linux-ubuntu2204-a10", "A10"),
    ("MI300A APUs (128GB)", "MI300A"),  # an APU is a device word
    ("kA10", None),  # LiteRT's enum for Apple's A10 chip: its k is no separator
    # catalog 2026.11.40's Apple chips
    ("Apple M3 Ultra", "M3-ULTRA-96GB | M3-ULTRA-256GB | M3-ULTRA-512GB"),
    ("M4 Max 128GB", "M4-MAX-128GB"),
    ("m4max128", None),  # the x of "max" marks no count: not 128 M4 Max chips
    ("m3max48", None),
    # the twenty-first corpus's spellings
    ("nvidia-k40c-ecc-on", "K40"),  # the board's ECC setting
    ("nvidia-k80-ecc-off", "K80"),
    # the twenty-second corpus's spellings
    ("Quadro_P2000_Mobile_tp1", None),  # a laptop's GPU the catalog lacks, not the desktop card
    ("2x RTX 3060 mobile", None),
    ("8x RTX 4090 Laptop", "RTX-4090-LAPTOP:8"),  # a laptop SKU the catalog carries
    # the twenty-third corpus's spellings
    ("3x3090", "RTX-3090:3"),  # a count glued before a card's number, as "3x 3090" reads
    ("8x3070", "RTX-3070:8"),
    ("3x3090_v1", "RTX-3090:3"),
    ("16x1024", None),  # no card's number: unread
    ("H100_80GB_PCIe5", "H100-PCIE"),  # a PCIe slot's generation glued to the word
    ("A100_PCIE4_40GB", "A100-40GB-PCIE!"),
    ("8xH100_80GB_PCIe5_v1", "H100-PCIE:8"),
    ("H100 PCIe5 x16", "H100-PCIE"),  # a PCIe 5 link's lanes, not 16 cards
    ("H100 PCIe5 x8", "H100-PCIE"),  # after the version, any width is the link's
    ("H100 PCIe x8", "H100-PCIE:8"),  # no version: the x8 may count eight cards
    ("mi300x8", "MI300X:8 | MI325X:8 | MI300A:8 | MI308X:8"),  # a one-digit count after x stays
    # the twenty-fourth corpus's spellings
    ("4x H100/H200", "H100-SXM:4 | H100-PCIE:4 | H100-NVL:4 | H200-SXM:4 | H200-NVL:4"),
    ("16x B100/B200", "B100:16 | B200:16"),  # a count before a choice: that many of either
    ("H100/H200 x8", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8 | H200-SXM:8 | H200-NVL:8"),
    ("Quadro RTX 6000/8000 x2", "QUADRO-RTX-6000:2 | QUADRO-RTX-8000:2"),  # refused before
    # catalog 2026.11.42: a TPU7x slice's size counts TensorCores, two per chip, as v5p's
    ("tpu7x-8", "TPU-V7@2x2x1:4"),  # one 4-chip VM
    ("v7x-16", "TPU-V7@2x2x2:8"),
    ("tpu7x-7", None),  # an odd number of TensorCores is no slice
]


@pytest.mark.parametrize(
    ("name", "expected"), READ_FROM_CORPORA, ids=[r[0] for r in READ_FROM_CORPORA]
)
def test_reads_the_kinds_of_names_the_later_corpora_wrote(name: str, expected: str | None) -> None:
    if expected is None:
        with pytest.raises(UnknownAcceleratorError):
            AcceleratorSpec.parse(name)
        return
    assert str(AcceleratorSpec.parse(name)) == expected


@pytest.mark.parametrize("name", ["tpu-4", "tpu 4", "orin", "nano"])
def test_a_bare_tpu_number_or_jetson_word_names_no_device(name: str) -> None:
    # "tpu-4" may be four TPUs; "orin" and "nano" alone are too short to name one module
    with pytest.raises(UnknownAcceleratorError):
        AcceleratorSpec.parse(name)


@pytest.mark.parametrize("name", ["jetson-nano-emmc", "jetson-nano-qspi"])
def test_a_boards_storage_word_is_a_host_figure(name: str) -> None:
    # Jetson Linux's flash configurations name the module's boot storage, not its memory:
    # the storage word is set aside and the name is the Nano family (4 and 2 GB modules)
    assert str(AcceleratorSpec.parse(name)) == "JETSON-NANO-4GB | JETSON-NANO-2GB"


def test_a_bare_mi325_is_the_mi325x() -> None:
    # AMD makes no other MI325 (catalog 2026.11.45): AMD's own CI runners (SHARK, TheRock, IREE)
    # and SGLang's name their MI325X machines mi325; until then it stayed unread, as SGLang's
    # docs group its runners as MI30x (MI300X or MI325X)
    assert str(AcceleratorSpec.parse("MI325")) == "MI325X"
    assert str(AcceleratorSpec.parse("linux-mi325-4gpu-sglang")) == "MI325X:4"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("sm90_a100", "compute capability 9.0"),  # an A100 is 8.0: the name contradicts itself
        ("QUADRO-V100", "Quadro card"),  # no Tesla board is a Quadro card (the Quadro GV100 is)
    ],
)
def test_a_name_whose_parts_disagree_is_refused(name: str, message: str) -> None:
    with pytest.raises(UnknownAcceleratorError, match=message):
        AcceleratorSpec.parse(name)


def test_a_memory_generation_the_model_lacks_is_refused() -> None:
    with pytest.raises(UnknownAcceleratorError, match="GDDR6 memory"):
        AcceleratorSpec.parse("RTX 4090 GDDR6")  # GDDR6X is another memory


@pytest.mark.parametrize("name", ["NVIDIA Jetson AGX Xavier (8 GB ram)"])
def test_a_unified_memory_size_the_catalog_lacks_is_refused(name: str) -> None:
    # the 8 GB AGX Xavier module is not in the catalog: the bracket was set aside and the
    # name read as the 32 GB module
    with pytest.raises(UnknownAcceleratorError, match="in the catalog has"):
        AcceleratorSpec.parse(name)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("NVIDIA Jetson Nano (2 GB ram)", "JETSON-NANO-2GB"),
        ("NVIDIA Jetson AGX Xavier (16 GB ram)", "JETSON-AGX-XAVIER-16GB"),
        ("NVIDIA Jetson AGX Xavier (64 GB ram)", "JETSON-AGX-XAVIER-64GB"),
        ("NVIDIA Jetson AGX Xavier Industrial (32 GB ram)", "JETSON-AGX-XAVIER-INDUSTRIAL"),
        ("NVIDIA Jetson TX2 (4 GB ram)", "JETSON-TX2-4GB"),
        ("jetson-nano-2gb-devkit", "JETSON-NANO-2GB"),
        ("NVIDIA Jetson AGX Xavier 16GB", "JETSON-AGX-XAVIER-16GB"),
    ],
)
def test_a_jetson_module_s_stated_memory_picks_it(name: str, expected: str) -> None:
    # jtop's "(N GB ram)" and a devkit's size pick the module of that memory (cat-jetson)
    assert str(AcceleratorSpec.parse(name)) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Jetson TX2", "JETSON-TX2-8GB | JETSON-TX2-4GB"),
        ("NVIDIA Jetson TX2", "JETSON-TX2-8GB | JETSON-TX2-4GB"),
        (
            "Jetson AGX Xavier",
            "JETSON-AGX-XAVIER-32GB | JETSON-AGX-XAVIER-16GB | JETSON-AGX-XAVIER-64GB",
        ),
        ("Jetson TX2i", "JETSON-TX2I"),  # named apart: not in the TX2 open name
        ("NVIDIA Jetson TX2 NX", "JETSON-TX2-NX"),
        ("NVIDIA Jetson TX1", "JETSON-TX1"),
        ("Jetson Nano", "JETSON-NANO-4GB"),  # NVIDIA's plain name of the 4 GB module
    ],
)
def test_a_bare_jetson_name_is_its_module_or_its_open_family(name: str, expected: str) -> None:
    assert str(AcceleratorSpec.parse(name)) == expected


def test_jetson_xavier_alone_stays_unread() -> None:
    # "Jetson Xavier" may be an AGX Xavier or a Xavier NX: no family of the catalog's
    with pytest.raises(UnknownAcceleratorError):
        AcceleratorSpec.parse("jetson-xavier")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # JupyterHub profile names: the board, then the host's figures after commas, some
        # approximate ("~"); a size in brackets with "VRAM" is the board's
        ("NVIDIA Tesla T4, ~16 GB, ~4 CPUs", "T4"),
        ("NVIDIA Tesla T4 [16GB VRAM], ~30GB RAM, 8 CPUs", "T4"),
        ("NVIDIA A100 [40GB VRAM], ~85GB RAM, 12 CPUs", "A100-40GB"),
        ("NVIDIA A100, ~80 GB, ~4 CPUs", "A100-80GB"),
        # a host figure after a comma is no count: one A100 (its family), not 8
        ("NVIDIA A100, 8 CPUs", "A100-40GB | A100-80GB"),
        # an operating system's release in a runner label, and Tenstorrent's architectures
        ("ubuntu-22.04-h100", "H100-SXM | H100-PCIE | H100-NVL"),
        ("tt-ubuntu-2204-n300-stable", "WORMHOLE-N300"),
        ("wh_n150_civ2", "WORMHOLE-N150"),
        ("bh_p150_perf", "BLACKHOLE-P150"),
        ("P150b-viommu", "BLACKHOLE-P150"),
        # a kernel driver beside the card (LACT's fixtures)
        ("a380-i915", "ARC-A380"),
        # CANN's SoC names (torch_npu's socVersionMap): a 910B bin, an Atlas A3 die
        ("Ascend910B1", "ASCEND-910B"),
        ("Ascend910B2C", "ASCEND-910B"),
        ("Ascend910_9391", "ASCEND-910C"),
    ],
)
def test_reads_the_names_the_twenty_seventh_corpus_taught(name: str, expected: str) -> None:
    assert str(AcceleratorSpec.parse(name, denotes="device")) == expected


@pytest.mark.parametrize(
    "name",
    [
        "A100, 8",  # a bare number after a comma: a count? refused, never dropped
        "wh_a100",  # a Wormhole word beside an NVIDIA board: the parts disagree
        "bh_n300",  # a Blackhole word beside a Wormhole board
        "ubuntu-2404-8",  # a release, then a number with no model to count
    ],
)
def test_the_new_words_place_nothing_they_do_not_fit(name: str) -> None:
    with pytest.raises(AcceleratorError):
        AcceleratorSpec.parse(name)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # a recipe's name: the ML model and its size, the workload, the count and the board
        ("llama3_8b_pretrain_8gpu_b200_bf16_config", "B200:8"),
        ("gpt_oss_120b_pretrain_64gpu_gb200_bf16_config", "GB200:64"),
        # an NVIDIA vGPU profile is still one where no ML model is named before it
        ("GRID T4-2B", "T4:0.125"),
    ],
)
def test_an_ml_model_s_size_is_no_vgpu_profile(name: str, expected: str) -> None:
    assert str(AcceleratorSpec.parse(name, denotes="device")) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("NV_A100", "A100-40GB | A100-80GB"),  # TritonBench's and DeepBench's NVIDIA
        ("GPU_GCP_NV_L4", "L4"),
        ("rocm_hip_w7900", "W7900"),  # HIP, ROCm's programming interface, like CUDA
    ],
)
def test_nv_standing_apart_is_nvidia_and_hip_a_software_stack(name: str, expected: str) -> None:
    assert str(AcceleratorSpec.parse(name)) == expected


@pytest.mark.parametrize("name", ["V100NV", "A10*GNV4v", "NV_MI300X"])
def test_nv_glued_to_other_words_is_no_vendor(name: str) -> None:
    # Clemson's "V100NV" is an NVLinked V100, Tencent's "GNV4v" a VM family
    with pytest.raises(AcceleratorError):
        AcceleratorSpec.parse(name)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("EVGA GTX 970 OC", "GTX-970"),  # a three-digit GTX card's x is its line's, no count
        ("GM204 [GeForce GTX 980]", "GTX-980"),  # envytools' chip and product
        ("gtx970x2", "GTX-970:2"),
        ("NVIDIA GeForce RTX 3090/PCIe/SSE2", "RTX-3090"),  # an OpenGL renderer string
        ("NVIDIA GeForce RTX 3080 Ti Lite Hash Rate", "RTX-3080-TI"),  # the driver's LHR name
        ("GTX 1060 6GB GP104 Refresh", "GTX-1060:6GB"),  # the same card on a later chip
        ("NVIDIA DGX Spark Founders Edition", "GB10"),  # NVIDIA's own edition of a product
        ("Vega FE", "VEGA-FE"),  # AMD's Vega Frontier Edition: "FE" stays a model word
    ],
)
def test_three_digit_gtx_cards_and_renderer_strings_read(name: str, expected: str) -> None:
    assert str(AcceleratorSpec.parse(name)) == expected


@pytest.mark.parametrize("name", ["3970X-RadeonProVII", "5950X-RTX3090", "3970 x RTX 3090"])
def test_a_cpu_model_number_is_no_count(name: str) -> None:
    # Lambda's benchmark folder: a Threadripper 3970X with a Radeon Pro VII, not 3970 boards
    with pytest.raises(AcceleratorError, match="likelier a CPU's model than a count"):
        AcceleratorSpec.parse(name, denotes="mixed")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("1024x H100", "H100-SXM:1024 | H100-PCIE:1024 | H100-NVL:1024"),  # a cluster's
        ("RTX3090:3970", "RTX-3090:3970"),  # the spec's own count is the user's to give
    ],
)
def test_large_counts_a_cluster_or_the_spec_gives_still_read(name: str, expected: str) -> None:
    assert str(AcceleratorSpec.parse(name)) == expected


@pytest.mark.parametrize(
    ("name", "why"),
    [
        # MLPerf system names: a count that may be of racks, systems or machines is refused
        # a count before a rack's or a system's word leaves the devices to the spec
        ("Carina (39x NVIDIA GB200 NVL72)", "'NVL72' in .* is a node or pool"),
        ("Eos-dfw (1024x NVIDIA HGX H100)", "'HGX' in .* is a node or pool"),
        ("32XE8545-4xA100-SXM4-40GB", "could count the machines"),
        ("hpg.dgxb200x8.n56", "could count the machines"),
        ("Datacrunch-Instant-Cluster-8xB200", "per machine or in all"),
        # a count after the version that closes a VM size's name counts VMs (64 ND_H200_v5)
        ("ND_H200_v5 x64", "the count stands apart from the model"),
        # a trailing number after a bare CPU word is no count (NYU's partition index)
        ("cpu_a100_2", "follows the model"),
    ],
)
def test_a_count_that_may_count_racks_or_machines_is_refused(name: str, why: str) -> None:
    with pytest.raises(AcceleratorError, match=why):
        AcceleratorSpec.parse(name, denotes="mixed")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("XE9680_H100_SXM_80GBx8", "H100-SXM!:8"),  # a server's model, then the count: read
        ("HPE Cray XD670 n4 (32x H200-SXM-141GB)", "H200-SXM:32"),  # n4 and no DGX word
        ("GB200-NVL72_GB200-186GB_aarch64x72_TRT", "GB200:72"),  # the count after the model
        ("n3-H100-SXM5x8", "H100-SXM!:8"),  # Hyperstack's n3 flavour generation
        ("an.g1.h200sxm.kube.x8", "H200-SXM:8"),  # Civo's size: no version before x8
        ("g-nvidia-1xa100-40gb-pcie-14vcpu-112gb", "A100-40GB-PCIE!"),
    ],
)
def test_counts_beside_system_words_that_say_the_devices_still_read(
    name: str, expected: str
) -> None:
    assert str(AcceleratorSpec.parse(name, denotes="mixed")) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("--gres=gpu:a100:2", "A100-40GB:2 | A100-80GB:2"),
        ("#SBATCH --gres=gpu:h100:4", "H100-SXM:4 | H100-PCIE:4 | H100-NVL:4"),
        ("--gpus=a100:2", "A100-40GB:2 | A100-80GB:2"),
        ("--gpus-per-node=l40s:8", "L40S:8"),
    ],
)
def test_a_slurm_gpu_option_reads_as_its_gres(text: str, expected: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("gpu:h200:8(S:0-1)", "H200-SXM:8 | H200-NVL:8"),  # sinfo's GRES: the sockets set aside
        ("Gres=gpu:l40s:4(S:0)", "L40S:4"),  # scontrol show node
        ("GresUsed=gpu:a100:2(IDX:0-1)", "A100-40GB:2 | A100-80GB:2"),  # the indexes in use
    ],
)
def test_a_nodes_gres_reads_without_where_its_gpus_sit(text: str, expected: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == expected
    # the caret of an error past it still points into the text as given
    with pytest.raises(AcceleratorError):
        AcceleratorSpec.parse(text.replace("(", " x("))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Nvidia_P4_052019", "P4"),  # a benchmark's results folder: the month it was run
        ("NVIDIA GeForce RTX 3060 Ti of Desktop[2023-10-12]", "RTX-3060-TI"),
        ("A100-80GB-20240101", "A100-80GB"),
    ],
)
def test_a_date_in_a_name_is_when_it_was_made(text: str, expected: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == expected
    reading = AcceleratorSpec.explain(text).names[0]
    assert any(t.role == "noise" and "date" in t.meaning for t in reading.tokens)
    # six digits that are no month and year stay unplaced: a count, a size or a figure?
    with pytest.raises(AcceleratorError):
        AcceleratorSpec.parse("Nvidia_P4_132019")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("16x8xH800", "H800:128"),  # verl's tuning table: 16 machines of 8
        ("2*8*H100", "H100-SXM:16 | H100-PCIE:16 | H100-NVL:16"),
        ("16 * 8 * Tesla V100", "V100-16GB:128 | V100-32GB:128"),
    ],
)
def test_two_counts_before_the_model_count_their_product(text: str, expected: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == expected
    # a count before and a count after the model state it twice, and stay refused
    with pytest.raises(AcceleratorError, match="two counts"):
        AcceleratorSpec.parse("8x H100 x2")


@pytest.mark.parametrize(
    "text", ["--gres=gpu:2", "--partition=gpu --gres=gpu:a30", "--gres=gpu:a100:2 extra"]
)
def test_a_slurm_option_without_a_type_or_with_others_is_refused(text: str) -> None:
    with pytest.raises(AcceleratorError):
        AcceleratorSpec.parse(text)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Intel(R) Gaudi(R) 2 AI Accelerator", "GAUDI2"),  # the marks written in letters
        ("GPU-h20-4Cards", "H20:96GB:4 | H20-141GB:4"),  # cards of one GPU each: a count
        ("2 cards T4", "T4:2"),
    ],
)
def test_marks_in_letters_and_counted_cards(name: str, expected: str) -> None:
    assert str(AcceleratorSpec.parse(name)) == expected


def test_cards_of_a_board_of_several_gpus_are_no_count_of_gpus() -> None:
    with pytest.raises(UnknownAcceleratorError):  # 4 K80 cards hold 8 GPUs: refused
        AcceleratorSpec.parse("4 cards K80")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("v5p-8-europe-west4-b", "TPU-V5P@2x2x1:4"),  # a GCP zone
        ("EP US-East-1 8xA100", "A100-40GB:8 | A100-80GB:8"),  # an AWS region
        ("h100-ap-northeast-1a", "H100-SXM | H100-PCIE | H100-NVL"),
    ],
)
def test_a_cloud_region_or_zone_is_where_the_machine_runs(name: str, expected: str) -> None:
    assert str(AcceleratorSpec.parse(name)) == expected


def test_a_region_s_number_is_no_count() -> None:
    reading = AcceleratorSpec.explain("h100-us-east-1")
    assert "region" in str(reading)
    assert str(AcceleratorSpec.parse("h100-us-east-1")) == "H100-SXM | H100-PCIE | H100-NVL"


@pytest.mark.parametrize("name", ["CARD_AMD_RADEON_RX_VEGA_10", "navi21", "Polaris 10"])
def test_an_amd_chip_code_name_is_no_board_and_its_number_no_count(name: str) -> None:
    with pytest.raises(UnknownAcceleratorError):
        AcceleratorSpec.parse(name)


@pytest.mark.parametrize(
    ("name", "expected"), [("Radeon RX Vega 64", "RX-VEGA-64"), ("RX Vega 56", "RX-VEGA-56")]
)
def test_the_vega_boards_still_read(name: str, expected: str) -> None:
    assert str(AcceleratorSpec.parse(name)) == expected
