"""What the phases of one benchmark run share: the devices' states, the progress, the context."""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from accelerators.bench.expect._bands import Band, band_for
from accelerators.bench.expect._cpu_peak import CpuClock
from accelerators.bench.measure._backend import (
    ELEMENT_BYTES,
    Backend,
    DeviceProps,
    GemmCase,
    GemmSession,
)
from accelerators.bench.measure._backend import Shape as _Shape
from accelerators.bench.measure._profiles import Profile
from accelerators.bench.measure._threads import ThreadChoice
from accelerators.bench.report._config import DeviceConfigRecord, SustainedRecord
from accelerators.bench.report._models import (
    GemmResult,
    MemoryResult,
    Reason,
    ReasonCode,
    Severity,
    ThreadChoiceRecord,
)
from accelerators.errors import AcceleratorError

if TYPE_CHECKING:
    from accelerators.detect import Detected, DeviceInfo

__all__ = [
    "BURST_S",
    "CPU_PROBE",
    "CPU_TRIAL_REPS",
    "GPU_TRIAL_REPS",
    "WARMUP_SHAPES",
    "Context",
    "DeviceSelection",
    "DeviceState",
    "Progress",
    "ProgressCallback",
    "band_of",
    "cut_short_reason",
    "driver_record",
    "gemm_session",
    "identity_of",
    "pool_elements",
    "record",
    "same_uuid",
]

#: Device indices to benchmark, ``"cpu"`` for the host CPU, or ``None`` for every device.
DeviceSelection = Sequence[int] | Literal["cpu"] | None
#: Called with the fraction of the planned time done (0..1) and what runs now.
ProgressCallback = Callable[[float, str], None]

_MIB = 1 << 20
#: Seconds of GEMM calls queued while telemetry is read under load.
BURST_S = 0.3
#: Timed calls per exploratory trial: GPU event timing is precise, CPU calls are long.
GPU_TRIAL_REPS = 20
CPU_TRIAL_REPS = 8
#: Shape of the first CPU product, which sizes the candidates.
CPU_PROBE = _Shape(256, 256, 256)
WARMUP_SHAPES = (_Shape(8192, 8192, 8192), _Shape(4096, 4096, 4096), _Shape(2048, 2048, 2048))


@dataclass
class DeviceState:
    """What one device accumulates during a run."""

    props: DeviceProps
    identity: DeviceInfo
    load: DeviceInfo | None = None
    gemm: list[GemmResult] = field(default_factory=list)
    memory: list[MemoryResult] = field(default_factory=list)
    threads: list[ThreadChoiceRecord] = field(default_factory=list)
    reasons: list[Reason] = field(default_factory=list)
    sessions: dict[str, GemmSession] = field(default_factory=dict)
    burst: GemmCase | None = None
    burst_call_s: float = 0.0
    samples: list[DeviceInfo] = field(default_factory=list)
    """Telemetry read through the GEMM phase, in order."""
    config: DeviceConfigRecord | None = None
    """Power limit, clocks and links (:mod:`accelerators.bench.device._config`)."""
    sustained: SustainedRecord | None = None
    """The sustained phase (:mod:`accelerators.bench.runner._sustained`)."""


class Progress:
    """Turns per-phase fractions into one monotonic fraction of the planned time."""

    def __init__(self, callback: ProgressCallback | None, phases: Sequence[tuple[str, float]]):
        self.callback = callback
        self.total = sum(span for _, span in phases) or 1.0
        self.offsets: dict[str, tuple[float, float]] = {}
        offset = 0.0
        for name, span in phases:
            self.offsets[name] = (offset, span)
            offset += span
        self.done = 0.0
        self.lock = threading.Lock()

    def update(self, phase: str, fraction: float) -> None:
        if self.callback is None:
            return
        offset, span = self.offsets.get(phase, (self.done * self.total, 0.0))
        value = min(1.0, (offset + span * min(1.0, fraction)) / self.total)
        with self.lock:
            if value < self.done:
                return
            self.done = value
        self.callback(value, phase)


@dataclass
class Context:
    """What every phase of one run reads: the backend, the profile, the devices' states."""

    backend: Backend
    profile: Profile
    detected: Detected
    sample: Callable[[], Detected] | None
    refresh_threads: bool
    states: list[DeviceState]
    is_cpu: bool
    dtypes: tuple[str, ...]
    progress: Progress
    parallel: bool
    fleet: dict[tuple[str, str], tuple[float, int]] = field(default_factory=dict)
    """``(sku, metric) -> (fleet median, devices)`` from a history, for unconfirmed bands."""
    own: dict[tuple[int, str], tuple[float, int]] = field(default_factory=dict)
    """``(device index, metric) -> (median, runs)`` of this node's earlier runs in a history."""
    rerun_left_s: float = 0.0
    """Seconds left for re-measuring figures too spread to judge (:mod:`._rerun`)."""
    rerun_reserve_s: float = 0.0
    """Part of ``rerun_left_s`` the GEMM reruns leave to the stream phase's."""
    busy: Callable[[], bool] = lambda: False
    """Whether other work is visibly slowing the host now (a CPU run): reruns are skipped,
    since the verdict names the contention whatever another window shows."""
    run_deadline: float = math.inf
    """Clock reading by which the run's measurements end (:meth:`phase_end`)."""
    planned_after: dict[str, float] = field(default_factory=dict)
    """Per phase, the planned seconds of the phases after it (they keep that much time)."""
    thread_priors: dict[str, int] = field(default_factory=dict)
    """CPU: ``workload -> threads`` this node's bench history recorded last."""
    cpu_clock: CpuClock | None = None
    """CPU: the clock the peaks are computed from (measured when it could be)."""
    cut_short: list[str] = field(default_factory=list)
    """Phases that reached their hard deadline, in words (reported as ``phase_cut_short``)."""

    @property
    def clock(self) -> Callable[[], float]:
        return self.backend.clock

    def phase_end(self, phase: str, start: float, budget_s: float) -> float:
        """The hard deadline of ``phase``, started at ``start``: its budget, and never later
        than the run's deadline minus what the phases after it are planned to take."""
        return min(start + budget_s, self.run_deadline - self.planned_after.get(phase, 0.0))


