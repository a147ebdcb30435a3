"""Fakes for testing the benchmark, and code that calls the gate, without a GPU.

>>> from accelerators.bench import run
>>> from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected
>>> report = run(
...     "H100", backend=FakeBackend([FakeDevice()]), detected=fake_detected("H100-SXM")
... )
>>> report.verdict.value, report.gemm[2].dtype
('pass', 'bf16')

:class:`FakeBackend` runs no kernels: each call advances a :class:`FakeClock` by the time a
planted throughput model gives, so the shape search, the budgets, thread choice, checks and
verdicts run exactly as on hardware, deterministically and in milliseconds. The model of a
GPU is wave quantization over the SM count x a K-efficiency term x a bump centred on
``FakeDevice.optimum``, scaled so that the optimum reaches ``gemm_tflops[dtype]``.

The device model lives in ``_fake_device``, the fake host (:func:`fake_detected`) in
``_fake_host``; ``_fault_servers`` holds misbehaving HTTP endpoints on the loopback interface
for the bench history's fault tests. Fakes sit beside the run, never under it: nothing else
in the bench imports this package.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from accelerators.bench.measure._backend import (
    ELEMENT_BYTES,
    Backend,
    DeviceProps,
    GemmCase,
    GemmCheck,
    GemmSession,
    Shape,
    StreamCase,
)
from accelerators.bench.measure._correctness import GEMM_TOLERANCE
from accelerators.bench.measure._stream import KERNELS, expected_values
from accelerators.bench.measure._timing import SyncTimer, Timer
from accelerators.bench.testing._fake_device import FakeClock, FakeDevice, gpu_efficiency
from accelerators.bench.testing._fake_host import fake_detected

_MIB = 1 << 20

__all__ = [
    "FakeBackend",
    "FakeClock",
    "FakeDevice",
    "fake_detected",
    "gpu_efficiency",
]


class FakeBackend(Backend):
    """A :class:`~accelerators.bench.measure._backend.Backend` over :class:`FakeDevice` models.

    :param devices: the simulated devices (index = position).
    :param clock: the clock kernels advance; a new :class:`FakeClock` by default.
    :param seed: seeds the timing noise.
    """

    kind = "fake"

    def __init__(
        self,
        devices: Sequence[FakeDevice] = (),
        *,
        clock: FakeClock | None = None,
        seed: int = 0,
    ):
        self.fakes = tuple(devices) or (FakeDevice(),)
        self.fake_clock = clock or FakeClock()
        self.clock = self.fake_clock
        self.rng = random.Random(seed)
        self.threads = 1
        self.calls: dict[tuple[int, str], int] = {}
        self.thread_log: list[int] = []

    def devices(self) -> tuple[DeviceProps, ...]:
        return tuple(
            DeviceProps(
                index=i,
                kind=f.kind,
                name=f.name,
                compute_units=f.compute_units,
                llc_bytes=f.llc_bytes,
                l2_bytes=f.l2_bytes if f.l2_bytes is not None else f.llc_bytes,
                memory_bytes=f.memory_bytes,
                capability=f.capability,
                parallel_safe=False,
                uuid=f.uuid,
            )
            for i, f in enumerate(self.fakes)
        )

    def fake(self, device: DeviceProps) -> FakeDevice:
        return self.fakes[device.index]

    def _maybe_fail(self, device: DeviceProps, phase: str) -> None:
        if phase in self.fake(device).errors:
            raise RuntimeError(f"planted error in {phase}")

    def unsupported(self, device: DeviceProps, dtype: str) -> str | None:
        fake = self.fake(device)
        if dtype in fake.unsupported:
            return fake.unsupported[dtype]
        if dtype not in fake.gemm_tflops:
            return f"the fake device has no {dtype} rate"
        return None

    def open_gemm(self, device: DeviceProps, dtype: str, *, pool_elements: int) -> GemmSession:
        self._maybe_fail(device, f"gemm.{dtype}")
        return _FakeSession(self, device, dtype, pool_elements)

    def open_stream(self, device: DeviceProps, *, elements: int, dtype: str) -> StreamCase:
        self._maybe_fail(device, "stream")
        return _FakeStream(self, device, elements, dtype)

    def timer(self, device: DeviceProps) -> Timer:
        return SyncTimer(clock=self.fake_clock)

    def synchronize(self, device: DeviceProps) -> None:
        return None

    def thread_options(self, device: DeviceProps) -> tuple[int, ...]:
        speedup = self.fake(device).thread_speedup
        return tuple(sorted(speedup)) if len(speedup) > 1 else ()

    def get_threads(self) -> int | None:
        return self.threads

    def set_threads(self, threads: int) -> None:
        self.threads = threads
        self.thread_log.append(threads)

    def spend(self, device: DeviceProps, seconds: float) -> None:
        """Advance the clock by ``seconds`` scaled by noise and the thread speed-up."""
        fake = self.fake(device)
        speed = fake.thread_speedup.get(self.threads, 1.0)
        jitter = 1.0 + abs(self.rng.gauss(0.0, fake.noise)) if fake.noise else 1.0
        if self.fake_clock() < fake.busy_until_s and self.rng.random() < fake.busy_share:
            jitter *= fake.busy_factor
        took = seconds * jitter / speed
        if fake.slice_s and self.threads in fake.sliced_threads:
            took = math.ceil(took / fake.slice_s) * fake.slice_s
        self.fake_clock.advance(took)

    def gemm_seconds(self, device: DeviceProps, dtype: str, shape: Shape) -> float:
        """Modelled time of one product, noise excluded."""
        fake = self.fake(device)
        top = gpu_efficiency(fake.optimum, fake) if fake.optimum is not None else 1.0
        rate = fake.gemm_tflops[dtype] * 1e12 * gpu_efficiency(shape, fake) / top
        return shape.flops / rate + fake.launch_s


class _FakeSession(GemmSession):
    def __init__(self, backend: FakeBackend, device: DeviceProps, dtype: str, elements: int):
        self.backend = backend
        self.device = device
        self.dtype = dtype
        self.max_input_elements = elements

    def case(self, shape: Shape) -> GemmCase:
        if shape.input_elements > self.max_input_elements:
            raise ValueError(f"Shape {shape} needs more inputs than the pool holds")
        limit = self.backend.fake(self.device).max_output_elements
        if limit is not None and shape.m * shape.n > limit:
            raise RuntimeError(f"CUDA out of memory (fake) for a {shape.m}x{shape.n} output")
        return _FakeCase(self, shape)


class _FakeCase(GemmCase):
    def __init__(self, session: _FakeSession, shape: Shape):
        self.session = session
        self.shape = shape
        self.dtype = session.dtype
        self.seconds = session.backend.gemm_seconds(session.device, session.dtype, shape)
        self.streak_s = 0.0

    def run(self) -> None:
        backend = self.session.backend
        key = (self.session.device.index, self.dtype)
        backend.calls[key] = backend.calls.get(key, 0) + 1
        fake = backend.fake(self.session.device)
        seconds = self.seconds
        if fake.throttle_after_s is not None and self.streak_s >= fake.throttle_after_s:
            seconds /= fake.throttle_factor
        self.streak_s += seconds
        short = self.seconds < fake.stall_below_s
        if short and fake.stall_share and backend.rng.random() < fake.stall_share:
            seconds += fake.stall_s
        backend.spend(self.session.device, seconds)

    def before(self) -> None:
        self.streak_s = 0.0  # a flush between calls: not back-to-back load
        if self.session.device.kind != "cpu":
            self.session.backend.fake_clock.advance(256 * _MIB / 3e12)  # the flush

    def check(self, *, blocks: int, block: int, seed: int) -> GemmCheck:
        fake = self.session.backend.fake(self.session.device)
        tolerance = GEMM_TOLERANCE.get(self.dtype, 0.1)
        calls = self.session.backend.calls.get((self.session.device.index, self.dtype), 0)
        if self.dtype in fake.miscompare:
            return GemmCheck(
                max_error=50 * tolerance,
                nonfinite=0,
                blocks=blocks,
                calls_checked=calls,
                calls_failed=calls,
                outlier_score=50.0,
            )
        return GemmCheck(max_error=tolerance / 100, nonfinite=0, blocks=blocks, calls_checked=calls)


class _FakeStream(StreamCase):
    def __init__(self, backend: FakeBackend, device: DeviceProps, elements: int, dtype: str):
        self.backend = backend
        self.device = device
        self.elements = elements
        self.dtype = dtype
        self.last: str | None = None

    def kernel(self, name: str) -> Callable[[], None]:
        spec = next(k for k in KERNELS if k.name == name)
        fake = self.backend.fake(self.device)
        seconds = spec.bytes_per_call(self.elements, ELEMENT_BYTES[self.dtype]) / (
            fake.bandwidth_gbps[name] * 1e9
        )

        def launch() -> None:
            self.last = name
            self.backend.spend(self.device, seconds + fake.launch_s)

        return launch

    def deviation(self, array: str, expected: float) -> float:
        fake = self.backend.fake(self.device)
        if self.last in fake.miscompare:
            return abs(expected) + 1.0
        return 0.0

    def dot_value(self) -> float:
        value = expected_values(self.elements)["dot"]["dot"]
        fake = self.backend.fake(self.device)
        return value * 1.5 if "dot" in fake.miscompare else value
