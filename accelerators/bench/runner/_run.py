"""Orchestration: identity, backend, warm-up, GEMM per dtype, stream, checks, verdict.

One run:

1. parse ``expect`` and read the host through :func:`accelerators.current`;
2. compare the two (wrong SKU, MIG slice, count) - no accelerator when one was expected ends
   the run there;
3. pick a torch backend (CUDA/ROCm, XPU, else the CPU);
4. GPUs: warm up with continuous GEMMs, then launch a burst and start reading clocks, power,
   temperature and throttle reasons through :func:`accelerators.current` in a background
   thread until the last GEMM (:mod:`~accelerators.bench.device._telemetry`);
5. per dtype, search the fastest GEMM shape on every device (side by side on GPUs, one
   dtype at a time because TF32 is a process-wide switch) and check the winner's output;
6. stream kernels on every device, each checked against its analytic value;
7. compare with datasheet peaks and expected bands, and gate on the slowest device.

:mod:`~accelerators.bench.runner._session` plans the phases and their deadlines and runs them.
Each phase is its own module: :mod:`~accelerators.bench.runner._select` (the spec and the
backend), :mod:`~accelerators.bench.runner._warmup`,
:mod:`~accelerators.bench.runner._gemm_phase`, :mod:`~accelerators.bench.runner._stream_phase`
and :mod:`~accelerators.bench.judge._judge` (checks and verdict), over the shared
:mod:`~accelerators.bench.device._context`; this module orders them.

A failure inside one device's phase (a CUDA error, out of memory) becomes a ``bench_error``
reason for that device; the run goes on with the others.
"""

from __future__ import annotations

import functools
import os
import platform
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from accelerators._text import safe_name
from accelerators.bench.device._contention import busy_since, conditions, snapshot
from accelerators.bench.device._context import (
    DeviceSelection,
    ProgressCallback,
)
from accelerators.bench.device._gpu_processes import Occupancy, gpu_occupancy
from accelerators.bench.expect._bands import bands
from accelerators.bench.expect._cpu_peak import cpu_peak_clock
from accelerators.bench.history._record import HistoryStep, open_history
from accelerators.bench.history._store import HistoryStore
from accelerators.bench.judge._judge import history_sku, judge_busy, summary, versions_of
from accelerators.bench.judge._judge import slowest as slowest_of
from accelerators.bench.judge._reconcile import reconcile_reasons
from accelerators.bench.judge._verdict import identity_reasons, spread_reasons, verdict_of
from accelerators.bench.measure._backend import Backend
from accelerators.bench.measure._profiles import Profile, get_profile
from accelerators.bench.report._models import BenchReport, DeviceReport, ReasonCode, Severity
from accelerators.bench.runner._select import parse_expect, sample_current, select_backend
from accelerators.bench.runner._session import Session
from accelerators.bench.runner._thread_phase import history_priors

if TYPE_CHECKING:
    from accelerators.detect import Detected
    from accelerators.spec import SpecLike

__all__ = ["DeviceSelection", "ProgressCallback", "run"]


