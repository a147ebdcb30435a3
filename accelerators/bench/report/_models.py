"""The benchmark report: frozen, versioned pydantic models with units in field names.

>>> from accelerators.bench import BenchReport
>>> BenchReport.model_json_schema()["properties"]["schema_version"]["default"]
2

``BenchReport.model_validate_json(report.model_dump_json()) == report`` holds for every
report; :func:`write_json` writes one atomically (a temporary file in the same directory,
then :func:`os.replace`), so a reader never sees half a file.

Top-level ``gemm`` and ``memory`` hold one entry per dtype and per kernel from the *slowest*
device (the figure the gate judges); ``devices`` holds every device's full results.
"""

from __future__ import annotations

import os
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from accelerators.bench.report._config import DeviceConfigRecord, SustainedRecord
from accelerators.bench.report._files import atomic_write

__all__ = [
    "SCHEMA_VERSION",
    "BenchReport",
    "DeviceReport",
    "DeviceSummary",
    "GemmResult",
    "MemoryResult",
    "Reason",
    "ReasonCode",
    "Severity",
    "ThreadChoiceRecord",
    "Verdict",
    "atomic_write",
    "write_json",
]

#: Version of the report layout. Bump it when a field changes meaning.
#: 2: results carry ``reruns``, ``unjudged`` and ``window_medians`` (re-measured figures);
#: reports of version 1 still read (the new fields take their defaults).
SCHEMA_VERSION = 2

#: NaN and infinities are written as "NaN", "Infinity" in JSON and read back as floats: a
#: NaN output's error must survive the round trip (JSON's null would read as "not checked").
_FROZEN = ConfigDict(extra="forbid", frozen=True, ser_json_inf_nan="strings")


class Verdict(StrEnum):
    """The gate's answer: ``pass`` and ``warn`` let a pipeline go on, ``fail`` stops it."""

    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"


class Severity(StrEnum):
    INFO = "info"
    WARN = "warn"
    FAIL = "fail"


