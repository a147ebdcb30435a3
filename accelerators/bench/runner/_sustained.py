"""Sustained phase: a few seconds of back-to-back GEMMs, compared with the burst rate.

The shape search measures bursts (a fraction of a second per shape, the cache flushed between
calls); a GPU whose cooling or power delivery is failing holds that rate for a second and then
sags. After the search (standard and full profiles, GPUs only), the best shape of the first
measured dtype among bf16, fp16 and fp32 runs back to back for ``profile.sustained_s``, in
windows of about :data:`WINDOW_S`. The rate of the last quarter of the windows over the burst
median is the ``ratio``; below the bands file's ``sustained.drop_below`` it is

* ``thermal_throttle`` (warn) when a thermal or hardware slowdown clock-event reason was seen
  during the phase (telemetry read at its start and end, plus the background samples in
  between);
* ``sustained_drop`` at info when only the board's power cap was seen (``sw_power_cap``, AMD's
  PPT limit) and the ratio stays above ``sustained.power_capped_below``: a dense GEMM at full
  clocks draws more than an H100's or H200's 700 W, so the board lowers its clocks; the rate
  a long job gets is reported. Measured on an H200 (docs/gpu-validation.md): 89 % of the
  burst, SM clock 1980 -> 1455 MHz;
* ``sustained_drop`` (warn) otherwise: a drop with no reason, or one deeper than power
  capping explains, with the SM clocks at the start and the end when known.

None fails: the device computes correctly, only slower than it should under a long job.
"""

from __future__ import annotations

from accelerators.bench.device._context import Context, DeviceState, driver_record, gemm_session
from accelerators.bench.expect._bands import SustainedPolicy, bands
from accelerators.bench.report._config import SustainedRecord
from accelerators.bench.report._models import GemmResult, Reason, ReasonCode, Severity

__all__ = ["WINDOW_S", "measure_sustained"]

#: Seconds of back-to-back calls per timed window.
WINDOW_S = 0.25
#: The dtypes the phase may use, in order of preference (the ones every GPU runs fastest).
_DTYPES = ("bf16", "fp16", "fp32")


def _source(state: DeviceState) -> GemmResult | None:
    for dtype in _DTYPES:
        for result in state.gemm:
            if (
                result.dtype == dtype
                and result.status == "measured"
                and result.correct
                and result.m
                and result.n
                and result.k
                and result.median_tflops
            ):
                return result
    return None


def _telemetry(ctx: Context, state: DeviceState) -> tuple[float | None, tuple[str, ...]]:
    """SM clock and clock-event reasons now, from one synchronous read (``None``, () if none)."""
    if ctx.sample is None:
        return None, ()
    try:
        found = driver_record(ctx.sample(), state.props)
    except Exception:  # the telemetry phase reports unreadable telemetry already
        return None, ()
    if found is None:
        return None, ()
    sm = found.clocks_mhz.get("sm")
    return (float(sm) if sm else None), tuple(found.throttle_reasons)


