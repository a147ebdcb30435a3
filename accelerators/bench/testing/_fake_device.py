"""The fake device model of :mod:`accelerators.bench.testing`: a clock and planted truths."""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from accelerators.bench.measure._backend import Shape
from accelerators.bench.measure._gemm import GPU_TILES, wave_efficiency
from accelerators.bench.measure._stream import KERNELS

__all__ = ["FakeClock", "FakeDevice", "gpu_efficiency"]

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
    :param busy_until_s: contention: calls that start before this fake-clock time are slowed
        by ``busy_factor`` with probability ``busy_share`` (seeded), as another process
        taking the device now and then would.
    :param busy_share: share of the calls slowed while busy.
    :param busy_factor: how much slower a disturbed call runs (2.0: twice as long).
    :param slice_s: CPU contention as the scheduler makes it: a call at a thread count in
        ``sliced_threads`` lasts a whole number of ``slice_s`` (one worker waits out another
        process's slice), so short calls there look far slower than long ones.
    :param sliced_threads: the thread counts ``slice_s`` applies to.
    :param stall_s: a GEMM call shorter than ``stall_below_s`` waits this long for its
        launch, inside its timed window, with probability ``stall_share`` (seeded): a host
        that enqueues an iteration (checks, flush, launch) more slowly than the device runs a
        short product, so the device reaches the start event before the launch. Such products
        have a fast best call and a far slower median.
    :param stall_share: share of the short calls that stall.
    :param stall_below_s: the modelled call length under which calls stall.
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
    busy_until_s: float = 0.0
    busy_share: float = 0.0
    busy_factor: float = 1.0
    slice_s: float = 0.0
    sliced_threads: frozenset[int] = frozenset()
    stall_s: float = 0.0
    stall_share: float = 0.0
    stall_below_s: float = math.inf

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
