"""Expected-efficiency bands and CPU peak rules, loaded from ``accelerators/data/bench_bands.toml``.

The numbers are data with sources, never constants in code: a band says which fraction of a
datasheet peak a healthy device reaches (mamf-finder, BabelStream, DCGM references), the
thresholds say how far below it a device warns or fails. Loaded once per process, on first use.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from accelerators.errors import AcceleratorError, CatalogDataError

__all__ = [
    "Band",
    "BandsFile",
    "CpuBf16Rule",
    "CpuPeakRule",
    "Thresholds",
    "ThrottlePolicy",
    "band_for",
    "bands",
    "compute_partition",
    "devices_per_package",
    "full_gpu_sms",
    "matrix_peak",
]

_DATA_PACKAGE = "accelerators.data"
_DATA_FILE = "bench_bands.toml"
_STRICT = ConfigDict(extra="forbid", frozen=True)

Confidence = Literal["source", "derived", "unconfirmed"]
Severity = Literal["info", "warn", "fail"]


class Thresholds(BaseModel):
    """Ratios of measured to expected below which a device warns or fails."""

    model_config = _STRICT

    fail_below: float = Field(gt=0, le=1)
    fail_source: str
    warn_below: float = Field(gt=0, le=1)
    warn_note: str
    spread_warn_below: float = Field(gt=0, le=1)
    spread_note: str
    clock_warn_fraction: float = Field(gt=0, le=1)
    clock_note: str

    @model_validator(mode="after")
    def _ordered(self) -> Thresholds:
        if self.fail_below > self.warn_below:
            raise ValueError("fail_below must not exceed warn_below")
        return self


class ThrottlePolicy(BaseModel):
    """Severity of each clock-event reason name; unlisted names warn."""

    model_config = _STRICT

    fail: tuple[str, ...]
    warn: tuple[str, ...]
    info: tuple[str, ...]
    note: str
    ecc_errors: Severity = "warn"

    def severity(self, reason: str) -> Severity:
        name = reason.strip().lower()
        if name in self.fail:
            return "fail"
        if name in self.info:
            return "info"
        return "warn"


class Source(BaseModel):
    model_config = _STRICT

    title: str
    url: str | None = None


class Package(BaseModel):
    """How many torch devices one catalog entry's package holds (GCDs, boards)."""

    model_config = _STRICT

    accelerator: str
    devices: int = Field(ge=2)
    source: str


class SmCount(BaseModel):
    """Streaming multiprocessors of one whole GPU (MIG compute peaks scale by SMs over this)."""

    model_config = _STRICT

    accelerator: str
    sms: int = Field(ge=1)
    source: str


class MatrixPeak(BaseModel):
    """A dense matrix-unit peak the GEMM runs at where the catalog's figure is the vector rate.

    cuBLAS DGEMM runs on FP64 tensor cores (A100, H100) and rocBLAS/hipBLASLt on matrix cores
    (MI200, MI300), which are twice the vector FP64 figure the catalog stores as ``fp64``.
    """

    model_config = _STRICT

    accelerator: str
    dtype: str
    tflops: float = Field(gt=0)
    source: str
    confidence: Confidence = "source"


class ComputePartition(BaseModel):
    """Compute units of a whole partitionable AMD GPU (MI300 series: one XCD per CPX device)."""

    model_config = _STRICT

    accelerator: str
    xcds: int = Field(ge=1)
    compute_units: int = Field(ge=1)
    source: str

    @property
    def cus_per_xcd(self) -> int:
        return self.compute_units // self.xcds


