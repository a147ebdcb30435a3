"""Properties of the shipped catalog data file (``accelerators/data/catalog.toml``).

These tests pin facts taken from the project reference (flytekit's device strings, NVIDIA's
MIG profile tables, Google's TPU slice shapes) and check internal consistency that a typo or
a sparse-for-dense mix-up would break. The broken-file tests at the end check that the loader
rejects a bad data file with a :class:`~accelerators.errors.CatalogDataError` naming the problem.
"""

from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path

import pytest

from accelerators import catalog
from accelerators.catalog import Accelerator, _store
from accelerators.catalog._names import resolve_name
from accelerators.catalog._schema import DTYPES
from accelerators.errors import CatalogDataError, UnknownAcceleratorError

DATA_FILE = Path(catalog.__file__).resolve().parents[1] / "data" / "catalog.toml"

# -- the required entries: name -> (model, constant, default_for_model, vendor, device_class) --
REQUIRED = {
    "K80": ("K80", "K80", True, "nvidia", "gpu"),
    "M60": ("M60", "M60", True, "nvidia", "gpu"),
    "P4": ("P4", "P4", True, "nvidia", "gpu"),
    "P100": ("P100", "P100", True, "nvidia", "gpu"),
    "V100-16GB-SXM2": ("V100-16GB", "V100", True, "nvidia", "gpu"),
    "V100-16GB-PCIE": ("V100-16GB", "V100_PCIE", False, "nvidia", "gpu"),
    "V100-32GB-SXM2": ("V100-32GB", "V100_32GB", True, "nvidia", "gpu"),
    "V100-32GB-PCIE": ("V100-32GB", "V100_32GB_PCIE", False, "nvidia", "gpu"),
    "T4": ("T4", "T4", True, "nvidia", "gpu"),
    "A10": ("A10", "A10", True, "nvidia", "gpu"),
    "A10G": ("A10G", "A10G", True, "nvidia", "gpu"),
    "A30": ("A30", "A30", True, "nvidia", "gpu"),
    "L4": ("L4", "L4", True, "nvidia", "gpu"),
    "L4-VWS": ("L4", "L4_VWS", False, "nvidia", "gpu"),
    "L40S": ("L40S", "L40S", True, "nvidia", "gpu"),
    "A100-40GB-SXM": ("A100-40GB", "A100", True, "nvidia", "gpu"),
    "A100-40GB-PCIE": ("A100-40GB", "A100_PCIE", False, "nvidia", "gpu"),
    "A100-80GB-SXM": ("A100-80GB", "A100_80GB", True, "nvidia", "gpu"),
    "A100-80GB-PCIE": ("A100-80GB", "A100_80GB_PCIE", False, "nvidia", "gpu"),
    "H100-SXM": ("H100-SXM", "H100", True, "nvidia", "gpu"),
    "H100-MEGA": ("H100-SXM", "H100_MEGA", False, "nvidia", "gpu"),
    "H100-PCIE": ("H100-PCIE", "H100_PCIE", True, "nvidia", "gpu"),
    "H100-NVL": ("H100-NVL", "H100_NVL", True, "nvidia", "gpu"),
    "H200-SXM": ("H200-SXM", "H200", True, "nvidia", "gpu"),
    "H200-NVL": ("H200-NVL", "H200_NVL", True, "nvidia", "gpu"),
    "GH200-96GB": ("GH200-96GB", "GH200", True, "nvidia", "gpu"),
    "GH200-144GB": ("GH200-144GB", "GH200_144GB", True, "nvidia", "gpu"),
    "B200": ("B200", "B200", True, "nvidia", "gpu"),
    "GB200": ("GB200", "GB200", True, "nvidia", "gpu"),
    "B300": ("B300", "B300", True, "nvidia", "gpu"),
    "RTX-PRO-6000": ("RTX-PRO-6000", "RTX_PRO_6000", True, "nvidia", "gpu"),
    "MI250": ("MI250", "MI250", True, "amd", "gpu"),
    "MI250X": ("MI250X", "MI250X", True, "amd", "gpu"),
    "MI300X": ("MI300X", "MI300X", True, "amd", "gpu"),
    "MI325X": ("MI325X", "MI325X", True, "amd", "gpu"),
    "MI355X": ("MI355X", "MI355X", True, "amd", "gpu"),
    "GAUDI2": ("GAUDI2", "GAUDI2", True, "intel", "hpu"),
    "GAUDI3": ("GAUDI3", "GAUDI3", True, "intel", "hpu"),
    "TPU-V4": ("TPU-V4", "V4", True, "google", "tpu"),
    "TPU-V5E": ("TPU-V5E", "V5E", True, "google", "tpu"),
    "TPU-V5P": ("TPU-V5P", "V5P", True, "google", "tpu"),
    "TPU-V6E": ("TPU-V6E", "V6E", True, "google", "tpu"),
    "TRAINIUM1": ("TRAINIUM1", "TRAINIUM1", True, "aws", "neuron"),
    "TRAINIUM2": ("TRAINIUM2", "TRAINIUM2", True, "aws", "neuron"),
    "TRAINIUM3": ("TRAINIUM3", "TRAINIUM3", True, "aws", "neuron"),
    "INFERENTIA2": ("INFERENTIA2", "INFERENTIA2", True, "aws", "neuron"),
    # issue 10: breadth
    "A2": ("A2", "A2", True, "nvidia", "gpu"),
    "A16": ("A16", "A16", True, "nvidia", "gpu"),
    "A40": ("A40", "A40", True, "nvidia", "gpu"),
    "L40": ("L40", "L40", True, "nvidia", "gpu"),
    "L20": ("L20", "L20", True, "nvidia", "gpu"),
    "A800": ("A800", "A800", True, "nvidia", "gpu"),
    "H800": ("H800", "H800", True, "nvidia", "gpu"),
    "H20": ("H20", "H20", True, "nvidia", "gpu"),
    "GB300": ("GB300", "GB300", True, "nvidia", "gpu"),
    "T4G": ("T4G", "T4G", True, "nvidia", "gpu"),
    "RTX-PRO-4500": ("RTX-PRO-4500", "RTX_PRO_4500", True, "nvidia", "gpu"),
    "RTX-PRO-6000-WS": ("RTX-PRO-6000", "RTX_PRO_6000_WS", False, "nvidia", "gpu"),
    "RTX-PRO-6000-MAXQ": ("RTX-PRO-6000", "RTX_PRO_6000_MAXQ", False, "nvidia", "gpu"),
    "RTX-A4000": ("RTX-A4000", "RTX_A4000", True, "nvidia", "gpu"),
    "RTX-A4500": ("RTX-A4500", "RTX_A4500", True, "nvidia", "gpu"),
    "RTX-A5000": ("RTX-A5000", "RTX_A5000", True, "nvidia", "gpu"),
    "RTX-A6000": ("RTX-A6000", "RTX_A6000", True, "nvidia", "gpu"),
    "RTX-2000-ADA": ("RTX-2000-ADA", "RTX_2000_ADA", True, "nvidia", "gpu"),
    "RTX-4000-ADA": ("RTX-4000-ADA", "RTX_4000_ADA", True, "nvidia", "gpu"),
    "RTX-4500-ADA": ("RTX-4500-ADA", "RTX_4500_ADA", True, "nvidia", "gpu"),
    "RTX-5000-ADA": ("RTX-5000-ADA", "RTX_5000_ADA", True, "nvidia", "gpu"),
    "RTX-6000-ADA": ("RTX-6000-ADA", "RTX_6000_ADA", True, "nvidia", "gpu"),
    "RTX-3060": ("RTX-3060", "RTX_3060", True, "nvidia", "gpu"),
    "RTX-3060-TI": ("RTX-3060-TI", "RTX_3060_TI", True, "nvidia", "gpu"),
    "RTX-3070": ("RTX-3070", "RTX_3070", True, "nvidia", "gpu"),
    "RTX-3070-TI": ("RTX-3070-TI", "RTX_3070_TI", True, "nvidia", "gpu"),
    "RTX-3080": ("RTX-3080", "RTX_3080", True, "nvidia", "gpu"),
    "RTX-3080-TI": ("RTX-3080-TI", "RTX_3080_TI", True, "nvidia", "gpu"),
    "RTX-3090": ("RTX-3090", "RTX_3090", True, "nvidia", "gpu"),
    "RTX-3090-TI": ("RTX-3090-TI", "RTX_3090_TI", True, "nvidia", "gpu"),
    "RTX-4090": ("RTX-4090", "RTX_4090", True, "nvidia", "gpu"),
    "RTX-5090": ("RTX-5090", "RTX_5090", True, "nvidia", "gpu"),
    "MI50": ("MI50", "MI50", True, "amd", "gpu"),
    "ASCEND-910B": ("ASCEND-910B", "ASCEND_910B", True, "huawei", "npu"),
    "ASCEND-910B4": ("ASCEND-910B4", "ASCEND_910B4", True, "huawei", "npu"),
    # catalog 2026.11.15 (issue 32: Chinese datacenter accelerators that schedulers name)
    "ASCEND-910C": ("ASCEND-910C", "ASCEND_910C", True, "huawei", "npu"),
    "ATLAS-300I-DUO": ("ATLAS-300I-DUO", "ATLAS_300I_DUO", True, "huawei", "npu"),
    "MLU370-X8": ("MLU370-X8", "MLU370_X8", True, "cambricon", "npu"),
    "K100-AI": ("K100-AI", "K100_AI", True, "hygon", "gpu"),
    "BI-V100": ("BI-V100", "BI_V100", True, "iluvatar", "gpu"),
    "C550": ("C550", "METAX_C550", True, "metax", "gpu"),
    "MTT-S4000": ("MTT-S4000", "MTT_S4000", True, "mthreads", "gpu"),
    "BR100": ("BR100", "BR100", True, "biren", "gpu"),
    "BR104": ("BR104", "BR104", True, "biren", "gpu"),
    "MI100": ("MI100", "MI100", True, "amd", "gpu"),
    "MI210": ("MI210", "MI210", True, "amd", "gpu"),
    "MI300A": ("MI300A", "MI300A", True, "amd", "gpu"),
    # issue 21: accelerators people rent that the catalog lacked
    "B100": ("B100", "B100", True, "nvidia", "gpu"),
    "H20-141GB": ("H20-141GB", "H20_141GB", True, "nvidia", "gpu"),
    "RTX-4080": ("RTX-4080", "RTX_4080", True, "nvidia", "gpu"),
    "RTX-4070": ("RTX-4070", "RTX_4070", True, "nvidia", "gpu"),
    "RTX-4060": ("RTX-4060", "RTX_4060", True, "nvidia", "gpu"),
    "RTX-5080": ("RTX-5080", "RTX_5080", True, "nvidia", "gpu"),
    "RTX-5070": ("RTX-5070", "RTX_5070", True, "nvidia", "gpu"),
    "RTX-5880-ADA": ("RTX-5880-ADA", "RTX_5880_ADA", True, "nvidia", "gpu"),
    "RTX-4000-SFF-ADA": ("RTX-4000-SFF-ADA", "RTX_4000_SFF_ADA", True, "nvidia", "gpu"),
    "QUADRO-P5000": ("QUADRO-P5000", "QUADRO_P5000", True, "nvidia", "gpu"),
    "QUADRO-P4000": ("QUADRO-P4000", "QUADRO_P4000", True, "nvidia", "gpu"),
    "QUADRO-M4000": ("QUADRO-M4000", "QUADRO_M4000", True, "nvidia", "gpu"),
    "M40": ("M40", "M40", True, "nvidia", "gpu"),
    "V520": ("V520", "V520", True, "amd", "gpu"),
    "MI25": ("MI25", "MI25", True, "amd", "gpu"),
    "MI60": ("MI60", "MI60", True, "amd", "gpu"),
    "AI100": ("AI100", "AI100", True, "qualcomm", "npu"),
    "ARC-PRO-B60": ("ARC-PRO-B60", "ARC_PRO_B60", True, "intel", "gpu"),
    # catalog 2026.11.6 (issue 21's held-out corpus: devices people rent that the catalog lacked)
    "RTX-4070-TI": ("RTX-4070-TI", "RTX_4070_TI", True, "nvidia", "gpu"),
    "RTX-4080-SUPER": ("RTX-4080-SUPER", "RTX_4080_SUPER", True, "nvidia", "gpu"),
    "RTX-4090-D": ("RTX-4090-D", "RTX_4090_D", True, "nvidia", "gpu"),
    "RTX-5070-TI": ("RTX-5070-TI", "RTX_5070_TI", True, "nvidia", "gpu"),
    "RTX-2080-SUPER": ("RTX-2080-SUPER", "RTX_2080_SUPER", True, "nvidia", "gpu"),
    "TITAN-RTX": ("TITAN-RTX", "TITAN_RTX", True, "nvidia", "gpu"),
    "RTX-A2000": ("RTX-A2000", "RTX_A2000", True, "nvidia", "gpu"),
    "RTX-A5500": ("RTX-A5500", "RTX_A5500", True, "nvidia", "gpu"),
    "RTX-PRO-5000": ("RTX-PRO-5000", "RTX_PRO_5000", True, "nvidia", "gpu"),
    "RTX-PRO-4000": ("RTX-PRO-4000", "RTX_PRO_4000", True, "nvidia", "gpu"),
    "QUADRO-P6000": ("QUADRO-P6000", "QUADRO_P6000", True, "nvidia", "gpu"),
    "P100-SXM2": ("P100", "P100_SXM2", False, "nvidia", "gpu"),
    "P100-12GB": ("P100-12GB", "P100_12GB", True, "nvidia", "gpu"),
    "A800-SXM": ("A800", "A800_SXM", False, "nvidia", "gpu"),
    "GB10": ("GB10", "GB10", True, "nvidia", "gpu"),
    "V620": ("V620", "V620", True, "amd", "gpu"),
    "V710": ("V710", "V710", True, "amd", "gpu"),
    "W7900": ("W7900", "W7900", True, "amd", "gpu"),
    "RX-7900-XTX": ("RX-7900-XTX", "RX_7900_XTX", True, "amd", "gpu"),
    # catalog 2026.11.7 (issue 32: the Cloud AI 100's SKUs, boards the fresh corpus rents)
    "AI100-PRO": ("AI100-PRO", "AI100_PRO", True, "qualcomm", "npu"),
    "AI100-ULTRA": ("AI100-ULTRA", "AI100_ULTRA", True, "qualcomm", "npu"),
    "GTX-1080-TI": ("GTX-1080-TI", "GTX_1080_TI", True, "nvidia", "gpu"),
    "GTX-1070": ("GTX-1070", "GTX_1070", True, "nvidia", "gpu"),
    "M40-24GB": ("M40-24GB", "M40_24GB", True, "nvidia", "gpu"),
    # catalog 2026.11.11 (issue 32: cards GPU marketplaces rent that the catalog lacked)
    "RTX-4060-TI-8GB": ("RTX-4060-TI-8GB", "RTX_4060_TI_8GB", True, "nvidia", "gpu"),
    "RTX-4060-TI-16GB": ("RTX-4060-TI-16GB", "RTX_4060_TI_16GB", True, "nvidia", "gpu"),
    "RTX-4070-SUPER": ("RTX-4070-SUPER", "RTX_4070_SUPER", True, "nvidia", "gpu"),
    "RTX-4070-TI-SUPER": ("RTX-4070-TI-SUPER", "RTX_4070_TI_SUPER", True, "nvidia", "gpu"),
    "RTX-5060-TI-8GB": ("RTX-5060-TI-8GB", "RTX_5060_TI_8GB", True, "nvidia", "gpu"),
    "RTX-5060-TI-16GB": ("RTX-5060-TI-16GB", "RTX_5060_TI_16GB", True, "nvidia", "gpu"),
    "RTX-5060": ("RTX-5060", "RTX_5060", True, "nvidia", "gpu"),
    "RTX-3050": ("RTX-3050", "RTX_3050", True, "nvidia", "gpu"),
    "RTX-2060": ("RTX-2060", "RTX_2060", True, "nvidia", "gpu"),
    "RTX-2060-SUPER": ("RTX-2060-SUPER", "RTX_2060_SUPER", True, "nvidia", "gpu"),
    "RTX-2070": ("RTX-2070", "RTX_2070", True, "nvidia", "gpu"),
    "RTX-2070-SUPER": ("RTX-2070-SUPER", "RTX_2070_SUPER", True, "nvidia", "gpu"),
    "RTX-2080": ("RTX-2080", "RTX_2080", True, "nvidia", "gpu"),
    "GTX-1660": ("GTX-1660", "GTX_1660", True, "nvidia", "gpu"),
    "GTX-1660-SUPER": ("GTX-1660-SUPER", "GTX_1660_SUPER", True, "nvidia", "gpu"),
    "GTX-1660-TI": ("GTX-1660-TI", "GTX_1660_TI", True, "nvidia", "gpu"),
    "GTX-1650": ("GTX-1650", "GTX_1650", True, "nvidia", "gpu"),
    "GTX-1080": ("GTX-1080", "GTX_1080", True, "nvidia", "gpu"),
    "GTX-1070-TI": ("GTX-1070-TI", "GTX_1070_TI", True, "nvidia", "gpu"),
    "GTX-1060": ("GTX-1060", "GTX_1060", True, "nvidia", "gpu"),
    "K40": ("K40", "K40", True, "nvidia", "gpu"),
    "QUADRO-GP100": ("QUADRO-GP100", "QUADRO_GP100", True, "nvidia", "gpu"),
    "QUADRO-P2000": ("QUADRO-P2000", "QUADRO_P2000", True, "nvidia", "gpu"),
    "RTX-A2000-12GB": ("RTX-A2000-12GB", "RTX_A2000_12GB", True, "nvidia", "gpu"),
    "RTX-A1000": ("RTX-A1000", "RTX_A1000", True, "nvidia", "gpu"),
    "RTX-A400": ("RTX-A400", "RTX_A400", True, "nvidia", "gpu"),
    "RX-6800": ("RX-6800", "RX_6800", True, "amd", "gpu"),
    "RX-6800-XT": ("RX-6800-XT", "RX_6800_XT", True, "amd", "gpu"),
    "RX-6900-XT": ("RX-6900-XT", "RX_6900_XT", True, "amd", "gpu"),
    "RX-7900-XT": ("RX-7900-XT", "RX_7900_XT", True, "amd", "gpu"),
    "RX-7900-GRE": ("RX-7900-GRE", "RX_7900_GRE", True, "amd", "gpu"),
    "W6800": ("W6800", "W6800", True, "amd", "gpu"),
    # catalog (issue 32: AMD and Intel cards other systems name that the catalog lacked)
    "RX-7800-XT": ("RX-7800-XT", "RX_7800_XT", True, "amd", "gpu"),
    "RX-6950-XT": ("RX-6950-XT", "RX_6950_XT", True, "amd", "gpu"),
    "RX-6700-XT": ("RX-6700-XT", "RX_6700_XT", True, "amd", "gpu"),
    "RX-6600": ("RX-6600", "RX_6600", True, "amd", "gpu"),
    "VII": ("VII", "RADEON_VII", True, "amd", "gpu"),
    "PRO-VII": ("PRO-VII", "RADEON_PRO_VII", True, "amd", "gpu"),
    "W7800": ("W7800", "W7800", True, "amd", "gpu"),
    "W7800-48GB": ("W7800-48GB", "W7800_48GB", True, "amd", "gpu"),
    "W6600": ("W6600", "W6600", True, "amd", "gpu"),
    "ARC-A770-16GB": ("ARC-A770-16GB", "ARC_A770_16GB", True, "intel", "gpu"),
    "ARC-A770-8GB": ("ARC-A770-8GB", "ARC_A770_8GB", True, "intel", "gpu"),
    "ARC-A750": ("ARC-A750", "ARC_A750", True, "intel", "gpu"),
    "ARC-B580": ("ARC-B580", "ARC_B580", True, "intel", "gpu"),
    "MI308X": ("MI308X", "MI308X", True, "amd", "gpu"),
    "MI350X": ("MI350X", "MI350X", True, "amd", "gpu"),
    "MAX-1550": ("MAX-1550", "MAX_1550", True, "intel", "gpu"),
    "MAX-1100": ("MAX-1100", "MAX_1100", True, "intel", "gpu"),
    "FLEX-170": ("FLEX-170", "FLEX_170", True, "intel", "gpu"),
    "FLEX-140": ("FLEX-140", "FLEX_140", True, "intel", "gpu"),
    "GAUDI1": ("GAUDI1", "GAUDI1", True, "intel", "hpu"),
    "TPU-V2": ("TPU-V2", "V2", True, "google", "tpu"),
    "TPU-V3": ("TPU-V3", "V3", True, "google", "tpu"),
    "TPU-V7": ("TPU-V7", "V7", True, "google", "tpu"),
    "INFERENTIA1": ("INFERENTIA1", "INFERENTIA1", True, "aws", "neuron"),
    "P40": ("P40", "P40", True, "nvidia", "gpu"),
    "QUADRO-RTX-4000": ("QUADRO-RTX-4000", "QUADRO_RTX_4000", True, "nvidia", "gpu"),
    "QUADRO-RTX-5000": ("QUADRO-RTX-5000", "QUADRO_RTX_5000", True, "nvidia", "gpu"),
    "QUADRO-RTX-6000": ("QUADRO-RTX-6000", "QUADRO_RTX_6000", True, "nvidia", "gpu"),
    "QUADRO-RTX-8000": ("QUADRO-RTX-8000", "QUADRO_RTX_8000", True, "nvidia", "gpu"),
    "RTX-2080-TI": ("RTX-2080-TI", "RTX_2080_TI", True, "nvidia", "gpu"),
    # NVIDIA cards other systems name (drivers, pci.ids, DCGM, schedulers) that the catalog lacked
    "V100S": ("V100S", "V100S", True, "nvidia", "gpu"),
    "M10": ("M10", "M10", True, "nvidia", "gpu"),
    "GRID-K520": ("GRID-K520", "GRID_K520", True, "nvidia", "gpu"),
    "A800-40GB": ("A800-40GB", "A800_40GB", True, "nvidia", "gpu"),
    "TITAN-XP": ("TITAN-XP", "TITAN_XP", True, "nvidia", "gpu"),
    "TITAN-X-PASCAL": ("TITAN-X-PASCAL", "TITAN_X_PASCAL", True, "nvidia", "gpu"),
    "GTX-980-TI": ("GTX-980-TI", "GTX_980_TI", True, "nvidia", "gpu"),
    "GTX-980": ("GTX-980", "GTX_980", True, "nvidia", "gpu"),
    "QUADRO-M6000": ("QUADRO-M6000", "QUADRO_M6000", True, "nvidia", "gpu"),
    "QUADRO-M6000-24GB": ("QUADRO-M6000-24GB", "QUADRO_M6000_24GB", True, "nvidia", "gpu"),
    "T1000": ("T1000", "T1000", True, "nvidia", "gpu"),
    "T1000-8GB": ("T1000-8GB", "T1000_8GB", True, "nvidia", "gpu"),
    "T600": ("T600", "T600", True, "nvidia", "gpu"),
    # catalog 2026.11.15 (issue 32): cards marketplaces, clouds and software lists name
    "TITAN-V": ("TITAN-V", "TITAN_V", True, "nvidia", "gpu"),
    "GTX-TITAN-X": ("GTX-TITAN-X", "GTX_TITAN_X", True, "nvidia", "gpu"),
    "GTX-1050-TI": ("GTX-1050-TI", "GTX_1050_TI", True, "nvidia", "gpu"),
    "GTX-1050": ("GTX-1050", "GTX_1050", True, "nvidia", "gpu"),
    "GTX-970": ("GTX-970", "GTX_970", True, "nvidia", "gpu"),
    "GTX-960-2GB": ("GTX-960-2GB", "GTX_960_2GB", True, "nvidia", "gpu"),
    "GTX-960-4GB": ("GTX-960-4GB", "GTX_960_4GB", True, "nvidia", "gpu"),
    "GTX-950": ("GTX-950", "GTX_950", True, "nvidia", "gpu"),
    "GTX-750-TI-2GB": ("GTX-750-TI-2GB", "GTX_750_TI_2GB", True, "nvidia", "gpu"),
    "GTX-750-TI-4GB": ("GTX-750-TI-4GB", "GTX_750_TI_4GB", True, "nvidia", "gpu"),
    "QUADRO-P400": ("QUADRO-P400", "QUADRO_P400", True, "nvidia", "gpu"),
    "QUADRO-P600": ("QUADRO-P600", "QUADRO_P600", True, "nvidia", "gpu"),
    "QUADRO-P620": ("QUADRO-P620", "QUADRO_P620", True, "nvidia", "gpu"),
    "QUADRO-P1000": ("QUADRO-P1000", "QUADRO_P1000", True, "nvidia", "gpu"),
    "QUADRO-P2200": ("QUADRO-P2200", "QUADRO_P2200", True, "nvidia", "gpu"),
    "QUADRO-M5000": ("QUADRO-M5000", "QUADRO_M5000", True, "nvidia", "gpu"),
    "QUADRO-M2000": ("QUADRO-M2000", "QUADRO_M2000", True, "nvidia", "gpu"),
    "QUADRO-K2200": ("QUADRO-K2200", "QUADRO_K2200", True, "nvidia", "gpu"),
    "QUADRO-K1200": ("QUADRO-K1200", "QUADRO_K1200", True, "nvidia", "gpu"),
    "QUADRO-K620": ("QUADRO-K620", "QUADRO_K620", True, "nvidia", "gpu"),
    "RX-5700-XT": ("RX-5700-XT", "RX_5700_XT", True, "amd", "gpu"),
    "RX-9070-XT": ("RX-9070-XT", "RX_9070_XT", True, "amd", "gpu"),
    "RX-9070": ("RX-9070", "RX_9070", True, "amd", "gpu"),
    "RX-9060-XT-16GB": ("RX-9060-XT-16GB", "RX_9060_XT_16GB", True, "amd", "gpu"),
    "RX-9060-XT-8GB": ("RX-9060-XT-8GB", "RX_9060_XT_8GB", True, "amd", "gpu"),
    "R9700": ("R9700", "R9700", True, "amd", "gpu"),
    "ARC-A380": ("ARC-A380", "ARC_A380", True, "intel", "gpu"),
    "RTX-PRO-4500-SERVER": ("RTX-PRO-4500-SERVER", "RTX_PRO_4500_SERVER", True, "nvidia", "gpu"),
    # catalog 2026.11.16 (issue 32): NVIDIA Jetson modules (unified-memory SoCs)
    "JETSON-T5000": ("JETSON-T5000", "JETSON_T5000", True, "nvidia", "gpu"),
    "JETSON-AGX-ORIN-64GB": ("JETSON-AGX-ORIN-64GB", "JETSON_AGX_ORIN_64GB", True, "nvidia", "gpu"),
    "JETSON-AGX-ORIN-32GB": ("JETSON-AGX-ORIN-32GB", "JETSON_AGX_ORIN_32GB", True, "nvidia", "gpu"),
    "JETSON-AGX-ORIN-INDUSTRIAL": (
        "JETSON-AGX-ORIN-INDUSTRIAL",
        "JETSON_AGX_ORIN_INDUSTRIAL",
        True,
        "nvidia",
        "gpu",
    ),
    "JETSON-ORIN-NX-16GB": ("JETSON-ORIN-NX-16GB", "JETSON_ORIN_NX_16GB", True, "nvidia", "gpu"),
    "JETSON-ORIN-NX-8GB": ("JETSON-ORIN-NX-8GB", "JETSON_ORIN_NX_8GB", True, "nvidia", "gpu"),
    "JETSON-ORIN-NANO-8GB": ("JETSON-ORIN-NANO-8GB", "JETSON_ORIN_NANO_8GB", True, "nvidia", "gpu"),
    "JETSON-ORIN-NANO-4GB": ("JETSON-ORIN-NANO-4GB", "JETSON_ORIN_NANO_4GB", True, "nvidia", "gpu"),
    "JETSON-AGX-XAVIER-32GB": (
        "JETSON-AGX-XAVIER-32GB",
        "JETSON_AGX_XAVIER_32GB",
        True,
        "nvidia",
        "gpu",
    ),
    "JETSON-XAVIER-NX-8GB": ("JETSON-XAVIER-NX-8GB", "JETSON_XAVIER_NX_8GB", True, "nvidia", "gpu"),
    "JETSON-XAVIER-NX-16GB": (
        "JETSON-XAVIER-NX-16GB",
        "JETSON_XAVIER_NX_16GB",
        True,
        "nvidia",
        "gpu",
    ),
    "JETSON-NANO-4GB": ("JETSON-NANO-4GB", "JETSON_NANO_4GB", True, "nvidia", "gpu"),
    # catalog 2026.11.41 (issue 32): the Jetson modules peer names use that the catalog lacked
    "JETSON-NANO-2GB": ("JETSON-NANO-2GB", "JETSON_NANO_2GB", True, "nvidia", "gpu"),
    "JETSON-TX2-8GB": ("JETSON-TX2-8GB", "JETSON_TX2_8GB", True, "nvidia", "gpu"),
    "JETSON-TX2-4GB": ("JETSON-TX2-4GB", "JETSON_TX2_4GB", True, "nvidia", "gpu"),
    "JETSON-TX2I": ("JETSON-TX2I", "JETSON_TX2I", True, "nvidia", "gpu"),
    "JETSON-TX2-NX": ("JETSON-TX2-NX", "JETSON_TX2_NX", True, "nvidia", "gpu"),
    "JETSON-TX1": ("JETSON-TX1", "JETSON_TX1", True, "nvidia", "gpu"),
    "JETSON-AGX-XAVIER-16GB": (
        "JETSON-AGX-XAVIER-16GB",
        "JETSON_AGX_XAVIER_16GB",
        True,
        "nvidia",
        "gpu",
    ),
    "JETSON-AGX-XAVIER-64GB": (
        "JETSON-AGX-XAVIER-64GB",
        "JETSON_AGX_XAVIER_64GB",
        True,
        "nvidia",
        "gpu",
    ),
    "JETSON-AGX-XAVIER-INDUSTRIAL": (
        "JETSON-AGX-XAVIER-INDUSTRIAL",
        "JETSON_AGX_XAVIER_INDUSTRIAL",
        True,
        "nvidia",
        "gpu",
    ),
    # catalog 2026.11.16 (issue 32): more cards marketplaces, software lists and old clusters name
    "RX-6600-XT": ("RX-6600-XT", "RX_6600_XT", True, "amd", "gpu"),
    "RX-6650-XT": ("RX-6650-XT", "RX_6650_XT", True, "amd", "gpu"),
    "RX-6750-XT": ("RX-6750-XT", "RX_6750_XT", True, "amd", "gpu"),
    "RX-6400": ("RX-6400", "RX_6400", True, "amd", "gpu"),
    "RX-5500-XT-8GB": ("RX-5500-XT-8GB", "RX_5500_XT_8GB", True, "amd", "gpu"),
    "RX-5500-XT-4GB": ("RX-5500-XT-4GB", "RX_5500_XT_4GB", True, "amd", "gpu"),
    "RX-5600-XT": ("RX-5600-XT", "RX_5600_XT", True, "amd", "gpu"),
    "RX-5700": ("RX-5700", "RX_5700", True, "amd", "gpu"),
    "RX-7600": ("RX-7600", "RX_7600", True, "amd", "gpu"),
    "RX-7600-XT": ("RX-7600-XT", "RX_7600_XT", True, "amd", "gpu"),
    "RX-7700-XT": ("RX-7700-XT", "RX_7700_XT", True, "amd", "gpu"),
    "RX-580-8GB": ("RX-580-8GB", "RX_580_8GB", True, "amd", "gpu"),
    "RX-580-4GB": ("RX-580-4GB", "RX_580_4GB", True, "amd", "gpu"),
    "RX-570-8GB": ("RX-570-8GB", "RX_570_8GB", True, "amd", "gpu"),
    "RX-570-4GB": ("RX-570-4GB", "RX_570_4GB", True, "amd", "gpu"),
    "RX-VEGA-56": ("RX-VEGA-56", "RX_VEGA_56", True, "amd", "gpu"),
    "RX-VEGA-64": ("RX-VEGA-64", "RX_VEGA_64", True, "amd", "gpu"),
    "W5700": ("W5700", "W5700", True, "amd", "gpu"),
    "W6400": ("W6400", "W6400", True, "amd", "gpu"),
    "GTX-1650-SUPER": ("GTX-1650-SUPER", "GTX_1650_SUPER", True, "nvidia", "gpu"),
    "GTX-1630": ("GTX-1630", "GTX_1630", True, "nvidia", "gpu"),
    "RTX-3050-6GB": ("RTX-3050-6GB", "RTX_3050_6GB", True, "nvidia", "gpu"),
    "RTX-3060-8GB": ("RTX-3060-8GB", "RTX_3060_8GB", True, "nvidia", "gpu"),
    "RTX-2060-12GB": ("RTX-2060-12GB", "RTX_2060_12GB", True, "nvidia", "gpu"),
    "RTX-3080-12GB": ("RTX-3080-12GB", "RTX_3080_12GB", True, "nvidia", "gpu"),
    "GTX-780-3GB": ("GTX-780-3GB", "GTX_780_3GB", True, "nvidia", "gpu"),
    "GTX-780-6GB": ("GTX-780-6GB", "GTX_780_6GB", True, "nvidia", "gpu"),
    "GTX-780-TI": ("GTX-780-TI", "GTX_780_TI", True, "nvidia", "gpu"),
    "GTX-TITAN": ("GTX-TITAN", "GTX_TITAN", True, "nvidia", "gpu"),
    "GTX-TITAN-BLACK": ("GTX-TITAN-BLACK", "GTX_TITAN_BLACK", True, "nvidia", "gpu"),
    "RTX-5050": ("RTX-5050", "RTX_5050", True, "nvidia", "gpu"),
    "K20": ("K20", "K20", True, "nvidia", "gpu"),
    "K20X": ("K20X", "K20X", True, "nvidia", "gpu"),
    "K10": ("K10", "K10", True, "nvidia", "gpu"),
    "M2090": ("M2090", "M2090", True, "nvidia", "gpu"),
    "M6": ("M6", "M6", True, "nvidia", "gpu"),
    "P6": ("P6", "P6", True, "nvidia", "gpu"),
    "ARC-A580": ("ARC-A580", "ARC_A580", True, "intel", "gpu"),
    "ARC-A310": ("ARC-A310", "ARC_A310", True, "intel", "gpu"),
    "ARC-PRO-A40": ("ARC-PRO-A40", "ARC_PRO_A40", True, "intel", "gpu"),
    "ARC-PRO-A50": ("ARC-PRO-A50", "ARC_PRO_A50", True, "intel", "gpu"),
    "ARC-PRO-A60": ("ARC-PRO-A60", "ARC_PRO_A60", True, "intel", "gpu"),
    "ARC-B570": ("ARC-B570", "ARC_B570", True, "intel", "gpu"),
    "ARC-PRO-B50": ("ARC-PRO-B50", "ARC_PRO_B50", True, "intel", "gpu"),
    # catalog 2026.11.29 (29a): Fermi Tesla boards, the V100 FHHL, RTX PRO Blackwell cards
    "C2050": ("C2050", "C2050", True, "nvidia", "gpu"),
    "C2070": ("C2070", "C2070", True, "nvidia", "gpu"),
    "C2075": ("C2075", "C2075", True, "nvidia", "gpu"),
    "M2050": ("M2050", "M2050", True, "nvidia", "gpu"),
    "M2070": ("M2070", "M2070", True, "nvidia", "gpu"),
    "V100-16GB-FHHL": ("V100-16GB", "V100_FHHL", False, "nvidia", "gpu"),
    "RTX-PRO-4000-SFF": ("RTX-PRO-4000-SFF", "RTX_PRO_4000_SFF", True, "nvidia", "gpu"),
    "RTX-PRO-2000": ("RTX-PRO-2000", "RTX_PRO_2000", True, "nvidia", "gpu"),
    "RTX-PRO-5000-72GB": ("RTX-PRO-5000", "RTX_PRO_5000_72GB", False, "nvidia", "gpu"),
    # catalog 2026.11.29 (29b)
    "RX-470-8GB": ("RX-470-8GB", "RX_470_8GB", True, "amd", "gpu"),
    "RX-470-4GB": ("RX-470-4GB", "RX_470_4GB", True, "amd", "gpu"),
    "RX-590": ("RX-590", "RX_590", True, "amd", "gpu"),
    "RX-6700": ("RX-6700", "RX_6700", True, "amd", "gpu"),
    "RX-6500-XT-4GB": ("RX-6500-XT-4GB", "RX_6500_XT_4GB", True, "amd", "gpu"),
    "RX-6500-XT-8GB": ("RX-6500-XT-8GB", "RX_6500_XT_8GB", True, "amd", "gpu"),
    "W5500": ("W5500", "W5500", True, "amd", "gpu"),
    "VEGA-FE": ("VEGA-FE", "VEGA_FE", True, "amd", "gpu"),
    "RX-VEGA-64-LIQUID": ("RX-VEGA-64", "RX_VEGA_64_LIQUID", False, "amd", "gpu"),
    "HD-7970-3GB": ("HD-7970-3GB", "HD_7970_3GB", True, "amd", "gpu"),
    "HD-7970-6GB": ("HD-7970-6GB", "HD_7970_6GB", True, "amd", "gpu"),
    "R9-290X-4GB": ("R9-290X-4GB", "R9_290X_4GB", True, "amd", "gpu"),
    "R9-290X-8GB": ("R9-290X-8GB", "R9_290X_8GB", True, "amd", "gpu"),
    "R9-390X": ("R9-390X", "R9_390X", True, "amd", "gpu"),
    "RTX-4090-LAPTOP": ("RTX-4090-LAPTOP", "RTX_4090_LAPTOP", True, "nvidia", "gpu"),
    "RTX-4080-LAPTOP": ("RTX-4080-LAPTOP", "RTX_4080_LAPTOP", True, "nvidia", "gpu"),
    "RTX-4070-LAPTOP": ("RTX-4070-LAPTOP", "RTX_4070_LAPTOP", True, "nvidia", "gpu"),
    "RTX-4060-LAPTOP": ("RTX-4060-LAPTOP", "RTX_4060_LAPTOP", True, "nvidia", "gpu"),
    "RTX-4050-LAPTOP": ("RTX-4050-LAPTOP", "RTX_4050_LAPTOP", True, "nvidia", "gpu"),
    "RTX-3050-TI-LAPTOP": ("RTX-3050-TI-LAPTOP", "RTX_3050_TI_LAPTOP", True, "nvidia", "gpu"),
    "RTX-2050": ("RTX-2050", "RTX_2050", True, "nvidia", "gpu"),
    "GTX-1060-3GB": ("GTX-1060-3GB", "GTX_1060_3GB", True, "nvidia", "gpu"),
    "GTX-580": ("GTX-580", "GTX_580", True, "nvidia", "gpu"),
    "GTX-570": ("GTX-570", "GTX_570", True, "nvidia", "gpu"),
    # catalog 2026.11.30 (30a)
    "WORMHOLE-N150": ("WORMHOLE-N150", "WORMHOLE_N150", True, "tenstorrent", "npu"),
    "WORMHOLE-N300": ("WORMHOLE-N300", "WORMHOLE_N300", True, "tenstorrent", "npu"),
    "BLACKHOLE-P100A": ("BLACKHOLE-P100A", "BLACKHOLE_P100A", True, "tenstorrent", "npu"),
    "BLACKHOLE-P150": ("BLACKHOLE-P150", "BLACKHOLE_P150", True, "tenstorrent", "npu"),
    "RNGD": ("RNGD", "RNGD", True, "furiosa", "npu"),
    "WARBOY": ("WARBOY", "WARBOY", True, "furiosa", "npu"),
    # catalog 2026.11.30 (30b): Apple silicon, one SKU per chip and unified-memory size
    "M1-8GB": ("M1-8GB", "M1_8GB", True, "apple", "gpu"),
    "M1-16GB": ("M1-16GB", "M1_16GB", True, "apple", "gpu"),
    "M1-PRO-16GB": ("M1-PRO-16GB", "M1_PRO_16GB", True, "apple", "gpu"),
    "M1-PRO-32GB": ("M1-PRO-32GB", "M1_PRO_32GB", True, "apple", "gpu"),
    "M1-MAX-32GB": ("M1-MAX-32GB", "M1_MAX_32GB", True, "apple", "gpu"),
    "M1-MAX-64GB": ("M1-MAX-64GB", "M1_MAX_64GB", True, "apple", "gpu"),
    "M1-ULTRA-64GB": ("M1-ULTRA-64GB", "M1_ULTRA_64GB", True, "apple", "gpu"),
    "M1-ULTRA-128GB": ("M1-ULTRA-128GB", "M1_ULTRA_128GB", True, "apple", "gpu"),
    "M2-8GB": ("M2-8GB", "M2_8GB", True, "apple", "gpu"),
    "M2-16GB": ("M2-16GB", "M2_16GB", True, "apple", "gpu"),
    "M2-24GB": ("M2-24GB", "M2_24GB", True, "apple", "gpu"),
    "M2-PRO-16GB": ("M2-PRO-16GB", "M2_PRO_16GB", True, "apple", "gpu"),
    "M2-PRO-32GB": ("M2-PRO-32GB", "M2_PRO_32GB", True, "apple", "gpu"),
    "M2-MAX-32GB": ("M2-MAX-32GB", "M2_MAX_32GB", True, "apple", "gpu"),
    "M2-MAX-64GB": ("M2-MAX-64GB", "M2_MAX_64GB", True, "apple", "gpu"),
    "M2-MAX-96GB": ("M2-MAX-96GB", "M2_MAX_96GB", True, "apple", "gpu"),
    "M2-ULTRA-64GB": ("M2-ULTRA-64GB", "M2_ULTRA_64GB", True, "apple", "gpu"),
    "M2-ULTRA-128GB": ("M2-ULTRA-128GB", "M2_ULTRA_128GB", True, "apple", "gpu"),
    "M2-ULTRA-192GB": ("M2-ULTRA-192GB", "M2_ULTRA_192GB", True, "apple", "gpu"),
    "M3-8GB": ("M3-8GB", "M3_8GB", True, "apple", "gpu"),
    "M3-16GB": ("M3-16GB", "M3_16GB", True, "apple", "gpu"),
    "M3-24GB": ("M3-24GB", "M3_24GB", True, "apple", "gpu"),
    "M3-PRO-18GB": ("M3-PRO-18GB", "M3_PRO_18GB", True, "apple", "gpu"),
    "M3-PRO-36GB": ("M3-PRO-36GB", "M3_PRO_36GB", True, "apple", "gpu"),
    "M3-MAX-36GB": ("M3-MAX-36GB", "M3_MAX_36GB", True, "apple", "gpu"),
    "M3-MAX-48GB": ("M3-MAX-48GB", "M3_MAX_48GB", True, "apple", "gpu"),
    "M3-MAX-64GB": ("M3-MAX-64GB", "M3_MAX_64GB", True, "apple", "gpu"),
    "M3-MAX-96GB": ("M3-MAX-96GB", "M3_MAX_96GB", True, "apple", "gpu"),
    "M3-MAX-128GB": ("M3-MAX-128GB", "M3_MAX_128GB", True, "apple", "gpu"),
    "M3-ULTRA-96GB": ("M3-ULTRA-96GB", "M3_ULTRA_96GB", True, "apple", "gpu"),
    "M3-ULTRA-256GB": ("M3-ULTRA-256GB", "M3_ULTRA_256GB", True, "apple", "gpu"),
    "M3-ULTRA-512GB": ("M3-ULTRA-512GB", "M3_ULTRA_512GB", True, "apple", "gpu"),
    "M4-16GB": ("M4-16GB", "M4_16GB", True, "apple", "gpu"),
    "M4-24GB": ("M4-24GB", "M4_24GB", True, "apple", "gpu"),
    "M4-32GB": ("M4-32GB", "M4_32GB", True, "apple", "gpu"),
    "M4-PRO-24GB": ("M4-PRO-24GB", "M4_PRO_24GB", True, "apple", "gpu"),
    "M4-PRO-48GB": ("M4-PRO-48GB", "M4_PRO_48GB", True, "apple", "gpu"),
    "M4-PRO-64GB": ("M4-PRO-64GB", "M4_PRO_64GB", True, "apple", "gpu"),
    "M4-MAX-36GB": ("M4-MAX-36GB", "M4_MAX_36GB", True, "apple", "gpu"),
    "M4-MAX-48GB": ("M4-MAX-48GB", "M4_MAX_48GB", True, "apple", "gpu"),
    "M4-MAX-64GB": ("M4-MAX-64GB", "M4_MAX_64GB", True, "apple", "gpu"),
    "M4-MAX-128GB": ("M4-MAX-128GB", "M4_MAX_128GB", True, "apple", "gpu"),
    "M5-16GB": ("M5-16GB", "M5_16GB", True, "apple", "gpu"),
    "M5-24GB": ("M5-24GB", "M5_24GB", True, "apple", "gpu"),
    "M5-32GB": ("M5-32GB", "M5_32GB", True, "apple", "gpu"),
    "M5-PRO-24GB": ("M5-PRO-24GB", "M5_PRO_24GB", True, "apple", "gpu"),
    "M5-PRO-48GB": ("M5-PRO-48GB", "M5_PRO_48GB", True, "apple", "gpu"),
    "M5-PRO-64GB": ("M5-PRO-64GB", "M5_PRO_64GB", True, "apple", "gpu"),
    "M5-MAX-36GB": ("M5-MAX-36GB", "M5_MAX_36GB", True, "apple", "gpu"),
    "M5-MAX-48GB": ("M5-MAX-48GB", "M5_MAX_48GB", True, "apple", "gpu"),
    "M5-MAX-64GB": ("M5-MAX-64GB", "M5_MAX_64GB", True, "apple", "gpu"),
    "M5-MAX-128GB": ("M5-MAX-128GB", "M5_MAX_128GB", True, "apple", "gpu"),
}

