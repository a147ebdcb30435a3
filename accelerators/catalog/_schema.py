"""Typed, validated records of the catalog data file (``accelerators/data/catalog.toml``).

The data file is the single source of facts; these models only describe its shape and
check it. Every figure carries the key of its source and a confidence marker. This module
holds one accelerator's records; the file as a whole (its name groups, and the checks
across records: names used twice, unknown source keys) is :mod:`accelerators.catalog._file`.
"""

# No ``from __future__ import annotations``: pydantic would evaluate every annotation string
# while it defines the classes, ~1 ms of each process that loads the catalog.
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

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
Confidence = Literal["source", "derived", "unconfirmed"]
#: What a source is: the vendor's datasheet or product brief, its product page, a whitepaper
#: or architecture guide, its other documentation, a cloud's documentation of the hardware it
#: rents, the vendor's code (driver tables, diagnostics), a third party, or our measurement.
SourceKind = Literal[
    "vendor-datasheet",
    "vendor-product-page",
    "vendor-whitepaper",
    "vendor-docs",
    "cloud-docs",
    "vendor-code",
    "third-party",
    "measured",
]

_MIG_PROFILE_RE = re.compile(r"^[1-7]g\.\d+gb(?:[+-][a-z.]+)?$")
_TOPOLOGY_RE = re.compile(r"^\d+x\d+(?:x\d+)?$")
_CONSTANT_RE = re.compile(r"^[A-Z][A-Z0-9_]*$")
_DATE_RE = re.compile(r"^20\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")

_STRICT = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)


class Source(BaseModel):
    """Where figures come from: a datasheet, a doc page, a repository at a commit."""

    model_config = _STRICT

    title: str
    """What the page is, as its publisher titles it (with the document number where it has one)."""
    url: str | None = None
    """The address where the figures were read (a mirror's, for a vendor document read there)."""
    kind: SourceKind
    retrieved: str | None = None
    """The day the figures were read on that page, ``YYYY-MM-DD``."""
    note: str | None = None

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("https://", "http://")):
            raise ValueError(f"url {value!r} is not an http(s) address")
        return value

    @field_validator("retrieved")
    @classmethod
    def _check_retrieved(cls, value: str | None) -> str | None:
        if value is not None and not _DATE_RE.match(value):
            raise ValueError(f"retrieved {value!r} is not a date YYYY-MM-DD")
        return value


class Figure(BaseModel):
    """One number with its provenance. Values are dense (never with sparsity).

    ``confidence``: ``source`` (printed on the cited page), ``derived`` (computed by
    ``formula`` from numbers printed there or from the entry's other figures; the note says
    which), ``unconfirmed`` (no page found; the note says what was searched).
    """

    model_config = _STRICT

    value: float = Field(gt=0)
    source: str
    confidence: Confidence = "source"
    note: str | None = None
    formula: str | None = None
    """A derived figure's rule (:mod:`accelerators.catalog._formula`): ``sparse / 2``,
    ``3958 / 2``, ``tflops.fp32 * 4``, ``1536 / 16``."""
    sparse: float | None = Field(default=None, gt=0)
    """The with-sparsity rate the source prints for this dtype, where it prints one."""
    per_device: float | None = Field(default=None, gt=0)
    """On a board of several devices (K80, MI250X): the per-device value the source prints."""

    @model_validator(mode="after")
    def _check_formula(self) -> "Figure":
        if self.formula is not None:
            if self.confidence != "derived":
                raise ValueError(f"formula {self.formula!r} on a figure that is not derived")
            from accelerators.catalog import _formula

            _formula.names(self.formula)  # raises ValueError on a malformed rule
        return self


class Workloads(BaseModel):
    """What the vendor's own software runs on the device, where it says so: ``("inference",)``
    for a part its vendor ships inference software for and training software for none."""

    model_config = _STRICT

    value: tuple[Literal["training", "inference"], ...] = Field(min_length=1)
    source: str
    note: str | None = None