class Band(BaseModel):
    """Expected fraction of the datasheet peak for one metric on the devices it matches."""

    model_config = _STRICT

    metric: str
    fraction: float = Field(gt=0, le=1)
    source: str
    confidence: Confidence
    note: str | None = None
    accelerator: str | None = None
    vendor: str | None = None
    device_class: str | None = None

    @property
    def specificity(self) -> tuple[int, int]:
        level = 3 if self.accelerator else 2 if self.vendor else 1 if self.device_class else 0
        return level, 0 if self.metric.endswith(".*") else 1

    def matches_metric(self, metric: str) -> bool:
        if self.metric.endswith(".*"):
            return metric.startswith(self.metric[:-1])
        return metric == self.metric


class CpuPeakRule(BaseModel):
    """FLOPs per cycle per core for CPUs matching vendor, family, model and flags."""

    model_config = _STRICT

    fp64: int = Field(gt=0)
    fp32: int = Field(gt=0)
    source: str
    confidence: Confidence
    note: str
    vendor: str | None = None
    family: tuple[int, ...] = ()
    min_model: int | None = None
    flags: tuple[str, ...] = ()

    def matches(
        self, vendor: str | None, family: int | None, model: int | None, flags: frozenset[str]
    ) -> bool:
        if self.vendor is not None and self.vendor != (vendor or "").lower():
            return False
        if self.family and family not in self.family:
            return False
        if self.min_model is not None and (model is None or model < self.min_model):
            return False
        return all(flag in flags for flag in self.flags)


class CpuBf16Rule(BaseModel):
    """bf16 FLOPs per cycle per core where the CPU has the named ISA flags."""

    model_config = _STRICT

    flags: tuple[str, ...]
    flops_per_cycle: int | None = None
    fp32_multiple: float | None = None
    source: str
    confidence: Confidence
    note: str

    @model_validator(mode="after")
    def _one_rate(self) -> CpuBf16Rule:
        if (self.flops_per_cycle is None) == (self.fp32_multiple is None):
            raise ValueError(
                "a cpu_bf16_peak row needs exactly one of flops_per_cycle, fp32_multiple"
            )
        return self


class ContentionPolicy(BaseModel):
    """When a run is too disturbed to judge the device, and what that verdict is."""

    model_config = _STRICT

    others_busy_above: float = Field(default=0.10, gt=0, le=1)
    """Share of all CPUs' time that other processes used during the run."""
    steal_above: float = Field(default=0.05, gt=0, le=1)
    """Share of CPU time the hypervisor gave to other guests."""
    spread_below: float = Field(default=0.70, gt=0, le=1)
    """Median / best of a judged figure below which its samples are too unstable."""
    severity: Severity = "warn"
    """Of the ``node_busy`` reason that replaces a slow verdict; ``info`` lets it pass."""
    note: str = ""


class SustainedPolicy(BaseModel):
    """When the sustained phase's rate is judged to have dropped below the burst rate."""

    model_config = _STRICT

    drop_below: float = Field(default=0.90, gt=0, le=1)
    """Rate of the last quarter of the sustained run over the burst median."""
    thermal_reasons: tuple[str, ...] = ("thermal", "hw_slowdown", "power_brake", "prochot")
    """Clock-event reason names containing one of these make the drop ``thermal_throttle``."""
    power_cap_reasons: tuple[str, ...] = ("sw_power_cap", "amd_ppt_power")
    """The board holding its power limit: a drop with only these reasons is power capping."""
    power_capped_below: float = Field(default=0.80, gt=0, le=1)
    """A power-capped drop warns below this ratio; above it, an info reason gives the rate."""
    note: str = ""


