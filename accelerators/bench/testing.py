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
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from accelerators.bench._backend import (
    ELEMENT_BYTES,
    Backend,
    DeviceProps,
    GemmCase,
    GemmCheck,
    GemmSession,
    Shape,
    StreamCase,
)
from accelerators.bench._correctness import GEMM_TOLERANCE
from accelerators.bench._gemm import GPU_TILES, wave_efficiency
from accelerators.bench._stream import KERNELS, expected_values
from accelerators.bench._timing import SyncTimer, Timer

__all__ = [
    "FakeBackend",
    "FakeClock",
    "FakeDevice",
    "fake_detected",
    "gpu_efficiency",
]

_GIB = 1 << 30
_MIB = 1 << 20
#: mamf-finder's best bf16 shape on an H100 SXM: the fake's default planted optimum.
_MAMF_H100_BEST = Shape(2048, 2048, 13312)


class FakeClock:
    """A clock that only moves when fake kernels run."""

    def __init__(self, start: float = 0.0):
        self._now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds


def _frozen(mapping: Mapping[str, float]) -> Mapping[str, float]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class FakeDevice:
    """One simulated device and the planted truths about it.

    :param gemm_tflops: rate per dtype at :attr:`optimum` (the achievable maximum).
    :param optimum: the planted best shape; ``None`` leaves only wave and K effects.
    :param bandwidth_gbps: rate per stream kernel, STREAM byte counting.
    :param miscompare: dtypes and kernel names whose outputs are wrong.
    :param unsupported: dtype -> why the device cannot run it.
    :param errors: phases that raise (``"gemm.bf16"``, ``"stream"``).
    :param thread_speedup: CPU: speed factor per thread count (several keys: threads are a knob).
    :param noise: relative standard deviation of each call's time (seeded).
    :param max_output_elements: a GEMM output larger than this raises "out of memory".
    :param uuid: the UUID the runtime reports (torch's form, without ``GPU-``), or ``None``.
    :param throttle_after_s: after this many seconds of back-to-back GEMM calls (no
        ``before`` between them: the sustained phase), calls run ``throttle_factor`` as fast.
    :param throttle_factor: the rate left once throttled (0.7: 30 % slower).
    """

    name: str = "NVIDIA H100 80GB HBM3"
    kind: Literal["cuda", "rocm", "xpu", "cpu"] = "cuda"
    compute_units: int = 132
    llc_bytes: int = 50 * _MIB
    l2_bytes: int | None = None
    memory_bytes: int = 80 * _GIB
    capability: str | None = "9.0"
    gemm_tflops: Mapping[str, float] = field(
        default_factory=lambda: _frozen(
            {"fp32": 40.0, "tf32": 360.0, "bf16": 800.0, "fp16": 800.0, "fp8": 1420.0}
        )
    )
    optimum: Shape | None = _MAMF_H100_BEST
    bandwidth_gbps: Mapping[str, float] = field(
        default_factory=lambda: _frozen(
            {"copy": 2900.0, "scale": 2900.0, "add": 2970.0, "triad": 2970.0, "dot": 3180.0}
        )
    )
    miscompare: frozenset[str] = frozenset()
    unsupported: Mapping[str, str] = field(default_factory=dict)
    errors: frozenset[str] = frozenset()
    thread_speedup: Mapping[int, float] = field(default_factory=lambda: {1: 1.0})
    noise: float = 0.0
    launch_s: float = 5e-6
    max_output_elements: int | None = None
    uuid: str | None = None
    throttle_after_s: float | None = None
    throttle_factor: float = 1.0

    @classmethod
    def cpu(cls, **changes: object) -> FakeDevice:
        """A 2-core CPU like the development VM: 64 GFLOPS fp32, 2 GFLOPS emulated bf16."""
        values: dict[str, object] = {
            "name": "AMD EPYC",
            "kind": "cpu",
            "compute_units": 2,
            "llc_bytes": 32 * _MIB,
            "l2_bytes": 512 * 1024,
            "memory_bytes": 23 * _GIB,
            "capability": "AVX2",
            "gemm_tflops": _frozen({"fp32": 0.064, "bf16": 0.002}),
            "optimum": Shape(512, 512, 512),
            "bandwidth_gbps": _frozen({k.name: 20.0 for k in KERNELS}),
            "thread_speedup": {1: 1.0, 2: 0.8},
            "launch_s": 2e-6,
        }
        values.update(changes)
        return cls(**values)  # type: ignore[arg-type]