class ReasonCode(StrEnum):
    """Why a verdict is what it is. Stable strings: pipelines may branch on them."""

    NO_ACCELERATOR = "no_accelerator"
    """An accelerator was expected and none is visible."""
    BACKEND_UNAVAILABLE = "backend_unavailable"
    """A GPU is visible but torch cannot use it (CPU-only build, driver mismatch)."""
    NOT_BENCHMARKED = "not_benchmarked"
    """The device class (TPU, Neuron, Gaudi) has no benchmark backend here."""
    WRONG_ACCELERATOR = "wrong_accelerator"
    """The device is not one of the expected SKUs (asked for H100, got A100)."""
    UNIDENTIFIED_DEVICE = "unidentified_device"
    """The device name matches no catalog entry: no datasheet to compare with."""
    MIG_SLICE = "mig_slice"
    """A MIG slice where a whole GPU was expected."""
    WRONG_PARTITION = "wrong_partition"
    """A different MIG profile (or a whole GPU) where a given profile was expected."""
    TOO_FEW_DEVICES = "too_few_devices"
    """Fewer matching devices than the spec's count."""
    EXTRA_DEVICES = "extra_devices"
    """More devices are visible than the spec asked for (informational)."""
    FALLBACK_MATCHED = "fallback_matched"
    """The preferred alternative did not match, a fallback did (informational)."""
    THROTTLED = "throttled"
    """Clock-event reasons (thermal, power brake) are active."""
    CLOCKS_LOW = "clocks_low"
    """The SM clock under load is far below its maximum."""
    ECC_ERRORS = "ecc_errors"
    """Uncorrected ECC errors are reported."""
    MISCOMPARE = "miscompare"
    """A kernel's output differs from its reference: fails whatever the speed."""
    GEMM_SLOW = "gemm_slow"
    """Matmul throughput below the expected band."""
    MEMORY_SLOW = "memory_slow"
    """Memory bandwidth below the expected band."""
    DEVICE_SPREAD = "device_spread"
    """The slowest device is much slower than the fastest of the same host."""
    DTYPE_UNSUPPORTED = "dtype_unsupported"
    """A dtype of the profile is not supported by the device (informational)."""
    NO_PEAK = "no_peak"
    """No datasheet or derived peak to compare with: measured figures only."""
    EMULATED_DTYPE = "emulated_dtype"
    """The CPU has no native instructions for this dtype; the rate is of an emulation."""
    PEAK_UNRELIABLE = "peak_unreliable"
    """A measured rate is above ~105 % of the peak it is compared with: the peak is wrong
    (a nominal clock below the boost clock, a wrong ISA or SKU), so the band says nothing."""
    OTHER_PROCESS = "other_process"
    """Another process runs on the accelerator (NVML), or whether one does is unknown."""
    POWER_LIMIT_LOW = "power_limit_low"
    """The enforced power limit is below the board's default: the GPU cannot reach its rate."""
    CLOCKS_LOCKED = "clocks_locked"
    """Application (or locked) SM clocks are set below their default or maximum."""
    PCIE_DEGRADED = "pcie_degraded"
    """The PCIe link runs below its maximum width or generation (a reseat or riser fault)."""
    NVLINK_DOWN = "nvlink_down"
    """One or more NVLink links of the GPU are down."""
    XGMI_DOWN = "xgmi_down"
    """One or more XGMI links of an AMD GPU are down while others are up."""
    CONFIG_UNAVAILABLE = "config_unavailable"
    """Power limits, clocks or links could not be read (informational, with the reason)."""
    HISTORY_UNAVAILABLE = "history_unavailable"
    """The bench history could not be read (no baseline from it) or written, or did not
    answer within its deadline (informational)."""
    HISTORY_SKIPPED = "history_skipped"
    """Records of the bench history that are malformed or physically impossible were skipped,
    never used; the message names them (informational)."""
    THERMAL_THROTTLE = "thermal_throttle"
    """The sustained phase slowed down with thermal or power clock-event reasons active."""
    SUSTAINED_DROP = "sustained_drop"
    """The sustained GEMM rate fell well below the burst rate (no hardware reason reported)."""
    NODE_BUSY = "node_busy"
    """Other work on the node (CPU hogs, steal, unstable samples) makes the figures
    inconclusive: the device is not judged slow."""
    BENCH_ERROR = "bench_error"
    """A kernel raised an error on the device."""
    UNBENCHMARKED_DEVICES = "unbenchmarked_devices"
    """The driver sees devices that were not benchmarked (named by UUID where known)."""
    TELEMETRY_UNAVAILABLE = "telemetry_unavailable"
    """Clocks, power, temperature or throttle reasons could not be read (the error is named)."""
    PHASE_CUT_SHORT = "phase_cut_short"
    """A phase reached its hard deadline before it had done what it planned (informational:
    what it measured stands, on fewer calls)."""


class Reason(BaseModel):
    """One finding, with the numbers behind it.

    :ivar value: the measured figure, in ``unit``.
    :ivar threshold: the figure it was compared with, in ``unit``.
    :ivar unit: ``tflops``, ``gbps``, ``mhz``, ``count`` or ``ratio``.
    """

    model_config = _FROZEN

    code: ReasonCode
    severity: Severity
    message: str
    device_index: int | None = None
    metric: str | None = None
    value: float | None = None
    threshold: float | None = None
    unit: Literal["tflops", "gbps", "mhz", "count", "ratio"] | None = None


class _JudgedResult(BaseModel):
    """What a GEMM and a stream result share: the output check and where the bar came from."""

    model_config = _FROZEN

    correct: bool | None = None
    tolerance: float | None = None
    peak_source: str | None = None
    peak_confidence: str | None = None
    peak_note: str | None = None
    """How the peak was derived: a MIG slice's or a package's share, a CPU's FLOPs per cycle,
    cores and the clock (measured, or reported with why it is only a floor)."""
    band_fraction: float | None = None
    band_source: str | None = None
    band_confidence: str | None = None
    note: str | None = None
    reruns: int = 0
    """Times the figure was re-measured because its window was too spread to judge."""
    unjudged: str | None = None
    """Why the figure still could not be judged after its reruns (``None``: it could)."""
    window_medians: tuple[float, ...] = ()
    """Median rate (TFLOPS or GB/s) of every window measured, first the search's; the judged
    figure is the window with the highest median (a slow device is slow in all of them)."""


