"""Memory bandwidth: the STREAM / BabelStream kernels, their byte counts and analytic checks.

=======  =====================  ====================================  ===================
kernel   operation              torch call (no temporaries)           bytes per call
=======  =====================  ====================================  ===================
copy     ``c = a``              ``c.copy_(a)``                        ``2 * w * N``
scale    ``b = s * c``          ``torch.mul(c, s, out=b)``            ``2 * w * N``
add      ``c = a + b``          ``torch.add(a, b, out=c)``            ``3 * w * N``
triad    ``a = b + s * c``      ``torch.add(b, c, alpha=s, out=a)``   ``3 * w * N``
dot      ``sum(a * b)``         ``torch.dot(a, b)``                   ``2 * w * N``
=======  =====================  ====================================  ===================

``w`` is the element size (8 for fp64), ``N`` the array length, ``s = 0.4``. Bytes are counted
as STREAM and BabelStream count them: each array read or written once, write-allocate
traffic not counted (real DRAM traffic of copy/scale/add/triad with ordinary stores is 3/2,
3/2, 4/3 and 4/3 of the figure). Bandwidth is ``bytes / best time / 1e9`` (GB/s, 10^9), the
best after warm-up, as both tools report it; the median is kept too.

Arrays start at ``a = 0.1, b = 0.2, c = 0.0`` (BabelStream's values). Each kernel runs many
times back to back ("isolated" order); every kernel is idempotent while the others do not
run, so after the copy, scale, add, triad phases the arrays hold ``c = a0``,
``b = s * c``, ``c = a + b``, ``a = b + s * c`` exactly, and ``dot = N * a * b``. After each
phase the written array is compared with that value (BabelStream's tolerance: 100 epsilon
relative for arrays; the dot tolerance is per dtype).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from accelerators.bench.measure._backend import ELEMENT_BYTES, Backend, DeviceProps, StreamCase
from accelerators.bench.measure._timing import Clock, Measurement, Timer, bench

__all__ = [
    "KERNELS",
    "STREAM_SCALAR",
    "STREAM_START",
    "StreamKernel",
    "StreamOutcome",
    "expected_values",
    "run_stream",
    "stream_elements",
]

#: The scalar of scale and triad (STREAM's and BabelStream's).
STREAM_SCALAR = 0.4
#: Initial array values (BabelStream's).
STREAM_START: dict[str, float] = {"a": 0.1, "b": 0.2, "c": 0.0}
_EPS = {"fp64": 2.0**-52, "fp32": 2.0**-23}
#: Relative tolerance of the dot product per dtype (torch reduces pairwise or in blocks).
_DOT_RTOL = {"fp64": 1e-8, "fp32": 1e-3}


@dataclass(frozen=True)
class StreamKernel:
    """One kernel: its name, the operation, the array it writes and how many arrays it moves."""

    name: str
    operation: str
    writes: str | None
    arrays: int

    def bytes_per_call(self, elements: int, element_bytes: int) -> int:
        return self.arrays * element_bytes * elements

    def formula(self, element_bytes: int) -> str:
        return f"{self.arrays} * {element_bytes} B * N"


KERNELS: tuple[StreamKernel, ...] = (
    StreamKernel("copy", "c = a", "c", 2),
    StreamKernel("scale", "b = s * c", "b", 2),
    StreamKernel("add", "c = a + b", "c", 3),
    StreamKernel("triad", "a = b + s * c", "a", 3),
    StreamKernel("dot", "sum(a * b)", None, 2),
)


def expected_values(
    elements: int, kernels: Sequence[str] | None = None
) -> dict[str, dict[str, float]]:
    """Array values after each phase, and the dot product, computed in Python floats.

    :param kernels: the kernels that run, in :data:`KERNELS` order (the quick profile runs
        only copy and triad on a CPU); every kernel by default.
    :return: ``{kernel: {"a": .., "b": .., "c": .., "dot": ..}}``; ``dot`` only after ``dot``.
    """
    arrays = dict(STREAM_START)
    s = STREAM_SCALAR
    out: dict[str, dict[str, float]] = {}
    for kernel in KERNELS:
        if kernels is not None and kernel.name not in kernels:
            continue
        if kernel.name == "copy":
            arrays["c"] = arrays["a"]
        elif kernel.name == "scale":
            arrays["b"] = s * arrays["c"]
        elif kernel.name == "add":
            arrays["c"] = arrays["a"] + arrays["b"]
        elif kernel.name == "triad":
            arrays["a"] = arrays["b"] + s * arrays["c"]
        values = dict(arrays)
        if kernel.name == "dot":
            values["dot"] = elements * arrays["a"] * arrays["b"]
        out[kernel.name] = values
    return out


def stream_elements(
    device: DeviceProps,
    dtype: str,
    *,
    llc_multiple: float,
    min_bytes: int,
    memory_budget_bytes: int | None,
) -> int:
    """Array length: at least ``llc_multiple`` x the last-level cache and ``min_bytes``.

    Three arrays must fit in ``memory_budget_bytes``; the length is a multiple of 2^20 / w.

    :raises ValueError: when three arrays of the minimum size do not fit.
    """
    elem = ELEMENT_BYTES[dtype]
    llc = device.llc_bytes or 32 << 20  # unknown LLC: assume 32 MiB, common for both
    want = max(int(llc * llc_multiple), min_bytes, 1 << 20)
    if memory_budget_bytes is not None and 3 * want > memory_budget_bytes:
        floor = int(llc * llc_multiple)
        if 3 * floor > memory_budget_bytes:
            raise ValueError(
                f"Three stream arrays of {floor / 2**20:.0f} MiB ({llc_multiple:g}x the "
                f"last-level cache) do not fit the {memory_budget_bytes / 2**20:.0f} MiB "
                f"the benchmark may use on {device.name}"
            )
        want = max(floor, memory_budget_bytes // 3)
    chunk = (1 << 20) // elem
    return max(chunk, -(-want // elem) // chunk * chunk)


@dataclass(frozen=True)
class StreamOutcome:
    """One kernel's measurement and check."""

    kernel: StreamKernel
    elements: int
    dtype: str
    measurement: Measurement
    max_rel_error: float
    tolerance: float

    @property
    def bytes_per_call(self) -> int:
        return self.kernel.bytes_per_call(self.elements, ELEMENT_BYTES[self.dtype])

    @property
    def best_gbps(self) -> float:
        return self.bytes_per_call / self.measurement.best_s / 1e9

    @property
    def median_gbps(self) -> float:
        return self.bytes_per_call / self.measurement.median_s / 1e9

    @property
    def correct(self) -> bool:
        return self.max_rel_error <= self.tolerance