class BandsFile(BaseModel):
    """The whole data file."""

    model_config = _STRICT

    schema_version: Literal[1]
    thresholds: Thresholds
    throttle: ThrottlePolicy
    contention: ContentionPolicy = ContentionPolicy()
    sustained: SustainedPolicy = SustainedPolicy()
    sources: dict[str, Source]
    package: tuple[Package, ...] = ()
    sm_count: tuple[SmCount, ...] = ()
    matrix_peak: tuple[MatrixPeak, ...] = ()
    compute_partition: tuple[ComputePartition, ...] = ()
    band: tuple[Band, ...]
    cpu_peak: tuple[CpuPeakRule, ...]
    cpu_bf16_peak: tuple[CpuBf16Rule, ...] = ()

    @model_validator(mode="after")
    def _sources_exist(self) -> BandsFile:
        missing = sorted(
            {b.source for b in self.band if b.source not in self.sources}
            | {r.source for r in self.cpu_peak if r.source not in self.sources}
            | {r.source for r in self.cpu_bf16_peak if r.source not in self.sources}
        )
        if self.thresholds.fail_source not in self.sources:
            missing.append(self.thresholds.fail_source)
        if missing:
            raise ValueError(f"unknown source keys {missing}")
        keys = [(b.accelerator, b.vendor, b.device_class, b.metric) for b in self.band]
        duplicates = sorted({str(k) for k in keys if keys.count(k) > 1})
        if duplicates:
            raise ValueError(f"duplicate band rows {duplicates}")
        return self


@functools.cache
def bands() -> BandsFile:
    """The validated data file (read once per process)."""
    text = resources.files(_DATA_PACKAGE).joinpath(_DATA_FILE).read_text(encoding="utf-8")
    try:
        return BandsFile.model_validate(tomllib.loads(text))
    except (tomllib.TOMLDecodeError, ValidationError) as exc:
        raise CatalogDataError(f"benchmark band file {_DATA_FILE} is invalid:\n{exc}") from exc


@functools.cache
def _canonical(name: str) -> str | None:
    """Catalog name of a band's ``accelerator`` key, ``None`` when the catalog lacks it."""
    from accelerators import catalog

    try:
        return catalog.get(name).name
    except AcceleratorError:
        return None


def band_for(
    metric: str,
    *,
    accelerator: str | None,
    vendor: str | None,
    device_class: str | None,
) -> Band | None:
    """The most specific band for ``metric`` (``"gemm.bf16"``, ``"memory.triad"``).

    :param metric: the measured figure.
    :param accelerator: the device's catalog name, if known.
    :param vendor: the device's vendor (``"nvidia"``...), if known.
    :param device_class: ``"gpu"``, ``"cpu"``...
    """
    best: Band | None = None
    for band in bands().band:
        if not band.matches_metric(metric):
            continue
        if band.accelerator is not None and (
            accelerator is None or _canonical(band.accelerator) != accelerator
        ):
            continue
        if band.vendor is not None and band.vendor != (vendor or "").lower():
            continue
        if band.device_class is not None and band.device_class != device_class:
            continue
        generic = band.accelerator is None and band.vendor is None and band.device_class is None
        if generic and device_class == "cpu" and metric.startswith("memory."):
            continue  # no DRAM datasheet figure to compare a CPU with
        if best is None or band.specificity > best.specificity:
            best = band
    return best


def devices_per_package(accelerator: str) -> int:
    """How many torch devices one package of ``accelerator`` shows (2 for MI250X GCDs)."""
    for package in bands().package:
        if _canonical(package.accelerator) == accelerator:
            return package.devices
    return 1


def full_gpu_sms(accelerator: str) -> SmCount | None:
    """SMs of one whole ``accelerator`` GPU from the bands file, ``None`` when not listed."""
    for entry in bands().sm_count:
        if _canonical(entry.accelerator) == accelerator:
            return entry
    return None


def matrix_peak(accelerator: str, dtype: str) -> MatrixPeak | None:
    """The matrix-unit peak of ``dtype`` on one ``accelerator`` package, ``None`` when none."""
    for entry in bands().matrix_peak:
        if entry.dtype == dtype and _canonical(entry.accelerator) == accelerator:
            return entry
    return None


def compute_partition(accelerator: str) -> ComputePartition | None:
    """XCDs and compute units of a whole partitionable ``accelerator``, ``None`` when unlisted."""
    for entry in bands().compute_partition:
        if _canonical(entry.accelerator) == accelerator:
            return entry
    return None
