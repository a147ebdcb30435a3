"""Skyward-style factories: ``AcceleratorSpec.NVIDIA.H100(count=8, form_factor="SXM")``."""

from __future__ import annotations

from typing import Any

import pytest

from accelerators import catalog
from accelerators._factories import Factory, VendorFactories
from accelerators.errors import AcceleratorError, UnknownPartitionError
from accelerators.spec import AcceleratorSpec

S = AcceleratorSpec


# -- the documented examples -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("build", "canonical", "sku"),
    [
        (
            lambda: S.NVIDIA.H100(count=8, memory="80GB", form_factor="SXM"),
            "H100-SXM!:8",
            "H100-SXM",
        ),
        (
            lambda: S.NVIDIA.A100(memory="40GB", partition="2g.10gb"),
            "A100-40GB@2g.10gb",
            "A100-40GB-SXM",
        ),
        (lambda: S.AMD.MI300X(), "MI300X", "MI300X"),
        (lambda: S.AWS.Trainium(version=2), "TRAINIUM2", "TRAINIUM2"),
        (lambda: S.AWS.Inferentia(version=2), "INFERENTIA2", "INFERENTIA2"),
        (lambda: S.Google.TPU("v5e", topology="2x4"), "TPU-V5E@2x4", "TPU-V5E"),
        (lambda: S.Intel.Gaudi(version=3), "GAUDI3", "GAUDI3"),
    ],
)
def test_documented_examples(build: Any, canonical: str, sku: str):
    spec = build()
    assert isinstance(spec, AcceleratorSpec)
    assert str(spec) == canonical
    assert spec.accelerator.name == sku
    assert AcceleratorSpec.parse(canonical) == spec


# -- keyword semantics -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("build", "canonical"),
    [
        # a family alone means the model its name resolves to: A100 is the 40 GB A100
        (lambda: S.NVIDIA.A100(), "A100-40GB"),
        (lambda: S.NVIDIA.H100(), "H100-SXM"),
        (lambda: S.NVIDIA.T4(count=0.5), "T4:0.5"),
        (lambda: S.AWS.Trainium(), "TRAINIUM1"),
        # memory picks the model
        (lambda: S.NVIDIA.A100(memory="80GB"), "A100-80GB"),
        (lambda: S.NVIDIA.A100(memory="80G"), "A100-80GB"),
        (lambda: S.NVIDIA.A100(memory=80), "A100-80GB"),
        (lambda: S.NVIDIA.H100(memory="94GB"), "H100-NVL"),
        (lambda: S.NVIDIA.V100(memory=32), "V100-32GB"),
        (lambda: S.NVIDIA.GH200(memory="144GB"), "GH200-144GB"),
        # form_factor pins the SKU
        (lambda: S.NVIDIA.A100(form_factor="PCIe"), "A100-40GB-PCIE!"),
        (lambda: S.NVIDIA.A100(memory="80GB", form_factor="pcie"), "A100-80GB-PCIE!"),
        (lambda: S.NVIDIA.H100(form_factor="SXM5"), "H100-SXM!"),
        (lambda: S.NVIDIA.H100(form_factor="NVL"), "H100-NVL!"),
        (lambda: S.NVIDIA.H100(form_factor="MEGA", count=8), "H100-MEGA!:8"),
        (lambda: S.NVIDIA.V100(form_factor="SXM2"), "V100-16GB-SXM2!"),
        (lambda: S.AMD.MI300X(form_factor="OAM"), "MI300X!"),
        # exact pins without naming a form factor
        (lambda: S.NVIDIA.A100(exact=True), "A100-40GB-SXM!"),
        # versions
        (lambda: S.Google.TPU("v5p", topology="2x2x1", count=4), "TPU-V5P@2x2x1:4"),
        (lambda: S.Google.TPU(version="V6E"), "TPU-V6E"),
        (lambda: S.Google.TPU("trillium"), "TPU-V6E"),
        (lambda: S.Intel.Gaudi(2), "GAUDI2"),
        (lambda: S.Intel.Gaudi("3"), "GAUDI3"),
        # partitions
        (lambda: S.NVIDIA.A100(partition="whole"), "A100-40GB@whole"),
        (lambda: S.NVIDIA.A100(memory="80GB", partition="1G.10GB+ME"), "A100-80GB@1g.10gb+me"),
        (lambda: S.NVIDIA.RTX_PRO_6000(partition="1g.24gb"), "RTX-PRO-6000@1g.24gb"),
        # model factories next to family ones, looked up case-insensitively
        (lambda: S.NVIDIA.A100_80GB(count=2), "A100-80GB:2"),
        (lambda: S.NVIDIA.a100_80gb(), "A100-80GB"),
        (lambda: S.NVIDIA.H100_NVL(), "H100-NVL"),
        (lambda: S.AMD.MI300(version="MI325X"), "MI325X"),
        (lambda: S.AMD.MI300(memory="256GB"), "MI325X"),
        (lambda: S.Intel.GAUDI2(), "GAUDI2"),
        (lambda: S.Google.TPU_V5E(topology="2x4"), "TPU-V5E@2x4"),
        (lambda: S.AWS.TRAINIUM2(count=16), "TRAINIUM2:16"),
    ],
)
def test_keywords(build: Any, canonical: str):
    assert str(build()) == canonical


