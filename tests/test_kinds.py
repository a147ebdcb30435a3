"""skyward's helpers (``is_nvidia``, ``is_amd``, ``is_tpu``, ``is_trainium``...) on top of the
name reader: any name the grammar accepts, answered for every accelerator the spec accepts."""

from __future__ import annotations

import pytest

import accelerators
from accelerators import AcceleratorSpec, catalog, kinds
from accelerators.errors import UnknownAcceleratorError
from accelerators.kinds import (
    accelerators_of,
    is_amd,
    is_apple,
    is_ascend,
    is_biren,
    is_cambricon,
    is_furiosa,
    is_gaudi,
    is_google,
    is_gpu,
    is_hygon,
    is_iluvatar,
    is_inferentia,
    is_intel,
    is_metax,
    is_moore_threads,
    is_neuron,
    is_npu,
    is_nvidia,
    is_qualcomm,
    is_tenstorrent,
    is_tpu,
    is_trainium,
)

YES = [
    (is_nvidia, "H100-SXM"),
    (is_nvidia, "NVIDIA H100 80GB HBM3"),  # the driver's name
    (is_nvidia, "GH100 [H100 SXM5 80GB]"),  # pci.ids
    (is_nvidia, "p5.48xlarge"),  # an instance type
    (is_nvidia, "nvidia:24GB:2"),  # a vendor request
    (is_nvidia, "H100-SXM:8 | A100-80GB:8"),
    (is_amd, "MI300X"),
    (is_amd, "AMD Instinct MI300X VF"),
    (is_amd, "8xMI300X_2xEPYC_9534"),  # MLPerf
    (is_tpu, "tpu-v5p-8"),
    (is_tpu, "TPU v6 lite"),  # JAX
    (is_tpu, "ct6e-standard-4t"),
    (is_trainium, "Trainium2"),
    (is_trainium, "trn1.32xlarge"),
    (is_inferentia, "inf2.48xlarge"),
    (is_neuron, "aws-neuron-core"),  # Ray's group of every Neuron device
    (is_gaudi, "dl1.24xlarge"),
    (is_qualcomm, "dl2q.24xlarge"),
    (is_gpu, "T4 | MI300X"),
    (is_google, "tpu-v5p-8"),
    (is_ascend, "Ascend910B"),
    (is_npu, "Ascend910B | AI100"),  # Huawei's and Qualcomm's
    (is_intel, "Gaudi2"),
]
NO = [
    (is_nvidia, "MI300X"),
    (is_nvidia, "H100-SXM | MI300X"),  # not every alternative
    (is_nvidia, "80GB+"),  # candidates of several vendors
    (is_amd, "H100-SXM"),
    (is_tpu, "H100-SXM"),
    (is_trainium, "inf2.xlarge"),
    (is_trainium, "aws-neuron-core"),  # Inferentia too
    (is_gpu, "tpu-v5e-8"),
    (is_google, "H100-SXM"),
    (is_ascend, "AI100"),
    (is_npu, "Gaudi2"),
    (is_qualcomm, "Ascend910B"),
]


@pytest.mark.parametrize(("check", "name"), YES, ids=[f"{c.__name__}:{n}" for c, n in YES])
def test_yes(check, name) -> None:
    assert check(name) is True


@pytest.mark.parametrize(("check", "name"), NO, ids=[f"{c.__name__}:{n}" for c, n in NO])
def test_no(check, name) -> None:
    assert check(name) is False


def test_specs_constants_and_entries_are_accepted() -> None:
    assert is_nvidia(accelerators.A100)
    assert is_nvidia(AcceleratorSpec.parse("A100:8"))
    assert is_amd(catalog.get("MI300X"))
    assert is_tpu(["TPU-V5E@2x4", "TPU-V6E@2x4"])
    assert [a.name for a in accelerators_of("A100-40GB")] == ["A100-40GB-SXM", "A100-40GB-PCIE"]
    # a bare A100 is the family: 40 GB on some systems, 80 GB on others
    assert [a.name for a in accelerators_of("A100")] == [
        "A100-40GB-SXM",
        "A100-40GB-PCIE",
        "A100-80GB-SXM",
        "A100-80GB-PCIE",
    ]


def test_a_name_that_names_nothing_is_an_error_not_false() -> None:
    with pytest.raises(UnknownAcceleratorError, match="did you mean 'H100'"):
        is_nvidia("H10O")
    with pytest.raises(UnknownAcceleratorError):
        is_amd("NVIDIA GeForce RTX 5090 D")


def test_every_check_is_exported_from_the_package() -> None:
    checks = [name for name in kinds.__all__ if name.startswith("is_")]
    assert checks, "accelerators.kinds has no is_* check"
    for name in checks:
        assert name in accelerators.__all__, name
        assert getattr(accelerators, name) is getattr(kinds, name), name
    assert accelerators.is_trainium("Trainium2")


#: The check of each vendor (AWS's devices are its Neuron ones) and of each device class.
VENDOR_CHECKS = {
    "nvidia": is_nvidia,
    "amd": is_amd,
    "intel": is_intel,
    "google": is_google,
    "qualcomm": is_qualcomm,
    "huawei": is_ascend,
    "aws": is_neuron,
    "cambricon": is_cambricon,
    "hygon": is_hygon,
    "iluvatar": is_iluvatar,
    "metax": is_metax,
    "mthreads": is_moore_threads,
    "biren": is_biren,
    "tenstorrent": is_tenstorrent,
    "furiosa": is_furiosa,
    "apple": is_apple,
}
CLASS_CHECKS = {"gpu": is_gpu, "tpu": is_tpu, "neuron": is_neuron, "hpu": is_gaudi, "npu": is_npu}


def test_every_vendor_and_device_class_has_a_check() -> None:
    """A new vendor or device class in the catalog fails here until it has its check."""
    for acc in catalog.all():
        assert acc.vendor in VENDOR_CHECKS, f"{acc.name}: no is_* check for {acc.vendor!r}"
        assert acc.device_class in CLASS_CHECKS, f"{acc.name}: no check for {acc.device_class!r}"
        assert VENDOR_CHECKS[acc.vendor](acc), acc.name
        assert CLASS_CHECKS[acc.device_class](acc), acc.name
        others = [v for v, check in VENDOR_CHECKS.items() if v != acc.vendor and check(acc)]
        assert others == [], acc.name