class MigProfile(BaseModel):
    """One MIG profile of one GPU model; profile strings are not globally unique."""

    model_config = _STRICT

    profile: str
    max_instances: int = Field(ge=1, le=7)
    compute_slices: int = Field(ge=1, le=7)
    memory_slices: int = Field(ge=1, le=8)
    memory_gb: float = Field(gt=0)
    sm_fraction: float = Field(gt=0, le=1)
    source: str
    confidence: Confidence = "source"

    @field_validator("profile")
    @classmethod
    def _check_profile(cls, value: str) -> str:
        if not _MIG_PROFILE_RE.match(value):
            raise ValueError(f"MIG profile {value!r} is not of the form '<g>g.<mem>gb[+me]'")
        return value

    @property
    def attribute(self) -> str:
        """Constant attribute name: ``1g.10gb+me`` -> ``partition_1g_10gb_me``.

        ``-me`` (no media engines) reads ``_no_me`` so it never collides with ``+me``.
        """
        stem = re.sub(r"-me$", ".no.me", self.profile)
        return "partition_" + re.sub(r"[^0-9a-z]+", "_", stem).strip("_")


class TpuTopology(BaseModel):
    """One TPU slice topology of one TPU generation."""

    model_config = _STRICT

    topology: str
    chips: int = Field(ge=1)
    source: str
    confidence: Confidence = "source"

    @field_validator("topology")
    @classmethod
    def _check_topology(cls, value: str) -> str:
        if not _TOPOLOGY_RE.match(value):
            raise ValueError(f"TPU topology {value!r} is not of the form 'AxB' or 'AxBxC'")
        return value

    @model_validator(mode="after")
    def _chips_match(self) -> "TpuTopology":
        product = 1
        for part in self.topology.split("x"):
            product *= int(part)
        if product != self.chips:
            raise ValueError(
                f"topology {self.topology} has {product} chips, data says {self.chips}"
            )
        return self

    @property
    def attribute(self) -> str:
        """Constant attribute name: ``2x4`` -> ``slice_2x4``."""
        return "slice_" + self.topology


class Names(BaseModel):
    """How other systems name this accelerator. Empty where a system has no name for it."""

    model_config = _STRICT

    nvml: tuple[str, ...] = ()
    """Names NVML / nvidia-smi / ``torch.cuda.get_device_name`` print."""
    gfd: tuple[str, ...] = ()
    """GPU Feature Discovery ``nvidia.com/gpu.product`` label values."""
    gke: str | None = None
    """GKE ``cloud.google.com/gke-accelerator`` (GPU) or ``gke-tpu-accelerator`` (TPU) value."""
    karpenter: str | None = None
    """Karpenter ``instance-gpu-name`` (GPU) or ``instance-accelerator-name`` (Neuron) value."""
    eks: str | None = None
    """Conventional ``k8s.amazonaws.com/accelerator`` value (Cluster Autoscaler GPU label)."""
    flyte: str | None = None
    """flytekit / flytepropeller device string (``GPUAccelerator.device``)."""
    flyte2: str | None = None
    """Flyte 2 SDK device name (``flyte.GPU("H100")``, ``flyte.Neuron("Trn2")``…)."""
    ray: tuple[str, ...] = ()
    skypilot: tuple[str, ...] = ()
    modal: tuple[str, ...] = ()
    hf: tuple[str, ...] = ()
    """Hugging Face Jobs / Spaces flavors that carry this accelerator."""
    rocm: tuple[str, ...] = ()
    """AMD ``amd.com/gpu.product-name`` label values / rocm-smi product names."""
    intel: str | None = None
    """Intel GPU ``gpu.intel.com/product`` label value (the device plugin's NFD rules)."""
    other: tuple[str, ...] = ()
    """Further spellings seen in the wild (marketing names, EC2 instance families…)."""

    @field_validator("nvml", "gfd", "ray", "skypilot", "modal", "hf", "rocm", "other")
    @classmethod
    def _no_repeats(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        repeated = sorted({name for name in value if value.count(name) > 1})
        if repeated:
            raise ValueError(f"lists {', '.join(map(repr, repeated))} more than once")
        return value


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
    form_factor: str
    memory_type: str
    interconnect: str
    memory: Figure = Field(alias="memory_gb")
    devices_per_board: int = Field(default=1, ge=1, le=8)
    """Devices the board shows the OS and Kubernetes (2 for K80, M60, MI250/MI250X)."""
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