def _relative(deviation: float, expected: float) -> float:
    if math.isnan(deviation):
        return math.inf
    return deviation / abs(expected) if expected else deviation


def run_stream(
    backend: Backend,
    device: DeviceProps,
    case: StreamCase,
    timer: Timer,
    *,
    budget_s: float,
    min_reps: int,
    max_reps: int,
    on_kernel: Callable[[str], None] | None = None,
    kernels: Sequence[str] | None = None,
    deadline: float | None = None,
    clock: Clock | None = None,
    timing: Callable[[StreamKernel, Callable[[], None]], Measurement | None] | None = None,
) -> list[StreamOutcome]:
    """Time every kernel in order on ``case`` and check its output.

    :param backend: the device family (for synchronisation).
    :param device: the device.
    :param case: the initialised arrays.
    :param timer: how calls are timed.
    :param budget_s: timed budget per kernel (a quarter more for warm-up).
    :param min_reps: fewest timed calls per kernel.
    :param max_reps: most timed calls per kernel.
    :param on_kernel: called with each kernel's name when it is done.
    :param kernels: the kernels to run (in :data:`KERNELS` order); all by default.
    :param deadline: no call starts that cannot end before this ``clock`` reading.
    :param clock: the clock of ``deadline``.
    :param timing: measures a kernel instead of the budgeted loop when it returns a
        measurement (a CPU's thread windows on the first kernel).
    """
    expected = expected_values(case.elements, kernels)
    eps = _EPS.get(case.dtype, 2.0**-23)
    outcomes: list[StreamOutcome] = []
    element_bytes = ELEMENT_BYTES[case.dtype]
    for kernel in KERNELS:
        if kernel.name not in expected:
            continue
        fn = case.kernel(kernel.name)
        measurement = timing(kernel, fn) if timing is not None else None
        if measurement is None:
            # After the first kernel, its time per byte predicts the next one's calls: the
            # deadline then holds from the first call (no unbounded estimation calls).
            estimate = None
            if outcomes:
                last = outcomes[-1]
                per_byte = last.measurement.median_s / last.bytes_per_call
                estimate = (per_byte * kernel.bytes_per_call(case.elements, element_bytes),)
            measurement = bench(
                fn,
                timer,
                rep_s=budget_s,
                warmup_s=budget_s / 4,
                min_reps=min_reps,
                max_reps=max_reps,
                estimate=estimate,
                min_warmup=1 if estimate else 0,
                deadline=deadline,
                clock=clock,
            )
        backend.synchronize(device)
        want = expected[kernel.name]
        if kernel.writes is not None:
            value = want[kernel.writes]
            error = _relative(case.deviation(kernel.writes, value), value)
            tolerance = 100 * eps
        else:
            value = want["dot"]
            got = case.dot_value()
            error = math.inf if math.isnan(got) else abs(got - value) / abs(value)
            tolerance = _DOT_RTOL.get(case.dtype, 1e-3)
        outcomes.append(
            StreamOutcome(kernel, case.elements, case.dtype, measurement, error, tolerance)
        )
        if on_kernel is not None:
            on_kernel(kernel.name)
    return outcomes