# -- flytekit 1.16.31 constants and the device strings they send (reference: flyte.md §1) --
FLYTEKIT_DEVICES = {
    "A10G": "nvidia-a10g",
    "L4": "nvidia-l4",
    "L4_VWS": "nvidia-l4-vws",
    "L40S": "nvidia-l40s",
    "K80": "nvidia-tesla-k80",
    "M60": "nvidia-tesla-m60",
    "P4": "nvidia-tesla-p4",
    "P100": "nvidia-tesla-p100",
    "T4": "nvidia-tesla-t4",
    "V100": "nvidia-tesla-v100",
    "H100": "nvidia-h100",
    "H200": "nvidia-h200",
    "RTX_PRO_6000": "nvidia-rtx-pro-6000",
    "A100": "nvidia-tesla-a100",
    "A100_80GB": "nvidia-a100-80gb",
    "V5E": "tpu-v5-lite-podslice",
    "V5P": "tpu-v5p-slice",
    "V6E": "tpu-v6e-slice",
}
FLYTEKIT_PARTITIONS = {
    "A100": {"1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"},
    "A100_80GB": {"1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"},
}
TPU_2D = ["1x1", "2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16"]
#: flytekit's V5P slices; the catalog adds the named slices of other sizes xpk lists.
FLYTEKIT_V5P = [
    "2x2x1",
    "2x2x2",
    "2x2x4",
    "2x4x4",
    "4x4x4",
    "4x4x8",
    "4x8x8",
    "8x8x8",
    "8x8x16",
    "8x16x16",
    "16x16x16",
    "16x16x24",
]
TPU_V5P = [*FLYTEKIT_V5P[:7], "4x4x20", "4x8x12", "8x8x8", "4x12x12", *FLYTEKIT_V5P[8:]]
TPU_V4 = [
    "2x2x1",
    "2x2x2",
    "2x2x4",
    "2x4x4",
    "4x4x4",
    "4x4x8",
    "4x4x12",
    "4x8x8",
    "4x4x20",
    "4x8x12",
    "8x8x8",
    "8x8x12",
    "8x8x16",
    "8x16x16",
]

