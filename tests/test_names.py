"""Name resolution (`accelerators.catalog._names`), generated from the catalog data."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from accelerators import catalog
from accelerators.catalog import Accelerator, _store
from accelerators.catalog._names import NameMatch, cache_clear, known_spellings, resolve_name
from accelerators.catalog._schema import Names
from accelerators.errors import AcceleratorError, UnknownAcceleratorError, UnknownPartitionError

ENTRIES = catalog.all()
IDENTITY = ("name", "model", "constant", "alias")


def _spellings(acc: Accelerator) -> list[tuple[str, str]]:
    """(source, spelling) for every spelling the catalog gives ``acc``."""
    found = [("name", acc.name), ("model", acc.model)]
    found += [("constant", acc.constant)] if acc.constant else []
    found += [("alias", alias) for alias in acc.aliases]
    for system in Names.model_fields:
        value = getattr(acc.names, system)
        found += [(system, v) for v in ((value,) if isinstance(value, str) else value or ())]
    return found


def _key(text: str) -> str:
    return "-".join(text.casefold().replace("_", " ").replace("-", " ").split())


#: Exact keys of the catalog's own spellings (name, model, constant, alias) -> their model.
IDENTITY_OWNER = {
    _key(text): acc.model
    for acc in ENTRIES
    for source, text in _spellings(acc)
    if source in IDENTITY
}
#: Exact keys of other systems' spellings -> the models that carry them.
SYSTEM_OWNERS: dict[str, set[str]] = {}
for _acc in ENTRIES:
    for _source, _text in _spellings(_acc):
        if _source not in IDENTITY:
            SYSTEM_OWNERS.setdefault(_key(_text), set()).add(_acc.model)

SPELLINGS = [
    pytest.param(acc, source, text, id=f"{acc.name}-{source}-{text}")
    for acc in ENTRIES
    for source, text in _spellings(acc)
]


# -- every spelling in the data resolves ----------------------------------------------------
@pytest.mark.parametrize(("acc", "source", "text"), SPELLINGS)
def test_every_catalog_spelling_resolves_to_its_model(acc: Accelerator, source: str, text: str):
    key = _key(text)
    if key in IDENTITY_OWNER:
        # The catalog's own names win: Karpenter's "a100" (both A100 sizes) is the alias A100.
        expected_model = IDENTITY_OWNER[key]
    elif len(SYSTEM_OWNERS.get(key, ())) > 1:
        with pytest.raises(UnknownAcceleratorError, match="is ambiguous"):
            resolve_name(text)
        return
    else:
        expected_model = acc.model
    match = resolve_name(text)
    assert match.accelerator.model == expected_model
    if expected_model == acc.model and not match.pinned:
        assert match.accelerator == catalog.by_model(acc.model)[0]


@pytest.mark.parametrize(("acc", "source", "text"), SPELLINGS)
def test_every_spelling_resolves_in_any_case_and_separator_style(
    acc: Accelerator, source: str, text: str
):
    exact = resolve_name(text)
    for variant in (text.upper(), text.lower(), text.replace("-", " "), f"  {text}  "):
        if shared_with_an_instance(variant, exact):
            # Another cloud's instance type is this name in another case (Paperspace's A100x8,
            # Hugging Face's a100x8): case decides, and a casing neither writes is refused.
            with pytest.raises(UnknownAcceleratorError, match="is ambiguous"):
                resolve_name(variant)
            continue
        found = resolve_name(variant)
        if found.accelerator != exact.accelerator:
            # another system's spelling in a case or style that system does not write says no
            # more than its words (Mystic's nvidia_h100_80gb is not GKE's nvidia-h100-80gb):
            # a family that holds the entry, never another entry
            assert exact.source not in IDENTITY, variant
            assert exact.accelerator in (found.accelerator, *found.family), variant


def shared_with_an_instance(text: str, exact: NameMatch) -> bool:
    from accelerators.catalog._instances import instances_named

    rows = [r for r in instances_named(text) if r.name != text.strip()]
    return text.strip() != text.strip().casefold() and any(
        catalog.get(r.accelerator).model != exact.accelerator.model or r.count != (exact.count or 1)
        for r in rows
    )


@pytest.mark.parametrize("acc", ENTRIES, ids=lambda acc: acc.name)
def test_sku_names_pin_unless_they_are_the_model(acc: Accelerator):
    match = resolve_name(acc.name)
    assert match.accelerator is acc
    single_sku = len(catalog.by_model(acc.model)) == 1
    assert match.pinned is not (single_sku or acc.name == acc.model)


@pytest.mark.parametrize("model", catalog.models())
def test_model_names_resolve_to_the_default_sku(model: str):
    match = resolve_name(model)
    assert match.accelerator is catalog.by_model(model)[0]
    assert match.accelerator.default_for_model
    assert match.pinned is False


@pytest.mark.parametrize(
    ("acc", "source", "text"),
    [
        p
        for p in SPELLINGS
        if p.values[1] in ("nvml", "gfd") and _key(str(p.values[2])) not in IDENTITY_OWNER
    ],
)
def test_device_reported_names_pin_the_sku_of_multi_sku_models(
    acc: Accelerator, source: str, text: str
):
    # (A device name that is also one of the catalog's own names, such as "NVIDIA-L4", the
    # alias of the L4, resolves as that name.)
    match = resolve_name(text)
    assert match.accelerator is acc
    assert match.pinned is (len(catalog.by_model(acc.model)) > 1)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # as the device writes it: nvidia-smi's "NVIDIA H200" is the SXM card (the NVL card
        # says "NVL"), GFD's label too, and flytekit's constant nvidia-h200 names it
        ("NVIDIA H200", "H200-SXM"),
        ("NVIDIA-H200", "H200-SXM"),
        ("nvidia-h200", "H200-SXM"),
        # written otherwise, the words leave the form factor open (imperial_rcs, ionos_cloud,
        # llminfersim in tests/peer_names): the family, never the SXM card alone
        ("NVidia H200", "H200-SXM | H200-NVL"),
        ("nvidia_H200", "H200-SXM | H200-NVL"),
        ("4x NVIDIA H200", "H200-SXM:4 | H200-NVL:4"),
        ("NVIDIA GEFORCE RTX 3060", "RTX-3060:12GB | RTX-3060-8GB"),
        # where the words pin the board, the board is kept however the name is written
        ("8x NVIDIA H100 80GB HBM3", "H100-SXM!:8"),
        ("nvidia_a100-sxm4-80gb", "A100-80GB-SXM!"),
    ],
)
def test_a_device_reported_name_pins_its_board_only_as_the_device_writes_it(
    text: str, canonical: str
) -> None:
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse(text)) == canonical


# -- model-level or SKU-level: the cases the design names ------------------------------------
@pytest.mark.parametrize(
    ("text", "sku", "pinned"),
    [
        # model-level: model name, default-SKU aliases, a label both form factors share
        ("A100", "A100-40GB-SXM", False),  # the family's first model (A100-80GB follows)
        ("A100-40GB", "A100-40GB-SXM", False),
        ("nvidia-tesla-a100", "A100-40GB-SXM", False),
        ("H100-SXM", "H100-SXM", False),
        ("nvidia-h100-80gb", "H100-SXM", False),
        ("A100-80G", "A100-80GB-SXM", False),
        ("Tesla T4", "T4", False),  # a single-SKU model: nothing to pin
        ("H200-SXM", "H200-SXM", False),
        # SKU-level: a form factor, a device-reported name, a non-default SKU's label
        ("A100-40GB-PCIE", "A100-40GB-PCIE", True),
        ("A100-40GB-SXM", "A100-40GB-SXM", True),
        ("NVIDIA A100-SXM4-40GB", "A100-40GB-SXM", True),
        ("NVIDIA-A100-SXM4-40GB", "A100-40GB-SXM", True),
        ("A100-SXM4-40GB", "A100-40GB-SXM", True),
        ("H100-SXM5", "H100-SXM", True),
        ("NVIDIA H100 80GB HBM3", "H100-SXM", True),
        ("nvidia-h100-mega-80gb", "H100-MEGA", True),
        ("Tesla V100-PCIE-32GB", "V100-32GB-PCIE", True),
    ],
)
def test_pinned_or_model_level(text: str, sku: str, pinned: bool):
    match = resolve_name(text)
    assert (match.accelerator.name, match.pinned) == (sku, pinned)


@pytest.mark.parametrize(
    ("text", "source"),
    [
        ("H100-SXM", "model"),  # the model's name (its default SKU's too)
        ("H100-MEGA", "name"),
        ("H100", "open"),  # the SXM card on SkyPilot, either form factor on Shadeform
        ("A100", "open"),  # catalog [[open_names]]: 40 GB on some systems, 80 GB on others
        ("A100-SXM4-40GB", "alias"),
        ("NVIDIA H100 80GB HBM3", "nvml"),
        ("nvidia-h100-80gb", "gke"),
        ("rtx-pro-server-6000", "karpenter"),
        ("a10g-largex2", "hf"),
        ("RTXPRO6000", "skypilot"),
        ("AMD Instinct MI355X", "rocm"),
        ("nvidia-tesla-h100", "other"),
        ("A100_80G", "flyte2"),  # also Ray's A100-80G: the first system in Names order
        ("nvidia a100 80 gb", "model"),  # a loose match reports the spelling it matched
    ],
)
def test_source_names_the_kind_of_spelling(text: str, source: str):
    assert resolve_name(text).source == source


# -- names that imply a count or a partition -------------------------------------------------
@pytest.mark.parametrize(
    ("text", "sku", "count", "partition"),
    [
        ("a10g-largex2", "A10G", 2, None),
        ("a10g-largex4", "A10G", 4, None),
        ("l40sx4", "L40S", 4, None),
        ("h200x8", "H200-SXM", 8, None),
        ("a100x8", "A100-80GB-SXM", 8, None),  # HF's A100s are the 80 GB part
        ("t4-small", "T4", None, None),
        ("8x H100-SXM", "H100-SXM", 8, None),
        ("1x H100-SXM", "H100-SXM", 1, None),
        ("0.5x T4", "T4", 0.5, None),
        ("H100-SXM x8", "H100-SXM", 8, None),
        ("A100 x8", "A100-40GB-SXM", 8, None),  # a spaced count: not HF's a100x8
        ("h100x8", "H100-SXM", 8, None),
        ("tpu-v5litepod-1", "TPU-V5E", 1, "1x1"),
        ("tpu-v5litepod-4", "TPU-V5E", 4, "2x2"),
        ("tpu-v5litepod-8", "TPU-V5E", 8, "2x4"),
        ("tpu-v6e-8", "TPU-V6E", 8, "2x4"),
        ("tpu-v5p-8", "TPU-V5P", 4, "2x2x1"),
        ("tpu-v5p-16", "TPU-V5P", 8, "2x2x2"),
        ("tpu-v4-8", "TPU-V4", 4, "2x2x1"),
        ("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", "A100-40GB-SXM", None, "1g.5gb"),
        ("NVIDIA-H100-80GB-HBM3-MIG-3g.40gb", "H100-SXM", None, "3g.40gb"),
        ("NVIDIA A100-SXM4-80GB MIG 1g.10gb+me", "A100-80GB-SXM", None, "1g.10gb+me"),
    ],
)
def test_implied_count_and_partition(
    text: str, sku: str, count: float | None, partition: str | None
):
    match = resolve_name(text)
    assert (match.accelerator.name, match.count, match.partition) == (sku, count, partition)


def test_name_match_is_a_frozen_value():
    match = resolve_name("A100")
    assert isinstance(match, NameMatch)
    assert match == resolve_name("a100")
    with pytest.raises(AttributeError):
        match.pinned = True  # type: ignore[misc]


# -- tolerance -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "sku"),
    [
        ("nvidia a100 80gb", "A100-80GB-SXM"),
        ("NVIDIA_A100_80GB", "A100-80GB-SXM"),
        ("A100 80G", "A100-80GB-SXM"),
        ("Tesla V100-SXM2-16GB", "V100-16GB-SXM2"),
        ("tesla-v100", "V100-16GB-SXM2"),
        ("AMD Instinct MI300X", "MI300X"),
        ("instinct mi300x", "MI300X"),
        ("Intel Gaudi 2", "GAUDI2"),
        ("gaudi2", "GAUDI2"),
        ("A100 SXM4 40GB", "A100-40GB-SXM"),  # words in another order
        ("A100-40GB-SXM4", "A100-40GB-SXM"),
        ("H100 SXM", "H100-SXM"),
        ("H100 94GB", "H100-NVL"),  # a size no spelling carries picks the family member
        ("NVIDIA H100 (80GB)", "H100-SXM"),  # parenthesised qualifiers are dropped
        ("google tpu v5e", "TPU-V5E"),
        ("trn2", "TRAINIUM2"),
        ("aws trainium2", "TRAINIUM2"),
    ],
)
def test_tolerant_spellings(text: str, sku: str):
    assert resolve_name(text).accelerator.name == sku


# -- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        ("H10O", "H100"),
        ("A10O", "A100"),
        ("MI30OX", "MI300X"),
        ("nvidia-tesla-a10O", "nvidia-tesla-a100"),
        ("Trainum2", "TRAINIUM2"),
    ],
)
def test_unknown_names_raise_with_close_matches(text: str, suggestion: str):
    with pytest.raises(UnknownAcceleratorError) as info:
        resolve_name(text)
    assert suggestion in info.value.suggestions
    message = str(info.value)
    assert message.startswith(f"Unknown accelerator {text!r}; did you mean ")
    assert repr(suggestion) in message
    assert "Expected the name of a catalog model or SKU" in message
    assert info.value.name == text
    assert isinstance(info.value, LookupError)


def test_unknown_name_without_close_matches_says_what_was_expected():
    with pytest.raises(UnknownAcceleratorError) as info:
        resolve_name("quantum-annealer")
    message = str(info.value)
    assert message.startswith("Unknown accelerator 'quantum-annealer'. Expected the name")
    assert "nvidia-smi" in message
    assert "Hugging Face" in message
    assert info.value.suggestions == ()


def test_one_suggestion_per_model():
    with pytest.raises(UnknownAcceleratorError) as info:
        resolve_name("H10O")
    models = [resolve_name(s).accelerator.model for s in info.value.suggestions]
    assert len(models) == len(set(models))


@pytest.mark.parametrize("text", ["", "   ", "\t"])
def test_empty_name(text: str):
    with pytest.raises(UnknownAcceleratorError, match="Expected an accelerator name"):
        resolve_name(text)


@pytest.mark.parametrize("value", [None, 3.5, b"H100-SXM", ["H100-SXM"]])
def test_non_string_names(value: Any):
    with pytest.raises(UnknownAcceleratorError, match="Expected an accelerator name"):
        resolve_name(value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tpu-v5p-3", r"TPU-V5P slices are sized in TensorCores, two per chip"),
        ("tpu-v5litepod-3", r"TPU-V5E has no topology with 3 chips; sizes in this naming: 1, 4"),
        ("0x H100-SXM", r"'0x H100-SXM' exactly: it asks for 0 devices"),
    ],
)
def test_bad_sizes(text: str, message: str):
    with pytest.raises(UnknownAcceleratorError, match=message):
        resolve_name(text)


def test_mig_suffix_with_a_profile_the_sku_lacks():
    with pytest.raises(UnknownPartitionError, match=r"A100-40GB-SXM has no MIG profile '1g\.20gb'"):
        resolve_name("NVIDIA-A100-SXM4-40GB-MIG-1g.20gb")


def test_long_names_are_quoted_shortened():
    text = "x" * 5000
    with pytest.raises(UnknownAcceleratorError) as info:
        resolve_name(text)
    assert len(str(info.value)) < 600
    assert info.value.name == text


# -- catalog.get ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "sku"),
    [
        ("H100-SXM", "H100-SXM"),
        ("h100-sxm", "H100-SXM"),
        ("nvidia-tesla-a100", "A100-40GB-SXM"),
        ("NVIDIA A100-SXM4-80GB", "A100-80GB-SXM"),
        ("tpu-v5litepod-8", "TPU-V5E"),
        ("a10g-largex2", "A10G"),
    ],
)
def test_catalog_get_resolves_every_spelling(text: str, sku: str):
    assert catalog.get(text).name == sku


def test_catalog_get_unknown():
    with pytest.raises(UnknownAcceleratorError, match=r"did you mean 'H100'"):
        catalog.get("H10O")


def test_known_spellings_lead_with_models():
    spellings = known_spellings()
    assert spellings[: len(catalog.models())] == catalog.models()
    assert "NVIDIA H100 80GB HBM3" in spellings


# -- data-driven behaviour, checked on a modified copy of the catalog ------------------------
@pytest.fixture
def edited_catalog(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Install an edited copy of the catalog data; restore the *same* loaded objects after."""
    original = _store.LOADED.file()
    raw = _store._read_data()

    def install(edit: Callable[[dict[str, Any]], None]) -> None:
        data = copy.deepcopy(raw)
        edit(data)
        monkeypatch.setattr(_store, "_read_data", lambda: data)
        _store.LOADED.cache_clear()
        cache_clear()

    yield install

    _store.LOADED.install(original)


