"""Typed, validated records of the catalog data file (``accelerators/data/catalog.toml``).

The data file is the single source of facts; these models only describe its shape and
check it. Every figure carries the key of its source and a confidence marker. This module
holds one accelerator's entry; the records it holds (figures with their sources, partitions,
names) are :mod:`accelerators.catalog._records`, and the file as a whole (its name groups, and
the checks across records: names used twice, unknown source keys) is
:mod:`accelerators.catalog._file`.
"""

# No ``from __future__ import annotations``: pydantic would evaluate every annotation string
# while it defines the classes, ~1 ms of each process that loads the catalog.
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from accelerators.catalog._records import (
    _STRICT,
    Figure,
    MigProfile,
    Names,
    Source,
    TpuTopology,
    Workloads,
)

__all__ = [
    "DTYPES",
    "SCHEMA_VERSION",
    "Accelerator",
    "Figure",
    "MigProfile",
    "Names",
    "Source",
    "TpuTopology",
]

#: Version of the data file's layout. Bump it when a field changes meaning.
SCHEMA_VERSION = 1

#: Dense-TFLOPS keys, in display order. ``fp32`` is the non-tensor (vector) rate on NVIDIA.
DTYPES: tuple[str, ...] = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "mxfp8", "fp4", "int8")

Vendor = Literal[
    "nvidia",
    "amd",
    "intel",
    "google",
    "aws",
    "huawei",
    "qualcomm",
    "cambricon",
    "hygon",
    "iluvatar",
    "metax",
    "mthreads",
    "biren",
    "tenstorrent",
    "furiosa",
    "apple",
]
DeviceClass = Literal["gpu", "tpu", "neuron", "hpu", "npu"]
_CONSTANT_RE = re.compile(r"^[A-Z][A-Z0-9_]*$")