# -- MIG tables, profile -> max instances (reference: kubernetes-and-airflow.md §2.2) ---------
MIG_A100_40 = {
    "1g.5gb": 7,
    "1g.5gb+me": 1,
    "1g.10gb": 4,
    "2g.10gb": 3,
    "3g.20gb": 2,
    "4g.20gb": 1,
    "7g.40gb": 1,
}
MIG_80 = {
    "1g.10gb": 7,
    "1g.10gb+me": 1,
    "1g.20gb": 4,
    "2g.20gb": 3,
    "3g.40gb": 2,
    "4g.40gb": 1,
    "7g.80gb": 1,
}
MIG_H100_94 = {
    "1g.12gb": 7,
    "1g.12gb+me": 1,
    "1g.24gb": 4,
    "2g.24gb": 3,
    "3g.47gb": 2,
    "4g.47gb": 1,
    "7g.94gb": 1,
}
MIG_GH200_96 = {
    "1g.12gb": 7,
    "1g.12gb+me": 1,
    "1g.24gb": 4,
    "2g.24gb": 3,
    "3g.48gb": 2,
    "4g.48gb": 1,
    "7g.96gb": 1,
}
MIG_H200 = {
    "1g.18gb": 7,
    "1g.18gb+me": 1,
    "1g.35gb": 4,
    "2g.35gb": 3,
    "3g.71gb": 2,
    "4g.71gb": 1,
    "7g.141gb": 1,
}
MIG_GH200_144 = {
    "1g.18gb": 7,
    "1g.18gb+me": 1,
    "1g.36gb": 4,
    "2g.36gb": 3,
    "3g.72gb": 2,
    "4g.72gb": 1,
    "7g.144gb": 1,
}
MIG_B200 = {
    "1g.23gb": 7,
    "1g.23gb+me": 1,
    "1g.45gb": 4,
    "2g.45gb": 3,
    "3g.90gb": 2,
    "4g.90gb": 1,
    "7g.180gb": 1,
}
MIG_GB200 = {
    "1g.23gb": 7,
    "1g.23gb+me": 1,
    "1g.47gb": 4,
    "2g.47gb": 3,
    "3g.93gb": 2,
    "4g.93gb": 1,
    "7g.186gb": 1,
}
MIG_B300 = {
    "1g.34gb": 7,
    "1g.34gb+me": 1,
    "1g.67gb": 4,
    "2g.67gb": 3,
    "3g.135gb": 2,
    "4g.135gb": 1,
    "7g.269gb": 1,
}
MIG_A30 = {"1g.6gb": 4, "1g.6gb+me": 1, "2g.12gb": 2, "2g.12gb+me": 1, "4g.24gb": 1}
MIG_RTX_PRO_6000 = {
    "1g.24gb": 4,
    "1g.24gb+me": 1,
    "1g.24gb+gfx": 4,
    "1g.24gb+me.all": 1,
    "1g.24gb-me": 4,
    "2g.48gb": 2,
    "2g.48gb+gfx": 2,
    "2g.48gb+me.all": 1,
    "2g.48gb-me": 2,
    "4g.96gb": 1,
    "4g.96gb+gfx": 1,
}
MIG_TABLES = {
    "A30": MIG_A30,
    "A100-40GB-SXM": MIG_A100_40,
    "A100-40GB-PCIE": MIG_A100_40,
    "A100-80GB-SXM": MIG_80,
    "A100-80GB-PCIE": MIG_80,
    "H100-SXM": MIG_80,
    "H100-MEGA": MIG_80,
    "H100-PCIE": MIG_80,
    "H100-NVL": MIG_H100_94,
    "GH200-96GB": MIG_GH200_96,
    "GH200-144GB": MIG_GH200_144,
    "H200-SXM": MIG_H200,
    "H200-NVL": MIG_H200,
    "B200": MIG_B200,
    "GB200": MIG_GB200,
    "B300": MIG_B300,
    "RTX-PRO-6000": MIG_RTX_PRO_6000,
    "A800": MIG_80,
    "H800": MIG_80,
}
#: GPUs whose MIG has 4 compute slices instead of 7.
FOUR_SLICE_MIG = {"A30", "RTX-PRO-6000"}