def run(
    expect: SpecLike | None = None,
    profile: str | Profile = "quick",
    *,
    devices: DeviceSelection = None,
    backend: Backend | None = None,
    detected: Detected | None = None,
    sample: Callable[[], Detected] | None = None,
    progress: ProgressCallback | None = None,
    refresh_threads: bool = False,
    baseline: str | os.PathLike[str] | HistoryStore | None = None,
    processes: Callable[[], dict[str, Occupancy] | str] | None = None,
    history: str | os.PathLike[str] | HistoryStore | bool | None = False,
) -> BenchReport:
    """Benchmark every visible device and judge it; never raises for a failing device.

    :param expect: anything :meth:`AcceleratorSpec.coerce` accepts (``"H100:8"``,
        ``accelerators.A100.partition_1g_5gb``, a fallback list), or ``None`` to accept
        whatever is there.
    :param profile: ``"quick"`` (the gate), ``"standard"``, ``"full"`` or a
        :class:`~accelerators.bench.Profile`.
    :param devices: device indices to benchmark, ``"cpu"`` for the host CPU, ``None`` for all.
    :param backend: a backend to use instead of torch (tests pass a fake one).
    :param detected: what :func:`accelerators.current` would return (tests pass a fake one).
    :param sample: reads telemetry while a GEMM burst runs; ``current(refresh=True)`` by
        default when ``detected`` was not given.
    :param progress: called with ``(fraction done, phase)`` while the run goes on.
    :param refresh_threads: CPU: decide the thread counts from this run's windows alone,
        starting from no prior (neither this process's earlier choice nor the history's).
    :param baseline: a bench history (a store, a path, a ``postgresql://`` or ``s3://``
        URL): figures whose band or peak is unconfirmed are judged against the fleet median
        of their SKU there.
    :param processes: lists other processes per GPU UUID, or says why it cannot
        (:func:`~accelerators.bench.device._gpu_processes.gpu_occupancy` on a real NVIDIA
        host; tests pass a fake).
    :param history: a store, path, ``postgresql://`` or ``s3://`` URL or ``"default"`` the
        report is appended to (also the baseline unless ``baseline`` is given); ``None``:
        ``ACCELERATORS_BENCH_HISTORY`` (:func:`~accelerators.bench.gate`'s default);
        ``False`` (the default here): none. Its read and append share one deadline.
    :raises AcceleratorError: ``expect`` is not a valid spec, ``devices`` names a device
        that is not visible, or ``history`` is not a path, ``postgresql://`` or ``s3://`` URL.
    :raises ImportError: torch is not installed (the ``[bench]`` extra).
    """
    started = datetime.now(UTC)
    wall = time.perf_counter()
    chosen = get_profile(profile)
    spec = parse_expect(expect)
    store, baseline = open_history(history, baseline)
    step = HistoryStep(store, baseline)
    # Names from the environment, as JSON, HTML and the history may hold them (bytes that
    # are not UTF-8 and control characters escaped, length capped).
    node_name = safe_name(os.environ["NODE_NAME"]) if os.environ.get("NODE_NAME") else None
    host = safe_name(platform.node())
    if detected is None:
        from accelerators.detect import current

        detected = current(refresh=True)
        if sample is None:
            sample = sample_current
        if processes is None and any(d.vendor == "nvidia" for d in detected.devices):
            processes = gpu_occupancy
    reasons, matched = identity_reasons(spec, detected)
    fatal = any(
        r.code is ReasonCode.NO_ACCELERATOR and r.severity is Severity.FAIL for r in reasons
    )
    device_reports: list[DeviceReport] = []
    extras: dict[int, Mapping[str, str]] = {}
    # Before the benchmark opens a CUDA context: our own process is not on the GPU yet.
    occupancy = processes() if processes is not None and not fatal else None
    # The host's load says nothing about a fake backend's planted figures (tests).
    before = snapshot() if backend is None else None
    if not fatal:
        real = backend is None
        if backend is None:
            backend, problem = select_backend(detected, devices)
            if problem is not None:
                reasons.append(problem)
        if backend is not None:
            session = Session(backend, chosen, detected, sample, progress, refresh_threads)
            ctx = session.ctx
            if ctx.is_cpu:
                # The real cores' sustained clock (the fakes' planted figures have none).
                ctx.cpu_clock = cpu_peak_clock(detected.cpu, measure=real)
                if before is not None:
                    ctx.busy = functools.partial(busy_since, before, bands().contention)
            node = node_name or host
            if baseline is not None:
                skus = [history_sku(state) for state in ctx.states]
                ctx.fleet, ctx.own = step.read(node, skus)
            if ctx.is_cpu and not refresh_threads:
                first = ctx.states[0].props
                ctx.thread_priors = history_priors(
                    step.own, first.name, backend.thread_options(first)
                )
            device_reports = session.run()
            extras = {s.props.index: s.identity.extra for s in session.ctx.states}
            reasons += reconcile_reasons(
                spec,
                matched,
                detected,
                [state.props for state in session.ctx.states],
                selected=devices is not None,
            )
    data = bands()
    found = conditions(before, snapshot())
    # Busy host (CPU), another process on the GPU, figures too spread to judge: not the device.
    device_reports = [
        judge_busy(d, found, data.contention, occupancy, extras.get(d.index, {}))
        for d in device_reports
    ]
    for device in device_reports:
        reasons.extend(device.reasons)
    reasons.extend(spread_reasons([[*d.gemm, *d.memory] for d in device_reports], data.thresholds))
    gemm, memory, slowest = slowest_of(device_reports)
    if progress is not None:
        progress(1.0, "done")
    report = BenchReport(
        profile=chosen.name,
        expect=str(spec) if spec is not None else None,
        matched=matched,
        device=summary(detected, device_reports, backend),
        gemm=gemm,
        memory=memory,
        verdict=verdict_of(reasons),
        reasons=tuple(reasons),
        elapsed_s=time.perf_counter() - wall,
        slowest_device=slowest,
        devices=tuple(device_reports),
        started_at=started,
        host=host,
        node=node_name,
        versions=versions_of(backend),
        conditions=found,
        fail_below=data.thresholds.fail_below,
        warn_below=data.thresholds.warn_below,
    )
    return step.record(report)
