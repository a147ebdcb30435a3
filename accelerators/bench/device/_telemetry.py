"""Telemetry through the GEMM phase: clocks, power, temperature and throttle reasons.

NVIDIA devices are read through NVML, AMD devices through AMD SMI (both in
:mod:`accelerators.detect`, which fills the same fields).

A background thread reads :func:`accelerators.current` (``ctx.sample``) every
:data:`SAMPLE_INTERVAL_S` from the warm-up burst to the end of the last GEMM, so a throttle
that comes and goes, or a clock that sags after a few seconds, is seen; one read during a burst
can miss both. Each sample is tied to its benchmarked device by UUID. The samples fold into
one record per device (the median SM clock and its lowest, the highest temperature and power,
every throttle reason seen); a read that fails is reported, not swallowed.
"""

from __future__ import annotations

import dataclasses
import statistics
import threading
from typing import TYPE_CHECKING

from accelerators.bench.device._context import Context, DeviceState, driver_record
from accelerators.bench.report._models import Reason, ReasonCode, Severity

if TYPE_CHECKING:
    from accelerators.detect import DeviceInfo

__all__ = ["SAMPLE_INTERVAL_S", "TelemetrySampler", "fold", "telemetry_problems"]

#: Seconds between telemetry reads (an NVML read costs well under a millisecond).
SAMPLE_INTERVAL_S = 0.25


class TelemetrySampler:
    """Reads ``ctx.sample`` now and then every ``interval`` seconds until :meth:`stop`."""

    def __init__(self, ctx: Context, interval: float | None = None):
        self.ctx = ctx
        self.interval = SAMPLE_INTERVAL_S if interval is None else interval
        self.errors: list[str] = []
        self.reads = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.started = False
        self.last_source = ""
        self._lock = threading.Lock()

    def read(self) -> None:
        sample = self.ctx.sample
        if sample is None:
            return
        try:
            detected = sample()
        except Exception as exc:  # reported below, never raised into the benchmark
            with self._lock:
                self.errors.append(f"{type(exc).__name__}: {exc}")
            return
        with self._lock:
            self.reads += 1
            self.last_source = f"source {detected.source}" + (
                f": {detected.reason}" if detected.reason else ""
            )
            for state in self.ctx.states:
                found = driver_record(detected, state.props)
                if found is not None:
                    state.samples.append(found)

    def start(self) -> None:
        """One read now (a warm-up burst is in flight), then the background thread."""
        if self.ctx.sample is None:
            return
        self.started = True
        self.read()
        self._thread = threading.Thread(target=self._loop, name="bench-telemetry", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.read()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None


def fold(samples: list[DeviceInfo]) -> DeviceInfo | None:
    """One record from a device's samples: the worst of each figure, every reason seen."""
    if not samples:
        return None
    last = samples[-1]
    clocks = dict(last.clocks_mhz)
    sm = [float(s.clocks_mhz["sm"]) for s in samples if s.clocks_mhz.get("sm")]
    if sm:
        # The median is judged against sm_max: between kernels (checks, host work) a clock
        # may dip for one sample without anything being wrong.
        clocks["sm"] = statistics.median(sm)
        clocks["sm_min"] = min(sm)
    reasons: list[str] = []
    for s in samples:
        reasons += [r for r in s.throttle_reasons if r not in reasons]
    temperatures = [s.temperature_c for s in samples if s.temperature_c is not None]
    powers = [s.power_w for s in samples if s.power_w is not None]
    ecc = [s.ecc_errors for s in samples if s.ecc_errors is not None]
    return dataclasses.replace(
        last,
        clocks_mhz=clocks,
        throttle_reasons=tuple(reasons),
        temperature_c=max(temperatures) if temperatures else None,
        power_w=max(powers) if powers else None,
        ecc_errors=max(ecc) if ecc else None,
    )


def telemetry_problems(sampler: TelemetrySampler, state: DeviceState) -> list[Reason]:
    """Info reasons saying why a device's telemetry is missing, empty or partial."""
    index = state.props.index
    if sampler.ctx.sample is None:
        return []
    if not state.samples:
        why = (
            f"every read failed ({sampler.errors[-1]})"
            if sampler.errors
            else f"the driver's records have no such device ({sampler.last_source})"
        )
        return [
            _info(
                index,
                f"device {index}: no telemetry through the GEMM phase: {why}; "
                "clocks and throttle reasons are not judged",
            )
        ]
    reasons = []
    if sampler.errors:
        reasons.append(
            _info(
                index,
                f"device {index}: {len(sampler.errors)} of "
                f"{len(sampler.errors) + sampler.reads} telemetry reads failed "
                f"(last: {sampler.errors[-1]})",
            )
        )
    if not any(s.clocks_mhz or s.temperature_c is not None for s in state.samples):
        said = state.samples[-1].extra.get("telemetry_error")  # AMD SMI's error, if any
        why = f"({said})" if said else "(no NVML or AMD SMI?)"
        reasons.append(
            _info(
                index,
                f"device {index}: the driver reported no clocks or "
                f"temperature {why}: clocks and throttling are not judged",
            )
        )
    return reasons


def _info(index: int, message: str) -> Reason:
    return Reason(
        code=ReasonCode.TELEMETRY_UNAVAILABLE,
        severity=Severity.INFO,
        device_index=index,
        metric="telemetry",
        message=message,
    )