# -- every figure left unconfirmed, by entry (the release note lists these) ------------------
UNCONFIRMED = {
    "H100-NVL": {"tflops.fp64", "tflops.fp32"},
    "GH200-144GB": {"bandwidth_tbps"},
    "B300": {"tflops.int8"},
    "RTX-PRO-6000": {
        "tflops.fp32",
        "tflops.tf32",
        "tflops.bf16",
        "tflops.fp16",
        "tflops.fp8",
        "tflops.int8",
    },
    "GAUDI2": {"tflops.fp16"},
    # the T4's bandwidth, kept because every entry carries one (its rates were removed)
    "T4G": {"bandwidth_tbps"},
    "MI308X": {"memory_gb", "bandwidth_tbps", "tdp_w"},
    "FLEX-170": {"bandwidth_tbps"},
    "FLEX-140": {"bandwidth_tbps"},
    "ASCEND-910B": {"bandwidth_tbps", "tflops.fp16"},
    "ASCEND-910B4": {"memory_gb", "bandwidth_tbps"},
    # issue 21's entries: figures no page read gave (each note says what was searched)
    "H20-141GB": {"bandwidth_tbps"},
    "ARC-PRO-B60": {"bandwidth_tbps"},
    # issue 32: no page read ties these M5 Max sizes to the 32- or 40-core GPU version
    "M5-MAX-36GB": {"bandwidth_tbps"},
    "M5-MAX-48GB": {"bandwidth_tbps"},
    "M5-MAX-64GB": {"bandwidth_tbps"},
    # issue 32: Jetson bandwidths no readable page printed
    "JETSON-TX2I": {"bandwidth_tbps"},
    "JETSON-AGX-XAVIER-64GB": {"bandwidth_tbps"},
    "JETSON-AGX-XAVIER-INDUSTRIAL": {"bandwidth_tbps"},
}

FIGURE_KEYS = ("memory_gb", "bandwidth_tbps", "tdp_w", *(f"tflops.{d}" for d in DTYPES))
ALIAS_CHARS = re.compile(r"^[A-Za-z0-9._\- ]+$")


def by_name() -> dict[str, Accelerator]:
    return {acc.name: acc for acc in catalog.all()}


def by_constant() -> dict[str, Accelerator]:
    return {acc.constant: acc for acc in catalog.all() if acc.constant}


def figures(acc: Accelerator):
    for key in FIGURE_KEYS:
        fig = acc.figure(key)
        if fig is not None:
            yield key, fig


ALL_NAMES = sorted(REQUIRED)


# -- entries, constants, identity --------------------------------------------------------------
def test_catalog_has_exactly_the_required_entries():
    assert set(by_name()) == set(REQUIRED)
    assert len(catalog.all()) == len(REQUIRED)


@pytest.mark.parametrize("name", ALL_NAMES)
def test_required_entry_identity(name):
    model, constant, default, vendor, device_class = REQUIRED[name]
    acc = by_name()[name]
    assert (acc.model, acc.constant, acc.default_for_model) == (model, constant, default)
    assert (acc.vendor, acc.device_class) == (vendor, device_class)
    assert by_constant()[constant] is acc


@pytest.mark.parametrize("model", sorted({m for m, *_ in REQUIRED.values()}))
def test_each_model_lists_its_default_sku_first(model):
    skus = catalog.by_model(model)
    assert skus
    assert skus[0].default_for_model
    assert sum(s.default_for_model for s in skus) == 1


@pytest.mark.parametrize("name", ALL_NAMES)
def test_compute_capability_only_on_nvidia(name):
    acc = by_name()[name]
    if acc.vendor == "nvidia":
        assert acc.compute_capability is not None
        assert re.fullmatch(r"\d+\.\d", acc.compute_capability)
    else:
        assert acc.compute_capability is None


def test_an_llvm_target_is_amds_and_its_source_gives_it():
    # ROCm's GPU specifications table (the rocm-gpu-specs source's note lists each row read):
    # every entry that has one is AMD's, and the note pairs its name with that target
    note = catalog.sources()["rocm-gpu-specs"].note.casefold()
    with_target = [acc for acc in catalog.all() if acc.llvm_target]
    assert len(with_target) >= 30
    for acc in with_target:
        assert acc.vendor == "amd", acc.name
        spelled = (acc.name.replace("-", " ").casefold(), acc.name.casefold())
        assert any(
            f"{w} {acc.llvm_target}" in note or f"{w} (32gb) {acc.llvm_target}" in note
            for w in spelled
        ), acc.name
    assert catalog.get("MI300X").llvm_target == "gfx942"
    assert catalog.get("MI308X").llvm_target is None  # no source read gives it


def test_an_llvm_target_is_checked_when_the_catalog_is_loaded():
    row = {**catalog.get("MI300X").model_dump(by_alias=True), "llvm_target": "942"}
    with pytest.raises(ValueError, match="llvm_target"):
        Accelerator.model_validate(row)


@pytest.mark.parametrize("name", ALL_NAMES)
def test_aliases_use_plain_characters_and_do_not_repeat_the_name(name):
    acc = by_name()[name]
    for alias in acc.aliases:
        assert ALIAS_CHARS.match(alias), alias
        assert alias.casefold() != acc.name.casefold(), alias


def test_aliases_are_unique_across_the_catalog():
    seen: dict[str, str] = {}
    for acc in catalog.all():
        for spelling in (acc.name, *acc.aliases):
            owner = seen.setdefault(spelling.casefold(), acc.name)
            assert owner == acc.name, f"{spelling!r} on {acc.name} and {owner}"


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("A100", "A100-40GB-SXM"),
        ("A100-40GB", "A100-40GB-SXM"),
        ("A100-80GB", "A100-80GB-SXM"),
        ("A100-PCIE-40GB", "A100-40GB-PCIE"),
        ("A100-SXM4-80GB", "A100-80GB-SXM"),
        ("H100-SXM5", "H100-SXM"),
        ("V100", "V100-16GB-SXM2"),
        ("H200-SXM5", "H200-SXM"),
    ],
)
def test_model_level_aliases_sit_on_the_right_sku(alias, name):
    owners = [
        a.name for a in catalog.all() if alias.casefold() in {x.casefold() for x in a.aliases}
    ]
    assert owners == [name]


