"""The structured name reader (``accelerators/catalog/_reader.py``): names no catalog spelling
carries, read by their parts; refused, with the reason, when the parts do not name one entry."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec
from accelerators.catalog._names import resolve_name
from accelerators.errors import UnknownAcceleratorError

READ = [
    # (name, model, count, partition): driver, pci.ids, benchmark and config names
    ("GH100 [H100 SXM5 80GB]", "H100", None, None),
    ("GA100 [A100 PCIe 80GB]", "A100-80GB", None, None),
    ("Aqua Vanjaram [Instinct MI300X VF]", "MI300X", None, None),
    ("AMD Instinct MI300X VF", "MI300X", None, None),
    ("AMD_Instinct_MI300XHF_OAM", "MI300X", None, None),
    ("HGX-H100_H100-SXM-80GBx16_TRT", "H100", 16, None),
    ("B200-SXM-180GBx1_TRT", "B200", 1, None),
    ("8xMI300X_2xEPYC_9534", "MI300X", 8, None),  # 2 is the CPUs
    ("SR680a_V3_B200SXMx8_TRT", "B200", 8, None),
    ("HPE_PROLIANT_DL385_H200NVL_PCIE_141GBx2_TRT_TRT", "H200-NVL", 2, None),
    ("GB200-NVL72_GB200-186GB_aarch64x72_TRT", "GB200", 72, None),
    ("NVIDIA GH200 Grace Hopper Superchip 144GB", "GH200-144GB", None, None),
    ("R7715-H100-NVL-94GBx3_TRT", "H100-NVL", 3, None),
    ("gpu_8x_h100_sxm5", "H100", 8, None),
    ("gpu_1x_h100_pcie", "H100-PCIE", 1, None),
    ("Ponte Vecchio XT (2 Tile) [Data Center GPU Max 1550]", "MAX-1550", None, None),
    ("GB202GL [RTX PRO 6000 Blackwell Max-Q Workstation Edition]", "RTX-PRO-6000", None, None),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition MIG 1g.24gb", "RTX-PRO-6000", None, "1g.24gb"),
    ("TPU v6 lite", "TPU-V6E", None, None),  # JAX: Google's 'lite' TPUs are the 'e' ones
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
    ("NVIDIA GeForce RTX 4090 D", "'d' follows the model"),
    ("NVIDIA_GeForce_RTX_4090_D", "'d' follows the model"),
    ("NVIDIA GeForce RTX 4080 SUPER", "'super' follows the model|RTX 4080 SUPER"),
    ("GV100GL [Tesla V100S PCIe 32GB]", "Cannot read|Unknown accelerator"),
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


def test_a_refusal_names_the_candidates() -> None:
    with pytest.raises(UnknownAcceleratorError) as info:
        resolve_name("16xMI325X_8xMI300X_2xEPYC_9575F")
    assert set(info.value.suggestions) == {"MI325X", "MI300X"}


def test_names_that_name_nothing_still_get_close_matches() -> None:
    with pytest.raises(UnknownAcceleratorError, match="did you mean"):
        resolve_name("H10O")
