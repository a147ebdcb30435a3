"""The spec grammar (docs/grammar.md): corpora of valid and invalid inputs.

Valid inputs are listed with their canonical text and the SKU each alternative resolves to;
invalid inputs with the exact error type and message, caret line included.
"""

from __future__ import annotations

from typing import Any

import pytest

from accelerators import catalog
from accelerators._parser import parse_spec
from accelerators._tokenizer import Tokenizer
from accelerators.errors import (
    AcceleratorError,
    InvalidSpecError,
    SpecSyntaxError,
    UnknownAcceleratorError,
    UnknownPartitionError,
)
from accelerators.spec import AcceleratorSpec, MemoryRequest

# -- valid: (input, canonical text, SKU of each alternative) --------------------------------
_MODAL_ANY = (
    "T4 | L4 | A10 | L40S | A100-40GB | A100-80GB | RTX-PRO-6000 | H100-SXM | H200-SXM | B200"
)
_MODAL_ANY_SKUS = (
    "T4",
    "L4",
    "A10",
    "L40S",
    "A100-40GB-SXM",
    "A100-80GB-SXM",
    "RTX-PRO-6000",
    "H100-SXM",
    "H200-SXM",
    "B200",
)

VALID: list[tuple[str, str, tuple[str | None, ...]]] = [
    # model names, any letter case; bare A100 is the 40 GB A100
    ("H100-SXM", "H100-SXM", ("H100-SXM",)),
    ("h100-sxm", "H100-SXM", ("H100-SXM",)),
    # a bare H100 is the SXM card on some systems, either form factor on others (Shadeform,
    # Prime Intellect, dstack): the family (catalog [[open_names]]); so is a bare H200
    ("H100", "H100-SXM | H100-PCIE | H100-NVL", ("H100-SXM", "H100-PCIE", "H100-NVL")),
    ("h100:8", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8", ("H100-SXM", "H100-PCIE", "H100-NVL")),
    ("H100!", "H100-SXM! | H100-PCIE! | H100-NVL!", ("H100-SXM", "H100-PCIE", "H100-NVL")),
    ("H200", "H200-SXM | H200-NVL", ("H200-SXM", "H200-NVL")),
    # a bare A100 is 40 GB on some systems, 80 GB on others: the family (catalog [[open_names]])
    ("A100", "A100-40GB | A100-80GB", ("A100-40GB-SXM", "A100-80GB-SXM")),
    ("a100", "A100-40GB | A100-80GB", ("A100-40GB-SXM", "A100-80GB-SXM")),
    ("A100-40GB", "A100-40GB", ("A100-40GB-SXM",)),
    ("MI300X", "MI300X", ("MI300X",)),
    ("INFERENTIA2", "INFERENTIA2", ("INFERENTIA2",)),
    # counts
    ("H100-SXM:8", "H100-SXM:8", ("H100-SXM",)),
    ("h100-sxm:8", "H100-SXM:8", ("H100-SXM",)),
    ("A100-80GB:4", "A100-80GB:4", ("A100-80GB-SXM",)),
    ("a100-80gb:8", "A100-80GB:8", ("A100-80GB-SXM",)),
    ("H100-SXM:8.0", "H100-SXM:8", ("H100-SXM",)),
    ("H100-SXM:08", "H100-SXM:8", ("H100-SXM",)),
    ("GAUDI3:8", "GAUDI3:8", ("GAUDI3",)),
    ("TRAINIUM2:16", "TRAINIUM2:16", ("TRAINIUM2",)),
    # fractional counts
    ("T4:0.5", "T4:0.5", ("T4",)),
    ("T4:.5", "T4:0.5", ("T4",)),
    ("T4:0.25", "T4:0.25", ("T4",)),
    ("T4:0.00001", "T4:0.00001", ("T4",)),
    # count prefixes and suffixes
    ("1x H100-SXM", "H100-SXM", ("H100-SXM",)),
    ("8x H100-SXM", "H100-SXM:8", ("H100-SXM",)),
    ("8xH100", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8", ("H100-SXM", "H100-PCIE", "H100-NVL")),
    ("8 x H100-SXM", "H100-SXM:8", ("H100-SXM",)),
    ("0.5x T4", "T4:0.5", ("T4",)),
    ("H100-SXM x8", "H100-SXM:8", ("H100-SXM",)),
    ("H100-SXM x 8", "H100-SXM:8", ("H100-SXM",)),
    ("8x H100-SXM:8", "H100-SXM:8", ("H100-SXM",)),
    # exact: '!' pins the SKU; SKU-level names pin it by themselves
    ("H100-SXM!", "H100-SXM!", ("H100-SXM",)),
    ("h100-sxm!", "H100-SXM!", ("H100-SXM",)),
    ("H100-SXM!:8", "H100-SXM!:8", ("H100-SXM",)),
    ("H100-SXM !", "H100-SXM!", ("H100-SXM",)),
    ("A100-40GB-PCIE", "A100-40GB-PCIE!", ("A100-40GB-PCIE",)),
    ("A100-40GB-PCIE!", "A100-40GB-PCIE!", ("A100-40GB-PCIE",)),
    ("H100-MEGA:8", "H100-MEGA!:8", ("H100-MEGA",)),
    # fallbacks: '|' (canonical) or ','
    ("H100-SXM:8 | A100-80GB:8", "H100-SXM:8 | A100-80GB:8", ("H100-SXM", "A100-80GB-SXM")),
    ("H100-SXM:8|A100-80GB:8", "H100-SXM:8 | A100-80GB:8", ("H100-SXM", "A100-80GB-SXM")),
    ("H100-SXM:8 , A100-80GB:8", "H100-SXM:8 | A100-80GB:8", ("H100-SXM", "A100-80GB-SXM")),
    (
        "H100-SXM:8,A100-80GB:8 | T4",
        "H100-SXM:8 | A100-80GB:8 | T4",
        ("H100-SXM", "A100-80GB-SXM", "T4"),
    ),
    ("H100-SXM!:8 | 80GB+:8", "H100-SXM!:8 | 80GB+:8", ("H100-SXM", None)),
    ("  H100-SXM : 8  ", "H100-SXM:8", ("H100-SXM",)),
    ("H100-SXM:8\n| A100-40GB:8", "H100-SXM:8 | A100-40GB:8", ("H100-SXM", "A100-40GB-SXM")),
    (
        "H100-SXM:8\n| A100:8",
        "H100-SXM:8 | A100-40GB:8 | A100-80GB:8",
        ("H100-SXM", "A100-40GB-SXM", "A100-80GB-SXM"),
    ),
    # memory requests, as SkyPilot writes them
    ("80GB+", "80GB+", (None,)),
    ("80GB", "80GB", (None,)),
    ("80G+", "80GB+", (None,)),
    ("80 gb +", "80GB+", (None,)),
    ("24GB:4", "24GB:4", (None,)),
    ("48GB+:4", "48GB+:4", (None,)),
    ("0.5GB", "0.5GB", (None,)),
    ("nvidia:24GB:2", "nvidia:24GB:2", (None,)),
    ("NVIDIA:24gb:2", "nvidia:24GB:2", (None,)),
    ("amd:192GB+", "amd:192GB+", (None,)),
    ("nvidia:80GB+:8", "nvidia:80GB+:8", (None,)),
    ("nvidia", "nvidia", (None,)),
    ("nvidia:2", "nvidia:2", (None,)),
    ("google", "google", (None,)),
    # a memory size after a name picks the model
    ("A100:80GB", "A100-80GB", ("A100-80GB-SXM",)),
    ("A100:80GB:4", "A100-80GB:4", ("A100-80GB-SXM",)),
    ("A100:80GB+", "A100-80GB", ("A100-80GB-SXM",)),
    ("A100:40GB", "A100-40GB", ("A100-40GB-SXM",)),
    ("A100-80GB:80GB", "A100-80GB", ("A100-80GB-SXM",)),
    ("H100:94GB", "H100-NVL", ("H100-NVL",)),
    ("A100!:80GB", "A100-80GB-SXM!", ("A100-80GB-SXM",)),
    # MIG profiles and whole devices
    ("A100@1g.5gb", "A100-40GB@1g.5gb", ("A100-40GB-SXM",)),
    ("a100@1G.5GB", "A100-40GB@1g.5gb", ("A100-40GB-SXM",)),
    ("A100-80GB@1g.10gb+me:2", "A100-80GB@1g.10gb+me:2", ("A100-80GB-SXM",)),
    ("A100@1g.10gb:80GB:2", "A100-80GB@1g.10gb:2", ("A100-80GB-SXM",)),
    ("H100-SXM@3g.40gb", "H100-SXM@3g.40gb", ("H100-SXM",)),
    ("RTX-PRO-6000@1g.24gb+me.all", "RTX-PRO-6000@1g.24gb+me.all", ("RTX-PRO-6000",)),
    ("A100-40GB@whole", "A100-40GB@whole", ("A100-40GB-SXM",)),
    ("A100-40GB@unpartitioned", "A100-40GB@whole", ("A100-40GB-SXM",)),
    ("A100-40GB!@whole", "A100-40GB-SXM!@whole", ("A100-40GB-SXM",)),
    ("A100@whole", "A100-40GB@whole | A100-80GB@whole", ("A100-40GB-SXM", "A100-80GB-SXM")),
    # a MIG profile picks among the models an open name leaves open
    ("A100@3g.40gb", "A100-80GB@3g.40gb", ("A100-80GB-SXM",)),
    ("A100 @ 1g.5gb : 2", "A100-40GB@1g.5gb:2", ("A100-40GB-SXM",)),
    # TPU topologies
    ("V5E@2x4", "TPU-V5E@2x4", ("TPU-V5E",)),
    ("TPU-V5P@2x2x1", "TPU-V5P@2x2x1", ("TPU-V5P",)),
    ("TPU-V5P!@2x2x1", "TPU-V5P!@2x2x1", ("TPU-V5P",)),
    ("tpu-v5e@2X4:8", "TPU-V5E@2x4:8", ("TPU-V5E",)),
    ("Trillium@2x4", "TPU-V6E@2x4", ("TPU-V6E",)),
    # nvidia-smi / NVML names, spaces included
    ("NVIDIA A100-SXM4-80GB", "A100-80GB-SXM!", ("A100-80GB-SXM",)),
    ("NVIDIA A100-SXM4-80GB:8", "A100-80GB-SXM!:8", ("A100-80GB-SXM",)),
    ("NVIDIA H100 80GB HBM3", "H100-SXM!", ("H100-SXM",)),
    ("NVIDIA H100 80GB HBM3:8", "H100-SXM!:8", ("H100-SXM",)),
    ("NVIDIA A100 80GB PCIe", "A100-80GB-PCIE!", ("A100-80GB-PCIE",)),
    ("Tesla T4", "T4", ("T4",)),
    ("Tesla T4:4", "T4:4", ("T4",)),
    ("Tesla V100-SXM2-16GB", "V100-16GB-SXM2!", ("V100-16GB-SXM2",)),
    ("AMD Instinct MI300X:8", "MI300X:8", ("MI300X",)),
    # GPU Feature Discovery labels, MIG product labels included
    ("NVIDIA-H100-80GB-HBM3", "H100-SXM!", ("H100-SXM",)),
    ("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", "A100-40GB-SXM!@1g.5gb", ("A100-40GB-SXM",)),
    ("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb:7", "A100-40GB-SXM!@1g.5gb:7", ("A100-40GB-SXM",)),
    ("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb@1g.5gb", "A100-40GB-SXM!@1g.5gb", ("A100-40GB-SXM",)),
    # GKE, Karpenter, EKS labels and flytekit device strings
    ("nvidia-tesla-a100", "A100-40GB", ("A100-40GB-SXM",)),
    ("nvidia-h100-80gb", "H100-SXM", ("H100-SXM",)),
    ("nvidia-a100-80gb:2", "A100-80GB:2", ("A100-80GB-SXM",)),
    ("tpu-v5-lite-podslice", "TPU-V5E", ("TPU-V5E",)),
    ("rtx-pro-server-6000", "RTX-PRO-6000", ("RTX-PRO-6000",)),
    ("nvidia-h100", "H100-SXM", ("H100-SXM",)),
    ("amd-mi300x", "MI300X", ("MI300X",)),
    # Flyte 2 and Ray
    ("Trn2", "TRAINIUM2", ("TRAINIUM2",)),
    ("A100_80G", "A100-80GB", ("A100-80GB-SXM",)),
    ("A100-80G", "A100-80GB", ("A100-80GB-SXM",)),
    ("A100-80G:8", "A100-80GB:8", ("A100-80GB-SXM",)),
    ("AMD-Instinct-MI300X-OAM", "MI300X", ("MI300X",)),
    # Hugging Face flavors
    ("a10g-largex2", "A10G:2", ("A10G",)),
    ("a10g-largex4", "A10G:4", ("A10G",)),
    ("l40sx4", "L40S:4", ("L40S",)),
    ("t4-small", "T4", ("T4",)),
    ("h200x8", "H200-SXM:8", ("H200-SXM",)),
    ("a100x8", "A100-80GB:8", ("A100-80GB-SXM",)),
    ("rtx-pro-6000x2", "RTX-PRO-6000:2", ("RTX-PRO-6000",)),
    # SkyPilot TPU names: v5e/v6e sized in chips, v4/v5p in TensorCores
    ("tpu-v5litepod-8", "TPU-V5E@2x4:8", ("TPU-V5E",)),
    ("tpu-v5litepod-8:8", "TPU-V5E@2x4:8", ("TPU-V5E",)),
    ("tpu-v5p-8", "TPU-V5P@2x2x1:4", ("TPU-V5P",)),
    ("tpu-v6e-1", "TPU-V6E@1x1", ("TPU-V6E",)),
    # a topology standing as its own part is not a count suffix: a 2x4 slice, not 4 slices of 2
    ("tpu-v5e-2x4", "TPU-V5E@2x4:8", ("TPU-V5E",)),
    ("google-tpu-v5e-2x2:4", "TPU-V5E@2x2:4", ("TPU-V5E",)),
    ("tpu-v4-2x2x1", "TPU-V4@2x2x1:4", ("TPU-V4",)),
    # loose spellings
    ("A100 80GB", "A100-80GB", ("A100-80GB-SXM",)),
    ("H100 NVL", "H100-NVL", ("H100-NVL",)),
    ("Gaudi 2", "GAUDI2", ("GAUDI2",)),
    ("Intel(R) Gaudi 2", "GAUDI2", ("GAUDI2",)),
    # 80 GB does not say SXM or PCIe (both carry 80 GB; the NVL 94): the family
    ("NVIDIA H100 (80GB):8", "H100-SXM:8 | H100-PCIE:8", ("H100-SXM", "H100-PCIE")),
    # a group name (Modal's "B200+": a B200 or a B300) reads as a fallback chain
    ("B200+", "B200 | B300", ("B200", "B300")),
    ("b200+:8", "B200:8 | B300:8", ("B200", "B300")),
    # Modal's "any" (modal.gpu.Any): any GPU class Modal lists, as an any-of of those models
    ("any", _MODAL_ANY, _MODAL_ANY_SKUS),
    ("ANY:2", " | ".join(f"{m}:2" for m in _MODAL_ANY.split(" | ")), _MODAL_ANY_SKUS),
    # Ray's "aws-neuron-core": the type Ray gives every Neuron node, Inferentia or Trainium
    (
        "aws-neuron-core",
        "INFERENTIA2 | TRAINIUM1 | TRAINIUM2 | TRAINIUM3 | INFERENTIA1",
        ("INFERENTIA2", "TRAINIUM1", "TRAINIUM2", "TRAINIUM3", "INFERENTIA1"),
    ),
    # Slurm's GRES form
    ("gpu:a100-40gb:8", "A100-40GB:8", ("A100-40GB-SXM",)),
    # a bare (Tesla) V100 is 16 GB on some systems, either size on others: the family
    ("gpu:tesla_v100:2", "V100-16GB:2 | V100-32GB:2", ("V100-16GB-SXM2", "V100-32GB-SXM2")),
    # memory in MB and TB (decimal)
    ("nvidia:24000MB", "nvidia:24GB", (None,)),
]


@pytest.mark.parametrize(("text", "canonical", "skus"), VALID, ids=[v[0] for v in VALID])
def test_valid(text: str, canonical: str, skus: tuple[str | None, ...]):
    spec = AcceleratorSpec.parse(text)
    assert str(spec) == canonical
    resolved = tuple(alt.accelerator.name if alt.accelerator else None for alt in spec.alternatives)
    assert resolved == skus
    assert AcceleratorSpec.parse(canonical) == spec
    # Equality with text goes by the canonical text, so equality and hashing agree.
    assert spec == canonical
    assert hash(spec) == hash(canonical)
    assert {spec: True}[canonical]
    assert (spec == text) is (text == canonical)


def test_parse_spec_returns_plain_fields_the_spec_is_built_from():
    parsed = parse_spec("h100-sxm:8 | A100@1g.5gb:2")
    assert [alt.span for alt in parsed.alternatives] == [(0, 10), (13, 26)]
    first, second = (alt.fields for alt in parsed.alternatives)
    assert (first["accelerator"].name, first["count"], first["exact"]) == ("H100-SXM", 8, False)
    assert (second["partition"], second["count"]) == ("1g.5gb", 2)
    built = [AcceleratorSpec(**alt.fields) for alt in parsed.alternatives]
    assert AcceleratorSpec.parse("h100-sxm:8 | A100@1g.5gb:2").alternatives == tuple(built)


# -- the fields behind the text ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "fields"),
    [
        ("H100:8", {"count": 8, "exact": False, "partition": None, "memory": None}),
        ("T4:0.5", {"count": 0.5, "exact": False}),
        ("A100-40GB-PCIE", {"exact": True}),
        ("A100@whole", {"unpartitioned": True, "partition": None}),
        ("A100@1g.5gb:2", {"partition": "1g.5gb", "count": 2}),
        ("80GB+", {"memory": MemoryRequest(gb=80, at_least=True), "vendor": None}),
        ("amd:192GB:2", {"memory": MemoryRequest(gb=192), "vendor": "amd", "count": 2}),
        ("A100:80GB", {"memory": MemoryRequest(gb=80), "exact": False}),
        ("tpu-v5litepod-8", {"count": 8, "partition": "2x4"}),
    ],
)
def test_fields(text: str, fields: dict[str, Any]):
    spec = AcceleratorSpec.parse(text)
    assert {name: getattr(spec, name) for name in fields} == fields


def test_count_is_an_int_when_whole():
    assert type(AcceleratorSpec.parse("H100:8.0").count) is int
    assert type(AcceleratorSpec.parse("T4:0.5").count) is float


def test_list_form_is_the_same_chain():
    chain = AcceleratorSpec.coerce(["H100-SXM:8", "A100-80GB:8", "80GB+:8"])
    assert chain == AcceleratorSpec.parse("H100-SXM:8 | A100-80GB:8 | 80GB+:8")
    assert [str(alt) for alt in chain.alternatives] == ["H100-SXM:8", "A100-80GB:8", "80GB+:8"]


def test_memory_requests_list_their_candidates():
    spec = AcceleratorSpec.parse("amd:192GB+")
    assert spec.candidates
    assert all(acc.vendor == "amd" and acc.memory_gb >= 192 for acc in spec.candidates)


# -- invalid: (input, error type, message, caret line) ---------------------------------------
SYSTEMS = (
    "nvidia-smi, GPU Feature Discovery, GKE, Karpenter, EKS, Flyte, Flyte 2, Ray, SkyPilot, "
    "Modal, Hugging Face, ROCm, Intel GPU plugin, other"
)
UNKNOWN_TAIL = (
    f"Expected the name of a catalog model or SKU (accelerators.catalog.models() lists the "
    f"{len(catalog.models())} models), an alias, or a name one of these systems uses: {SYSTEMS}"
)
NAME_OR_MEMORY = (
    "Expected an accelerator name (such as 'H100'), a memory size (such as '80GB+') or a "
    "vendor (such as 'nvidia')"
)
COUNT_OR_MEMORY = (
    "Expected a count after ':' (a number such as 8 or 0.5) or a memory size (such as 80GB)"
)
PARTITION = "Expected a MIG profile (such as 1g.5gb) or TPU topology (such as 2x4) after '@'"
A100_PROFILES = "1g.5gb, 1g.5gb+me, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb"
PARENS = " (parentheses are not part of the grammar; separate alternatives with '|')"
PLUS = (
    " ('+' follows a memory size, as in '80GB+'; for 'this or better', list fallbacks: "
    "'H100 | H200')"
)

INVALID: list[tuple[str, type[AcceleratorError], str, str]] = [
    # nothing, or not a spec at all
    (
        "",
        SpecSyntaxError,
        "Expected an accelerator spec such as 'H100:8', 'A100@1g.5gb' or "
        "'80GB+', got an empty string",
        "^",
    ),
    (
        "   ",
        SpecSyntaxError,
        "Expected an accelerator spec such as 'H100:8', 'A100@1g.5gb' or "
        "'80GB+', got an empty string",
        "   ^",
    ),
    (
        "\uff28100",
        SpecSyntaxError,
        f"{NAME_OR_MEMORY} at the start of the spec, got '\uff28'",
        "^",
    ),  # a full-width H
    # counts
    ("H100:x", SpecSyntaxError, f"{COUNT_OR_MEMORY}, got 'x'", "     ^"),
    ("H100:", SpecSyntaxError, f"{COUNT_OR_MEMORY}, got the end of the spec", "     ^"),
    (
        "H100:0",
        InvalidSpecError,
        "Expected a positive count of at most 2**53 (9007199254740992) after ':', got '0'",
        "     ^",
    ),
    ("H100:-1", SpecSyntaxError, f"{COUNT_OR_MEMORY}, got '-1'", "     ~^"),
    ("H100:1e3", SpecSyntaxError, f"{COUNT_OR_MEMORY}, got '1e3'", "     ~~^"),
    ("H100:8x", SpecSyntaxError, f"{COUNT_OR_MEMORY}, got '8x'", "     ~^"),
    (
        "H100:8:3",
        SpecSyntaxError,
        "Unexpected ':' after 'H100:8'; expected '|' or the end of the "
        "spec (the count comes last and once, as in 'H100:8')",
        "      ^",
    ),
    (
        "nvidia:2:2",
        SpecSyntaxError,
        "Unexpected ':' after 'nvidia:2'; expected '|' or the end of "
        "the spec (the count comes last and once, as in 'H100:8')",
        "        ^",
    ),
    (
        "8x H100:4",
        InvalidSpecError,
        "'8x H100' already means a count of 8, but the spec asks for 4; give the count once",
        "        ^",
    ),
    # stray punctuation
    (
        "H100)",
        SpecSyntaxError,
        f"Unexpected ')' after 'H100'; expected '!', '@', ':', '|' or the end of the spec{PARENS}",
        "    ^",
    ),
    ("(H100)", SpecSyntaxError, f"{NAME_OR_MEMORY} at the start of the spec, got '('{PARENS}", "^"),
    (
        "H100 ; A100",
        SpecSyntaxError,
        "Unexpected ';' after 'H100'; expected '!', '@', ':', '|' or the end of the spec",
        "     ^",
    ),
    (
        "H100+",
        SpecSyntaxError,
        "Unexpected '+' after 'H100'; '+' follows a memory size, as in "
        "'80GB+'; for 'this or better', list fallbacks: 'H100 | H200'",
        "    ^",
    ),
    (
        "A100@1g.5gb!",
        SpecSyntaxError,
        "Unexpected '!' after 'A100@1g.5gb'; expected ':', '|' or "
        "the end of the spec ('!' goes right after the name, as in 'H100!:8')",
        "           ^",
    ),
    (
        "H100:8!",
        SpecSyntaxError,
        "Unexpected '!' after 'H100:8'; expected '|' or the end of the "
        "spec ('!' goes right after the name, as in 'H100!:8')",
        "      ^",
    ),
    (
        "A100:80GB@1g.10gb",
        SpecSyntaxError,
        "Unexpected '@' after 'A100:80GB'; expected '+', ':', "
        "'|' or the end of the spec (the partition goes right after the name or '!', as in "
        "'A100@1g.5gb:2')",
        "         ^",
    ),
    # separators
    ("H100 |", SpecSyntaxError, f"{NAME_OR_MEMORY} after '|', got the end of the spec", "      ^"),
    ("| H100", SpecSyntaxError, f"{NAME_OR_MEMORY} at the start of the spec, got '|'", "^"),
    ("H100 || A100", SpecSyntaxError, f"{NAME_OR_MEMORY} after '|', got '|'", "      ^"),
    ("H100,,A100", SpecSyntaxError, f"{NAME_OR_MEMORY} after ',', got ','", "     ^"),
    # partitions
    (
        "A100@",
        SpecSyntaxError,
        f"{PARTITION}, got the end of the spec; A100-40GB-SXM offers: {A100_PROFILES}, whole",
        "     ^",
    ),
    (
        "A100@foo",
        UnknownPartitionError,
        f"{PARTITION}, got 'foo' (A100-40GB-SXM offers: {A100_PROFILES}, whole)",
        "     ~~^",
    ),
    (
        "A100@1g5gb",
        UnknownPartitionError,
        f"{PARTITION}, got '1g5gb'; did you mean '1g.5gb' or "
        f"'1g.5gb+me' or '1g.10gb'? (A100-40GB-SXM offers: {A100_PROFILES}, whole)",
        "     ~~~~^",
    ),
    (
        "A100-40GB@1g.20gb",
        UnknownPartitionError,
        "A100-40GB-SXM has no MIG profile '1g.20gb'; valid: "
        f"{A100_PROFILES}. Did you mean '1g.10gb' or '1g.5gb' or '4g.20gb'? (A100-80GB has "
        "'1g.20gb'.)",
        "          ~~~~~~^",
    ),
    (
        "T4@1g.5gb",
        UnknownPartitionError,
        "T4 cannot be partitioned: it has no MIG profiles or TPU "
        "topologies, so '1g.5gb' is not available",
        "   ~~~~~^",
    ),
    (
        "T4@whole",
        InvalidSpecError,
        "T4 cannot be partitioned, so '@whole' means nothing for it",
        "   ~~~~^",
    ),
    (
        "H100@2x4",
        UnknownPartitionError,
        "H100-SXM has no TPU topology '2x4'; valid: 1g.10gb, "
        "1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb.",
        "     ~~^",
    ),
    (
        "TPU-V5E@2x3",
        UnknownPartitionError,
        "TPU-V5E has no TPU topology '2x3'; valid: 1x1, 2x2, "
        "2x4, 4x4, 4x8, 8x8, 8x16, 16x16. Did you mean '2x4' or '2x2'?",
        "        ~~^",
    ),
    (
        "tpu-v5litepod-8@2x2",
        InvalidSpecError,
        "'tpu-v5litepod-8' already names the partition "
        "'2x4', but the spec asks for '2x2'; give the partition once",
        "                ~~^",
    ),
    # names
    (
        "H10O",
        UnknownAcceleratorError,
        f"Unknown accelerator 'H10O'; did you mean 'H100'? {UNKNOWN_TAIL}",
        "~~~^",
    ),
    (
        "A100 | H10O:8",
        UnknownAcceleratorError,
        f"Unknown accelerator 'H10O'; did you mean 'H100'? {UNKNOWN_TAIL}",
        "       ~~~^",
    ),
    ("GPU", UnknownAcceleratorError, f"Unknown accelerator 'GPU'. {UNKNOWN_TAIL}", "~~^"),
    (
        "tpu-v5p-3",
        UnknownAcceleratorError,
        "Unknown TPU slice 'tpu-v5p-3': TPU-V5P slices are "
        "sized in TensorCores, two per chip, so the size must be even, got 3",
        "~~~~~~~~^",
    ),
    (
        "tpu-v5litepod-3:2",
        UnknownAcceleratorError,
        "Unknown TPU slice 'tpu-v5litepod-3': TPU-V5E "
        "has no topology with 3 chips; sizes in this naming: 1, 4, 8, 16, 32, 64, 128, 256",
        "~~~~~~~~~~~~~~^",
    ),
    # memory
    # dstack's vendor prefix before a name must be the name's vendor
    (
        "amd:H100:8",
        InvalidSpecError,
        "H100-SXM is made by nvidia, not amd; write 'nvidia:H100-SXM' or the name alone",
        "~~~~~~~~~~^",
    ),
    (
        "nvidia:24GB:x",
        SpecSyntaxError,
        "Expected a count after ':' (a number such as 8 or 0.5), got 'x'",
        "            ^",
    ),
    (
        "80GB:80GB",
        SpecSyntaxError,
        "Expected a count after ':' (a number such as 8 or 0.5), got '80GB'",
        "     ~~~^",
    ),
    (
        "A100:80GB:80GB",
        SpecSyntaxError,
        "Expected a count after ':' (a number such as 8 or 0.5), got '80GB'",
        "          ~~~^",
    ),
    (
        "80GB@1g.5gb",
        SpecSyntaxError,
        "Unexpected '@' after '80GB'; expected '+', ':', '|' or the "
        "end of the spec (the partition goes right after the name or '!', as in 'A100@1g.5gb:2')",
        "    ^",
    ),
    ("0GB", InvalidSpecError, "Expected a positive memory size such as '80GB', got '0GB'", "~~^"),
    (
        "A100-40GB-PCIE:80GB",
        InvalidSpecError,
        "A100-40GB-PCIE has 40 GB, which does not satisfy "
        "the memory request 80GB; A100 models: A100-40GB (40 GB), A100-80GB (80 GB)",
        "~~~~~~~~~~~~~~~~~~^",
    ),
    (
        "H100:8GB",
        InvalidSpecError,
        "No H100 model has 8GB of memory; H100 models: H100-SXM (80 GB), "
        "H100-PCIE (80 GB), H100-NVL (94 GB)",
        "~~~~~~~^",
    ),
]


@pytest.mark.parametrize(
    ("text", "error", "message", "caret"), INVALID, ids=[repr(v[0]) for v in INVALID]
)
def test_invalid(text: str, error: type[AcceleratorError], message: str, caret: str):
    with pytest.raises(AcceleratorError) as info:
        AcceleratorSpec.parse(text)
    assert type(info.value) is error
    assert str(info.value) == f"{message}\n    {text}\n    {caret}"


def test_syntax_errors_carry_source_and_span():
    with pytest.raises(SpecSyntaxError) as info:
        AcceleratorSpec.parse("A100 | H100:x")
    assert info.value.source == "A100 | H100:x"
    assert info.value.span == (12, 13)
    assert info.value.message.startswith("Expected a count after ':'")


def test_unknown_names_keep_their_fields():
    with pytest.raises(UnknownAcceleratorError) as info:
        AcceleratorSpec.parse("A100 | H10O:8")
    assert info.value.name == "H10O"
    assert info.value.suggestions == ("H100",)


def test_unknown_partitions_keep_their_fields():
    with pytest.raises(UnknownPartitionError) as info:
        AcceleratorSpec.parse("A100-40GB@1g.20gb")
    assert (info.value.accelerator, info.value.partition) == ("A100-40GB-SXM", "1g.20gb")
    assert "1g.10gb" in info.value.valid


@pytest.mark.parametrize("value", [None, 3.5, 8, {"H100": 8}, b"H100", object()])
def test_non_string_values(value: Any):
    with pytest.raises(InvalidSpecError, match="Expected an accelerator spec"):
        AcceleratorSpec.coerce(value)
    # parse reads text only, and says where the rest goes
    with pytest.raises(InvalidSpecError, match=r"AcceleratorSpec.coerce\(value\) also reads"):
        AcceleratorSpec.parse(value)


@pytest.mark.parametrize("value", [None, 3.5, ["H100"]])
def test_parse_spec_wants_a_string(value: Any):
    with pytest.raises(AcceleratorError, match="Expected an accelerator spec string"):
        parse_spec(value)


def test_empty_fallback_list():
    with pytest.raises(InvalidSpecError, match="at least one accelerator"):
        AcceleratorSpec.coerce([])


def test_errors_are_value_errors():
    with pytest.raises(ValueError, match="Unknown accelerator"):
        AcceleratorSpec.parse("H10O")


# -- the tokenizer ---------------------------------------------------------------------------
def test_tokens_carry_spans():
    tokens = Tokenizer("NVIDIA H100 80GB HBM3:8")
    assert tokens.check("NAME")
    name = tokens.read()
    assert (name.text, name.span) == ("NVIDIA H100 80GB HBM3", (0, 21))
    assert tokens.consume("COLON") is not None
    count = tokens.expect("COUNT", expected="a count")
    assert (count.text, count.span) == ("8", (22, 23))
    assert tokens.at_end()


def test_tokenizer_is_context_sensitive():
    assert Tokenizer("80GB+").check("MEMORY", peek=True)
    assert not Tokenizer("80GB-SXM").check("MEMORY", peek=True)
    assert Tokenizer("nvidia:24GB").check("VENDOR", peek=True)
    assert not Tokenizer("nvidia H100").check("VENDOR", peek=True)


def test_tokenizer_misuse_is_a_bug_not_an_input_error():
    tokens = Tokenizer("H100")
    with pytest.raises(RuntimeError):
        tokens.read()
    assert tokens.check("NAME")
    with pytest.raises(RuntimeError):
        tokens.check("NAME")