def _entry(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(e for e in data["accelerators"] if e["name"] == name)


def _add_name(data: dict[str, Any], sku: str, system: str, text: str) -> None:
    names = _entry(data, sku).setdefault("names", {})
    names[system] = [*names.get(system, []), text]


def test_a_spelling_of_two_models_is_ambiguous(edited_catalog: Callable[..., None]):
    def edit(data: dict[str, Any]) -> None:
        _add_name(data, "T4", "other", "cloud-gpu-small")
        _add_name(data, "L4", "other", "cloud-gpu-small")

    edited_catalog(edit)
    for text in ("cloud-gpu-small", "Cloud GPU Small", "cloud_gpu_small"):
        with pytest.raises(UnknownAcceleratorError) as info:
            resolve_name(text)
        message = str(info.value)
        assert message.startswith(f"Accelerator name {text!r} is ambiguous")
        assert "T4 (T4)" in message
        assert "L4 (L4)" in message
        assert info.value.suggestions == ("T4", "L4")


def test_a_spelling_of_two_skus_of_one_model_means_the_model(
    edited_catalog: Callable[..., None],
):
    def edit(data: dict[str, Any]) -> None:
        _add_name(data, "A100-40GB-SXM", "other", "lab-a100")
        _add_name(data, "A100-40GB-PCIE", "other", "lab-a100")
        _add_name(data, "A100-40GB-PCIE", "other", "lab-a100-pcie-only")

    edited_catalog(edit)
    match = resolve_name("lab-a100")
    assert (match.accelerator.name, match.pinned) == ("A100-40GB-SXM", False)
    match = resolve_name("lab-a100-pcie-only")
    assert (match.accelerator.name, match.pinned) == ("A100-40GB-PCIE", True)


def test_the_index_follows_the_catalog(edited_catalog: Callable[..., None]):
    with pytest.raises(UnknownAcceleratorError):
        resolve_name("brand-new-gpu")
    edited_catalog(lambda data: _entry(data, "L40S")["aliases"].append("brand-new-gpu"))
    assert resolve_name("brand-new-gpu").accelerator.name == "L40S"


def test_tpu_slice_sizes_come_from_the_topologies(edited_catalog: Callable[..., None]):
    def edit(data: dict[str, Any]) -> None:
        entry = _entry(data, "TPU-V5E")
        entry["tpu_topologies"] = [t for t in entry["tpu_topologies"] if t["topology"] != "2x4"]

    edited_catalog(edit)
    with pytest.raises(UnknownAcceleratorError, match="no topology with 8 chips"):
        resolve_name("tpu-v5litepod-8")


def test_resolution_errors_are_accelerator_errors():
    assert issubclass(UnknownAcceleratorError, AcceleratorError)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # a looser match that leaves the model open is the family the words allow
        ("nvidia_a100", "A100-40GB | A100-80GB"),
        ("NVIDIA A100", "A100-40GB | A100-80GB"),
        ("nvidia_v100", "V100-16GB | V100-32GB"),
        ("H100 80GB", "H100-SXM | H100-PCIE"),
        ("H100-80GB", "H100-SXM | H100-PCIE"),
        ("H200 141GB", "H200-SXM | H200-NVL"),
        ("8x nvidia_a100", "A100-40GB:8 | A100-80GB:8"),
        # the words decide, or the catalog's own name has its documented default
        ("NVIDIA A100 80GB", "A100-80GB"),
        ("A100-40GB", "A100-40GB"),
        # a bare name that systems give to different models (Modal's and fal's A100 are 40 GB,
        # Baseten's 80 GB): the family (catalog [[open_names]]), with or without a count
        ("A100", "A100-40GB | A100-80GB"),
        ("a100", "A100-40GB | A100-80GB"),
        ("A100:8", "A100-40GB:8 | A100-80GB:8"),
        ("8x A100", "A100-40GB:8 | A100-80GB:8"),
        ("A100 x8", "A100-40GB:8 | A100-80GB:8"),
        ("A100!", "A100-40GB-SXM! | A100-80GB-SXM!"),
        # ... and a memory size or a MIG profile picks the model
        ("A100:80GB", "A100-80GB"),
        ("A100@3g.20gb", "A100-40GB@3g.20gb"),
        ("A100@3g.40gb", "A100-80GB@3g.40gb"),
        ("A100@1g.10gb", "A100-40GB@1g.10gb | A100-80GB@1g.10gb"),
        # a bare V100 is 16 GB on SkyPilot and Lambda, either size on Beam and Karpenter
        ("V100", "V100-16GB | V100-32GB"),
        ("Tesla V100", "V100-16GB | V100-32GB"),
        ("TeslaV100", "V100-16GB | V100-32GB"),
        ("V100:8", "V100-16GB:8 | V100-32GB:8"),
        ("V100:32GB", "V100-32GB"),
        ("nvidia-tesla-v100", "V100-16GB"),  # GKE's and EKS's label: the 16 GB card
        ("Tesla V100-SXM2-16GB", "V100-16GB-SXM2!"),  # NVML states the memory
        # a bare GH200 is 96 GB on Lambda and SkyPilot, either on Beam and Prime Intellect
        ("GH200", "GH200-96GB | GH200-144GB"),
        ("Grace Hopper", "GH200-96GB | GH200-144GB"),
        ("GH200:4", "GH200-96GB:4 | GH200-144GB:4"),
        ("GH200:144GB", "GH200-144GB"),
        ("GH200@1g.18gb", "GH200-144GB@1g.18gb"),  # a MIG profile only the 144 GB one has
        ("NVIDIA GH200 96GB HBM3", "GH200-96GB"),  # NVML states the memory (the only SKU)
        ("gpu_1x_gh200", "GH200-96GB"),  # Lambda's instance: the 96 GB one
        # a bare 910B is either bin family (catalog 2026.11.44); Ascend's own names stay the
        # 64 GB entry, a bin's word names its bin, a memory size picks one
        ("910B", "ASCEND-910B | ASCEND-910B4"),
        ("8x 910B", "ASCEND-910B:8 | ASCEND-910B4:8"),
        ("910b-64g", "ASCEND-910B"),
        ("910B3", "ASCEND-910B"),
        ("910B4", "ASCEND-910B4"),
        ("Ascend 910B", "ASCEND-910B"),
        ("ASCEND-910B", "ASCEND-910B"),
        ("Ascend910B", "ASCEND-910B"),  # Ray's name
        # a bare H100 or H200 leaves the form factor open; a stated one or a size decides
        ("H100", "H100-SXM | H100-PCIE | H100-NVL"),
        ("H100:94GB", "H100-NVL"),
        ("H100 SXM", "H100-SXM"),
        ("H200", "H200-SXM | H200-NVL"),
        ("p5.48xlarge", "H100-SXM:8"),  # AWS's only H100 is the SXM board
        # dstack's ',' list shares its count with a family too
        ("H100,MI300X:8", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8 | MI300X:8"),
        ("H100-SXM", "H100-SXM"),
        # a platform's label keeps its platform's meaning (flytekit's H100 constant)
        ("nvidia-h100", "H100-SXM"),
        ("nvidia-tesla-a100", "A100-40GB"),
        # ... but written in another case or style it is no platform's label: Fireworks'
        # NVIDIA_H200_141GB names either board, as its words do
        ("NVIDIA_H200_141GB", "H200-SXM | H200-NVL"),
        # a count a system glues to its own spelling stays that spelling (Hugging Face)
        ("a100x4", "A100-80GB:4"),
    ],
)
def test_a_name_that_leaves_the_model_open_reads_as_the_family(text: str, canonical: str) -> None:
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse(text)) == canonical


