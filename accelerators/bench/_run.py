"""Orchestration: identity, backend, warm-up, GEMM per dtype, stream, checks, verdict.

One run:

1. parse ``expect`` and read the host through :func:`accelerators.current`;
2. compare the two (wrong SKU, MIG slice, count) - no accelerator when one was expected ends
   the run there;
3. pick a torch backend (CUDA/ROCm, XPU, else the CPU);
4. GPUs: warm up with continuous GEMMs, then launch a burst and read clocks and throttle
   reasons through :func:`accelerators.current` while it runs;
5. per dtype, search the fastest GEMM shape on every device (side by side on GPUs, one
   dtype at a time because TF32 is a process-wide switch) and check the winner's output;
6. stream kernels on every device, each checked against its analytic value;
7. compare with datasheet peaks and expected bands, and gate on the slowest device.

A failure inside one device's phase (a CUDA error, out of memory) becomes a ``bench_error``
reason for that device; the run goes on with the others.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import platform
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

import accelerators
from accelerators.bench._backend import ELEMENT_BYTES, Backend, DeviceProps, GemmCase, GemmSession
from accelerators.bench._backend import Shape as _Shape
from accelerators.bench._bands import Band, ContentionPolicy, band_for, bands
from accelerators.bench._contention import busy_reasons, conditions, snapshot
from accelerators.bench._correctness import gemm_check_passes
from accelerators.bench._gemm import SearchSettings, ShapeSearch
from accelerators.bench._peaks import Peak, cpu_gemm_peak, device_gemm_peak, device_memory_peak
from accelerators.bench._profiles import Profile, get_profile
from accelerators.bench._report import (
    BenchReport,
    DeviceReport,
    DeviceSummary,
    GemmResult,
    MemoryResult,
    Reason,
    ReasonCode,
    Severity,
    ThreadChoiceRecord,
)
from accelerators.bench._stream import KERNELS, run_stream, stream_elements
from accelerators.bench._threads import ThreadChoice, pick_threads
from accelerators.bench._verdict import (
    correctness_reasons,
    identity_reasons,
    performance_reasons,
    spread_reasons,
    telemetry_reasons,
    verdict_of,
)
from accelerators.errors import AcceleratorError

if TYPE_CHECKING:
    from accelerators.detect import Detected, DeviceInfo
    from accelerators.spec import AcceleratorSpec

__all__ = ["DeviceSelection", "ProgressCallback", "run"]

#: Called with the fraction of the planned time done (0..1) and what runs now.
ProgressCallback = Callable[[float, str], None]
#: Device indices to benchmark, ``"cpu"`` for the host CPU, or ``None`` for every device.
DeviceSelection = Sequence[int] | Literal["cpu"] | None

_MIB = 1 << 20
#: Seconds of GEMM calls queued while telemetry is read under load.
_BURST_S = 0.3
#: Timed calls per exploratory trial: GPU event timing is precise, CPU calls are long.
_GPU_TRIAL_REPS = 20
_CPU_TRIAL_REPS = 8
#: Shape of the first CPU product, which sizes the candidates.
_CPU_PROBE = _Shape(256, 256, 256)
_WARMUP_SHAPES = (_Shape(8192, 8192, 8192), _Shape(4096, 4096, 4096), _Shape(2048, 2048, 2048))


def run(
    expect: object = None,
    profile: str | Profile = "quick",
    *,
    devices: DeviceSelection = None,
    backend: Backend | None = None,
    detected: Detected | None = None,
    sample: Callable[[], Detected] | None = None,
    progress: ProgressCallback | None = None,
    refresh_threads: bool = False,
) -> BenchReport:
    """Benchmark every visible device and judge it; never raises for a failing device.

    :param expect: anything :meth:`AcceleratorSpec.parse` accepts (``"H100:8"``,
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
    :param refresh_threads: CPU: time 1 vs N threads again instead of reusing this
        process's earlier choice.
    :raises AcceleratorError: ``expect`` is not a valid spec, or ``devices`` names a
        device that is not visible.
    :raises ImportError: torch is not installed (the ``[bench]`` extra).
    """
    started = datetime.now(UTC)
    wall = time.perf_counter()
    chosen = get_profile(profile)
    spec = _parse_expect(expect)
    if detected is None:
        from accelerators.detect import current

        detected = current(refresh=True)
        if sample is None:
            sample = _sample_current
    reasons, matched = identity_reasons(spec, detected)
    fatal = any(
        r.code is ReasonCode.NO_ACCELERATOR and r.severity is Severity.FAIL for r in reasons
    )
    device_reports: list[DeviceReport] = []
    # The host's load says nothing about a fake backend's planted figures (tests).
    before = snapshot() if backend is None else None
    if not fatal:
        if backend is None:
            backend, problem = _select_backend(detected, devices)
            if problem is not None:
                reasons.append(problem)
        if backend is not None:
            session = _Session(backend, chosen, detected, sample, progress, refresh_threads)
            device_reports = session.run()
    data = bands()
    found = conditions(before, snapshot())
    if device_reports and device_reports[0].kind == "cpu":
        # Host contention slows what the host computes; a GPU's kernels do not share it.
        device_reports = [_judge_busy(d, found, data.contention) for d in device_reports]
    for device in device_reports:
        reasons.extend(device.reasons)
    reasons.extend(spread_reasons([[*d.gemm, *d.memory] for d in device_reports], data.thresholds))
    gemm, memory, slowest = _slowest(device_reports)
    versions = {"accelerators": accelerators.__version__}
    with contextlib.suppress(Exception):
        from accelerators import catalog

        versions["catalog"] = catalog.catalog_version()
    if backend is not None:
        versions.update(backend.describe())
    if progress is not None:
        progress(1.0, "done")
    return BenchReport(
        profile=chosen.name,
        expect=str(spec) if spec is not None else None,
        matched=matched,
        device=_summary(detected, device_reports, backend),
        gemm=gemm,
        memory=memory,
        verdict=verdict_of(reasons),
        reasons=tuple(reasons),
        elapsed_s=time.perf_counter() - wall,
        slowest_device=slowest,
        devices=tuple(device_reports),
        started_at=started,
        host=platform.node(),
        node=os.environ.get("NODE_NAME") or None,
        versions=versions,
        conditions=found,
        fail_below=data.thresholds.fail_below,
        warn_below=data.thresholds.warn_below,
    )


def _judge_busy(
    device: DeviceReport, found: dict[str, float], policy: ContentionPolicy
) -> DeviceReport:
    reasons = busy_reasons(device.reasons, found, [*device.gemm, *device.memory], policy)
    return device.model_copy(update={"reasons": tuple(reasons), "verdict": verdict_of(reasons)})


def _sample_current() -> Detected:
    from accelerators.detect import current

    return current(refresh=True)


def _parse_expect(expect: object) -> AcceleratorSpec | None:
    if expect is None:
        return None
    from accelerators.spec import AcceleratorSpec

    return AcceleratorSpec.parse(expect)


def _select_backend(
    detected: Detected, devices: DeviceSelection
) -> tuple[Backend | None, Reason | None]:
    """The torch backend for what is visible, or why there is none."""
    from accelerators.bench._torch_backend import TorchBackend, import_torch

    cpu = detected.cpu

    def cpu_backend() -> TorchBackend:
        return TorchBackend("cpu", cpu_caches=(cpu.l2_bytes, cpu.l3_bytes), cpu_name=cpu.model_name)

    if devices == "cpu":
        return cpu_backend(), None
    indices = None if devices is None else tuple(int(i) for i in devices)
    kind = detected.kind
    try:
        if kind in ("tpu", "neuron", "hpu"):
            return None, Reason(
                code=ReasonCode.NOT_BENCHMARKED,
                severity=Severity.WARN,
                message=f"{detected.count} {kind} device(s) ({detected.raw_name}) identified "
                "but not benchmarked: accelerators.bench measures through torch on CUDA, "
                "ROCm, XPU and CPU",
            )
        if kind == "gpu":
            vendor = detected.devices[0].vendor if detected.devices else None
            device_type: Literal["cuda", "xpu"] = "xpu" if vendor == "intel" else "cuda"
            try:
                return TorchBackend(device_type, indices=indices), None
            except RuntimeError as exc:
                return None, Reason(
                    code=ReasonCode.BACKEND_UNAVAILABLE,
                    severity=Severity.FAIL,
                    message=f"{detected.count} GPU(s) visible ({detected.raw_name}), but "
                    f"{exc}: install a torch build for this GPU and driver",
                )
        torch = import_torch()
        if torch.cuda.is_available():
            return TorchBackend("cuda", indices=indices), None
        if indices not in (None, (0,)):
            raise AcceleratorError(
                f"Device selection {list(indices or ())} names devices that are not "
                "visible: no accelerator was found, only the CPU ('cpu' or 0)"
            )
        return cpu_backend(), None
    except ValueError as exc:
        if isinstance(exc, AcceleratorError):
            raise
        raise AcceleratorError(str(exc)) from exc


def _summary(
    detected: Detected, reports: Sequence[DeviceReport], backend: Backend | None
) -> DeviceSummary:
    if reports:
        first = reports[0]
        return DeviceSummary(
            kind=first.kind,
            backend=backend.kind if backend is not None else None,
            name=first.name,
            accelerator=first.accelerator,
            count=len(reports),
            is_mig=first.is_mig,
            mig_profile=first.mig_profile,
        )
    return DeviceSummary(
        kind=detected.kind,
        backend=None,
        name=detected.raw_name,
        accelerator=detected.accelerator.name if detected.accelerator is not None else None,
        count=detected.count if detected.kind not in ("cpu", "unknown") else 0,
        is_mig=detected.is_mig,
        mig_profile=detected.mig_profile,
    )


def _slowest(
    reports: Sequence[DeviceReport],
) -> tuple[tuple[GemmResult, ...], tuple[MemoryResult, ...], int | None]:
    """Per dtype and kernel, the slowest device's result; and the slowest device overall."""
    gemm: dict[str, GemmResult] = {}
    memory: dict[str, MemoryResult] = {}
    for report in reports:
        for g in report.gemm:
            held = gemm.get(g.dtype)
            if held is None or (g.tflops is not None and (held.tflops or math.inf) > g.tflops):
                gemm[g.dtype] = g
        for m in report.memory:
            held_m = memory.get(m.kernel)
            if held_m is None or (m.gbps is not None and (held_m.gbps or math.inf) > m.gbps):
                memory[m.kernel] = m
    slowest: int | None = reports[0].index if reports else None
    if len(reports) > 1:
        # Geometric mean of each device's figures relative to the best device per metric.
        best: dict[str, float] = {}
        for report in reports:
            for key, value in _figures(report):
                best[key] = max(best.get(key, 0.0), value)
        scores = []
        for report in reports:
            logs = [math.log(value / best[key]) for key, value in _figures(report)]
            scores.append((sum(logs) / len(logs) if logs else 0.0, report.index))
        slowest = min(scores)[1]
    return tuple(gemm.values()), tuple(memory.values()), slowest


def _figures(report: DeviceReport) -> Iterator[tuple[str, float]]:
    for g in report.gemm:
        if g.tflops:
            yield f"gemm.{g.dtype}", g.tflops
    for m in report.memory:
        if m.gbps:
            yield f"memory.{m.kernel}", m.gbps


@dataclass
class _State:
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


class _Progress:
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


class _Session:
    """One benchmark run over the devices of one backend."""

    def __init__(
        self,
        backend: Backend,
        profile: Profile,
        detected: Detected,
        sample: Callable[[], Detected] | None,
        progress: ProgressCallback | None,
        refresh_threads: bool,
    ):
        self.backend = backend
        self.profile = profile
        self.detected = detected
        self.sample = sample
        self.refresh_threads = refresh_threads
        self.clock = backend.clock
        props = backend.devices()
        self.states = [_State(p, self._identity(p)) for p in props]
        self.is_cpu = bool(props) and props[0].kind == "cpu"
        self.dtypes = profile.cpu_dtypes if self.is_cpu else profile.gpu_dtypes
        budget = profile.cpu_gemm_budget_s if self.is_cpu else profile.gpu_gemm_budget_s
        phases: list[tuple[str, float]] = []
        if not self.is_cpu:
            phases.append(("warm-up", profile.gpu_warmup_s + _BURST_S))
        phases += [(f"GEMM {d}", budget) for d in self.dtypes]
        if profile.stream:
            phases.append(("stream", len(KERNELS) * profile.stream_budget_s * 1.25 + 0.5))
        self.progress = _Progress(progress, phases)
        self.parallel = len(props) > 1 and all(p.parallel_safe for p in props)

    # -- identity ------------------------------------------------------------------------
    def _identity(self, props: DeviceProps) -> DeviceInfo:
        from accelerators.detect import DeviceInfo

        detected = self.detected
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
        accel = [d for d in detected.devices if d.kind != "cpu"]
        if props.index < len(accel):
            return accel[props.index]
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

    # -- scheduling ----------------------------------------------------------------------
    def _each(self, phase: str, fn: Callable[[_State], None]) -> None:
        def guarded(state: _State) -> None:
            try:
                with self.backend.activate(state.props):
                    fn(state)
            except Exception as exc:  # one device's failure must not hide the others'
                state.reasons.append(
                    Reason(
                        code=ReasonCode.BENCH_ERROR,
                        severity=Severity.FAIL,
                        device_index=state.props.index,
                        metric=phase,
                        message=f"device {state.props.index}: {phase} failed with "
                        f"{type(exc).__name__}: {exc}",
                    )
                )

        if self.parallel:
            with ThreadPoolExecutor(max_workers=len(self.states)) as pool:
                list(pool.map(guarded, self.states))
        else:
            for state in self.states:
                guarded(state)

    def run(self) -> list[DeviceReport]:
        saved_threads = self.backend.get_threads() if self.is_cpu else None
        try:
            if not self.is_cpu:
                self._each("warm-up", self._warmup)
                self._read_under_load()
            for dtype in self.dtypes:
                with self.backend.precision(dtype):
                    self._each(f"GEMM {dtype}", functools.partial(self._gemm, dtype=dtype))
            if self.profile.stream:
                self._each("stream", self._stream)
        finally:
            for state in self.states:
                for session in state.sessions.values():
                    session.close()
                state.sessions.clear()
            if saved_threads is not None:
                self.backend.set_threads(saved_threads)
        return [self._report(state) for state in self.states]

    # -- warm-up and telemetry under load ------------------------------------------------
    def _session(self, state: _State, dtype: str) -> GemmSession:
        session = state.sessions.pop(dtype, None)
        if session is None:
            session = self.backend.open_gemm(
                state.props, dtype, pool_elements=self._pool_elements(state.props, dtype)
            )
        return session

    def _pool_elements(self, props: DeviceProps, dtype: str) -> int:
        elem = ELEMENT_BYTES[dtype]
        budget = self.backend.memory_budget_bytes(props)
        if props.kind == "cpu":
            # Rotating sets over twice the LLC; page faults make more costly on VMs.
            want = max(2 * (props.llc_bytes or 32 * _MIB), 64 * _MIB)
            cap = budget // 2 if budget else want
        else:
            want = 2 * 16384 * 16384 * elem  # inputs of the largest candidate
            cap = budget // 3 if budget else want
        return max(_MIB, min(want, cap) // elem)

    def _warmup(self, state: _State) -> None:
        props = state.props
        dtype = next(
            (d for d in ("bf16", "fp16", "fp32") if self.backend.unsupported(props, d) is None),
            None,
        )
        if dtype is None:
            return
        session = self._session(state, dtype)
        state.sessions[dtype] = session  # reused by that dtype's search
        shape = next(
            (s for s in _WARMUP_SHAPES if s.input_elements <= session.max_input_elements),
            _WARMUP_SHAPES[-1],
        )
        case = session.case(shape)
        start = self.clock()
        deadline = start + self.profile.gpu_warmup_s
        calls = 0
        while True:
            for _ in range(8):
                case.run()
            calls += 8
            self.backend.synchronize(props)
            elapsed = self.clock() - start
            self.progress.update("warm-up", elapsed / max(self.profile.gpu_warmup_s, 1e-9))
            if self.clock() >= deadline:
                break
        state.burst = case
        state.burst_call_s = max(elapsed / calls, 1e-6)
        # Queue a burst without waiting: telemetry is read while it runs.
        for _ in range(max(1, min(1000, int(_BURST_S / state.burst_call_s)))):
            case.run()

    def _read_under_load(self) -> None:
        if self.sample is not None and any(s.burst is not None for s in self.states):
            try:
                sampled = self.sample()
            except Exception:  # telemetry is best effort; the benchmark still counts
                sampled = None
            if sampled is not None:
                accel = [d for d in sampled.devices if d.kind != "cpu"]
                for state in self.states:
                    if state.burst is not None and state.props.index < len(accel):
                        state.load = accel[state.props.index]
        for state in self.states:
            if state.burst is not None:
                with contextlib.suppress(Exception), self.backend.activate(state.props):
                    self.backend.synchronize(state.props)
                state.burst.close()
                state.burst = None

    # -- GEMM ------------------------------------------------------------------------------
    def _gemm(self, state: _State, dtype: str) -> None:
        props = state.props
        start = self.clock()
        why = self.backend.unsupported(props, dtype)
        if why is not None:
            state.gemm.append(
                GemmResult(dtype=dtype, device_index=props.index, status="unsupported", note=why)
            )
            state.reasons.append(
                Reason(
                    code=ReasonCode.DTYPE_UNSUPPORTED,
                    severity=Severity.INFO,
                    device_index=props.index,
                    metric=f"gemm.{dtype}",
                    message=f"device {props.index}: {dtype} not measured: {why}",
                )
            )
            return
        phase = f"GEMM {dtype}"
        budget = self.profile.cpu_gemm_budget_s if self.is_cpu else self.profile.gpu_gemm_budget_s
        session = self._session(state, dtype)
        try:
            timer = self.backend.timer(props)
            search = ShapeSearch(
                self.backend,
                props,
                session,
                timer,
                SearchSettings(
                    budget_s=budget,
                    final_fraction=self.profile.final_fraction,
                    min_reps=3 if self.is_cpu else 5,
                    trial_reps=_CPU_TRIAL_REPS if self.is_cpu else _GPU_TRIAL_REPS,
                ),
                clock=self.clock,
                on_progress=lambda f: self.progress.update(phase, f),
                start=start,
            )
            candidates = None
            threads: int | None = None
            if self.is_cpu:
                candidates, threads = self._cpu_setup(state, dtype, session, search)
            result = search.run(candidates)
            try:
                check = result.case.check(
                    blocks=self.profile.check_blocks,
                    block=self.profile.check_block,
                    seed=1000 * props.index + len(state.gemm),
                )
            finally:
                result.case.close()
        finally:
            session.close()
        passes, tolerance = gemm_check_passes(check, dtype)
        best = result.best
        peak, band_metric = self._gemm_peak(state, dtype)
        band = self._band(state, band_metric)
        expected = peak.value * band.fraction if peak is not None and band is not None else None
        note = None
        if peak is None:
            note = self._no_peak_note(state, dtype)
        state.gemm.append(
            GemmResult(
                dtype=dtype,
                device_index=props.index,
                m=best.shape.m,
                n=best.shape.n,
                k=best.shape.k,
                tflops=best.best_tflops,
                median_tflops=best.median_tflops,
                samples_s=best.measurement.samples_s,
                shapes_tried=len(result.trials),
                search_s=self.clock() - start,
                search_stopped=result.stopped,
                threads=threads,
                correct=passes,
                max_error=check.max_error,
                calls_checked=check.calls_checked or None,
                checksum_failures=check.calls_failed if check.calls_checked else None,
                outlier_score=check.outlier_score if check.calls_checked else None,
                scale_error=check.scale_error if check.calls_checked else None,
                tolerance=tolerance,
                peak_tflops=peak.value if peak is not None else None,
                peak_source=peak.source if peak is not None else None,
                peak_confidence=peak.confidence if peak is not None else None,
                expected_tflops=expected,
                band_fraction=band.fraction if band is not None and peak is not None else None,
                band_source=band.source if band is not None and peak is not None else None,
                band_confidence=band.confidence if band is not None and peak is not None else None,
                note=note,
            )
        )
        if note is not None:
            code = ReasonCode.EMULATED_DTYPE if "emulat" in note else ReasonCode.NO_PEAK
            state.reasons.append(
                Reason(
                    code=code,
                    severity=Severity.INFO,
                    device_index=props.index,
                    metric=f"gemm.{dtype}",
                    message=f"device {props.index}: {note}",
                )
            )
        self.progress.update(phase, 1.0)

    def _cpu_setup(
        self, state: _State, dtype: str, session: GemmSession, search: ShapeSearch
    ) -> tuple[list[_Shape], int | None]:
        """Rate of a first small product, then 1 vs N threads on the first candidate."""
        props = state.props
        timer = self.backend.timer(props)
        probe = session.case(_CPU_PROBE)
        try:
            probe.run()
            first = min(timer.time(probe.run, iterations=2))
        finally:
            probe.close()
        search.flops_per_s = _CPU_PROBE.flops / max(first, 1e-9)
        candidates = search.candidates()
        # Compare thread counts on the first candidate cheap enough for several rounds.
        cheap = self.profile.thread_probe_s / 15 * search.flops_per_s
        lead_shape = next(
            (s for s in candidates if s.flops <= cheap), min(candidates, key=lambda s: s.flops)
        )
        lead = session.case(lead_shape)
        try:
            choice = pick_threads(
                self.backend,
                props,
                f"gemm.{dtype}",
                lead.run,
                timer,
                clock=self.clock,
                budget_s=self.profile.thread_probe_s,
                refresh=self.refresh_threads,
            )
        finally:
            lead.close()
        state.threads.append(_record(f"gemm.{dtype}", choice))
        if choice.median_s:
            search.flops_per_s = lead_shape.flops / choice.median_s[choice.threads]
            candidates = search.candidates()
        return candidates, choice.threads

    def _gemm_peak(self, state: _State, dtype: str) -> tuple[Peak | None, str]:
        metric = f"gemm.{dtype}"
        if self.is_cpu:
            return cpu_gemm_peak(self.detected.cpu, dtype), metric
        return device_gemm_peak(state.identity, dtype), metric

    def _no_peak_note(self, state: _State, dtype: str) -> str:
        if self.is_cpu:
            cpu = self.detected.cpu
            if dtype == "bf16" and not ({"avx512_bf16", "amx_bf16"} & cpu.flags):
                return (
                    "bf16 GEMM is emulated on this CPU (no AVX512_BF16 or AMX-BF16): measured "
                    "rate only"
                )
            if cpu.max_mhz is None:
                return f"{dtype} peak unknown (no CPU clock reported): measured figures only"
            return f"{dtype} peak unknown for this CPU's ISA: measured figures only"
        acc = state.identity.accelerator
        if acc is None:
            return f"{dtype}: device not in the catalog, measured figures only"
        if state.identity.is_mig and acc.mig_profile(state.identity.mig_profile or "") is None:
            return f"{dtype}: MIG profile {state.identity.mig_profile} unknown to the catalog"
        return f"{dtype}: the catalog has no {dtype} figure for {acc.name}, measured only"

    def _band(self, state: _State, metric: str) -> Band | None:
        if self.is_cpu:  # vendor rows describe accelerators, not the vendor's CPUs
            return band_for(metric, accelerator=None, vendor=None, device_class="cpu")
        acc = state.identity.accelerator
        return band_for(
            metric,
            accelerator=acc.name if acc is not None else None,
            vendor=acc.vendor if acc is not None else state.identity.vendor,
            device_class=acc.device_class if acc is not None else "gpu",
        )

    # -- stream ----------------------------------------------------------------------------
    def _stream(self, state: _State) -> None:
        props = state.props
        dtype = self.backend.stream_dtype(props)
        elements = stream_elements(
            props,
            dtype,
            llc_multiple=self.profile.stream_llc_multiple,
            min_bytes=(
                self.profile.cpu_stream_min_bytes
                if self.is_cpu
                else self.profile.gpu_stream_min_bytes
            ),
            memory_budget_bytes=self.backend.memory_budget_bytes(props),
        )
        case = self.backend.open_stream(props, elements=elements, dtype=dtype)
        threads: int | None = None
        try:
            timer = self.backend.timer(props)
            if self.backend.thread_options(props):
                # "add" (c = a + b) keeps the analytic sequence valid: copy rewrites c first.
                choice = pick_threads(
                    self.backend,
                    props,
                    "stream",
                    case.kernel("add"),
                    timer,
                    clock=self.clock,
                    budget_s=self.profile.thread_probe_s,
                    refresh=self.refresh_threads,
                )
                state.threads.append(_record("stream", choice))
                threads = choice.threads
            done = [0]

            def on_kernel(_name: str) -> None:
                done[0] += 1
                self.progress.update("stream", done[0] / len(KERNELS))

            outcomes = run_stream(
                self.backend,
                props,
                case,
                timer,
                budget_s=self.profile.stream_budget_s,
                min_reps=self.profile.stream_min_reps,
                max_reps=self.profile.stream_max_reps,
                on_kernel=on_kernel,
            )
        finally:
            case.close()
        peak = None if self.is_cpu else device_memory_peak(state.identity)
        element_bytes = ELEMENT_BYTES[dtype]
        for outcome in outcomes:
            band = self._band(state, f"memory.{outcome.kernel.name}") if peak else None
            expected = peak.value * band.fraction if peak is not None and band else None
            state.memory.append(
                MemoryResult(
                    kernel=outcome.kernel.name,
                    device_index=props.index,
                    gbps=outcome.best_gbps,
                    median_gbps=outcome.median_gbps,
                    operation=outcome.kernel.operation,
                    bytes_formula=outcome.kernel.formula(element_bytes),
                    bytes_per_call=outcome.bytes_per_call,
                    elements=outcome.elements,
                    dtype=dtype,
                    array_bytes=outcome.elements * element_bytes,
                    samples_s=outcome.measurement.samples_s,
                    threads=threads,
                    correct=outcome.correct,
                    max_rel_error=outcome.max_rel_error,
                    tolerance=outcome.tolerance,
                    peak_gbps=peak.value if peak is not None else None,
                    peak_source=peak.source if peak is not None else None,
                    peak_confidence=peak.confidence if peak is not None else None,
                    expected_gbps=expected,
                    band_fraction=band.fraction if band else None,
                    band_source=band.source if band else None,
                    band_confidence=band.confidence if band else None,
                    note=None if peak else "no datasheet bandwidth for a CPU: measured only",
                )
            )

    # -- the device's report ---------------------------------------------------------------
    def _report(self, state: _State) -> DeviceReport:
        data = bands()
        seen = state.load or state.identity
        reasons = list(state.reasons)
        if not self.is_cpu:
            reasons += telemetry_reasons(
                seen,
                thresholds=data.thresholds,
                policy=data.throttle,
                under_load=state.load is not None,
            )
        results: list[GemmResult | MemoryResult] = [*state.gemm, *state.memory]
        reasons += correctness_reasons(results)
        reasons += performance_reasons(results, data.thresholds)
        identity = state.identity
        return DeviceReport(
            index=state.props.index,
            kind=identity.kind,
            backend=self.backend.kind,
            name=identity.raw_name or state.props.name,
            accelerator=identity.accelerator.name if identity.accelerator is not None else None,
            vendor=identity.vendor,
            is_mig=identity.is_mig,
            mig_profile=identity.mig_profile,
            compute_units=state.props.compute_units,
            memory_bytes=identity.memory_bytes or state.props.memory_bytes,
            clocks_mhz=dict(seen.clocks_mhz),
            throttle_reasons=tuple(seen.throttle_reasons),
            temperature_c=seen.temperature_c,
            power_w=seen.power_w,
            power_limit_w=seen.power_limit_w,
            ecc_errors=seen.ecc_errors,
            threads=tuple(state.threads),
            gemm=tuple(state.gemm),
            memory=tuple(state.memory),
            verdict=verdict_of(reasons),
            reasons=tuple(reasons),
        )


def _record(workload: str, choice: ThreadChoice) -> ThreadChoiceRecord:
    return ThreadChoiceRecord(
        workload=workload,
        threads=choice.threads,
        source=choice.source,
        median_s=dict(choice.median_s),
    )