class GemmResult(_JudgedResult):
    """The best matmul rate of one dtype on one device, with the shape that gave it."""

    model_config = _FROZEN

    dtype: str
    device_index: int
    status: Literal["measured", "unsupported", "error"] = "measured"
    m: int | None = None
    n: int | None = None
    k: int | None = None
    tflops: float | None = None
    """Best rate: ``2*m*n*k`` over the fastest call."""
    median_tflops: float | None = None
    samples_s: tuple[float, ...] = ()
    """Every timed call of the winning shape, in seconds."""
    shapes_tried: int = 0
    search_s: float = 0.0
    search_stopped: str | None = None
    """``converged``, ``budget`` (the search's time ran out) or ``deadline`` (the phase's
    hard deadline cut a measurement short)."""
    threads: int | None = None
    all_core_tflops: float | None = None
    """CPU: median rate of the winning shape with a thread on every core."""
    per_core_tflops: float | None = None
    """CPU: median rate of the winning shape on one thread (one core)."""
    judged_on: Literal["all-core", "per-core"] | None = None
    """CPU: what the verdict compared with its peak: the figure at ``threads`` against every
    core's peak, or (the host busy and one thread chosen) against one core's peak."""
    max_error: float | None = None
    """Largest ``|C - C_ref| / sqrt(k)`` over the checked blocks (NaN when one was NaN)."""
    calls_checked: int | None = None
    """Outputs verified by row checksums: every product of the search, not a sample."""
    checksum_failures: int | None = None
    """Outputs whose checksums failed (NaN/Inf, an outlier row, a scale error)."""
    outlier_score: float | None = None
    """Worst row residual over its threshold across the checked calls (> 1 fails)."""
    scale_error: float | None = None
    """Worst ``|alpha - 1|``: the fitted scale of ``C.1`` against ``A.(B.1)``."""
    peak_tflops: float | None = None
    expected_tflops: float | None = None

    @property
    def fraction_of_peak(self) -> float | None:
        if self.tflops is None or not self.peak_tflops:
            return None
        return self.tflops / self.peak_tflops


class MemoryResult(_JudgedResult):
    """The best bandwidth of one stream kernel on one device."""

    model_config = _FROZEN

    kernel: str
    device_index: int
    status: Literal["measured", "error"] = "measured"
    gbps: float | None = None
    """Best rate: bytes (STREAM counting) over the fastest call, in 10^9 B/s."""
    median_gbps: float | None = None
    operation: str | None = None
    bytes_formula: str | None = None
    bytes_per_call: int | None = None
    elements: int | None = None
    dtype: str | None = None
    array_bytes: int | None = None
    samples_s: tuple[float, ...] = ()
    threads: int | None = None
    max_rel_error: float | None = None
    peak_gbps: float | None = None
    expected_gbps: float | None = None

    @property
    def fraction_of_peak(self) -> float | None:
        if self.gbps is None or not self.peak_gbps:
            return None
        return self.gbps / self.peak_gbps


class ThreadChoiceRecord(BaseModel):
    """How many CPU threads a workload used and why."""

    model_config = _FROZEN

    workload: str
    threads: int
    source: Literal["measured", "cached", "history", "fixed"]
    """``measured``: decided by this run's windows; ``cached`` / ``history``: this process's
    or the node's recorded choice, which this run's windows did not overturn."""
    median_s: dict[int, float] = Field(default_factory=dict)
    """Median call time per thread count compared (empty unless measured now)."""
    rates: dict[int, float] = Field(default_factory=dict)
    """Median window rate per thread count, scheduler stalls included (TFLOPS or GB/s)."""
    rounds: int = 0
    """Rounds of interleaved windows timed (each visits every count)."""
    prior: int | None = None
    """The count the run started from (this process's or the history's), if any."""
    cut: bool = False
    """The phase's deadline stopped the windows before their planned rounds."""