def test_a_bare_a100_is_the_family_but_the_constant_is_flytekits_40_gb_card() -> None:
    """Issue 32: a bare ``A100`` does not determine the model (Modal's and fal's are the 40 GB
    card, Baseten's the 80 GB one), so the name reads as the family; flytekit's constant
    ``A100`` is GKE's ``nvidia-tesla-a100``, the 40 GB card, and ours stays a drop-in."""
    import accelerators
    from accelerators import AcceleratorSpec, catalog
    from accelerators.errors import UnknownAcceleratorError

    assert str(AcceleratorSpec.parse("A100")) == "A100-40GB | A100-80GB"
    constant = AcceleratorSpec.coerce(accelerators.A100)
    assert (str(constant), constant.fallbacks) == ("A100-40GB", ())
    assert accelerators.A100.device == "nvidia-tesla-a100"
    # one accelerator asked for by that name is refused, naming both models
    for make in (lambda: AcceleratorSpec(accelerator="A100"), lambda: catalog.get("A100")):
        with pytest.raises(UnknownAcceleratorError, match="A100-40GB or A100-80GB") as info:
            make()
        assert info.value.suggestions == ("A100-40GB", "A100-80GB")
    # the data says which systems disagree, with sources
    (open_name,) = [o for o in catalog._store.LOADED.file().open_names if o.name == "A100"]
    assert open_name.members == ("A100-40GB", "A100-80GB")
    assert set(open_name.sources) <= set(catalog.sources())