# -- names of other systems --------------------------------------------------------------------
def test_flytekit_device_strings_are_exact():
    constants = by_constant()
    assert {c: constants[c].names.flyte for c in FLYTEKIT_DEVICES} == FLYTEKIT_DEVICES


def test_flyte_device_strings_are_unique():
    values = [acc.names.flyte for acc in catalog.all() if acc.names.flyte]
    assert len(values) == len(set(values))


@pytest.mark.parametrize("constant", sorted(FLYTEKIT_PARTITIONS))
def test_flytekit_partitions_are_mig_profiles_of_that_gpu(constant):
    acc = by_constant()[constant]
    assert FLYTEKIT_PARTITIONS[constant] <= {m.profile for m in acc.mig}


@pytest.mark.parametrize("name", ALL_NAMES)
def test_gfd_values_are_sanitised_nvml_names(name):
    names = by_name()[name].names
    assert list(names.gfd) == ["-".join(n.split()) for n in names.nvml]


def test_nvml_names_are_unique():
    values = [n for acc in catalog.all() for n in acc.names.nvml]
    assert len(values) == len(set(values))


@pytest.mark.parametrize(
    ("name", "field", "value"),
    [
        ("A100-40GB-SXM", "gke", "nvidia-tesla-a100"),
        ("A100-80GB-SXM", "gke", "nvidia-a100-80gb"),
        ("H100-SXM", "gke", "nvidia-h100-80gb"),
        ("H100-MEGA", "gke", "nvidia-h100-mega-80gb"),
        ("H200-SXM", "gke", "nvidia-h200-141gb"),
        ("TPU-V4", "gke", "tpu-v4-podslice"),
        ("TPU-V5E", "gke", "tpu-v5-lite-podslice"),
        ("H100-SXM", "karpenter", "h100"),
        ("TRAINIUM2", "karpenter", "trainium2"),
        ("A10G", "eks", "nvidia-a10g"),
        ("A100-80GB-SXM", "flyte2", "A100_80G"),
        ("L40S", "flyte2", "L40s"),
        ("MI300X", "flyte", "amd-mi300x"),
        ("TRAINIUM2", "flyte", "aws-neuron-trn2"),
    ],
)
def test_scalar_system_names(name, field, value):
    assert getattr(by_name()[name].names, field) == value


@pytest.mark.parametrize(
    ("name", "field", "value"),
    [
        ("A100-40GB-SXM", "ray", "A100-40G"),
        ("A100-80GB-SXM", "ray", "A100-80G"),
        ("MI300X", "ray", "AMD-Instinct-MI300X-OAM"),
        ("TPU-V5P", "ray", "TPU-V5P"),
        ("A100-80GB-SXM", "skypilot", "A100-80GB"),
        ("TPU-V5E", "skypilot", "tpu-v5litepod"),
        ("H100-NVL", "skypilot", "H100-NVL"),
        ("L40S", "modal", "L40S"),
        ("A10G", "hf", "a10g-largex4"),
        ("H200-SXM", "hf", "h200x2"),
        ("L4", "hf", "l4x4"),
        ("MI300X", "rocm", "Instinct_MI300X"),
        ("H100-SXM", "nvml", "NVIDIA H100 80GB HBM3"),
        ("T4", "nvml", "Tesla T4"),
        ("RTX-PRO-6000", "nvml", "NVIDIA RTX PRO 6000 Blackwell Server Edition"),
    ],
)
def test_list_system_names(name, field, value):
    assert value in getattr(by_name()[name].names, field)


# -- figures and their sources -----------------------------------------------------------------
@pytest.mark.parametrize("name", ALL_NAMES)
def test_every_figure_cites_a_known_source_with_a_url_or_note(name):
    sources = catalog.sources()
    acc = by_name()[name]
    refs = [fig.source for _, fig in figures(acc)]
    refs += [m.source for m in acc.mig] + [t.source for t in acc.tpu_topologies]
    for ref in refs:
        assert ref in sources, ref
        assert sources[ref].url or sources[ref].note, ref


def test_every_source_is_used():
    used = set()
    for acc in catalog.all():
        used |= {fig.source for _, fig in figures(acc)}
        used |= {m.source for m in acc.mig} | {t.source for t in acc.tpu_topologies}
        used |= {acc.workloads.source} if acc.workloads is not None else set()
    used |= {group.source for group in _store.LOADED.file().groups}
    used |= {source for name in _store.LOADED.file().open_names for source in name.sources}
    used |= {board.source for board in _store.LOADED.file().vgpu_boards}
    assert used == set(catalog.sources())


def test_group_names_read_as_fallback_chains():
    groups = {g.name: g for g in _store.LOADED.file().groups}
    assert set(groups) == {"B200+", "any", "aws-neuron-core", "Intel-GAUDI"}
    # Ray's "Intel-GAUDI" is Gaudi 1, matched exactly: "Gaudi" alone stays ambiguous
    assert [a.model for a in _store.group_members("intel-gaudi")] == ["GAUDI1"]
    assert _store.group_members("Gaudi") is None
    group = groups["B200+"]
    assert (group.name, group.system, group.members) == ("B200+", "modal", ("B200", "B300"))
    # Modal's "any": the GPU classes its GPU guide lists, in that order (modal.gpu.Any)
    assert groups["any"].members == (
        "T4",
        "L4",
        "A10",
        "L40S",
        "A100-40GB",
        "A100-80GB",
        "RTX-PRO-6000",
        "H100-SXM",
        "H200-SXM",
        "B200",
    )
    # Ray's "aws-neuron-core": every Neuron device, each a Neuron accelerator of AWS's
    neuron = [catalog.by_model(m)[0] for m in groups["aws-neuron-core"].members]
    assert {(a.vendor, a.device_class) for a in neuron} == {("aws", "neuron")}
    assert {a.model for a in neuron} == {
        a.model for a in catalog.all() if a.device_class == "neuron"
    }
    for name in groups:  # a group name is never also one accelerator's spelling
        with pytest.raises(UnknownAcceleratorError):
            catalog.get(name)
    assert [a.model for a in _store.group_members("b200+")] == ["B200", "B300"]
    assert _store.group_members("H100+") is None


@pytest.mark.parametrize("name", ALL_NAMES)
def test_unconfirmed_figures_are_exactly_the_listed_ones(name):
    acc = by_name()[name]
    found = {key for key, fig in figures(acc) if fig.confidence == "unconfirmed"}
    assert found == UNCONFIRMED.get(name, set())


@pytest.mark.parametrize("name", ALL_NAMES)
def test_derived_and_unconfirmed_figures_say_why(name):
    for key, fig in figures(by_name()[name]):
        if fig.confidence != "source":
            assert fig.note, f"{name} {key}"


@pytest.mark.parametrize("name", ALL_NAMES)
def test_halved_sparse_figures_are_half_the_quoted_sparse_value(name):
    for key, fig in figures(by_name()[name]):
        match = re.search(r"sparse ([0-9.]+) halved", fig.note or "")
        if match:
            assert fig.confidence in {"derived", "unconfirmed"}, f"{name} {key}"
            assert math.isclose(fig.value, float(match.group(1)) / 2, abs_tol=0.01), f"{name} {key}"


@pytest.mark.parametrize("name", ALL_NAMES)
def test_basic_figures_present_and_plausible(name):
    acc = by_name()[name]
    # floors: the entry-level cards of catalog 2026.11.15 (2 GB GTX 1050, GTX 950, Quadro P400
    # and K620; the K620's 28.8 GB/s of DDR3; the P400's 30 W); the Jetson Nano's 25.6 GB/s and
    # the Orin Nano 4GB's 10 W mode of catalog 2026.11.16; the Fermi GTX 570's 1.25 GB of
    # catalog 2026.11.29; the ceiling: the 512 GB of unified memory of the M3 Ultra (issue 32)
    assert 1.25 <= acc.memory_gb <= 512
    assert 0.025 <= acc.bandwidth_tbps <= 10  # Inferentia 1: 50 GiB/s of DRAM
    if not acc.tflops:  # only where the data says why
        assert any("left out" in note for note in acc.notes), name
    if acc.tdp_w is not None:
        assert 10 <= acc.tdp_w <= 1500


#: NVIDIA entries whose tensor figures the data leaves out (consumer cards, unretrieved sheets).
TENSOR_LEFT_OUT = {
    n
    for n in ALL_NAMES
    if REQUIRED[n][3] == "nvidia"
    and n.startswith(
        (
            "RTX-2",
            "RTX-3",
            "RTX-4",
            "RTX-5",
            "RTX-6000-",
            "RTX-PRO-2",
            "RTX-PRO-4",
            "RTX-PRO-5",
            "RTX-PRO-6000-",
            "QUADRO-",
            "P40",
            "RTX-A2000",
            "RTX-A5500",
            "TITAN-",
            "JETSON-",
        )
    )
}
NVIDIA_TENSOR = [
    n
    for n in ALL_NAMES
    if REQUIRED[n][3] == "nvidia"
    and n not in {"K80", "M60", "P4", "P100", "M40", "H20-141GB", "B100"} | TENSOR_LEFT_OUT
    # rates removed in catalog 2026.11.6: they were a sibling's (A10, T4, H100), no page gives them
    and n not in {"A10G", "T4G", "H800"}
    # the pages read print no FP16 or FP32 rate for these (P100: Pascal; GB10: FP4 only)
    and n not in {"P100-SXM2", "P100-12GB", "GB10"}
    # no tensor cores, and packed FP16 at 1:64 (Pascal GeForce) or none (Maxwell): left out
    and n not in {"GTX-1080-TI", "GTX-1070", "M40-24GB"}
    # catalog 2026.11.11: GeForce GTX (no tensor cores), Kepler, Pascal Quadro, small RTX A-series
    and not n.startswith(("GTX-", "K40", "RTX-A1000", "RTX-A400"))
    # no tensor cores: Maxwell and Kepler boards, Turing TU117 (T1000, T600)
    and n not in {"M10", "GRID-K520", "T1000", "T1000-8GB", "T600"}
    # catalog 2026.11.15: TITAN V (no dense tensor rate printed), Pascal and Maxwell Quadros
    and n != "TITAN-V"
    and not n.startswith(("QUADRO-P", "QUADRO-M", "QUADRO-K"))
    # catalog 2026.11.16: Kepler, Fermi, Maxwell and Pascal (GP104) Tesla boards, no tensor cores
    and n not in {"K20", "K20X", "K10", "M2090", "M6", "P6"}
    # catalog 2026.11.29 (29a): Fermi Tesla boards, no tensor cores
    and n not in {"C2050", "C2070", "C2075", "M2050", "M2070"}
]


@pytest.mark.parametrize("name", sorted(TENSOR_LEFT_OUT))
def test_left_out_tensor_figures_are_explained(name):
    acc = by_name()[name]
    assert "fp16" not in acc.tflops
    assert any("left out" in note for note in acc.notes)


@pytest.mark.parametrize("name", NVIDIA_TENSOR)
def test_nvidia_tensor_figures_do_not_look_sparse(name):
    t = by_name()[name].tflops
    fp16 = t["fp16"]
    assert fp16 > t["fp32"], "tensor FP16 must beat non-tensor FP32"
    if "bf16" in t:
        assert t["bf16"] == fp16
    # 3% slack: NVIDIA's L40S sheet lists 362.05 dense BF16 next to 733 dense FP8.
    if "fp8" in t:
        assert t["fp8"] <= 2 * fp16 * 1.03
    if "tf32" in t:
        assert math.isclose(t["tf32"], fp16 / 2, rel_tol=0.05), "TF32 is half of BF16 when dense"
    if "int8" in t:
        assert t["int8"] <= 2 * fp16 * 1.03


def test_h100_sxm_dense_bf16_is_989_not_the_sparse_1979():
    t = by_name()["H100-SXM"].tflops
    assert abs(t["bf16"] - 989) <= 1
    assert abs(t["fp8"] - 1979) <= 1


def test_h100_nvl_is_per_gpu_not_the_pair():
    acc = by_name()["H100-NVL"]
    assert acc.memory_gb == 94
    assert acc.bandwidth_tbps < 5
    assert acc.tflops["bf16"] < 1000


@pytest.mark.parametrize("name", ["K80", "M60", "MI250", "MI250X"])
def test_multi_die_packages_note_the_per_device_half(name):
    notes = " ".join(by_name()[name].notes).lower()
    assert "half" in notes
    assert "gcd" in notes or "two-gpu" in notes


@pytest.mark.parametrize("name", ["MI250", "MI250X", "MI300X", "MI325X", "MI355X"])
def test_amd_notes_say_vector_or_matrix(name):
    acc = by_name()[name]
    text = " ".join(acc.notes) + (acc.figure("tflops.fp32").note or "")
    assert "vector" in text