# -- errors name the valid values ------------------------------------------------------------
@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (
            lambda: S.NVIDIA.A100(memory="48GB"),
            AcceleratorError,
            r"AcceleratorSpec\.NVIDIA\.A100 has no '48GB' memory variant; valid: 40GB, 80GB$",
        ),
        (
            lambda: S.NVIDIA.A100(memory="lots"),
            AcceleratorError,
            r"memory must be a size such as '80GB' or a number of GB, got 'lots'; "
            r"valid: 40GB, 80GB",
        ),
        (lambda: S.NVIDIA.A100(memory=True), AcceleratorError, r"got True"),
        (
            lambda: S.NVIDIA.H100(form_factor="OAM"),
            AcceleratorError,
            r"AcceleratorSpec\.NVIDIA\.H100 has no form factor 'OAM'; valid: SXM, MEGA, PCIE, NVL$",
        ),
        (
            lambda: S.NVIDIA.H100(memory="94GB", form_factor="SXM"),
            AcceleratorError,
            r"has no form factor 'SXM'; valid: NVL$",
        ),
        (lambda: S.NVIDIA.A100(form_factor=3), AcceleratorError, r"form_factor must be a string"),
        (
            lambda: S.AWS.Trainium(version=5),
            AcceleratorError,
            r"AcceleratorSpec\.AWS\.Trainium has no version 5; versions: 1, 2, 3$",
        ),
        (lambda: S.Google.TPU("v9"), AcceleratorError, r"versions: v4, v5e, v5p, v6e, v2, v3, v7$"),
        (lambda: S.Google.TPU(version=1.5), AcceleratorError, r"version must be a string"),
        (
            lambda: S.Intel.Gaudi(),
            AcceleratorError,
            r"AcceleratorSpec\.Intel\.Gaudi covers several models \(GAUDI2, GAUDI3, GAUDI1\); "
            r"choose one with version= \(2, 3, 1\), memory= or form_factor=",
        ),
        (lambda: S.Google.TPU(), AcceleratorError, r"covers several models"),
        (
            lambda: S.AMD.MI300(),
            AcceleratorError,
            r"covers several models \(MI300X, MI325X, MI300A, MI308X\); choose one with version= "
            r"\(MI300X, MI325X, MI300A, MI308X\)",
        ),
        (
            lambda: S.NVIDIA.A100(partition="1g.20gb"),
            UnknownPartitionError,
            r"A100-40GB-SXM has no MIG profile '1g\.20gb'.*\(A100-80GB has '1g\.20gb'\.\)",
        ),
        (
            lambda: S.NVIDIA.A100(topology="2x4"),
            AcceleratorError,
            r"topology= is for TPU slices; use partition= for a MIG profile",
        ),
        (
            lambda: S.Google.TPU("v5e", partition="2x4", topology="2x4"),
            AcceleratorError,
            r"give partition= or topology=, not both",
        ),
        (
            lambda: S.Google.TPU("v5e", topology="3x3"),
            UnknownPartitionError,
            r"TPU-V5E has no TPU topology '3x3'",
        ),
        (lambda: S.NVIDIA.T4(partition="whole"), AcceleratorError, r"T4 cannot be partitioned"),
        (lambda: S.NVIDIA.T4(partition=5), AcceleratorError, r"a partition is a string"),
        (lambda: S.NVIDIA.T4(count=0), AcceleratorError, r"positive"),
        (lambda: S.NVIDIA.T4(exact="yes"), AcceleratorError, r"exact must be True or False"),
    ],
)
def test_errors(build: Any, error: type[Exception], message: str):
    with pytest.raises(error, match=message):
        build()


