"""The records one catalog entry holds besides its own fields: where a figure comes from
(:class:`Source`), the figure (:class:`Figure`), what the vendor's software runs on the device
(:class:`Workloads`), its MIG profiles and TPU slice topologies, and how other systems name it
(:class:`Names`). The entry itself is :class:`accelerators.catalog._schema.Accelerator`.
"""

# No ``from __future__ import annotations``: pydantic would evaluate every annotation string
# while it defines the classes, ~1 ms of each process that loads the catalog.
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from accelerators._text import MIG_PROFILE_PATTERN, TOPOLOGY_PATTERN

__all__ = ["Figure", "MigProfile", "Names", "Source", "TpuTopology", "Workloads"]

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


_MIG_PROFILE_RE = re.compile(MIG_PROFILE_PATTERN)
_TOPOLOGY_RE = re.compile(TOPOLOGY_PATTERN)
_DATE_RE = re.compile(r"^20\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")

#: Every record: unknown keys refused, frozen, validators built on first validation only.
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
        if not _MIG_PROFILE_RE.fullmatch(value):
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
        if not _TOPOLOGY_RE.fullmatch(value):
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