#: catalog 2026.11.16: every figure added, (memory GB, bandwidth TB/s, power W, FP32 TFLOPS), as
#: the cited row or page prints it (K10: the board, two GPUs; memory variants share one row).
FIGURES_2026_11_16 = {
    "RX-6600-XT": (8, 0.256, 160, 10.605),
    "RX-6650-XT": (8, 0.28, 180, 10.793),
    "RX-6750-XT": (12, 0.432, 250, 13.312),
    "RX-6400": (4, 0.128, 53, 3.565),
    "RX-5500-XT-8GB": (8, 0.224, 130, 5.196),
    "RX-5500-XT-4GB": (4, 0.224, 130, 5.196),
    "RX-5600-XT": (6, 0.288, 160, 7.188),
    "RX-5700": (8, 0.448, 180, 7.949),
    "RX-7600": (8, 0.288, 165, 21.75),
    "RX-7600-XT": (16, 0.288, 190, 22.57),
    "RX-7700-XT": (12, 0.432, 245, 35.17),
    "RX-580-8GB": (8, 0.256, 185, 6.175),
    "RX-580-4GB": (4, 0.256, 185, 6.175),
    "RX-570-8GB": (8, 0.224, 150, 5.095),
    "RX-570-4GB": (4, 0.224, 150, 5.095),
    "RX-VEGA-56": (8, 0.4096, 210, 10.544),
    "RX-VEGA-64": (8, 0.4838, 295, 12.665),
    "W5700": (8, 0.448, 205, 8.663),
    "W6400": (4, 0.128, 50, 3.58),
    "GTX-1650-SUPER": (4, 0.192, 100, 4.416),
    "GTX-1630": (4, 0.096, 75, 1.82784),
    "RTX-3050-6GB": (6, 0.168, 70, 6.774),
    "RTX-3060-8GB": (8, 0.24, 170, 12.74),
    "RTX-2060-12GB": (12, 0.336, 185, 7.18),
    "RTX-3080-12GB": (12, 0.912, 350, 30.6),
    "GTX-780-3GB": (3, 0.2884, 230, 3.9767),
    "GTX-780-6GB": (6, 0.2884, 230, 3.9767),
    "GTX-780-TI": (3, 0.3365, 230, 5.0457),
    "GTX-TITAN": (6, 0.2884, 230, 4.4997),
    "GTX-TITAN-BLACK": (6, 0.3365, 230, 5.1206),
    "RTX-5050": (8, 0.32, 130, 13.17),
    "K20": (5, 0.208, 225, 3.524),
    "K20X": (6, 0.25, 235, 3.935),
    "K10": (8, 0.32, 225, 4.577),
    "M2090": (6, 0.1776, 225, 1.331),
    "M6": (8, 0.1472, 100, 3.229),
    "P6": (16, 0.1922, 90, 6.169),
    "ARC-A580": (8, 0.512, 185, 10.445),
    "ARC-A310": (4, 0.124, 75, 3.072),
    "ARC-PRO-A40": (6, 0.192, 50, 5.02),
    "ARC-PRO-A50": (6, 0.192, 75, 5.02),
    "ARC-PRO-A60": (12, 0.384, 130, 10.04),
    "ARC-B570": (10, 0.38, 150, 11.52),
    "ARC-PRO-B50": (16, 0.224, 70, 10.65),
}


@pytest.mark.parametrize("name", sorted(FIGURES_2026_11_16))
def test_catalog_2026_11_16_figures(name):
    acc = by_name()[name]
    memory, bandwidth, power, fp32 = FIGURES_2026_11_16[name]
    assert (acc.memory_gb, acc.bandwidth_tbps, acc.tdp_w) == (memory, bandwidth, power)
    assert acc.tflops["fp32"] == fp32
    # dense vector rates only: no tensor, matrix or sparse figure was added for these cards
    assert set(acc.tflops) <= {"fp32", "fp64"}, name
    for key, fig in figures(acc):
        assert fig.source, f"{name} {key}"
        assert fig.note, f"{name} {key}"
        assert fig.confidence == "source", f"{name} {key}"


def test_catalog_2026_11_16_k10_is_a_two_gpu_board():
    k10 = by_name()["K10"]
    assert k10.devices_per_board == 2
    assert [f.per_device for _, f in figures(k10) if f.per_device] == [4, 0.16]
    assert any("half the board" in note for note in k10.notes)


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("RX 580 8GB", "RX-580-8GB"),
        ("Radeon RX 570 4GB", "RX-570-4GB"),
        ("RX 5500 XT 4GB", "RX-5500-XT-4GB"),
        ("NVIDIA GeForce GTX 780 Ti", "GTX-780-TI"),
        ("GTX 780 6GB", "GTX-780-6GB"),
        ("RTX 3050 6GB", "RTX-3050-6GB"),
        ("RTX 3050", "RTX-3050"),
        ("RTX 2060 12GB", "RTX-2060-12GB"),
        ("RTX 3060 8GB", "RTX-3060-8GB"),
        ("NVIDIA GeForce RTX 3060", "RTX-3060"),
        ("RTX 3080 12GB", "RTX-3080-12GB"),
        ("NVIDIA GeForce RTX 3080", "RTX-3080"),
        ("Tesla K20Xm", "K20X"),
        ("Tesla K20m", "K20"),
        ("GTX TITAN Black", "GTX-TITAN-BLACK"),
        ("GTX TITAN X", "GTX-TITAN-X"),
        ("Intel(R) Arc(TM) B570 Graphics", "ARC-B570"),
        ("Arc Pro B50", "ARC-PRO-B50"),
    ],
)
def test_catalog_2026_11_16_names_read_as_their_cards(text, model):
    assert resolve_name(text).accelerator.model == model


#: catalog 2026.11.29 (29a): every figure added, (memory GB, bandwidth TB/s, power W, FP32 TFLOPS),
#: as the cited row or page prints it; the tensor rate stored is the V100 FHHL's (Volta: dense).
FIGURES_2026_11_29 = {
    "C2050": (3, 0.144, 247, 1.03),
    "C2070": (6, 0.144, 247, 1.03),
    "C2075": (6, 0.144, 225, 1.03),
    "M2050": (3, 0.1484, 225, 1.03),
    "M2070": (6, 0.1503, 225, 1.03),
    "V100-16GB-FHHL": (16, 0.8294, 250, 13.21),
    "RTX-PRO-4000-SFF": (24, 0.432, 70, 23.96),
    "RTX-PRO-2000": (16, 0.288, 70, 16.97),
    "RTX-PRO-5000-72GB": (72, 1.344, 300, 65),
}


@pytest.mark.parametrize("name", sorted(FIGURES_2026_11_29))
def test_catalog_2026_11_29_figures(name):
    acc = by_name()[name]
    memory, bandwidth, power, fp32 = FIGURES_2026_11_29[name]
    assert (acc.memory_gb, acc.bandwidth_tbps, acc.tdp_w) == (memory, bandwidth, power)
    assert acc.tflops["fp32"] == fp32
    expected = {"fp32", "fp64", "fp16"} if name == "V100-16GB-FHHL" else {"fp32", "fp64"}
    assert set(acc.tflops) <= expected, name
    for key, fig in figures(acc):
        assert fig.source, f"{name} {key}"
        assert fig.note, f"{name} {key}"
        assert fig.confidence == "source", f"{name} {key}"


def test_catalog_2026_11_29_skus_keep_their_models_default():
    # the 72 GB RTX PRO 5000 and the V100 FHHL are SKUs: a bare model name still reads as before
    assert catalog.by_model("RTX-PRO-5000")[0].name == "RTX-PRO-5000"
    assert catalog.by_model("V100-16GB")[0].name == "V100-16GB-SXM2"
    assert [a.name for a in catalog.by_model("RTX-PRO-5000")] == [
        "RTX-PRO-5000",
        "RTX-PRO-5000-72GB",
    ]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Tesla C2050", "C2050"),
        ("Tesla C2075", "C2075"),
        ("Tesla M2070", "M2070"),
        ("Tesla M2090", "M2090"),
        ("Tesla V100-FHHL-16GB", "V100-16GB-FHHL"),
        ("GV100GL [Tesla V100 FHHL 16GB]", "V100-16GB-FHHL"),
        ("Tesla V100-PCIE-16GB", "V100-16GB-PCIE"),
        ("NVIDIA RTX PRO 4000 Blackwell SFF Edition", "RTX-PRO-4000-SFF"),
        ("NVIDIA RTX PRO 4000 Blackwell", "RTX-PRO-4000"),
        ("NVIDIA RTX PRO 2000 Blackwell", "RTX-PRO-2000"),
        ("RTX PRO 5000 72GB", "RTX-PRO-5000-72GB"),
        ("NVIDIA RTX PRO 5000 Blackwell", "RTX-PRO-5000"),
    ],
)
def test_catalog_2026_11_29_names_read_as_their_cards(text, name):
    assert resolve_name(text).accelerator.name == name


#: catalog 2026.11.29 (29b): every figure added, (memory GB, bandwidth TB/s, power W or None,
#: FP32 TFLOPS), as the cited row prints it (laptop GPUs: the upper ends of the printed ranges).
FIGURES_2026_11_29B = {
    "RX-470-8GB": (8, 0.211, 120, 4.94),
    "RX-470-4GB": (4, 0.211, 120, 4.94),
    "RX-590": (8, 0.256, 225, 7.12),
    "RX-6700": (10, 0.32, 175, 11.29),
    "RX-6500-XT-4GB": (4, 0.144, None, 5.765),
    "RX-6500-XT-8GB": (8, 0.144, None, 5.765),
    "W5500": (8, 0.224, 125, 5.224),
    "VEGA-FE": (16, 0.484, 300, 13.107),
    "RX-VEGA-64-LIQUID": (8, 0.4838, 345, 13.738),
    "HD-7970-3GB": (3, 0.264, 250, 3.7888),
    "HD-7970-6GB": (6, 0.264, 250, 3.7888),
    "R9-290X-4GB": (4, 0.32, 250, 5.632),
    "R9-290X-8GB": (8, 0.32, 250, 5.632),
    "R9-390X": (8, 0.384, 275, 5.9136),
    "RTX-4090-LAPTOP": (16, 0.576, 150, 50.1),
    "RTX-4080-LAPTOP": (12, 0.432, 150, 33.8),
    "RTX-4070-LAPTOP": (8, 0.256, 115, 20.0),
    "RTX-4060-LAPTOP": (8, 0.256, 115, 14.5),
    "RTX-4050-LAPTOP": (6, 0.192, 115, 12.1),
    "RTX-3050-TI-LAPTOP": (4, 0.192, None, 8.68),
    "RTX-2050": (4, 0.112, 45, 6.049792),
    "GTX-1060-3GB": (3, 0.192, 120, 3.935),
    "GTX-580": (1.5, 0.192384, 244, 1.5811),
    "GTX-570": (1.25, 0.152, 219, 1.4054),
}


@pytest.mark.parametrize("name", sorted(FIGURES_2026_11_29B))
def test_catalog_2026_11_29b_figures(name):
    acc = by_name()[name]
    memory, bandwidth, power, fp32 = FIGURES_2026_11_29B[name]
    assert (acc.memory_gb, acc.bandwidth_tbps, acc.tdp_w) == (memory, bandwidth, power)
    assert acc.tflops["fp32"] == fp32
    # dense vector rates only: no tensor, matrix or sparse figure was added for these cards
    assert set(acc.tflops) <= {"fp32", "fp64"}, name
    for key, fig in figures(acc):
        assert fig.source == "wikipedia-nvidia-gpus" or fig.source == "wikipedia-amd-gpus"
        assert fig.note, f"{name} {key}"
        # the RTX 2050's row prints no rate: its FP32 is cores x 2 x boost clock
        expected = "derived" if (name, key) == ("RTX-2050", "tflops.fp32") else "source"
        assert fig.confidence == expected, f"{name} {key}"


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("NVIDIA GeForce RTX 4090 Laptop GPU", "RTX-4090-LAPTOP"),
        ("NVIDIA GeForce RTX 4090", "RTX-4090"),
        ("RTX 4060 Laptop", "RTX-4060-LAPTOP"),
        ("NVIDIA GeForce RTX 4060", "RTX-4060"),
        ("NVIDIA GeForce RTX 3050 Ti Laptop GPU", "RTX-3050-TI-LAPTOP"),
        ("NVIDIA GeForce RTX 2050", "RTX-2050"),
        ("NVIDIA GeForce GTX 1060 3GB", "GTX-1060-3GB"),
        ("NVIDIA GeForce GTX 1060 6GB", "GTX-1060"),
        ("GTX 1060", "GTX-1060"),
        ("NVIDIA GeForce GTX 580", "GTX-580"),
        ("AMD Radeon RX 6700", "RX-6700"),
        ("RX 6700 XT", "RX-6700-XT"),
        ("RX 470 4GB", "RX-470-4GB"),
        ("RX 6500 XT 8GB", "RX-6500-XT-8GB"),
        ("Radeon RX 590", "RX-590"),
        ("Radeon Pro W5500", "W5500"),
        ("Radeon Vega Frontier Edition", "VEGA-FE"),
        ("RX Vega 64", "RX-VEGA-64"),
        ("Radeon R9 390X", "R9-390X"),
        ("HD 7970 6GB", "HD-7970-6GB"),
    ],
)
def test_catalog_2026_11_29b_names_read_as_their_cards(text, model):
    assert resolve_name(text).accelerator.model == model


def test_catalog_2026_11_29b_liquid_vega_is_a_sku_of_the_vega_64():
    assert resolve_name("RX Vega 64 Liquid").accelerator.name == "RX-VEGA-64-LIQUID"
    assert resolve_name("RX Vega 64").accelerator.name == "RX-VEGA-64"
    assert [a.name for a in catalog.by_model("RX-VEGA-64")] == ["RX-VEGA-64", "RX-VEGA-64-LIQUID"]


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("RX 470", "RX-470-8GB | RX-470-4GB"),
        ("Radeon RX 6500 XT", "RX-6500-XT-4GB | RX-6500-XT-8GB"),
        ("HD 7970", "HD-7970-3GB | HD-7970-6GB"),
        ("R9 290X", "R9-290X-4GB | R9-290X-8GB"),
    ],
)
def test_catalog_2026_11_29b_open_names_name_both_sizes(text, canonical):
    from accelerators import AcceleratorSpec

    assert str(AcceleratorSpec.parse(text)) == canonical
    with pytest.raises(UnknownAcceleratorError, match="does not say which model"):
        catalog.get(text)


#: catalog 2026.11.30 (30a): (memory GB, bandwidth TB/s, power W, {dtype: dense rate}, source),
#: as the vendor's own documentation prints them (the n300: board totals of its two ASICs).
FIGURES_2026_11_30A = {
    "WORMHOLE-N150": (12, 0.288, 160, {"fp16": 74, "fp8": 262}, "tenstorrent-wormhole-specs"),
    "WORMHOLE-N300": (24, 0.576, 300, {"fp16": 131, "fp8": 466}, "tenstorrent-wormhole-specs"),
    "BLACKHOLE-P100A": (28, 0.448, 300, {}, "tenstorrent-blackhole-specs"),
    "BLACKHOLE-P150": (32, 0.512, 300, {}, "tenstorrent-blackhole-specs"),
    "RNGD": (48, 1.5, 150, {"bf16": 256, "fp8": 512, "int8": 512}, "furiosa-rngd-spec"),
    "WARBOY": (16, 0.066, 60, {"int8": 64}, "furiosa-warboy-spec"),
}


@pytest.mark.parametrize("name", sorted(FIGURES_2026_11_30A))
def test_catalog_2026_11_30a_figures(name):
    acc = by_name()[name]
    memory, bandwidth, power, rates, source = FIGURES_2026_11_30A[name]
    assert (acc.memory_gb, acc.bandwidth_tbps, acc.tdp_w) == (memory, bandwidth, power)
    assert dict(acc.tflops) == rates
    assert acc.device_class == "npu"
    for key, fig in figures(acc):
        assert fig.source == source, f"{name} {key}"
        assert fig.confidence == "source", f"{name} {key}"
        assert fig.sparse is None, f"{name} {key}"  # neither vendor prints a sparse rate
        assert fig.note, f"{name} {key}"
    assert catalog.sources()[source].kind == "vendor-docs"