@pytest.mark.parametrize(
    ("name", "members", "constant", "device"),
    [
        ("V100", ("V100-16GB", "V100-32GB"), "V100", "nvidia-tesla-v100"),
        ("GH200", ("GH200-96GB", "GH200-144GB"), "GH200", None),
        ("H100", ("H100-SXM", "H100-PCIE", "H100-NVL"), "H100", "nvidia-h100"),
        ("H200", ("H200-SXM", "H200-NVL"), "H200", "nvidia-h200"),
    ],
)
def test_other_open_names_are_families_but_their_constants_keep_one_card(
    name: str, members: tuple[str, ...], constant: str, device: str | None
) -> None:
    """Issue 32: a bare V100 or GH200 leaves the memory open (Beam's V100 takes 32 GB workers;
    Prime Intellect rents a 96 GB and a 144 GB GH200), so it reads as the family; the
    constants stay the one card they were (flytekit's V100 is nvidia-tesla-v100)."""
    import accelerators
    from accelerators import AcceleratorSpec, catalog
    from accelerators.errors import UnknownAcceleratorError

    assert AcceleratorSpec.parse(name).alternatives == tuple(
        AcceleratorSpec.parse(m) for m in members
    )
    value = getattr(accelerators, constant)
    assert str(AcceleratorSpec.coerce(value)) == members[0]
    if device is not None:
        assert value.device == device
    with pytest.raises(UnknownAcceleratorError, match=" or ".join(members)):
        catalog.get(name)
    (open_name,) = [o for o in catalog._store.LOADED.file().open_names if o.name == name]
    assert open_name.members == members
    assert len(open_name.sources) >= 2
    # each member's own model name reads back as itself, with and without a count
    for model in members:
        for text in (model, f"{model}:8"):
            assert str(AcceleratorSpec.parse(text)) == text
    assert set(open_name.sources) <= set(catalog.sources())


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # a bare number ending the name right after the model: a memory size one model has...
        ("A100-40", "A100-40GB"),  # Beam's A100-40
        ("A100-80", "A100-80GB"),
        ("H100-80", "H100-SXM | H100-PCIE"),
        # ... or, in a name that states its host or a device word, a count of 1 to 16
        # Genesis Cloud; since catalog 2026.11.16 the glued number names both 3080s (10 and 12 GB),
        # as 'nvidiap100' names both P100s
        ("vcpu-12_memory-36g_disk-80g_nvidia3080-3", "RTX-3080:10GB:3 | RTX-3080-12GB:3"),
        ("gpu-a100-2", "A100-40GB:2 | A100-80GB:2"),
        # a model number glued to the vendor word
        ("nvidia3080", "RTX-3080:10GB | RTX-3080-12GB"),
        ("nvidia3070", "RTX-3070"),
        # a '/' between words that are not models is a path, not a choice
        ("nvidia/gpu/1080ti", "GTX-1080-TI"),  # Nomad
        ("nvidia.com/mig-3g.20gb", "A100-40GB@3g.20gb"),  # a Kubernetes resource name
        ("huawei.com/Ascend910B4", "ASCEND-910B4"),
        # an instance size beside a stated count is noise; so is a chip's "GL-XL" in pci.ids
        ("gpu-a40-large-2x", "A40:2"),
        ("Arcturus GL-XL [Instinct MI100]", "MI100"),
        ("gpua5000.medium-2x", "RTX-A5000:2"),
        # "N-way" counts a baseboard's or node's GPUs (NCAR's PBS types, HGX 8-way)
        ("v100_4way", "V100-16GB:4 | V100-32GB:4"),
        ("mi300a_4way", "MI300A:4"),
        ("HGX H100 SXM5 8-way", "H100-SXM!:8"),
        # "s" for SUPER, as GPU marketplaces write it; the bare number still names the card
        ("rtx4080s", "RTX-4080-SUPER"),
        ("nvidia-4080", "RTX-4080"),
        ("Market A100 40GB", "A100-40GB"),  # a market is a platform word (Nosana)
        # a choice of whole boards is those boards, each a fallback (dstack's "A,B")
        ("Quadro RTX 6000/8000", "QUADRO-RTX-6000 | QUADRO-RTX-8000"),
        ("T4 / L4", "T4 | L4"),
        # a count written apart with '*' or a multiplication sign, typographic dashes
        ("4090 24GB * 4", "RTX-4090:4"),
        ("4\u00d7 A100", "A100-40GB:4 | A100-80GB:4"),
        ("M1 Max 32\u2011Core GPU 64GB", "M1-MAX-64GB"),
        # a CPU architecture written with a separator is no count (GPU MODE's runner labels)
        ("amdgpu-mi250-x86-64", "MI250"),
        # Radeon's three-digit RX cards: the x is the line's, not a count's
        ("AMD Radeon RX 590 Series", "RX-590"),
        # Intel's series and code names (catalog 2026.11.32's open names)
        ("Intel\u00ae Data Center GPU Max Series", "MAX-1550 | MAX-1100"),
        ("PVC", "MAX-1550 | MAX-1100"),
        ("Intel PVC 48GB", "MAX-1100"),
        ("Intel\u00ae Arc\u2122 B-Series Graphics", "ARC-B580 | ARC-B570"),
        # an Apple chip's GPU cores are its configuration, no host's (LocalScore, llama.cpp)
        ("M3 10-Core GPU 16GB", "M3-16GB"),
        # a bracketed count of devices is read, never set aside; boards and the devices they
        # hold agree (FluidX3D's "4x A16 (16 GPUs)": four 4-GPU boards)
        ("1x Tesla K80 (2 GPUs)", "K80:2"),
        ("4x A16 (16 GPUs)", "A16:16"),
        ("4x Instinct MI250 (8 GCD)", "MI250:8"),
        # a multi-GPU board's memory is the board: its devices (llm-analysis' "mi250-128gb")
        ("mi250-128gb", "MI250:2"),
        # counts glued in a row where all but one are 1 (FlagPerf's nodes x cards)
        ("H100x1x8", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8"),
        # a fraction before '*' is a share (Tencent TKE's "1/2*T4"); '*' before the name
        ("1/2*T4", "T4:0.5"),
        ("8 * V100 (AWS p3.16xlarge)", "V100-16GB:8 | V100-32GB:8"),
        # a node feature or label that names the GPU as key:value
        ("GPU_SKU:RTX_2080Ti", "RTX-2080-TI"),
        ("gpumodel:a5000", "RTX-A5000"),
        # the key words of an enum or path, a cloud beside another maker's board, the GPU's
        # compute units, a partner's overclocked or limited edition
        ("GPU_MODEL_NVIDIA_TESLA_V100_16GB", "V100-16GB"),
        ("1 K80 / AWS p2.xlarge", "K80"),
        ("gpu.azure.a10", "A10"),
        ("M1 Max GPU 24CU 32GB", "M1-MAX-32GB"),
        ("GTX 1070 OC", "GTX-1070"),
        ("Apple Silicon M1 Max (32-core GPU)", "M1-MAX-32GB | M1-MAX-64GB"),
        ("p150x4", "BLACKHOLE-P150:4"),
        # a number glued to a line word is the model's (Brown's "geforce3090"); a size without
        # its unit before a form factor (FlagPerf's "A100_40_SXM"); a renderer's API words
        ("geforce3090", "RTX-3090"),
        ("A100_40_SXM", "A100-40GB-SXM!"),
        ("nvidia geforce gtx 1080 ti opengl engine", "GTX-1080-TI"),
        # a DGX system's number counts no GPUs; a bracketed "8x" is read (DeepLearningExamples)
        ("NVIDIA DGX-1 (8x V100 16GB)", "V100-16GB:8"),
        ("NVIDIA A100 (8x A100 80GB)", "A100-80GB:8"),
        # a server maker's option name: its line, the slot's PCIe generation, the board's power
        # and build ("ThinkSystem ... PCIe Gen4 Passive GPU", Dell's "150W")
        ("ThinkSystem NVIDIA A30 24GB PCIe Gen4 Passive GPU", "A30"),
        ("NVIDIA L4 24GB PCIe Accelerator for HPE", "L4"),
        ("NVIDIA Ampere A10 PCIe 150W 24GB", "A10"),
        # a board partner's retail name (OpenRGB); Qualcomm's Cloud AI 100 is its three cards
        ("ASUS TUF GeForce RTX 3090 Ti Gaming", "RTX-3090-TI"),
        ("Qualcomm Cloud AI 100", "AI100 | AI100-PRO | AI100-ULTRA"),
        ("AI100", "AI100"),  # the catalog's own model name stays the Standard card
        # a generation written with a mark per further digit (Fooocus)
        ("Nvidia GTX 9XX", "GTX-980-TI | GTX-980 | GTX-970 | GTX-960-2GB | GTX-960-4GB | GTX-950"),
    ],
)
def test_numbers_and_paths_the_reader_places(text: str, canonical: str) -> None:
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse(text)) == canonical


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("A100-7", "'7' follows the model"),  # no host, no device word: a count? a variant?
        ("rtx6000-1", "'1' follows the model"),
        ("gpu-a100-64", "'64' follows the model"),  # no A100 has 64 GB, and 64 is no count
        # 8 cards, or the 3060 Ti's 8 GB? either could be meant: refused, never a dropped count
        ("vcpu-32_memory-96g_disk-80g_nvidia3060ti-8", "'8' follows the model"),
        ("gpu-t4-16", "'16' follows the model"),
        ("nvidia-4000-a4000", "'4000' could be a count"),  # no 4000 A4000s (Nosana's market)
        # a bare TPU generation word is a TPU only in a name that says nothing else
        ("gpu-standard-v3", "Unknown accelerator"),  # Yandex Cloud's A100 platform
        ("standard-v2", "Unknown accelerator"),  # a CPU platform
        # a choice whose one side is no whole board (a lone number) stays refused
        ("V100/3090", "a choice of boards"),
        # counts that do not hold together: 8 of 8 (64?), boards and as many devices, or a
        # bracketed count that is no board's
        ("H100x8x8", "two counts in a row"),
        ("2x MI250 (2 GCD)", "a count of boards and, in brackets, as many devices"),
        ("1x A16 (2 GPUs)", "two counts \\(1 and 2\\)"),
        # a partition written as cores and memory is no host's cores and RAM (FuriosaAI)
        ("furiosa.ai/rngd-2core.12gb", "'2core.12gb' is not a word"),
        # a MIG slice with no profile is no whole board (OpenXLA's "h100_sxm_mig"), nor is a
        # "vGPU" of a GeForce card, which NVIDIA's vGPU does not run on
        ("h100_sxm_mig", "names a MIG slice but no profile"),
        ("NVIDIA vGPU (RTX 4090)", "NVIDIA's vGPU runs on no consumer card"),
        # Hygon's K100-AI is no K100: a prose word of a model's own name is part of it
        ("K100", "Unknown accelerator"),
        ("2x V100/3090", "Unknown accelerator|a choice"),  # a count does not make it one
    ],
)
def test_a_number_or_slash_the_reader_cannot_place_is_refused(text: str, why: str) -> None:
    from accelerators import AcceleratorSpec
    from accelerators.errors import UnknownAcceleratorError

    with pytest.raises(UnknownAcceleratorError, match=why):
        AcceleratorSpec.parse(text)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # CloudStack's SR-IOV profiles of an AMD MI210: no NVIDIA vGPU, and 4 cores or a
        # profile the docs do not size? (a GeForce's "4C" stays UCloud's 4 cores)
        ("mi210-4c", "'4c' follows the model: host cores, or a profile of the board"),
        ("mi210-1c", "'1c' follows the model: host cores, or a profile of the board"),
    ],
)
def test_a_profile_of_another_vendor_or_a_series_is_refused(text: str, why: str) -> None:
    from accelerators import AcceleratorSpec
    from accelerators.errors import UnknownAcceleratorError

    with pytest.raises(UnknownAcceleratorError, match=why):
        AcceleratorSpec.parse(text)
    assert str(AcceleratorSpec.parse("2080Ti-4C")) == "RTX-2080-TI"  # UCloud's 4 cores
    assert str(AcceleratorSpec.parse("A30-6C")) == "A30:0.25"  # NVIDIA's C-series vGPU


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # a series word reads the card's series: the card and its variants
        ("GTX 1660 series", "GTX-1660 | GTX-1660-SUPER | GTX-1660-TI"),
        ("GeForce RTX 4090 family", "RTX-4090 | RTX-4090-D"),
        ("AMD Instinct MI300 series", "MI300X | MI325X | MI300A | MI308X"),
        # the catalog's open names that no card's name is: a family of models
        ("MI200", "MI250 | MI250X | MI210"),
        ("TITAN X", "TITAN-X-PASCAL | GTX-TITAN-X"),
        # a bare RTX 4000 or 5000 is a professional board, Turing or Ada (catalog 2026.11.45),
        # never the GeForce 40 or 50 series
        ("RTX4000", "QUADRO-RTX-4000 | RTX-4000-ADA | RTX-4000-SFF-ADA"),
        ("NVIDIA RTX 5000", "QUADRO-RTX-5000 | RTX-5000-ADA"),
        ("RTX4000SFF", "RTX-4000-SFF-ADA"),  # only the Ada card has an SFF edition
        ("RTX5000_16GB", "QUADRO-RTX-5000"),  # 16 GB: the Turing board
        # AMD's MI325X written without its X: there is no other MI325
        ("MI325", "MI325X"),
        ("linux-mi325-8gpu-ossci-rocm", "MI325X:8"),
        ("Radeon RX Vega", "RX-VEGA-56 | RX-VEGA-64"),
        # a generation of consumer cards
        (
            "RTX 20 series",
            "RTX-2080-TI | RTX-2080-SUPER | RTX-2060:6GB | RTX-2060-SUPER | RTX-2070"
            " | RTX-2070-SUPER | RTX-2080 | RTX-2060-12GB",
        ),
        (
            "NVIDIA 10xx series",
            "GTX-1080-TI | GTX-1070 | GTX-1080 | GTX-1070-TI | GTX-1060:6GB | GTX-1050-TI"
            " | GTX-1050 | GTX-1060-3GB",
        ),
        (
            "Radeon RX 7000 series",
            "RX-7900-XTX | RX-7900-XT | RX-7900-GRE | RX-7800-XT | RX-7600"
            " | RX-7600-XT | RX-7700-XT",
        ),
        # a consumer card's number with a variant, memory or a platform word
        ("6600XT", "RX-6600-XT"),
        ("5700 XT", "RX-5700-XT"),
        ("3080 12G", "RTX-3080-12GB"),
        ("linux-4090", "RTX-4090"),
        ("Radeon 7600", "RX-7600"),
    ],
)
def test_a_series_generation_or_card_number_reads_as_its_cards(text: str, read: str) -> None:
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse(text)) == read


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("quad-A100", "A100-40GB:4 | A100-80GB:4"),  # NCSA Delta's 4-way nodes
        ("octa-H200", "H200-SXM:8 | H200-NVL:8"),
        ("b200_trt_mtp", "B200"),  # InferenceMAX: TensorRT with multi-token prediction
        ("4090 24G VRAM", "RTX-4090"),
        # a cloud flavor's vCPU x GB shape beside a stated count (GreenNode)
        ("g1-standard-8x32-2rtx2080ti", "RTX-2080-TI:2"),
    ],
)
def test_node_count_words_and_serving_words_read(text: str, read: str) -> None:
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse(text)) == read


