"""The token reader (issue 32): every token of a name is accounted for, or the name is refused.

Each failure kind the issue lists is here with names of that shape, read or refused; then the
properties that must hold for any name: a count or memory size in a name is read, never
dropped (a count is the one written or the name is refused), host figures never become
device figures, a name the reader cannot account for raises only our error, and the tokens of
an explanation cover the whole name.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accelerators import AcceleratorSpec, catalog
from accelerators.catalog._explain import explain_name
from accelerators.catalog._names import resolve_name
from accelerators.catalog._reading import ROLES
from accelerators.catalog._words import vocabulary
from accelerators.errors import AcceleratorError, CountNotStatedError, UnknownAcceleratorError

H100 = "H100-SXM | H100-PCIE | H100-NVL"
A100 = "A100-40GB | A100-80GB"

READ = [
    # counts: suffixes, prefixes, counts glued to the model or its memory
    ("a100-80gb.8x", "A100-80GB:8"),
    ("h100-80gb-sxm-ib.8x", "H100-SXM!:8"),
    ("H100-8X", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8"),
    ("8-gpu-h100", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8"),
    ("2-L4", "L4:2"),
    # a bare number before the model counts where no size of it is the number, and machines
    # hold that many (multiples of 4 past 8: an inf2.48xlarge holds 12)
    ("12-inf2", "INFERENTIA2:12"),
    ("16-h100-sxm", "H100-SXM!:16"),
    ("a3-8-h100-gpu", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8"),
    ("8x_nvidia_b200_180gb_sxm", "B200:8"),
    ("1H100.80S.30V", "H100-SXM!"),
    ("2RTXPRO6000.60V", "RTX-PRO-6000:2"),
    ("gpu-mi300x8-1536gb", "MI300X:8"),  # DigitalOcean: the x of MI300X marks the count
    ("gpu-mi325x1-256gb", "MI325X"),
    ("A100_X_4", "A100-40GB:4 | A100-80GB:4"),
    ("a10-1-gpu", "A10"),
    # the memory of all the devices, and host figures beside the device
    ("gpu-h100x8-640gb", "H100-SXM:8 | H100-PCIE:8"),
    ("gpu-h200x8-1128gb", "H200-SXM:8 | H200-NVL:8"),
    ("gpu-h100-112c-2048gb", H100),
    ("8gpu-128vcpu-1600gb-h100", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8"),
    ("h100-80vram", "H100-SXM | H100-PCIE"),
    ("1x_nvidia_h200_140gb_sxm", "H200-SXM"),  # Together writes the 141 GB as 140
    ("gpu-l4-1-4-16", "L4"),  # an instance shape: GPUs, vCPUs, GiB of RAM (rising)
    ("gpu-h100-8-252-1440", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8"),
    # a count right after the model that only host figures follow (ModelZ's resource names)
    ("nvidia-ada-l4-2-24c-96g", "L4:2"),
    # camel case and concatenated names
    ("NvidiaTeslaT4", "T4"),
    ("NvidiaRtxPro6000", "RTX-PRO-6000"),
    ("NVIDIAGeForceRTX2080Ti", "RTX-2080-TI"),
    ("TeslaV100_SXM2_32GB", "V100-32GB-SXM2!"),
    ("NVIDIAH10080GBHBM3", "H100-SXM!"),  # LSF: what nvidia-smi prints, blanks removed
    ("NVIDIAH200", "H200-SXM!"),
    ("geforcertx3060tilhr-pcie-8gb", "RTX-3060-TI"),
    # generation words before the model, vendor first or last, TPU before or after
    ("AMPERE_A10", "A10"),
    ("ADA_L4", "L4"),
    ("TURING_T4", "T4"),
    ("BLACKWELL_B200", "B200"),
    ("HOPPER_H100", H100),
    ("H100_NVIDIA", H100),  # as HOPPER_H100: no form factor said
    ("TPU_V5E", "TPU-V5E"),
    ("V5E_TPU", "TPU-V5E"),
    ("v5e-tpu", "TPU-V5E"),
    ("TPU_V4_POD", "TPU-V4"),
    # TPU topologies and slice sizes
    ("v5e-2x4", "TPU-V5E@2x4:8"),
    ("tpu-v4-2x2x2", "TPU-V4@2x2x2:8"),
    ("v4-32", "TPU-V4@2x2x4:16"),
    # sharing: vGPU profiles, shared slots, MIG-suffixed labels
    ("A10-4Q", "A10:0.166667"),
    ("NVIDIA-A100-SXM4-40GB-SHARED", "A100-40GB-SXM!@shared"),
    ("Tesla-T4-SHARED", "T4@shared"),
    ("NVIDIA-H100-80GB-HBM3-MIG-1g.10gb", "H100-SXM!@1g.10gb"),
    ("A100 MIG 1g.5gb", "A100-40GB@1g.5gb"),  # the profile tells the A100's memory
    ("A100 MIG 3g.40gb", "A100-80GB@3g.40gb"),
    # ... and keeps open what it does not tell, as '@' does (H100@1g.10gb)
    ("H100 MIG 4g.40gb", "H100-SXM@4g.40gb | H100-PCIE@4g.40gb"),
    ("H100 MIG 1g.12gb", "H100-NVL@1g.12gb"),
    # truncated driver names, pci.ids names with the board in brackets
    ("NVIDIA RTX 6000 Ada Gene...", "RTX-6000-ADA"),
    ("GH100 [H100 SXM5 80GB]", "H100-SXM!"),
    ("Ponte Vecchio XT (2 Tile) [Data Center GPU Max 1550]", "MAX-1550"),
    # names that leave the model open read as its family
    ("gpu-a100-2x", "A100-40GB:2 | A100-80GB:2"),
    ("gpu-nvidia-h100", H100),
    ("gpu-4000adax1-20gb", "RTX-4000-ADA | RTX-4000-SFF-ADA"),
    # a bare model number after the vendor, in a name that names nothing else
    ("nvidia_3090", "RTX-3090"),
    ("nvidia-4090-x2", "RTX-4090:2"),
    # MLPerf system names: the server's words are tolerated because the count is stated
    ("xe9680_h100_x8_vllm_092", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8"),
    ("8xMI300X_2xEPYC_9534", "MI300X:8"),
    ("GB200-NVL72_GB200-186GB_aarch64x72_TRT", "GB200:72"),
    # camel case with an acronym before a word: GPU|Type, as XML|Http; an unknown word stops
    # at a camel-case word's start, so it never swallows the model (Together's enums)
    ("ClusterGPUTypeL40Pcie", "L40"),
    ("DeploymentGPUTypeH200_140gb", "H200-SXM | H200-NVL"),
    # an Arm host with its count glued on (NVIDIA's MLPerf system ids), and a kernel backend
    ("H100_PCIe_80GB_ARMx4", "H100-PCIE:4"),
    ("benchmark-A100-opencl", A100),
    ("b200_cute", "B200"),
    # Huawei's Atlas series by their short names, beside a word of Huawei's setting; alone,
    # A2 is NVIDIA's
    ("A2 arm", "ASCEND-910B | ASCEND-910B4"),
    ("npu-a3-openeuler", "ASCEND-910C"),
    ("NVIDIA A2", "A2"),
    # Compute Engine's machine type with its accelerator and count (NVIDIA Brev's types)
    ("n1-highmem-4:nvidia-tesla-t4:1", "T4"),
    ("n1-standard-32:nvidia-tesla-t4:4", "T4:4"),
    # Google's TPU names count a v2-v4 or v5p slice in TensorCores, two a chip
    ("tpu_v4_4096", "TPU-V4@8x16x16:2048"),
    # an AWS service's instance type over EC2's (HealthOmics), a managed Kubernetes service
    # a recipe is named for (NVIDIA AI Cluster Runtime), a board's revision
    ("omics.g5.12xlarge", "A10G:4"),
    ("h100-gke-cos-training", H100),
    ("RTX 2080 Ti Rev. A", "RTX-2080-TI"),
    # an Ada board by its Ampere predecessor's name with Ada after it (catalog 2026.11.46);
    # without Ada, the Ampere board
    ("a6000_ada", "RTX-6000-ADA"),
    ("RTX_A6000_ADA_48GB", "RTX-6000-ADA"),
    ("RTX A6000", "RTX-A6000"),
    # a variant word that restates the model word's, and one in brackets that says the
    # variant (never dropped for the plain card)
    ("RTX 2080S (Super)", "RTX-2080-SUPER"),
    ("RTX 2080 (Super)", "RTX-2080-SUPER"),
    ("RTX 3060 (Ti)", "RTX-3060-TI"),
    # a rack's NVLink domain, alone, is its GPUs (a counted one, or a smaller one, is not:
    # test_a_machine_word_leaves_other_counts_to_the_spec)
    ("GB300 NVL72", "GB300:72"),
    # a DGX named for its GPU: eight SXM modules
    ("DGX H100", "H100-SXM:8"),
    ("dgxa100_80G", "A100-80GB:8"),
    ("DGX-B200", "B200:8"),
    # an Azure size the instance table lacks (Azure Local's), its GPU count at the end
    ("Standard_NC16_L4_2", "L4:2"),
    # the cloud it runs on, the host's CPU generation, bare metal (KernelBench, gpu-benches)
    ("A10G_modal", "A10G"),
    ("genoa_l40", "L40"),
    # a "Cluster" glued to a name is the name's: the count stays the system's total
    ("32xMI355X-PollaraCluster-EPYC9575F", "MI355X:32"),
    # a number of 1 to 16 after the model and its memory size: Google's xpk and Cluster
    # Toolkit name a machine of 8 A100s "a100-40gb-8"
    ("a100-40gb-8", "A100-40GB:8"),
    ("h100-80gb-4", "H100-SXM:4 | H100-PCIE:4"),
    ("a100-80gb-1", "A100-80GB"),
    # a MIG profile alone that only one family's models have reads as that family, as a bare
    # model name does (GKE's partition size "1g.35gb": an H200, SXM or NVL)
    ("1g.35gb", "H200-SXM@1g.35gb | H200-NVL@1g.35gb"),
    # an edition's initials (Server Edition, Max-Q) and Blackwell's "BW" after the model
    ("RTX PRO 6000 Blackwell SE", "RTX-PRO-6000!"),
    ("rtxpro6000mq", "RTX-PRO-6000-MAXQ!"),
    ("RTXPRO6000BW", "RTX-PRO-6000"),
    ("RTXPRO4500BW", "RTX-PRO-4500 | RTX-PRO-4500-SERVER"),
    # a paper's count of TPU chips, however large: the plural says the number counts them
    ("1024 TPU-V3 chips", "TPU-V3:1024"),
    ("8 TPU v5e chips", "TPU-V5E:8"),
    # an LLVM AMDGPU processor beside the model: the catalog's (ROCm's GPU specifications)
    ("MI250X gfx90a", "MI250X"),
    ("amdgpu_mi325_gfx942", "MI325X"),
    # SXM spelt XSM by two systems (HAMi, CUDA-L1): the form word still
    ("A100-80GB-XSM", "A100-80GB-SXM!"),
    # a precision and the device's rate at it (an LLM calculator's options): no count, no size
    ("B200 FP4 Dense (18 PFLOPS)", "B200"),
    ("A100 80GB INT8 (624 TOPS)", "A100-80GB"),
]


def _shown(spec: AcceleratorSpec) -> str:
    return re.sub(r":0\.1666+[0-9]*", ":0.166667", str(spec))


@pytest.mark.parametrize(("name", "reading"), READ, ids=[r[0] for r in READ])
def test_reads(name: str, reading: str) -> None:
    assert _shown(AcceleratorSpec.parse(name)) == reading


REFUSED = [
    # a number no rule places: a count, a size or a host figure? (OVHcloud's l40s-180 is 2)
    ("l40s-180", "'180' follows the model"),
    ("gpu-l4-16-4-1", "'16' follows the model"),  # not a rising shape
    ("t4-16-32-128", "'16' follows the model"),  # 16 is no shape's count (16 GB?)
    ("gpu-l4-1-12-48-x", "'12' follows the model"),
    # a number that vCPUs alone follow: 8 cores, or the L4-8C vGPU profile? (a RAM size after
    # them says cores: nvidia-ada-l4-2-24c-96g)
    ("l4-2-24c", "'2' follows the model"),
    ("bm3-ai-1xlarge-h100-80-8", "'80' follows the model"),
    # no model word runs over a '/': "a10/g" is the A10 and a 'g', not the A10G
    ("a10/g-runner", "'g' follows the model"),
    ("pool-v100/s", "'s' is not a word it can place"),
    # before the model, a size of it or a number no machine holds as many of: a size?
    ("48-l40s", "'48' could be a count"),
    ("8-rtx-3070", "'8' could be a count"),
    ("45-a100-80gb", "'45' could be a count"),
    # a word that could hide a count: Azure Container Apps' NC48-A100 is 2 A100s
    ("NC48-A100", "'nc48' is not a word it can place"),
    ("Consumption-GPU-NC8as-T4", "'nc8as' is not a word it can place"),
    # a memory size no candidate has, nor their total: never dropped
    ("nvidia_a100_80gb_10gb", "no A100 in the catalog has 10 GB"),
    ("vcg-a100-1c-6g-4vram", "no A100 in the catalog has 4 GB"),
    ("H100_40GB", "no H100 in the catalog has 40 GB"),
    # a generation that contradicts the model, two models, two counts, a choice of boards
    ("TURING_A100", "no A100 in the catalog is a Turing part"),
    ("16xMI325X_8xMI300X_2xEPYC_9575F", "more than one accelerator"),
    ("h100x8-4x", "two counts"),
    ("TU102GL [Quadro RTX 6000/8000]", r"a choice of boards \('/'\)"),
    # a bare number many models hold (RTX 6000 Ada, RTX A6000, Quadro RTX 6000), or no vendor
    ("nvidia_6000", "Unknown accelerator"),
    ("3090", "Unknown accelerator"),
    ("amd_3090", "Unknown accelerator"),
    # a short MIG device name whose profile several models have
    ("MIG 1g.10gb", "MIG profile 1g.10gb is a slice of A100-40GB or A100-80GB"),
    # a variant the catalog does not carry, and a misspelt model
    ("NVIDIA GeForce RTX 5090 D", "'d' follows the model"),
    ("gpu-h10O-80gb", "Unknown accelerator|not a word it can place"),
    # the Atlas A2 series' NPUs, and 8 of them or a runner's index?
    ("linux-aarch64-a2-8", "'8' follows the model"),
    # glued to other letters beside an Arm word: NVIDIA's A2 or Huawei's series?
    ("gA2_arm", "Unknown accelerator"),
    # "distributed" says the job has several devices: no word to set aside
    ("h100-distributed", "'distributed' could name a variant, another product or several devices"),
    # a number of nodes beside the count: each node's, or all of them? (4 nodes of 8 GPUs)
    ("llama_8b_2n_8gpu_h100", "'2n' could count the machines"),
    # a cluster's name with a count apart: each machine's, or all of them?
    ("Datacrunch-Instant-Cluster-8xB200", "per machine or in all"),
    # a TPU generation glued to 'TPU' is no Google name: chips or TensorCores?
    ("TPUv4_4096", "Unknown TPU slice 'TPUv4_4096': the generation is glued"),
    # glued noise words are one unknown word (TensorRT-LLM's runners hold 4 GPUs)
    ("b200-trtllm", "'trtllm' is not a word it can place"),
    # after the model and its size, a number beyond 16 is no count (Predibase's a10_24gb_100
    # is one A10G), and one in brackets after another count may multiply it (MaxText's 8 A3
    # machines of 8 H100s)
    ("a10_24gb_100", "'100' follows the model: could be a count"),
    ("a100-80gb-40", "'40' follows the model: could be a count"),
    ("8x A3 (h100-80gb-8)", "'8' follows the model: could be a count"),
    # a bare number in brackets before a count: Furiosa's "warboy(1)*2" is 2 of one core
    ("warboy(1)*2", "'1' follows the model"),
    # a MIG profile alone that models of several families have
    ("1g.24gb", "MIG profile 1g.24gb is a slice of H100-NVL or GH200-96GB or RTX-PRO-6000"),
    # an edition or generation the model has no SKU of: never dropped
    ("A100 SE", "no A100 in the catalog is server"),
    ("H100 BW", "no H100 in the catalog is a Blackwell part"),
    # an LLVM target that is not the model's, or one the catalog does not record for it, and a
    # target alone: an instruction set several boards share
    ("MI300X gfx90a", "'gfx90a' names an LLVM target the catalog does not give MI300X"),
    ("amdgpu_rocm_mi308_gfx942", "does not record for MI308X"),
    ("gfx942", r"an LLVM AMDGPU processor.*MI300X, MI325X, MI300A"),
    ("gfx1201", r"the catalog gives it to no device\)\. Name the device\n"),
]


@pytest.mark.parametrize(("name", "message"), REFUSED, ids=[r[0] for r in REFUSED])
def test_refuses(name: str, message: str) -> None:
    with pytest.raises(UnknownAcceleratorError, match=message):
        AcceleratorSpec.parse(name)


@pytest.mark.parametrize(
    "name",
    [
        "39x NVIDIA GB200 NVL72",  # 39 racks of 72 GPUs, or 39 GPUs?
        "H20 NVL16",  # DCGM's name of one H20 GPU; HGX B300 NVL16 is a board of 8
        "3-K80-NODE",  # 3 nodes of how many K80s?
        "Standard_NC32_A30",  # Azure Local's size of 32 vCPUs and 2 A30s
        "DGX-GB200",  # a rack, whose compute trays hold 4
        "DGX Station H100",  # no such product: how many?
        "linux.dgx.b200",  # a CI runner on a DGX: the job's share
        "DGX1-V100",  # OpenPAI's name for one V100 of a DGX-1
    ],
)
def test_a_machine_word_leaves_other_counts_to_the_spec(name: str) -> None:
    with pytest.raises(CountNotStatedError, match="the system's to say"):
        AcceleratorSpec.parse(name)


def test_a_plus_is_no_separator() -> None:
    # Modal's "B200+" is a group (B200 or newer): the reader does not read it as a B200
    with pytest.raises(UnknownAcceleratorError, match=r"'\+' is no separator"):
        catalog.get("B200+")
    assert str(AcceleratorSpec.parse("B200+")) == "B200 | B300"


def test_a_refusal_names_the_tokens_it_could_not_place_with_close_matches() -> None:
    with pytest.raises(UnknownAcceleratorError) as info:
        resolve_name("gpu-h100-sxm-nvlnk")
    assert "'nvlnk' is not a word it can place (did you mean 'nvlink'" in str(info.value)
    assert "nvlink" in info.value.suggestions


def test_a_family_reading_is_a_fallback_chain_a_memory_size_can_settle() -> None:
    spec = AcceleratorSpec.parse("gpu-a100-large:4")
    assert [alt.accelerator.model for alt in spec.alternatives] == ["A100-40GB", "A100-80GB"]
    assert {alt.count for alt in spec.alternatives} == {4}
    settled = AcceleratorSpec.parse("gpu-a100-large:80GB:4")
    assert str(settled) == "A100-80GB:4"
    # catalog.get never picks one model of a family for the caller
    with pytest.raises(UnknownAcceleratorError, match="A100-40GB or A100-80GB"):
        catalog.get("gpu-a100-large")
    with pytest.raises(UnknownAcceleratorError, match="A100-40GB or A100-80GB"):
        catalog.get("gpu-a100-2x")


# -- properties --------------------------------------------------------------------------------
_MODEL_WORDS = sorted({acc.model for acc in catalog.all() if acc.device_class == "gpu"})
_COUNT_FORMS = (
    "{n}x_{m}",
    "{n}x-{m}",
    "{m}_x{n}",
    "{m}-{n}x",
    "{m}x{n}",
    "gpu-{m}-{n}x",
    "{n}-gpu-{m}",
    "{n}gpu-{m}",
    "{n}x_nvidia_{m}_{v}vcpu",
    "{m}-{n}x-{v}vcpu-{r}gb-ram",
)


@settings(max_examples=300, deadline=None)
@given(
    model=st.sampled_from(_MODEL_WORDS),
    form=st.sampled_from(_COUNT_FORMS),
    n=st.sampled_from([2, 3, 4, 8, 16]),
    v=st.sampled_from([8, 30, 128]),
    r=st.sampled_from([64, 1600]),
)
def test_a_count_in_a_name_is_read_or_the_name_refused_never_another(
    model: str, form: str, n: int, v: int, r: int
) -> None:
    name = form.format(m=model, n=n, v=v, r=r)
    try:
        spec = AcceleratorSpec.parse(name)
    except AcceleratorError:
        return
    assert {alt.count for alt in spec.alternatives} == {n}, (name, str(spec))
    assert all(
        alt.accelerator.model == model or alt.accelerator.family for alt in spec.alternatives
    )


@settings(max_examples=200, deadline=None)
@given(model=st.sampled_from(_MODEL_WORDS), size=st.integers(min_value=1, max_value=2000))
def test_a_memory_size_in_a_name_is_read_never_dropped(model: str, size: int) -> None:
    name = f"gpu-{model}-{size}gb"
    try:
        spec = AcceleratorSpec.parse(name)
    except AcceleratorError:
        return
    for alt in spec.alternatives:  # per device, or (with a count) all of them together
        memory = alt.accelerator.device_memory_gb
        assert abs(memory - size) <= max(0.5, memory * 0.01), (name, str(spec))


_PIECES = [
    *("nvidia", "h100", "a100", "80gb", "x8", "8x", "gpu", "1g.10gb", "mig", "2x4", "v5e"),
    *("tpu", "vcpu", "128", "0", "0.5", "...", "[", "]", "(", ")", "/", "sxm", "pcie", "4q"),
    *("shared", "ram", "l40s", "mi300x", "rtx", "6000", "ada", "x", "num=", "vram", "Ti"),
    *("-", "_", " ", "."),
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8), st.booleans())
def test_any_name_reads_or_raises_our_error(pieces: list[str], upper: bool) -> None:
    text = "".join(pieces)
    text = text.upper() if upper else text
    with contextlib.suppress(AcceleratorError):
        AcceleratorSpec.parse(text)
    reading = explain_name(text)  # never raises for a string
    assert reading.result is not None or reading.refusal is not None


@pytest.mark.parametrize("name", [r[0] for r in READ] + [r[0] for r in REFUSED])
def test_the_tokens_of_a_reading_cover_the_whole_name(name: str) -> None:
    reading = explain_name(name)
    assert all(t.role in ROLES for t in reading.tokens)
    covered = set()
    for token in reading.tokens:
        assert name[token.start : token.end] == token.text
        covered |= set(range(token.start, token.end))
    letters = {i for i, ch in enumerate(name) if ch.isalnum()}
    assert letters <= covered, [name[i] for i in sorted(letters - covered)]


# -- the explanation ---------------------------------------------------------------------------
def test_explain_gives_each_token_its_role() -> None:
    explanation = AcceleratorSpec.explain("8x_nvidia_b200_180gb_sxm | gpu-a100")
    assert explanation.spec == "B200:8 | A100-40GB | A100-80GB"
    first, second = explanation.names
    assert first.method == "token reader"
    assert [(t.text, t.role) for t in first.tokens] == [
        ("8x", "count"),
        ("nvidia", "vendor"),
        ("b200", "model"),
        ("180gb", "memory"),
        ("sxm", "form factor"),
    ]
    assert second.result == A100


def test_explain_shows_a_refusal_and_the_tokens_it_could_not_place() -> None:
    explanation = AcceleratorSpec.explain("NC48-A100")
    assert explanation.spec is None
    (reading,) = explanation.names
    assert [(t.text, t.role) for t in reading.unplaced] == [("NC48", "unplaced")]
    assert reading.refusal is not None
    assert "nc48" in reading.refusal
    assert "spec: not read" in str(explanation)


def test_explain_says_which_step_read_a_name() -> None:
    methods = {
        "H100-SXM": "catalog spelling",
        "H100-SXM x8": "catalog spelling",
        "p5.48xlarge": "instance type",
        "any": "group name",
        "gpu-nvidia-h100": "token reader",
    }
    for name, method in methods.items():
        (reading,) = AcceleratorSpec.explain(name).names
        assert reading.method == method, name
    (counted,) = AcceleratorSpec.explain("H100-SXM x8").names
    assert [(t.text, t.role) for t in counted.tokens] == [
        ("H100-SXM", "catalog spelling"),
        ("x8", "count"),
    ]


def test_explain_agrees_with_parse_on_every_reading() -> None:
    for name, _ in READ:
        explanation = AcceleratorSpec.explain(name)
        assert explanation.spec == str(AcceleratorSpec.parse(name)), name


def test_the_explanation_is_plain_data() -> None:
    explanation = AcceleratorSpec.explain("gpu-h100x8-640gb")
    data = json.loads(json.dumps(dataclasses.asdict(explanation)))
    roles = [t["role"] for t in data["names"][0]["tokens"]]
    assert roles == ["device word", "model", "count", "total memory"]


# -- the vocabulary ----------------------------------------------------------------------------
def test_the_vocabulary_gives_each_word_one_class() -> None:
    vocab = vocabulary()
    assert vocab.get("nvidia") == ("vendor", "nvidia")
    assert vocab.get("sxm5") == ("form", "sxm")
    assert vocab.get("vcpu") == ("host", "vcpu")
    assert vocab.get("vllm") == ("noise", "frameworks")
    assert all(re.fullmatch(r"[a-z0-9]+", word) for word in vocab.words)