class DeviceReport(BaseModel):
    """Everything measured and observed on one device."""

    model_config = _FROZEN

    index: int
    kind: str
    backend: str
    name: str
    accelerator: str | None = None
    vendor: str | None = None
    is_mig: bool = False
    mig_profile: str | None = None
    compute_units: int | None = None
    memory_bytes: int | None = None
    clocks_mhz: dict[str, float] = Field(default_factory=dict)
    """Clocks through the GEMM phase (NVML keys ``sm``, ``sm_max``, ``mem``...): ``sm`` is the
    median SM clock sampled, ``sm_min`` the lowest."""
    throttle_reasons: tuple[str, ...] = ()
    temperature_c: float | None = None
    power_w: float | None = None
    power_limit_w: float | None = None
    ecc_errors: int | None = None
    telemetry_samples: int = 0
    """Telemetry reads through the GEMM phase that the figures above fold together."""
    threads: tuple[ThreadChoiceRecord, ...] = ()
    gemm: tuple[GemmResult, ...] = ()
    memory: tuple[MemoryResult, ...] = ()
    verdict: Verdict = Verdict.PASS
    reasons: tuple[Reason, ...] = ()
    config: DeviceConfigRecord | None = None
    """Power limit, application clocks, PCIe and NVLink state (NVIDIA through NVML)."""
    sustained: SustainedRecord | None = None
    """The sustained phase (standard and full profiles)."""


class DeviceSummary(BaseModel):
    """What was benchmarked, in one line's worth of fields."""

    model_config = _FROZEN

    kind: str
    backend: str | None = None
    name: str
    accelerator: str | None = None
    count: int
    is_mig: bool = False
    mig_profile: str | None = None


class BenchReport(BaseModel):
    """The result of :func:`accelerators.bench.run` and :func:`accelerators.bench.gate`."""

    model_config = _FROZEN

    schema_version: Literal[1, 2] = 2
    profile: str
    expect: str | None = None
    matched: str | None = None
    """The alternative of ``expect`` the devices matched (a fallback, when not the first)."""
    device: DeviceSummary
    gemm: tuple[GemmResult, ...] = ()
    memory: tuple[MemoryResult, ...] = ()
    verdict: Verdict
    reasons: tuple[Reason, ...] = ()
    elapsed_s: float
    slowest_device: int | None = None
    devices: tuple[DeviceReport, ...] = ()
    started_at: datetime
    host: str
    node: str | None = None
    """The Kubernetes node the run measured: ``$NODE_NAME`` (set from the pod's
    ``spec.nodeName`` through the downward API by the Flyte and Airflow gates), or ``None``
    outside Kubernetes. Guarded tasks are pinned to it (``kubernetes.io/hostname``)."""
    versions: dict[str, str] = Field(default_factory=dict)
    conditions: dict[str, float] = Field(default_factory=dict)
    """How busy the node was during the run: ``load_1m``, ``steal`` and ``others_cpu``
    (shares of all CPUs' time), ``cpus``. Empty where ``/proc/stat`` cannot be read."""
    fail_below: float
    """Ratio of measured to expected below which a figure fails."""
    warn_below: float

    @property
    def passed(self) -> bool:
        """True unless the verdict is ``fail``."""
        return self.verdict is not Verdict.FAIL

    def reasons_at_least(self, severity: Severity) -> tuple[Reason, ...]:
        """Reasons of ``severity`` or worse (``warn`` gives warnings and failures)."""
        order = [Severity.INFO, Severity.WARN, Severity.FAIL]
        floor = order.index(severity)
        return tuple(r for r in self.reasons if order.index(r.severity) >= floor)


def write_json(report: BenchReport, path: str | os.PathLike[str]) -> Path:
    """Write ``report`` as indented JSON to ``path`` atomically; returns the path.

    :param report: the report.
    :param path: the destination; its directory must exist.
    """
    return atomic_write(path, (report.model_dump_json(indent=2) + "\n").encode("utf-8"))