def gemm_session(ctx: Context, state: DeviceState, dtype: str) -> GemmSession:
    session = state.sessions.pop(dtype, None)
    if session is None:
        session = ctx.backend.open_gemm(
            state.props, dtype, pool_elements=pool_elements(ctx, state.props, dtype)
        )
    return session


def pool_elements(ctx: Context, props: DeviceProps, dtype: str) -> int:
    elem = ELEMENT_BYTES[dtype]
    budget = ctx.backend.memory_budget_bytes(props)
    if props.kind == "cpu":
        # Rotating sets over twice the LLC; page faults make more costly on VMs.
        want = max(2 * (props.llc_bytes or 32 * _MIB), 64 * _MIB)
        cap = budget // 2 if budget else want
    else:
        want = 2 * 16384 * 16384 * elem  # inputs of the largest candidate
        cap = budget // 3 if budget else want
    return max(_MIB, min(want, cap) // elem)


def band_of(ctx: Context, state: DeviceState, metric: str) -> Band | None:
    if ctx.is_cpu:  # vendor rows describe accelerators, not the vendor's CPUs
        return band_for(metric, accelerator=None, vendor=None, device_class="cpu")
    acc = state.identity.accelerator
    return band_for(
        metric,
        accelerator=acc.name if acc is not None else None,
        vendor=acc.vendor if acc is not None else state.identity.vendor,
        device_class=acc.device_class if acc is not None else "gpu",
    )


def driver_record(detected: Detected, props: DeviceProps) -> DeviceInfo | None:
    """The driver's record of the device ``props`` describes, ``None`` when there is none."""
    accel = [d for d in detected.devices if d.kind != "cpu"]
    reported = {same_uuid(d.extra.get("uuid")): d for d in accel if d.extra.get("uuid")}
    if props.uuid is not None and reported:
        # Both sides name their devices: match by UUID, never by position (the driver's
        # order and torch's differ under CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER).
        key = same_uuid(props.uuid)
        if key in reported:
            return reported[key]
        # Where a runtime names a MIG slice by its parent GPU's UUID, the one slice of it.
        slices = [d for d in accel if same_uuid(d.extra.get("parent_uuid")) == key]
        return slices[0] if len(slices) == 1 else None
    if props.index < len(accel):  # no UUIDs to go by (ROCm, XPU, fakes): the order
        return accel[props.index]
    return None


def identity_of(detected: Detected, props: DeviceProps) -> DeviceInfo:
    from accelerators.detect import DeviceInfo

    if props.kind == "cpu":
        found = next((d for d in detected.devices if d.kind == "cpu"), None)
        if found is not None:
            return found
        return DeviceInfo(
            index=0,
            kind="cpu",
            vendor=detected.cpu.vendor,
            raw_name=detected.cpu.model_name,
            accelerator=None,
            memory_bytes=props.memory_bytes,
        )
    matched = driver_record(detected, props)
    if matched is not None:
        return matched
    acc = None
    with contextlib.suppress(AcceleratorError):
        from accelerators import catalog

        acc = catalog.get(props.name)
    return DeviceInfo(
        index=props.index,
        kind="gpu",
        vendor=acc.vendor if acc is not None else None,
        raw_name=props.name,
        accelerator=acc,
        memory_bytes=props.memory_bytes,
        multiprocessors=props.compute_units,
    )


def same_uuid(uuid: str | None) -> str:
    """A UUID as NVML (``GPU-``/``MIG-`` prefix) and torch (bare) both write it, compared."""
    text = (uuid or "").strip().lower()
    for prefix in ("gpu-", "mig-"):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


def record(workload: str, choice: ThreadChoice) -> ThreadChoiceRecord:
    return ThreadChoiceRecord(
        workload=workload,
        threads=choice.threads,
        source=choice.source,
        median_s=dict(choice.median_s),
        rates=dict(choice.rates),
        rounds=choice.rounds,
        prior=choice.prior,
        cut=choice.cut,
    )


def cut_short_reason(index: int, metric: str, budget_s: float, what: str) -> Reason:
    """``phase_cut_short``: the phase measuring ``metric`` reached its hard deadline."""
    return Reason(
        code=ReasonCode.PHASE_CUT_SHORT,
        severity=Severity.INFO,
        device_index=index,
        metric=metric,
        value=budget_s,
        unit=None,
        message=f"device {index}: {metric} was cut short at its hard deadline "
        f"({budget_s:.2f} s): {what}; its figures rest on fewer calls than planned",
    )