def test_a_count_word_away_from_the_model_is_refused() -> None:
    from accelerators import AcceleratorSpec
    from accelerators.errors import UnknownAcceleratorError

    with pytest.raises(UnknownAcceleratorError, match="'dual' is a count only right before"):
        AcceleratorSpec.parse("dual-slot A100")


@pytest.mark.parametrize(
    "text",
    [
        "1080",  # a number alone is a pattern in a list (HAMi: any 1080, the 1080 Ti too)
        "8000 XT",  # no consumer card: a lone number reads only as a GeForce or Radeon card
        "RTX 5000 series",  # NVIDIA's generations are two digits
        "RTX 4000 series",  # people's GeForce RTX 40 series, or the RTX 4000 boards?
        "GTX 30xx",  # GeForce 30 cards are RTX
        "40x",  # no product line or series mark: a count?
        "RX 600",
        "g1-standard-8x32-8rtx2080ti",  # 8x32 could be the 8 devices again: not a shape
        "gpu-2x4-h100",  # no stated count: 2x4 could be one
    ],
)
def test_a_number_that_names_no_card_or_generation_is_refused(text: str) -> None:
    from accelerators import AcceleratorSpec
    from accelerators.errors import UnknownAcceleratorError

    with pytest.raises(UnknownAcceleratorError):
        AcceleratorSpec.parse(text)