def test_catalog_2026_11_30a_n300_is_a_two_asic_board():
    n150, n300 = by_name()["WORMHOLE-N150"], by_name()["WORMHOLE-N300"]
    assert (n150.devices_per_board, n300.devices_per_board) == (1, 2)
    # the scheduler's device is one ASIC: the n300's 24 GB are two 12 GB Wormholes
    assert n300.device_memory_gb == n150.memory_gb == 12
    assert n300.figure("memory_gb").per_device == 12


def test_catalog_2026_11_30a_inference_parts_say_so():
    entries = by_name()
    assert not entries["RNGD"].trains
    assert not entries["WARBOY"].trains
    assert entries["WORMHOLE-N150"].trains  # Tenstorrent's stack trains as well


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Wormhole n150", "WORMHOLE-N150"),
        ("Tenstorrent n150", "WORMHOLE-N150"),
        ("n150d", "WORMHOLE-N150"),
        ("Wormhole n300s", "WORMHOLE-N300"),
        ("Tenstorrent n300", "WORMHOLE-N300"),
        ("Blackhole p100a", "BLACKHOLE-P100A"),
        ("Blackhole p150a", "BLACKHOLE-P150"),
        ("p150b", "BLACKHOLE-P150"),
        ("FuriosaAI RNGD", "RNGD"),
        ("RNGD", "RNGD"),
        ("Furiosa Warboy", "WARBOY"),
        # the vendor words the token reader now places (data/name_words.toml)
        ("Tenstorrent Wormhole n300 card", "WORMHOLE-N300"),
        ("FuriosaAI RNGD card", "RNGD"),
    ],
)
def test_catalog_2026_11_30a_names_read_as_their_cards(text, name):
    assert resolve_name(text).accelerator.name == name


def test_catalog_2026_11_30a_another_vendors_n150_is_refused():
    # Intel's N150 is a CPU: a name that says it is Intel's does not read as the Wormhole card
    with pytest.raises(UnknownAcceleratorError, match="no N150 in the catalog is made by Intel"):
        resolve_name("Intel Processor N150")


def test_catalog_2026_11_30a_vendors_and_resources():
    from accelerators import AcceleratorSpec
    from accelerators.kubernetes._devices import describe, device_resource

    assert describe(catalog.get("RNGD")) == "RNGD is a FuriosaAI NPU"
    assert describe(catalog.get("WORMHOLE-N300")).endswith("is a Tenstorrent Tensix processor")
    assert device_resource("furiosa", "npu") == "furiosa.ai/rngd"
    assert device_resource("tenstorrent", "npu") == "tenstorrent.com/n150"
    assert str(AcceleratorSpec.parse("Tenstorrent:2")) == "tenstorrent:2"
    assert AcceleratorSpec.FuriosaAI.vendor == "furiosa"


def test_same_silicon_same_figures():
    entries = by_name()
    for a, b in [("L4", "L4-VWS"), ("H100-SXM", "H100-MEGA"), ("A100-40GB-SXM", "A100-40GB-PCIE")]:
        assert entries[a].tflops == entries[b].tflops, (a, b)


# -- MIG -----------------------------------------------------------------------------------------
def test_mig_exactly_on_the_mig_capable_gpus():
    assert {acc.name for acc in catalog.all() if acc.mig} == set(MIG_TABLES)


@pytest.mark.parametrize("name", sorted(MIG_TABLES))
def test_mig_profiles_and_max_counts_match_the_reference(name):
    acc = by_name()[name]
    assert {m.profile: m.max_instances for m in acc.mig} == MIG_TABLES[name]


def test_profile_strings_are_not_globally_unique():
    entries = by_name()
    assert entries["A100-80GB-SXM"].mig_profile("1g.10gb").max_instances == 7
    assert entries["A100-40GB-SXM"].mig_profile("1g.10gb").max_instances == 4


@pytest.mark.parametrize("name", sorted(MIG_TABLES))
def test_mig_slices_are_consistent(name):
    acc = by_name()[name]
    total = 4 if name in FOUR_SLICE_MIG else 7
    full = max(acc.mig, key=lambda m: m.memory_gb)
    assert full.compute_slices == total
    assert full.memory_slices == 8
    assert full.max_instances == 1
    assert math.isclose(full.memory_gb, acc.memory_gb, rel_tol=0.1)
    for m in acc.mig:
        assert m.profile.startswith(f"{m.compute_slices}g.{m.memory_gb:g}gb")
        assert m.memory_slices <= 8
        assert m.max_instances * m.memory_slices <= 8, m.profile
        assert m.max_instances * m.compute_slices <= total, m.profile
        assert math.isclose(m.sm_fraction, m.compute_slices / total, abs_tol=1e-5)
        assert abs(m.memory_gb - full.memory_gb * m.memory_slices / 8) <= 1, m.profile


# -- TPU -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "topologies", "largest"),
    [
        ("TPU-V4", TPU_V4, 2048),
        ("TPU-V5E", TPU_2D, 256),
        ("TPU-V5P", TPU_V5P, 6144),
        ("TPU-V6E", TPU_2D, 256),
    ],
)
def test_tpu_topologies(name, topologies, largest):
    acc = by_name()[name]
    assert [t.topology for t in acc.tpu_topologies] == topologies
    for t in acc.tpu_topologies:
        assert t.chips == math.prod(int(p) for p in t.topology.split("x"))
    assert max(t.chips for t in acc.tpu_topologies) == largest
    assert not acc.mig


def test_flytekit_tpu_slices_are_catalog_topologies():
    constants = by_constant()
    assert [t.topology for t in constants["V5E"].tpu_topologies] == TPU_2D
    assert [t.topology for t in constants["V6E"].tpu_topologies] == TPU_2D
    catalog_v5p = [t.topology for t in constants["V5P"].tpu_topologies]
    assert [t for t in catalog_v5p if t in FLYTEKIT_V5P] == FLYTEKIT_V5P


def test_only_tpus_have_topologies():
    assert {a.name for a in catalog.all() if a.tpu_topologies} == {
        n for n, v in REQUIRED.items() if v[4] == "tpu"
    }


# -- a broken data file is rejected with a message naming the problem --------------------------
@pytest.fixture
def broken_catalog(monkeypatch, tmp_path):
    """Install a modified copy of the data file as the catalog's data; restore afterwards.

    Teardown puts the *same* loaded objects back into the loader's cache, so modules that
    hold references to catalog entries (constants, name index) stay consistent.
    """
    original = _store.LOADED.file()

    def install(edit):
        text = edit(DATA_FILE.read_text(encoding="utf-8"))
        path = tmp_path / "catalog.toml"
        path.write_text(text, encoding="utf-8")
        monkeypatch.setattr(_store, "_read_data", lambda: tomllib.loads(path.read_text("utf-8")))
        _store.LOADED.cache_clear()

    yield install

    _store.LOADED.install(original)


def _replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


def test_duplicate_alias_is_rejected(broken_catalog):
    broken_catalog(
        lambda t: _replace_once(t, 'aliases = ["Tesla-T4", ', 'aliases = ["Tesla-T4", "H100-SXM", ')
    )
    with pytest.raises(CatalogDataError, match=r"'H100-SXM' of (T4|H100-SXM) is already used by"):
        catalog.all()


def test_unknown_source_key_is_rejected(broken_catalog):
    broken_catalog(
        lambda t: _replace_once(t, 'source = "hpctech-h100"', 'source = "no-such-source"')
    )
    with pytest.raises(CatalogDataError, match=r"unknown source key 'no-such-source'"):
        catalog.all()


def test_bad_mig_profile_is_rejected(broken_catalog):
    broken_catalog(lambda t: _replace_once(t, 'profile = "1g.5gb"', 'profile = "8g.5gb"'))
    with pytest.raises(CatalogDataError, match=r"8g\.5gb"):
        catalog.all()


def test_two_default_skus_for_a_model_are_rejected(broken_catalog):
    broken_catalog(lambda t: _replace_once(t, "default_for_model = false\n", ""))
    with pytest.raises(CatalogDataError, match=r"needs exactly one default_for_model SKU"):
        catalog.all()


def test_catalog_loads_again_after_the_broken_file_tests():
    assert len(catalog.all()) == len(REQUIRED)
    assert catalog.all()[0] is catalog.get(catalog.all()[0].name)


def test_figures_citing_a_source_without_url_are_unconfirmed():
    """A figure is confirmed only against a source one can open (issue 10)."""
    sources = catalog.sources()
    loose = [
        (acc.name, key)
        for acc in catalog.all()
        for key, fig in figures(acc)
        if sources[fig.source].url is None and fig.confidence != "unconfirmed"
    ]
    assert loose == []


# -- catalog 2026.11.16 (issue 32): the NVIDIA Jetson modules and the figures read for them --
#: name -> (memory GB, bandwidth TB/s, tdp W or None, fp32 TFLOPS or None, source of the memory)
JETSON_FIGURES = {
    "JETSON-T5000": (128, 0.273, None, None, "ridgerun-jetson-thor"),
    "JETSON-AGX-ORIN-64GB": (64, 0.2048, 60, 5.32, "nvidia-jetson-agx-orin-datasheet"),
    "JETSON-AGX-ORIN-32GB": (32, 0.2048, 40, 3.365, "nvidia-jetson-agx-orin-datasheet"),
    "JETSON-AGX-ORIN-INDUSTRIAL": (64, 0.2048, 75, 4.8, "nvidia-jetson-agx-orin-datasheet"),
    "JETSON-ORIN-NX-16GB": (16, 0.102, 25, 1.88, "nvidia-jetson-orin-nx-datasheet"),
    "JETSON-ORIN-NX-8GB": (8, 0.102, 20, 1.56, "nvidia-jetson-orin-nx-datasheet"),
    "JETSON-ORIN-NANO-8GB": (8, 0.068, 15, 1.28, "nvidia-jetson-orin-nano-datasheet"),
    "JETSON-ORIN-NANO-4GB": (4, 0.034, 10, 0.64, "nvidia-jetson-orin-nano-datasheet"),
    "JETSON-AGX-XAVIER-32GB": (32, 0.1365, None, None, "ultralytics-jetson-guide"),
    "JETSON-XAVIER-NX-8GB": (8, 0.0597, None, None, "ultralytics-jetson-guide"),
    "JETSON-XAVIER-NX-16GB": (16, 0.0597, None, None, "seeed-recomputer-j20"),
    "JETSON-NANO-4GB": (4, 0.0256, None, None, "ultralytics-jetson-guide"),
    # catalog 2026.11.41 (issue 32): the older modules; no page read gives a power or GPU rate
    "JETSON-NANO-2GB": (2, 0.0256, None, None, "itsfoss-best-sbc-ai"),
    "JETSON-TX2-8GB": (8, 0.0597, None, None, "nvidia-jetson-tx2-datasheet"),
    "JETSON-TX2-4GB": (4, 0.0512, None, None, "wlxmall-jetson-tx2-4gb"),
    "JETSON-TX2I": (8, 0.0512, None, None, "trentos-tegra-x2"),
    "JETSON-TX2-NX": (4, 0.0512, None, None, "adafruit-jetson-tx2-nx"),
    "JETSON-TX1": (4, 0.0256, None, None, "jetson-tx1-dev-readme"),
    "JETSON-AGX-XAVIER-16GB": (16, 0.137, None, None, "xavier-som-overview"),
    "JETSON-AGX-XAVIER-64GB": (64, 0.1365, None, None, "jetson-stats-module-names"),
    "JETSON-AGX-XAVIER-INDUSTRIAL": (32, 0.1365, None, None, "nvidia-jetson-agx-xavier-datasheet"),
}

#: bandwidths no readable page printed: stored as recalled, marked unconfirmed
JETSON_UNCONFIRMED_BANDWIDTH = {
    "JETSON-TX2I",
    "JETSON-AGX-XAVIER-64GB",
    "JETSON-AGX-XAVIER-INDUSTRIAL",
}


@pytest.mark.parametrize("name", sorted(JETSON_FIGURES))
def test_jetson_module_figures(name):
    acc = by_name()[name]
    memory, bandwidth, tdp, fp32, source = JETSON_FIGURES[name]
    assert (acc.memory_gb, acc.bandwidth_tbps, acc.tdp_w) == (memory, bandwidth, tdp)
    assert acc.tflops.get("fp32") == fp32
    # no sparse-only tensor rate is stored: only the CUDA-core FP32 where the sheet prints it
    assert set(acc.tflops) <= {"fp32"}
    assert acc.figure("memory_gb").source == source
    assert "unified" in acc.memory_type
    assert "unified" in acc.figure("memory_gb").note
    assert acc.family.startswith("Jetson")
    assert acc.device_class == "gpu"
    assert acc.per_machine == 1
    assert acc.figure("memory_gb").confidence == "source"
    expected = "unconfirmed" if name in JETSON_UNCONFIRMED_BANDWIDTH else "source"
    assert acc.figure("bandwidth_tbps").confidence == expected


@pytest.mark.parametrize("name", [n for n in JETSON_FIGURES if "-ORIN-N" in n])
def test_jetson_super_mode_is_a_note_not_the_figures(name):
    # NVIDIA's data sheets give MAXN_SUPER as a power mode of the same module: the default
    # column is stored, the MAXN_SUPER one is in a note
    acc = by_name()[name]
    assert any("MAXN_SUPER" in note for note in acc.notes)
    assert "MAXN_SUPER" in acc.figure("tdp_w").note