def test_unknown_factory_suggests_and_lists():
    with pytest.raises(AttributeError) as info:
        _ = S.NVIDIA.H10O
    message = str(info.value)
    assert message.startswith("AcceleratorSpec.NVIDIA has no factory 'H10O'; did you mean H100?")
    assert "Available: " in message
    assert not hasattr(S.NVIDIA, "_private")


# -- generated from the data -----------------------------------------------------------------
VENDOR_NAMESPACES = {
    "nvidia": S.NVIDIA,
    "amd": S.AMD,
    "intel": S.Intel,
    "google": S.Google,
    "aws": S.AWS,
    "huawei": S.Huawei,
    "qualcomm": S.Qualcomm,
    "cambricon": S.Cambricon,
    "hygon": S.Hygon,
    "iluvatar": S.Iluvatar,
    "metax": S.MetaX,
    "mthreads": S.MooreThreads,
    "biren": S.Biren,
    "tenstorrent": S.Tenstorrent,
    "furiosa": S.FuriosaAI,
    "apple": S.Apple,
}


def test_every_vendor_of_the_catalog_has_a_namespace():
    assert {acc.vendor for acc in catalog.all()} <= set(VENDOR_NAMESPACES)
    for namespace in VENDOR_NAMESPACES.values():
        assert isinstance(namespace, VendorFactories)


@pytest.mark.parametrize(
    "family", sorted({acc.family for acc in catalog.all() if acc.vendor == "nvidia"})
)
def test_every_nvidia_family_has_a_factory(family: str):
    factories = [getattr(S.NVIDIA, name) for name in dir(S.NVIDIA)]
    assert any(f.family == family and len(f.models) > 0 for f in factories)


@pytest.mark.parametrize("model", catalog.models())
def test_every_model_is_reachable_by_a_factory(model: str):
    acc = catalog.by_model(model)[0]
    namespace = VENDOR_NAMESPACES[acc.vendor]
    factories: list[Factory[AcceleratorSpec]] = [
        getattr(namespace, name) for name in dir(namespace)
    ]
    # (the text of a model whose own name is an open name adds its memory: "P100:16GB")
    assert any(f.models == (model,) for f in factories) or any(
        f(memory=acc.memory_gb).accelerator.model == model for f in factories if model in f.models
    )


@pytest.mark.parametrize("model", catalog.models())
def test_the_factory_named_after_a_model_builds_it(model: str):
    acc = catalog.by_model(model)[0]
    namespace = VENDOR_NAMESPACES[acc.vendor]
    attribute = model.replace("-", "_")  # the identifier of the model (or of its family)
    spec = getattr(namespace, attribute)(count=2)
    assert spec.accelerator is acc
    assert spec.count == 2
    assert AcceleratorSpec.parse(str(spec)) == spec


def test_namespaces_are_lazy_and_listable():
    assert "H100" in dir(S.NVIDIA)
    assert "MI300X" in dir(S.AMD)
    assert repr(S.Intel).startswith("<AcceleratorSpec.Intel factories: Gaudi")
    assert repr(S.NVIDIA.A100) == "<factory AcceleratorSpec.NVIDIA.A100 (A100-40GB, A100-80GB)>"


def test_factories_are_not_spec_fields():
    assert "NVIDIA" not in AcceleratorSpec.model_fields
    spec = S.NVIDIA.H100()
    assert "NVIDIA" not in spec.model_dump()