class Accelerator(BaseModel):
    """One accelerator SKU with its datasheet figures.

    ``memory_gb``, ``bandwidth_tbps``, ``tdp_w`` and ``tflops`` are plain numbers; the
    :class:`Figure` behind each (source, confidence) is available through :meth:`figure`.
    """

    model_config = _STRICT

    name: str
    """Canonical SKU name, e.g. ``A100-40GB-SXM``."""
    model: str
    """The model the SKU belongs to (same chip and memory, any form factor), e.g. ``A100-40GB``."""
    default_for_model: bool = True
    vendor: Vendor
    family: str
    device_class: DeviceClass
    constant: str | None = None
    aliases: tuple[str, ...] = ()
    architecture: str
    chip: str | None = None
    """The die (``GH100``, ``AD102``): SKUs of one chip share per-clock tensor-rate ratios."""
    compute_capability: str | None = None
    llvm_target: str | None = Field(default=None, pattern=r"^gfx[0-9]{2,3}[0-9a-f]$")
    """An AMD GPU's LLVM AMDGPU processor (``gfx942``), as ROCm's GPU specifications give it:
    the instruction set a build targets, which several boards may share."""
    form_factor: str
    memory_type: str
    interconnect: str
    memory: Figure = Field(alias="memory_gb")
    devices_per_board: int = Field(default=1, ge=1, le=8)
    """Devices the board shows the OS and Kubernetes (2 for K80, M60, MI250/MI250X)."""
    per_machine: int | None = Field(default=None, ge=1, le=8)
    """How many a machine holds where the product itself fixes it: 1 for an Apple chip (a Mac
    has one), a Jetson module (a Jetson device has one), the GB10 (a DGX Spark has one). None:
    the machine's maker or its system says (a GPU server holds 1 to 8 boards). A node's name
    that states no count (``denotes="node"``) counts this many of such a device."""
    bandwidth: Figure = Field(alias="bandwidth_tbps")
    tdp: Figure | None = Field(default=None, alias="tdp_w")
    tflops_figures: dict[str, Figure] = Field(default_factory=dict, alias="tflops")
    mig: tuple[MigProfile, ...] = ()
    tpu_cores_per_chip: int | None = Field(default=None, ge=1, le=8)
    """TPU slice names count TensorCores, this many per chip (``v5p-8`` is 4 chips); None:
    they count chips (``v5litepod-8`` is 8)."""
    tpu_topologies: tuple[TpuTopology, ...] = ()
    names: Names = Field(default_factory=Names)
    workloads: Workloads | None = None
    """None: the device trains and serves (every GPU); set where a vendor says otherwise."""
    k8s_resource: str | None = None
    """The device plugin's extended resource for this board where a vendor's plugins name one
    per card (Tenstorrent's ``tenstorrent.com/n300``); None: the vendor's, from the registry.
    It must be one of the vendor's resources (:mod:`accelerators._vendors`)."""
    flyte2_shared: str | None = None
    """Flyte 2 SDK name of a shared (time-sliced/MPS) slot of this GPU (``"T4 shared"``).
    Not a spelling of the device: it names a slot, which the grammar reads as ``T4@shared``."""
    notes: tuple[str, ...] = ()

    @field_validator("tflops_figures")
    @classmethod
    def _check_dtypes(cls, value: dict[str, Figure]) -> dict[str, Figure]:
        unknown = sorted(set(value) - set(DTYPES))
        if unknown:
            raise ValueError(f"unknown dtype keys {unknown}; expected a subset of {list(DTYPES)}")
        return value

    @field_validator("constant")
    @classmethod
    def _check_constant(cls, value: str | None) -> str | None:
        if value is not None and not _CONSTANT_RE.match(value):
            raise ValueError(f"constant {value!r} is not SHORT_UPPER")
        return value

    @model_validator(mode="after")
    def _check_k8s_resource(self) -> "Accelerator":
        if self.k8s_resource is None:
            return self
        from accelerators._vendors import device_records

        known = {
            name
            for vendor, device in device_records()
            if vendor.name == self.vendor and device.device_class == self.device_class
            for name in (device.resource, *device.other_resources)
        }
        if self.k8s_resource not in known:
            raise ValueError(
                f"{self.name}: k8s_resource {self.k8s_resource!r} is none of the {self.vendor} "
                f"{self.device_class} resources the vendor registry knows ({sorted(known)})"
            )
        return self

    @model_validator(mode="after")
    def _check_partitions(self) -> "Accelerator":
        profiles = [m.profile for m in self.mig]
        if len(set(profiles)) != len(profiles):
            raise ValueError(f"{self.name}: duplicate MIG profiles")
        topologies = [t.topology for t in self.tpu_topologies]
        if len(set(topologies)) != len(topologies):
            raise ValueError(f"{self.name}: duplicate TPU topologies")
        if self.mig and self.tpu_topologies:
            raise ValueError(f"{self.name}: has both MIG profiles and TPU topologies")
        return self

    @model_validator(mode="after")
    def _check_formulas(self) -> "Accelerator":
        problems = [
            f"{self.name} {key}: {problem}"
            for key, figure in self.figures()
            if (problem := self.formula_problem(figure)) is not None
        ]
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @property
    def trains(self) -> bool:
        """Whether the vendor's software trains on it (False for an inference-only part)."""
        return self.workloads is None or "training" in self.workloads.value

    def figures(self) -> list[tuple[str, Figure]]:
        """Every figure with its key (``memory_gb``, ``tflops.bf16``…), in display order."""
        out: list[tuple[str, Figure]] = [("memory_gb", self.memory)]
        out.append(("bandwidth_tbps", self.bandwidth))
        if self.tdp is not None:
            out.append(("tdp_w", self.tdp))
        out += [(f"tflops.{d}", self.tflops_figures[d]) for d in DTYPES if d in self.tflops_figures]
        return out

    def formula_problem(self, figure: Figure) -> str | None:
        """Why ``figure``'s formula does not give its value (None: it does, or it has none)."""
        if figure.formula is None:
            return None
        from accelerators.catalog import _formula

        values: dict[str, float] = {key: f.value for key, f in self.figures()}
        values["devices"] = self.devices_per_board
        if figure.sparse is not None:
            values["sparse"] = figure.sparse
        if figure.per_device is not None:
            values["per_device"] = figure.per_device
        try:
            computed = _formula.evaluate(figure.formula, values)
        except ValueError as exc:
            return str(exc)
        if not _formula.agrees(figure.value, computed):
            return f"value {figure.value:g} but formula {figure.formula!r} gives {computed:g}"
        return None

    # -- plain-number views -------------------------------------------------------------
    @property
    def memory_gb(self) -> float:
        return self.memory.value

    @property
    def device_memory_gb(self) -> float:
        """Memory of one device as the scheduler sees it: the board's, split per device."""
        return self.memory.value / self.devices_per_board

    @property
    def bandwidth_tbps(self) -> float:
        return self.bandwidth.value

    @property
    def tdp_w(self) -> float | None:
        return self.tdp.value if self.tdp is not None else None

    @property
    def tflops(self) -> Mapping[str, float]:
        """Dense peak TFLOPS per dtype, in :data:`DTYPES` order; absent dtypes are unsupported."""
        return MappingProxyType(
            {d: self.tflops_figures[d].value for d in DTYPES if d in self.tflops_figures}
        )

    @property
    def mig_profiles(self) -> tuple[MigProfile, ...]:
        return self.mig

    @property
    def partitions(self) -> tuple[str, ...]:
        """MIG profile names or TPU topologies this accelerator can be split into."""
        return tuple(m.profile for m in self.mig) + tuple(t.topology for t in self.tpu_topologies)

    def mig_profile(self, profile: str) -> MigProfile | None:
        for m in self.mig:
            if m.profile == profile:
                return m
        return None

    def tpu_topology(self, topology: str) -> TpuTopology | None:
        for t in self.tpu_topologies:
            if t.topology == topology:
                return t
        return None

    def figure(self, key: str) -> Figure | None:
        """Figure for ``memory_gb``, ``bandwidth_tbps``, ``tdp_w`` or ``tflops.<dtype>``."""
        if key == "memory_gb":
            return self.memory
        if key == "bandwidth_tbps":
            return self.bandwidth
        if key == "tdp_w":
            return self.tdp
        if key.startswith("tflops."):
            return self.tflops_figures.get(key.removeprefix("tflops."))
        raise KeyError(key)

    # -- identity: one entry per canonical name ----------------------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, Accelerator):
            return self.name == other.name
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("Accelerator", self.name))

    def __repr__(self) -> str:
        return f"<Accelerator {self.name}>"

    def __str__(self) -> str:
        return self.name