@pytest.mark.parametrize("text", ["m4.xlarge", "m1.small", "M.2", "m2-ssd"])
def test_a_bare_apple_chip_word_beside_a_machine_or_dotted_is_refused(text: str) -> None:
    from accelerators import AcceleratorSpec
    from accelerators.errors import UnknownAcceleratorError

    # AWS's m4.xlarge is a CPU instance and M.2 a drive: not Apple's M4 or M2
    with pytest.raises(UnknownAcceleratorError, match="not Apple's chip"):
        AcceleratorSpec.parse(text)
    assert str(AcceleratorSpec.parse("Apple M1 (GPU - 8 cores)")) == "M1-8GB | M1-16GB"
    assert str(AcceleratorSpec.parse("m4")) == "M4-16GB | M4-24GB | M4-32GB"


@pytest.mark.parametrize("text", ["AMD H100", "NVIDIA MI300X", "Intel A100", "Apple M40"])
def test_a_vendor_word_that_contradicts_the_entry_is_refused(text: str) -> None:
    from accelerators import AcceleratorSpec
    from accelerators.errors import UnknownAcceleratorError

    with pytest.raises(UnknownAcceleratorError, match="in the catalog is made by"):
        AcceleratorSpec.parse(text)
    # a cloud's name before another vendor's board is no contradiction (Friendli's aws-v100)
    assert str(AcceleratorSpec.parse("aws-v100")) == "V100-16GB | V100-32GB"


@pytest.mark.parametrize(
    "text", ["RTX 2080 (Mobile)", "GTX 1660 Ti (Mobile)", "b200_26b_bf16", "H100-26B"]
)
def test_a_laptop_qualifier_or_a_model_size_is_not_dropped(text: str) -> None:
    from accelerators import AcceleratorSpec
    from accelerators.errors import UnknownAcceleratorError

    # "(Mobile)" makes the laptop GPU, not the card; a B-series vGPU profile is small, so a
    # "26b" beside a model is a model size (mistral.rs), not 26 GB of the board
    with pytest.raises(UnknownAcceleratorError):
        AcceleratorSpec.parse(text)
    assert str(AcceleratorSpec.parse("A40 (compute mode)")) == "A40"
    assert str(AcceleratorSpec.parse("RTX 4090 (Laptop)")) == "RTX-4090-LAPTOP"


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("ADA6000", "RTX-6000-ADA"),  # a lab's host-group name
        ("ada_4000", "RTX-4000-ADA | RTX-4000-SFF-ADA"),  # either board of that name
        ("Lovelace 5000", "RTX-5000-ADA"),
        ("TURING_5000", "QUADRO-RTX-5000"),  # Cerebrium's hardware enum
        ("ampere-6000", "RTX-A6000"),
        ("blackwell6000", "RTX-PRO-6000"),
    ],
)
def test_a_professional_card_reads_by_its_generation_and_number(text: str, read: str) -> None:
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse(text)) == read
    # only a generation's professional cards: a consumer card's number is its own, and a
    # number no professional card of that generation has is refused
    assert str(AcceleratorSpec.parse("ada 4090")) == "RTX-4090"
    for other in ("turing 6500", "ADA_24", "blackwell 3000"):
        with pytest.raises(UnknownAcceleratorError):
            AcceleratorSpec.parse(other)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("RTX6000PRO", "RTX-PRO-6000"),  # a cloud's flavor
        ("gpu-rtx6000-pro", "RTX-PRO-6000"),
        ("NVIDIA RTX6000Pro", "RTX-PRO-6000"),
        ("RTX 4000 PRO", "RTX-PRO-4000 | RTX-PRO-4000-SFF"),
    ],
)
def test_an_rtx_pro_card_reads_with_pro_after_its_number(text: str, read: str) -> None:
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse(text)) == read
    # a word after it that names no variant is still refused
    with pytest.raises(UnknownAcceleratorError):
        AcceleratorSpec.parse("rtx6000pro-lat")


def test_a_bare_rtx_6000_is_any_of_three_generations_in_order() -> None:
    from accelerators import AcceleratorSpec

    # Ollama's table names the Quadro and the Ada "RTX 6000"; a cluster's "RTX6000" of 96 GB
    # is the Blackwell RTX PRO 6000 (catalog 2026.11.48): the spelling and the token reader
    # give the three in the open name's order
    three = "QUADRO-RTX-6000 | RTX-6000-ADA | RTX-PRO-6000"
    assert str(AcceleratorSpec.parse("RTX6000")) == three
    assert str(AcceleratorSpec.parse("gpu_rtx6000")) == three
    assert str(AcceleratorSpec.parse("RTX6000:96GB")) == "RTX-PRO-6000"  # its memory picks it
    assert str(AcceleratorSpec.parse("Quadro RTX 6000")) == "QUADRO-RTX-6000"  # pinned


def test_a_generation_reads_token_by_token() -> None:
    from accelerators import AcceleratorSpec

    reading = AcceleratorSpec.explain("NVIDIA 30xx series")
    names = reading.names[0]
    assert names.method == "generation"
    assert [(t.text, t.role) for t in names.tokens] == [
        ("NVIDIA", "vendor"),
        ("30xx", "generation"),
        ("series", "series"),
    ]


@pytest.mark.parametrize(
    ("text", "size", "counted", "read"),
    [
        # an instance size may stand for the count: Exoscale's medium has 2 GPUs, large 4
        ("gpua5000.medium", "medium", "gpua5000.medium:2", "RTX-A5000:2"),
        ("gpu-a40-small", "small", "gpu-a40-small:1", "A40"),  # Replicate's has 1
        ("h100-xl", "xl", "h100-xl:8", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8"),
        ("gpu-a100-large", "large", "gpu-a100-large:80GB:4", "A100-80GB:4"),
        # a numbered size sizes the machine, not its GPUs: Saturn Cloud's V100-8XLarge has 4
        ("V100-8XLarge", "8XLarge", "V100-8XLarge:32GB:4", "V100-32GB:4"),
        ("gpu.a10.6xlarge", "6xlarge", "gpu.a10.6xlarge:1", "A10"),
    ],
)
def test_an_instance_size_needs_the_count_from_the_spec(
    text: str, size: str, counted: str, read: str
) -> None:
    from accelerators import AcceleratorSpec
    from accelerators.errors import InvalidSpecError

    with pytest.raises(InvalidSpecError, match=f"'{size}' in '{text}' is an instance size") as info:
        AcceleratorSpec.parse(text)
    assert info.value.name == text
    assert "^" in str(info.value)  # the caret points at the name
    assert str(AcceleratorSpec.parse(counted)) == read
    # the explanation still shows the reading, and says what is missing
    explained = AcceleratorSpec.explain(text)
    assert explained.spec is None
    assert "instance size" in (explained.error or "")
    (reading,) = explained.names
    assert [t.role for t in reading.tokens if t.text == size] == ["instance size"]


# -- cards GPU marketplaces rent (catalog 2026.11.11) -------------------------------------------
@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("NVIDIA GeForce RTX 4060 Ti 8GB", "RTX-4060-TI-8GB"),
        ("rtx4060ti-16gb", "RTX-4060-TI-16GB"),
        ("RTX 4060 Ti 16GB", "RTX-4060-TI-16GB"),
        ("RTX 4060", "RTX-4060"),
        ("GeForce GTX 1660 SUPER", "GTX-1660-SUPER"),
        ("GTX1660S", "GTX-1660-SUPER"),
        ("GTX 1660 Ti", "GTX-1660-TI"),
        ("GTX 1660", "GTX-1660"),
        ("RTX 2080", "RTX-2080"),
        ("RTX 2080 Ti", "RTX-2080-TI"),
        ("RTX 2080 Super", "RTX-2080-SUPER"),
        ("RTX 4070 Super", "RTX-4070-SUPER"),
        ("RTX 4070 Ti", "RTX-4070-TI"),
        ("RTX 4070 Ti SUPER", "RTX-4070-TI-SUPER"),
        ("RTX 5060 Ti 8GB", "RTX-5060-TI-8GB"),
        ("RTX 5060", "RTX-5060"),
        ("NVIDIA GeForce GTX 1060 6GB", "GTX-1060"),
        ("GTX 1070 Ti", "GTX-1070-TI"),
        ("GTX 1070", "GTX-1070"),
        ("GTX 1080", "GTX-1080"),
        ("GTX 1080 Ti", "GTX-1080-TI"),
        ("Tesla K40m", "K40"),
        ("Quadro GP100", "QUADRO-GP100"),
        ("NVIDIA RTX A2000", "RTX-A2000"),
        ("NVIDIA RTX A2000 12GB", "RTX-A2000-12GB"),
        ("AMD Radeon RX 7900 XT", "RX-7900-XT"),
        ("AMD Radeon RX 7900 XTX", "RX-7900-XTX"),
        ("RX 6800 XT", "RX-6800-XT"),
        ("RX 6800", "RX-6800"),
    ],
)
def test_rented_cards_and_their_neighbours_read_as_themselves(text: str, model: str) -> None:
    """A new card's names read as it; a neighbour's (Ti, SUPER, XT, memory) stay the neighbour's."""
    assert resolve_name(text).accelerator.model == model