def measure_sustained(ctx: Context, state: DeviceState) -> None:
    """Run the sustained phase on one GPU; sets ``state.sustained`` and adds its reasons."""
    seconds = ctx.profile.sustained_s
    if ctx.is_cpu or seconds <= 0:
        return
    source = _source(state)
    if source is None:
        return  # no correct measured bf16/fp16/fp32 GEMM: nothing to sustain
    from accelerators.bench.measure._backend import Shape

    shape = Shape(int(source.m or 0), int(source.n or 0), int(source.k or 0))
    burst = float(source.median_tflops or 0.0)
    call_s = shape.flops / (burst * 1e12)
    batch = max(1, int(WINDOW_S / call_s))
    timer = ctx.backend.timer(state.props)
    first_clock, first_reasons = _telemetry(ctx, state)
    seen_before = len(state.samples)
    session = gemm_session(ctx, state, source.dtype)
    rates: list[float] = []
    calls = 0
    start = ctx.clock()
    try:
        case = session.case(shape)
        try:
            with ctx.backend.precision(source.dtype):
                while ctx.clock() - start < seconds or len(rates) < 4:
                    times = timer.time(case.run, iterations=batch)
                    calls += len(times)
                    rates.append(shape.flops * len(times) / max(sum(times), 1e-12) / 1e12)
                    ctx.progress.update("sustained", (ctx.clock() - start) / seconds)
        finally:
            case.close()
    finally:
        session.close()
    elapsed = ctx.clock() - start
    last_clock, last_reasons = _telemetry(ctx, state)
    reasons_seen: list[str] = []
    for sample in [*state.samples[seen_before:]]:
        reasons_seen += [r for r in sample.throttle_reasons if r not in reasons_seen]
    for reason in (*first_reasons, *last_reasons):
        if reason not in reasons_seen:
            reasons_seen.append(reason)
    quarter = max(1, len(rates) // 4)
    last = sum(rates[-quarter:]) / quarter
    policy = bands().sustained
    record = SustainedRecord(
        dtype=source.dtype,
        shape=str(shape),
        seconds=elapsed,
        calls=calls,
        burst_tflops=burst,
        sustained_tflops=sum(rates) / len(rates),
        first_tflops=rates[0],
        last_tflops=last,
        ratio=last / burst,
        threshold=policy.drop_below,
        sm_clock_first_mhz=first_clock,
        sm_clock_last_mhz=last_clock,
        reasons_seen=tuple(reasons_seen),
    )
    state.sustained = record
    if record.ratio >= policy.drop_below:
        return
    state.reasons.append(_drop_reason(record, policy, state.props.index, reasons_seen))


def _drop_reason(
    record: SustainedRecord, policy: SustainedPolicy, index: int, reasons_seen: list[str]
) -> Reason:
    """Why the sustained rate fell below ``policy.drop_below`` of the burst, and how bad."""
    thermal = [r for r in reasons_seen if any(t in r.lower() for t in policy.thermal_reasons)]
    capped = [r for r in reasons_seen if r in policy.power_cap_reasons]
    first, last = record.sm_clock_first_mhz, record.sm_clock_last_mhz
    clocks = f"; SM clock {first:g} -> {last:g} MHz" if first and last else ""
    figures = (
        f"{record.dtype} {record.shape} fell to {record.last_tflops:.1f} TFLOPS over the last "
        f"quarter of {record.seconds:.1f} s of back-to-back calls, {record.ratio:.0%} of the "
        f"burst median {record.burst_tflops:.1f}"
    )
    metric = f"sustained.{record.dtype}"
    if thermal:
        code, severity = ReasonCode.THERMAL_THROTTLE, Severity.WARN
        why = f"dropped with {', '.join(thermal)} reported"
        limit = policy.drop_below
    elif capped and record.ratio >= policy.power_capped_below:
        # A dense GEMM at full clocks draws more than the board's limit (700 W on an H100 or
        # H200 SXM): the board lowers its clocks to hold it. Normal; a long job gets this rate.
        code, severity = ReasonCode.SUSTAINED_DROP, Severity.INFO
        why = f"is held by the board's power limit ({', '.join(capped)}; normal under load)"
        limit = policy.power_capped_below
    else:
        code, severity = ReasonCode.SUSTAINED_DROP, Severity.WARN
        limit = policy.power_capped_below if capped else policy.drop_below
        why = (
            f"dropped further than power capping ({', '.join(capped)}) explains"
            if capped
            else "dropped with no thermal or power reason reported"
        )
    return Reason(
        code=code,
        severity=severity,
        device_index=index,
        metric=metric,
        value=record.ratio,
        threshold=limit,
        unit="ratio",
        message=f"device {index}: sustained rate {why}: {figures} (threshold {limit:.0%}){clocks}",
    )