#: catalog 2026.11.30 (30b): Apple silicon, (unified memory GB, bandwidth TB/s, memory source,
#: bandwidth source) as the cited pages print them: one SKU per chip and memory size.
APPLE_FIGURES = {
    "M1-8GB": (8, 0.0682, "techterms-m1", "llamacpp-metal-pr1642"),
    "M1-16GB": (16, 0.0682, "techterms-m1", "llamacpp-metal-pr1642"),
    "M1-PRO-16GB": (16, 0.2, "stuffindia-m1-pro", "mybroadband-m1-pro-max"),
    "M1-PRO-32GB": (32, 0.2, "stuffindia-m1-pro", "mybroadband-m1-pro-max"),
    "M1-MAX-32GB": (32, 0.4, "apple-fandom-m1-max", "mybroadband-m1-pro-max"),
    "M1-MAX-64GB": (64, 0.4, "apple-fandom-m1-max", "mybroadband-m1-pro-max"),
    "M1-ULTRA-64GB": (64, 0.8, "clearence-mac-studio-m1-ultra", "thetechportal-m1-ultra"),
    "M1-ULTRA-128GB": (128, 0.8, "thetechportal-m1-ultra", "thetechportal-m1-ultra"),
    "M2-8GB": (8, 0.1, "newatlas-mac-mini-2023", "newatlas-mac-mini-2023"),
    "M2-16GB": (16, 0.1, "newatlas-mac-mini-2023", "newatlas-mac-mini-2023"),
    "M2-24GB": (24, 0.1, "newatlas-mac-mini-2023", "newatlas-mac-mini-2023"),
    "M2-PRO-16GB": (16, 0.2, "newatlas-mac-mini-2023", "pocketnow-mac-mini-2023"),
    "M2-PRO-32GB": (32, 0.2, "newatlas-mac-mini-2023", "pocketnow-mac-mini-2023"),
    "M2-MAX-32GB": (32, 0.4, "imore-mac-studio-2023", "imore-mac-studio-2023"),
    "M2-MAX-64GB": (64, 0.4, "imore-mac-studio-2023", "imore-mac-studio-2023"),
    "M2-MAX-96GB": (96, 0.4, "imore-mac-studio-2023", "imore-mac-studio-2023"),
    "M2-ULTRA-64GB": (64, 0.8, "imore-mac-studio-2023", "imore-mac-studio-2023"),
    "M2-ULTRA-128GB": (128, 0.8, "imore-mac-studio-2023", "imore-mac-studio-2023"),
    "M2-ULTRA-192GB": (192, 0.8, "imore-mac-studio-2023", "imore-mac-studio-2023"),
    "M3-8GB": (8, 0.1, "netm-m3-macbook-pro", "ac-serverhub-m3"),
    "M3-16GB": (16, 0.1, "netm-m3-macbook-pro", "ac-serverhub-m3"),
    "M3-24GB": (24, 0.1, "netm-m3-macbook-pro", "ac-serverhub-m3"),
    "M3-PRO-18GB": (18, 0.15, "storadera-m3-pro", "macrumors-m3-pro-bandwidth"),
    "M3-PRO-36GB": (36, 0.15, "storadera-m3-pro", "macrumors-m3-pro-bandwidth"),
    "M4-16GB": (16, 0.12, "pcpro-m4-series", "pcpro-m4-series"),
    "M4-24GB": (24, 0.12, "01net-mac-mini-m4", "pcpro-m4-series"),
    "M4-32GB": (32, 0.12, "pcpro-m4-series", "pcpro-m4-series"),
    "M4-PRO-24GB": (24, 0.273, "gadgetdb-mac-mini-m4-pro", "macrumors-m4-pro"),
    # issue 32: the 48 GB M4 Pro, from a page read since
    "M4-PRO-48GB": (48, 0.273, "openhubweb-apple-m-chips", "macrumors-m4-pro"),
    "M4-PRO-64GB": (64, 0.273, "macrumors-m4-pro", "macrumors-m4-pro"),
}


@pytest.mark.parametrize("name", sorted(APPLE_FIGURES))
def test_catalog_2026_11_30b_apple_figures(name):
    acc = by_name()[name]
    memory, bandwidth, memory_source, bandwidth_source = APPLE_FIGURES[name]
    assert (acc.memory_gb, acc.bandwidth_tbps) == (memory, bandwidth)
    assert acc.figure("memory_gb").source == memory_source
    assert acc.figure("bandwidth_tbps").source == bandwidth_source
    # no rate and no power without a page that prints it per configuration
    assert acc.tflops == {}
    assert acc.tdp_w is None
    assert any("left out" in note for note in acc.notes)
    # the memory the CPU and GPU share, said where it is stored
    assert "unified" in acc.memory_type
    assert "unified" in acc.figure("memory_gb").note
    assert (acc.vendor, acc.device_class, acc.family) == ("apple", "gpu", "Apple " + acc.chip)
    # one model per memory size; the chip's SKUs share one bandwidth figure
    assert acc.model == acc.name
    assert acc.name.endswith(f"-{memory:g}GB")
    siblings = [a for a in catalog.all() if a.vendor == "apple" and a.chip == acc.chip]
    assert {a.bandwidth_tbps for a in siblings} == {bandwidth}


def _open_members(text: str) -> list[str]:
    from accelerators import AcceleratorSpec

    return str(AcceleratorSpec.parse(text)).split(" | ")


#: issue 32's sources (the test rows stay on one line each)
_OPENHUB, _MACWORLD, _MACRUMORS_M3, _NOTEBOOKCHECK = (
    "openhubweb-apple-m-chips",
    "macworld-mac-studio-2025",
    "macrumors-m3-pro-bandwidth",
    "notebookcheck-m4-max",
)
_ARS_M5, _MACRUMORS_M5, _HF, _ZINC = (
    "ars-m5-macbook-pro",
    "macrumors-m5-pro-max",
    "huggingface-js-hardware",
    "zinc-apple-silicon-reference",
)

#: issue 32: the Apple chips names in the wild use that catalog 2026.11.30 lacked, (unified memory
#: GB, bandwidth TB/s, memory source, bandwidth source, bandwidth confidence). A Max chip is sold
#: in two versions whose memory widths differ, so its sizes do not all share one bandwidth.
APPLE_FIGURES_ISSUE_32 = {
    "M3-MAX-36GB": (36, 0.3, _OPENHUB, _MACRUMORS_M3, "source"),
    "M3-MAX-48GB": (48, 0.4, _OPENHUB, _MACRUMORS_M3, "source"),
    "M3-MAX-64GB": (64, 0.4, _OPENHUB, _MACRUMORS_M3, "source"),
    "M3-MAX-96GB": (96, 0.3, _OPENHUB, _MACRUMORS_M3, "source"),
    "M3-MAX-128GB": (128, 0.4, _OPENHUB, _MACRUMORS_M3, "source"),
    "M3-ULTRA-96GB": (96, 0.819, _MACWORLD, _MACWORLD, "source"),
    "M3-ULTRA-256GB": (256, 0.819, _OPENHUB, _MACWORLD, "source"),
    "M3-ULTRA-512GB": (512, 0.819, _MACWORLD, _MACWORLD, "source"),
    "M4-MAX-36GB": (36, 0.41, _MACWORLD, _MACWORLD, "source"),
    "M4-MAX-48GB": (48, 0.546, _OPENHUB, _OPENHUB, "source"),
    "M4-MAX-64GB": (64, 0.546, _OPENHUB, _OPENHUB, "source"),
    "M4-MAX-128GB": (128, 0.546, _NOTEBOOKCHECK, _OPENHUB, "source"),
    "M5-16GB": (16, 0.153, _ARS_M5, _ARS_M5, "source"),
    "M5-24GB": (24, 0.153, _ARS_M5, _ARS_M5, "source"),
    "M5-32GB": (32, 0.153, _ARS_M5, _ARS_M5, "source"),
    "M5-PRO-24GB": (24, 0.307, _HF, _MACRUMORS_M5, "source"),
    "M5-PRO-48GB": (48, 0.307, _HF, _MACRUMORS_M5, "source"),
    "M5-PRO-64GB": (64, 0.307, _MACRUMORS_M5, _MACRUMORS_M5, "source"),
    # no page read ties an M5 Max size below 128 GB to its 32- or 40-core GPU version
    "M5-MAX-36GB": (36, 0.46, _HF, _ZINC, "unconfirmed"),
    "M5-MAX-48GB": (48, 0.614, _HF, _MACRUMORS_M5, "unconfirmed"),
    "M5-MAX-64GB": (64, 0.614, _HF, _MACRUMORS_M5, "unconfirmed"),
    "M5-MAX-128GB": (128, 0.614, _MACRUMORS_M5, _MACRUMORS_M5, "source"),
}


@pytest.mark.parametrize("name", sorted(APPLE_FIGURES_ISSUE_32))
def test_issue_32_apple_figures(name: str) -> None:
    acc = by_name()[name]
    memory, bandwidth, memory_source, bandwidth_source, confidence = APPLE_FIGURES_ISSUE_32[name]
    memory_figure, bandwidth_figure = acc.figure("memory_gb"), acc.figure("bandwidth_tbps")
    assert memory_figure is not None
    assert bandwidth_figure is not None
    assert acc.chip is not None
    assert (acc.memory_gb, acc.bandwidth_tbps) == (memory, bandwidth)
    assert (memory_figure.source, memory_figure.confidence) == (memory_source, "source")
    assert (bandwidth_figure.source, bandwidth_figure.confidence) == (bandwidth_source, confidence)
    # no rate and no power: no page read prints one per configuration
    assert acc.tflops == {}
    assert acc.tdp_w is None
    assert any("left out" in note for note in acc.notes)
    assert "unified" in acc.memory_type
    assert "unified" in (memory_figure.note or "")
    assert (acc.vendor, acc.device_class, acc.family) == ("apple", "gpu", "Apple " + acc.chip)
    assert acc.model == acc.name
    assert acc.name.endswith(f"-{memory:g}GB")
    assert acc.per_machine == 1
    assert set(acc.aliases) == {f"Apple {acc.chip} {memory:g}GB", f"{acc.chip} {memory:g}GB"}


def test_issue_32_a_max_chips_bandwidth_follows_its_version() -> None:
    # the narrower version's sizes (36 and 96 GB on the M3 Max) have the lower bandwidth
    rates: dict[str, dict[float, set[float]]] = {}
    for name, (memory, bandwidth, *_) in APPLE_FIGURES_ISSUE_32.items():
        chip = by_name()[name].chip
        assert chip is not None
        rates.setdefault(chip, {}).setdefault(bandwidth, set()).add(memory)
    assert rates["M3 Max"] == {0.3: {36, 96}, 0.4: {48, 64, 128}}
    assert rates["M3 Ultra"] == {0.819: {96, 256, 512}}
    assert rates["M4 Max"] == {0.41: {36}, 0.546: {48, 64, 128}}
    assert rates["M5 Max"] == {0.46: {36}, 0.614: {48, 64, 128}}
    assert rates["M5 Pro"] == {0.307: {24, 48, 64}}
    assert rates["M5"] == {0.153: {16, 24, 32}}


#: every Apple chip in the catalog, by its bare name: the chip's memory sizes, smallest first
APPLE_CHIPS = {
    chip: sorted(
        (a.name for a in catalog.all() if a.vendor == "apple" and a.chip == chip),
        key=lambda name: by_name()[name].memory_gb,
    )
    for chip in sorted({a.chip for a in catalog.all() if a.vendor == "apple" and a.chip})
}


@pytest.mark.parametrize("chip", sorted(APPLE_CHIPS))
def test_catalog_2026_11_30b_a_bare_apple_chip_is_the_family(chip):
    # "M2 Max" (and llama.cpp's and MLX's "Apple M2 Max") is every memory size, never one
    members = APPLE_CHIPS[chip]
    assert len(members) >= 2
    for text in (chip, f"Apple {chip}", chip.lower().replace(" ", "-")):
        assert sorted(_open_members(text)) == sorted(members), text
        with pytest.raises(UnknownAcceleratorError, match="does not say which model"):
            catalog.get(text)
    # a stated memory picks one
    for name in members:
        memory = by_name()[name].memory_gb
        assert resolve_name(f"Apple {chip} {memory:g}GB").accelerator.name == name


@pytest.mark.parametrize(
    "text",
    [
        "M4 Pro 36GB",
        "M1 32GB",
        "M2 Ultra 96GB",
        "M3 Max 32GB",
        "M3 Ultra 128GB",
        "M4 Max 96GB",
        # Hugging Face's table lists a 36 GB M5 Pro, on no other page read
        "M5 Pro 36GB",
        "M5 Max 96GB",
        # chips the catalog does not carry (the M5 Ultra, the M6: not in issue 32's brief)
        "M5 Ultra",
        "Apple M6",
    ],
)
def test_catalog_2026_11_30b_apple_chips_and_sizes_not_carried_are_refused(text):
    # no page read gave these chips' sizes (or the size is not one the chip is sold with)
    with pytest.raises(UnknownAcceleratorError):
        resolve_name(text)


@pytest.mark.parametrize(
    ("text", "model"),
    [
        # NVIDIA's M-numbered Teslas keep their meaning beside Apple's chips
        ("M40", "M40"),
        ("Tesla M40", "M40"),
        ("M60", "M60"),
        ("M10", "M10"),
        ("M6", "M6"),
        ("M2090", "M2090"),
        ("M2050", "M2050"),
        ("M2070", "M2070"),
        ("K80", "K80"),
        ("NVIDIA Tesla M60", "M60"),
    ],
)
def test_catalog_2026_11_30b_m_numbered_teslas_keep_their_meaning(text, model):
    assert resolve_name(text).accelerator.model == model


def test_catalog_2026_11_30b_no_nvidia_m4():
    # the Tesla M4 stays out, so a bare "M4" is Apple's chip and an NVIDIA one is refused
    assert sorted(_open_members("M4")) == sorted(APPLE_CHIPS["M4"])
    for text in ("Tesla M4", "NVIDIA M4"):
        with pytest.raises(UnknownAcceleratorError):
            resolve_name(text)


def test_catalog_2026_12_1_trainium3_figures_are_the_neuron_docs_per_chip_figures():
    """Trainium3 (catalog 2026.12.1), as the Neuron documentation's Trainium3 page gives one
    chip: dense rates stored as dense, the 2,517 sparse BF16/FP16/TF32 rate kept apart."""
    from accelerators import AcceleratorSpec

    acc = by_name()["TRAINIUM3"]
    assert (acc.memory_gb, acc.bandwidth_tbps, acc.vendor, acc.device_class) == (
        144,
        4.9,
        "aws",
        "neuron",
    )
    assert dict(acc.tflops) == {"fp32": 183, "tf32": 671, "bf16": 671, "fp16": 671, "fp8": 2517}
    for key, fig in figures(acc):
        assert fig.source == "aws-neuron-trainium3", key
        assert fig.confidence == "source", key
    assert {key: fig.sparse for key, fig in figures(acc) if fig.sparse} == {
        "tflops.tf32": 2517,
        "tflops.bf16": 2517,
        "tflops.fp16": 2517,
    }
    assert catalog.sources()["aws-neuron-trainium3"].kind == "cloud-docs"
    for text in ("Trainium3", "trn3", "AWS Trainium3", "Trainium-3"):
        assert str(AcceleratorSpec.parse(text)) == "TRAINIUM3", text
    # a near-miss is refused with the close match, not read as Trainium2
    with pytest.raises(UnknownAcceleratorError, match="did you mean 'TRAINIUM3'"):
        AcceleratorSpec.parse("Tranium3")