@pytest.mark.parametrize(
    "text", ["RTX 3070 16GB", "RTX 2080 11GB", "GTX 1060 5GB", "RTX 2070 12GB", "RTX 4060 Ti 12GB"]
)
def test_a_memory_no_card_of_that_number_has_is_refused(text: str) -> None:
    """Not read as another card of that memory (the 6 GB RTX 2060 for 'RTX 3050 6GB')."""
    with pytest.raises(UnknownAcceleratorError):
        resolve_name(text)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # Ollama lists "RTX 6000" as both the Quadro (Turing) and the Ada card; clusters write
        # the Blackwell RTX PRO 6000 so too (catalog 2026.11.48)
        ("RTX 6000", "QUADRO-RTX-6000 | RTX-6000-ADA | RTX-PRO-6000"),
        ("RTX6000", "QUADRO-RTX-6000 | RTX-6000-ADA | RTX-PRO-6000"),
        ("Quadro RTX 6000", "QUADRO-RTX-6000"),
        ("NVIDIA RTX 6000 Ada Generation", "RTX-6000-ADA"),
        # a memory size written in the name picks among an open name's models
        ("RTX 6000 24GB", "QUADRO-RTX-6000"),
        ("RTX6000_48GB", "RTX-6000-ADA"),
        ("NVIDIA GeForce RTX 4060 Ti 16GB", "RTX-4060-TI-16GB"),
        ("RTX 4060 Ti", "RTX-4060-TI-8GB | RTX-4060-TI-16GB"),
    ],
)
def test_an_open_name_reads_as_its_models_unless_a_size_picks_one(
    text: str, canonical: str
) -> None:
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse(text)) == canonical


def test_a_size_none_of_an_open_names_models_has_is_refused() -> None:
    from accelerators import AcceleratorSpec
    from accelerators.errors import UnknownAcceleratorError

    with pytest.raises(UnknownAcceleratorError):
        AcceleratorSpec.parse("RTX 6000 32GB")


def test_a_memory_size_never_overrides_a_form_factor_the_name_states() -> None:
    # the only 94 GB H100 is the NVL card: an SXM5 one of 94 GB is no catalog model
    from accelerators import AcceleratorSpec

    with pytest.raises(UnknownAcceleratorError):
        AcceleratorSpec.parse("H100-SXM5-94GB")
    assert str(AcceleratorSpec.parse("H100 94GB")) == "H100-NVL"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # NVIDIA's C-series (compute) vGPU profiles: that many GB of the board's memory
        ("A30-6C", "A30:0.25"),
        ("A10-12C", "A10:0.5"),
        ("T4-16C", "T4"),  # the whole framebuffer is the whole GPU
        ("T4-16Q", "T4"),
        # not a profile: host cores beside RAM, more cores than the card has GB, a GeForce card
        ("h100-16c-64gb", "H100-SXM | H100-PCIE | H100-NVL"),
        ("l40s-112c", "L40S"),
        ("2080Ti-4C", "RTX-2080-TI"),
        # a memory size in brackets is kept
        ("MI50 (32GB)", "MI50"),
        ("A40 (compute mode)", "A40"),
    ],
)
def test_vgpu_compute_profiles_and_bracketed_sizes(text: str, canonical: str) -> None:
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse(text)) == canonical


@pytest.mark.parametrize(
    "text",
    [
        "H800-80C",  # in vGPU types "H800" is the H800 PCIe 80GB, a board the catalog lacks
        "MI50 (16GB)",  # the catalog's MI50 is the 32 GB card: never read as it
    ],
)
def test_a_profile_or_bracketed_size_that_fits_no_one_card_is_refused(text: str) -> None:
    from accelerators import AcceleratorSpec
    from accelerators.errors import UnknownAcceleratorError

    with pytest.raises(UnknownAcceleratorError):
        AcceleratorSpec.parse(text)


@pytest.mark.parametrize(
    ("text", "counted", "read"),
    [
        # a node or pool has as many devices as its system gives it (OpenPAI's K80-NODE has 4)
        ("K80-NODE", "K80-NODE:4", "K80:4"),
        ("K80-NODE-POOL", "K80-NODE-POOL:16", "K80:16"),
        ("3-K80-NODE", "3-K80-NODE:12", "K80:12"),  # 3 nodes, or 3 K80s? the spec says
        ("a100-pool", "a100-pool:80GB:2", "A100-80GB:2"),
        # a leading 'compute' before the model names a compute node's flavour (NREC's
        # OpenStack compute-l40s: nodes of 4 L40S)
        ("compute-l40s", "compute-l40s:4", "L40S:4"),
        ("compute_h100_sxm", "compute_h100_sxm:8", "H100-SXM!:8"),
    ],
)
def test_a_node_or_pool_needs_the_count_from_the_spec(text: str, counted: str, read: str) -> None:
    from accelerators import AcceleratorSpec
    from accelerators.errors import InvalidSpecError

    with pytest.raises(InvalidSpecError, match="is a node or pool"):
        AcceleratorSpec.parse(text)
    assert str(AcceleratorSpec.parse(counted)) == read


def test_compute_after_the_model_is_the_cards_mode_not_a_node() -> None:
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse("Tesla T4 compute")) == "T4"
    assert str(AcceleratorSpec.parse("A40 (compute mode)")) == "A40"


def test_a_node_name_that_counts_its_devices_reads() -> None:
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse("node-8gpu-l40s")) == "L40S:8"
    assert str(AcceleratorSpec.parse("a100-pool-x8:80GB")) == "A100-80GB:8"


# -- AMD and Intel cards other systems name (ROCm's and llama.cpp's GPU lists) ------------------
@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("AMD Radeon RX 7800 XT", "RX-7800-XT"),
        ("Radeon RX 6950 XT", "RX-6950-XT"),
        ("RX 6700 XT", "RX-6700-XT"),
        ("AMD Radeon RX 6600", "RX-6600"),
        ("Radeon VII", "VII"),
        ("AMD Radeon Pro VII", "PRO-VII"),
        ("Vega 20 [Radeon Pro VII]", "PRO-VII"),
        ("AMD Radeon Pro W7800", "W7800:32GB"),
        # AMD sells the W7800 with 32 and 48 GB: a name that gives no size is both (catalog
        # 2026.11.32), but what ROCm reports for the 32 GB card stays that card
        ("Radeon PRO W7800", "W7800:32GB | W7800-48GB"),
        ("AMD Radeon Pro W7800 48GB", "W7800-48GB"),
        ("Radeon PRO W6600", "W6600"),
        ("Arc A770 16GB", "ARC-A770-16GB"),
        ("Arc A770 8GB", "ARC-A770-8GB"),
        # the driver names both A770s alike: the open name reads as the two
        ("Intel(R) Arc(TM) A770 Graphics", "ARC-A770-16GB | ARC-A770-8GB"),
        ("Arc A770", "ARC-A770-16GB | ARC-A770-8GB"),
        ("Intel(R) Arc(TM) A750 Graphics", "ARC-A750"),
        ("Intel(R) Arc(TM) B580 Graphics", "ARC-B580"),
        ("ArcB580", "ARC-B580"),
        # neighbours keep their own entries
        ("RX 6800", "RX-6800"),
        ("Radeon Pro W7900", "W7900"),
        ("Arc Pro B60", "ARC-PRO-B60"),
    ],
)
def test_amd_and_intel_cards_read_as_themselves(text: str, canonical: str) -> None:
    """A new card's names read as it; its neighbours (XT, Pro, a memory size) stay their own."""
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse(text)) == canonical