def gpu_efficiency(shape: Shape, device: FakeDevice) -> float:
    """The fake's shape model before scaling (its maximum is at ``device.optimum``)."""
    if device.kind == "cpu":
        size = min(shape.m, shape.n, shape.k)
        base = size / (size + 48)
    else:
        tiles = GPU_TILES.get(device.kind, GPU_TILES["cuda"])
        wave = max(wave_efficiency(shape.m, shape.n, device.compute_units, t) for t in tiles)
        base = wave * shape.k / (shape.k + 1024)
    if device.optimum is None:
        return base
    o = device.optimum
    distance = (
        abs(math.log2(shape.m / o.m))
        + abs(math.log2(shape.n / o.n))
        + abs(math.log2(shape.k / o.k))
    )
    return base / (1 + 0.25 * distance)


class FakeBackend(Backend):
    """A :class:`~accelerators.bench._backend.Backend` over :class:`FakeDevice` models.

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
        self.fake_clock.advance(seconds * jitter / speed)

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


def fake_detected(
    accelerator: str | None = "H100-SXM",
    *,
    count: int = 1,
    mig_profile: str | None = None,
    throttle_reasons: Sequence[str] = (),
    clocks_mhz: Mapping[str, float] | None = None,
    ecc_errors: int | None = None,
    raw_name: str | None = None,
    per_device: Sequence[Mapping[str, object]] = (),
    uuids: Sequence[str] = (),
) -> object:
    """A :class:`accelerators.detect.Detected` as :func:`accelerators.current` would return it.

    :param accelerator: a catalog name for every device; ``None`` for a CPU-only host.
    :param count: how many devices.
    :param mig_profile: make every device a MIG slice of this profile.
    :param throttle_reasons: clock-event reason names on every device.
    :param clocks_mhz: clocks on every device (``sm``, ``sm_max``...).
    :param ecc_errors: uncorrected ECC errors on every device.
    :param raw_name: the reported name (the catalog's first NVML name by default).
    :param per_device: field overrides per device index (``{"throttle_reasons": (...)}``).
    :param uuids: the UUIDs NVML reports (``GPU-...``), one per device from the first.
    """
    from accelerators import catalog
    from accelerators.detect import CpuInfo, Detected, DeviceInfo

    cpu = CpuInfo(
        model_name="AMD EPYC",
        vendor="amd",
        logical_cpus=2,
        physical_cores=2,
        flags=frozenset({"avx", "avx2", "fma", "sse4_2"}),
        l1d_bytes=32 * 1024,
        l2_bytes=512 * 1024,
        l3_bytes=32 * _MIB,
        max_mhz=2250.0,
        family=25,
        model=1,
    )
    if accelerator is None:
        host = DeviceInfo(
            index=0, kind="cpu", vendor="amd", raw_name="AMD EPYC", accelerator=None,
            memory_bytes=23 * _GIB,
        )  # fmt: skip
        return Detected(kind="cpu", accelerator=None, devices=(host,), source="cpu", cpu=cpu,
                        reason="no accelerator found (fake)")  # fmt: skip
    acc = catalog.get(accelerator)
    name = raw_name or (acc.names.nvml[0] if acc.names.nvml else acc.name)
    memory = int(acc.memory_gb * 1e9)
    if mig_profile is not None:
        profile = acc.mig_profile(mig_profile)
        name = f"{name} MIG {mig_profile}"
        memory = int((profile.memory_gb if profile else 10) * 1e9)
    devices = []
    for index in range(count):
        fields: dict[str, Any] = {
            "index": index,
            "kind": "gpu" if acc.device_class == "gpu" else acc.device_class,
            "vendor": acc.vendor,
            "raw_name": name,
            "accelerator": acc,
            "memory_bytes": memory,
            "is_mig": mig_profile is not None,
            "mig_profile": mig_profile,
            "clocks_mhz": dict(clocks_mhz or {}),
            "throttle_reasons": tuple(throttle_reasons),
            "ecc_errors": ecc_errors,
        }
        if index < len(uuids):
            fields["extra"] = {"uuid": uuids[index], "nvml_index": str(index)}
        if index < len(per_device):
            fields.update(per_device[index])
        devices.append(DeviceInfo(**fields))
    kind = "gpu" if acc.device_class == "gpu" else acc.device_class
    return Detected(kind=kind, accelerator=acc, devices=tuple(devices), source="fake", cpu=cpu)