@pytest.mark.parametrize(
    "text",
    ["RX 6500", "RX 480", "Radeon RX 7650 GRE", "Radeon PRO W7700", "Arc A770M", "GRID K2"],
)
def test_a_neighbour_the_catalog_lacks_is_refused(text: str) -> None:
    """Not read as the card beside it (the RX 6600 XT is not the RX 6600)."""
    with pytest.raises(UnknownAcceleratorError):
        resolve_name(text)


# -- a model whose own name is an open name (P100: the 16 GB card's model, and the 12 GB's name) --
def _models_named_like_their_family() -> list[tuple[str, tuple[str, ...]]]:
    from accelerators.catalog._spellings import exact_key

    out = []
    for name in _store.LOADED.file().open_names:
        keys = {exact_key(text) for text in (name.name, *name.spellings)}
        out += [(m, tuple(name.members)) for m in name.members if exact_key(m) in keys]
    return out


MODELS_NAMED_LIKE_THEIR_FAMILY = _models_named_like_their_family()


def test_the_catalog_has_models_named_like_their_family() -> None:
    models = {model for model, _ in MODELS_NAMED_LIKE_THEIR_FAMILY}
    assert {"P100", "GTX-1060", "RTX-3060", "H20", "A800"} <= models


@pytest.mark.parametrize(("model", "members"), MODELS_NAMED_LIKE_THEIR_FAMILY)
def test_a_model_named_like_its_family_reads_as_the_family_and_writes_its_memory(
    model: str, members: tuple[str, ...]
) -> None:
    from accelerators import AcceleratorSpec

    for text in (model, model.lower(), model.replace("-", " "), f"1x{model}", f"{model}:2"):
        spec = AcceleratorSpec.parse(text)
        assert {alt.accelerator.model for alt in spec.alternatives} == set(members), text  # type: ignore[union-attr]
    acc = catalog.by_model(model)[0]
    one = AcceleratorSpec(accelerator=model)
    assert one.accelerator is acc
    assert str(one) == f"{model}:{acc.memory_gb:g}GB"
    for spec in (one, AcceleratorSpec(accelerator=acc.name, exact=True, count=2)):
        again = AcceleratorSpec.parse(str(spec))
        assert again == spec
        assert again.accelerator is acc
    assert catalog.get(model) is acc  # one accelerator asked for: the catalog's own entry


def test_the_open_keys_read_off_the_file_are_the_name_index_s() -> None:
    from accelerators.catalog._open_names import open_keys
    from accelerators.catalog._spellings import current_index

    assert open_keys() == frozenset(current_index().open)


def test_the_text_of_a_spec_does_not_build_the_name_index() -> None:
    from accelerators import AcceleratorSpec
    from accelerators.catalog import _spellings

    catalog.all()
    cache_clear()
    try:
        spec = AcceleratorSpec(accelerator="P100")
        assert str(spec) == "P100:16GB"
        assert str(AcceleratorSpec(accelerator="H100-SXM")) == "H100-SXM"
        assert not _spellings._state  # no name was resolved: the index is not needed
    finally:
        cache_clear()


def test_the_grammar_docs_name_every_model_named_like_its_family() -> None:
    from pathlib import Path

    text = (Path(__file__).parents[1] / "docs" / "grammar.md").read_text()
    paragraph = text[text.index("Some of these names are also a catalog model's own name") :]
    paragraph = paragraph[: paragraph.index("\n\n")]
    for model, _ in MODELS_NAMED_LIKE_THEIR_FAMILY:
        assert f"`{model}`" in paragraph, model


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        # the instance table's count, the device the name's own word says (Azure's docs run
        # an A100 80GB PCIe in NC A100 v4, but 'a100' alone leaves 40 or 80 GB open)
        ("nc24ads_a100_v4", "A100-40GB | A100-80GB"),
        ("nc48ads_a100_v4", "A100-40GB:2 | A100-80GB:2"),
        ("nd96isr_h100_v5", "H100-SXM:8 | H100-PCIE:8 | H100-NVL:8"),
        ("ND96isr_MI300X_v5", "MI300X:8"),
        ("nc64as_t4_v3", "T4:4"),
        # the exact instance name keeps the table's SKU
        ("Standard_NC24ads_A100_v4", "A100-80GB-PCIE!"),
    ],
)
def test_an_azure_size_without_its_standard_prefix_reads_its_count_from_the_table(
    text: str, canonical: str
) -> None:
    """Issue 32: Azure's health checks and IMDS write sizes lower-cased without ``Standard_``
    (the thirty-first corpus's visible part)."""
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse(text, denotes="node")) == canonical


@pytest.mark.parametrize(
    "text",
    [
        "nc6s_v3",  # the table runs a V100 here, but the name names no model
        "nd96asr_v4",
        "nc24ads_h100_v4",  # no such size: the table is not guessed from
        "nd40rs_v2",
    ],
)
def test_an_azure_size_whose_words_name_no_table_device_is_refused(text: str) -> None:
    from accelerators import AcceleratorSpec
    from accelerators.errors import AcceleratorError

    with pytest.raises(AcceleratorError, match=text):
        AcceleratorSpec.parse(text, denotes="node")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # the RTX brand came with Turing: 'rtx' beside a Pascal Quadro's model is another card
        # (CoreWeave's rtxp6000 is an RTX PRO 6000)
        ("rtxp6000-8x", "no P6000 in the catalog is an RTX card"),
        # NVIDIA DRIVE's automotive A100 (MLPerf's system id) is no data-centre A100
        ("Drive-A100-PCIex1", "NVIDIA DRIVE"),
        ("NVIDIA DRIVE A100", "NVIDIA DRIVE"),
    ],
)
def test_a_line_or_platform_word_the_model_never_carried_is_refused(text: str, why: str) -> None:
    from accelerators import AcceleratorSpec
    from accelerators.errors import UnknownAcceleratorError

    with pytest.raises(UnknownAcceleratorError, match=why):
        AcceleratorSpec.parse(text)
    # the card's own names still read, and a drive among host figures is the host's
    assert str(AcceleratorSpec.parse("Quadro P6000")) == "QUADRO-P6000"
    assert str(AcceleratorSpec.parse("8x A100 80GB 2TB NVMe drive")) == "A100-80GB:8"


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # a config file named for its device: the extension is the file's format
        ("mi200.py", "MI250 | MI250X | MI210"),  # gem5's GPU config
        ("gb200.json", "GB200"),  # OpenBMC's entity-manager config
        ("profile_latency_A6000.sh", "RTX-A6000"),
        ("deploy_gb200_16gpu.yaml", "GB200:16"),
    ],
)
def test_a_files_extension_says_nothing_of_the_device(text: str, read: str) -> None:
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse(text)) == read


def test_a_bare_cpu_right_before_the_model_is_refused() -> None:
    # HW-GPT-Bench's profile of a run on the A6000 machine's CPU, not on the card; a CPU count
    # is the host's
    from accelerators import AcceleratorSpec
    from accelerators.errors import UnknownAcceleratorError

    with pytest.raises(UnknownAcceleratorError, match="'cpu' before the model"):
        AcceleratorSpec.parse("profile_latency_cpu_a6000.sh")
    assert str(AcceleratorSpec.parse("8 CPU A100")) == "A100-40GB | A100-80GB"
    assert str(AcceleratorSpec.parse("NVIDIA Tesla T4, ~16 GB, ~4 CPUs")) == "T4"


def test_a_bracketed_architecture_that_contradicts_a_catalog_spelling_is_not_dropped() -> None:
    # the catalog's GTX TITAN X is the Maxwell card; "(Pascal)" says the Pascal TITAN X
    # (Dortania's buyers' guide, a hardware-trend dataset)
    from accelerators import AcceleratorSpec
    from accelerators.errors import UnknownAcceleratorError

    assert str(AcceleratorSpec.parse("GTX TITAN X")) == "GTX-TITAN-X"
    assert str(AcceleratorSpec.parse("GTX TITAN X (Pascal)")) == "TITAN-X-PASCAL"
    assert str(AcceleratorSpec.parse("NVIDIA A10 (Ampere)")) == "A10"  # one that agrees
    with pytest.raises(UnknownAcceleratorError, match="Hopper"):
        AcceleratorSpec.parse("A100 (Hopper)")
