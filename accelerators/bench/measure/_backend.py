"""The device abstraction the benchmark algorithms run on.

A :class:`Backend` lists devices (:class:`DeviceProps`), opens GEMM sessions (a pool of random
inputs on one device, from which :class:`GemmCase` views of any shape are cut) and stream
arrays (:class:`StreamCase`), and hands out a
:class:`~accelerators.bench.measure._timing.Timer` and a clock.
:mod:`accelerators.bench.torch_backend._backend` implements it for CUDA, ROCm, XPU and CPU;
:mod:`accelerators.bench.testing` implements a fake with a planted throughput model, so the
shape search, the verdict and the report can be tested without a GPU.

Nothing here imports torch.
"""

from __future__ import annotations

import contextlib
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from accelerators.bench.measure._timing import Clock, Timer

__all__ = [
    "ELEMENT_BYTES",
    "STREAM_ARRAYS",
    "Backend",
    "BackendKind",
    "DeviceProps",
    "GemmCase",
    "GemmCheck",
    "GemmSession",
    "Shape",
    "StreamCase",
]

BackendKind = Literal["cuda", "rocm", "xpu", "cpu", "fake"]

#: Bytes per element of each benchmark dtype (``tf32`` is stored as fp32).
ELEMENT_BYTES: dict[str, int] = {
    "fp64": 8,
    "fp32": 4,
    "tf32": 4,
    "bf16": 2,
    "fp16": 2,
    "fp8": 1,
    "int8": 1,
    "mxfp8": 1,
    "fp4": 1,  # two values per byte; a byte per element over-counts, harmless for sizing
}

#: Names of the three stream arrays.
STREAM_ARRAYS: tuple[str, ...] = ("a", "b", "c")


@dataclass(frozen=True, order=True)
class Shape:
    """A GEMM problem ``C[m, n] = A[m, k] @ B[k, n]``."""

    m: int
    n: int
    k: int

    @property
    def flops(self) -> int:
        """Floating-point operations of one product (a multiply-add counts 2)."""
        return 2 * self.m * self.n * self.k

    @property
    def input_elements(self) -> int:
        return self.m * self.k + self.k * self.n

    def __str__(self) -> str:
        return f"{self.m}x{self.n}x{self.k}"


@dataclass(frozen=True)
class DeviceProps:
    """What the shape search and the stream sizing need to know about one device.

    :param index: the backend's device index.
    :param kind: the backend kind.
    :param name: the name the runtime reports.
    :param compute_units: SMs (NVIDIA), CUs (AMD), Xe cores (Intel) or logical CPUs.
    :param llc_bytes: last-level cache (GPU L2 or CPU L3), ``None`` when unknown.
    :param l2_bytes: CPU: L2 per core (GEMM blocking); GPU: same as ``llc_bytes``.
    :param memory_bytes: device memory the benchmark may use, ``None`` when unknown.
    :param capability: compute capability (``"9.0"``) or architecture (``"gfx942"``).
    :param parallel_safe: whether this device may be benchmarked while others run.
    :param uuid: the runtime's device UUID (torch's ``uuid`` property), ``None`` when unknown;
        it ties the device to the one the driver reports.
    """

    index: int
    kind: BackendKind
    name: str
    compute_units: int
    llc_bytes: int | None = None
    l2_bytes: int | None = None
    memory_bytes: int | None = None
    capability: str | None = None
    parallel_safe: bool = False
    uuid: str | None = None


@dataclass(frozen=True)
class GemmCheck:
    """Result of comparing sampled output blocks with an fp64 reference.

    :param max_error: largest ``|C - C_ref|`` over the blocks divided by ``sqrt(k)`` (the
        standard deviation of an output element for unit-normal inputs).
    :param nonfinite: output elements in the blocks that are NaN or infinite.
    :param blocks: how many blocks were compared.
    :param calls_checked: outputs verified by row checksums (every product the case ran).
    :param calls_failed: outputs whose checksums failed (a NaN or Inf, an outlier row, a
        scale error): :mod:`accelerators.bench.measure._correctness`.
    :param outlier_score: worst ``max |e_i| / threshold`` over the checked calls (> 1 fails).
    :param scale_error: worst ``|alpha - 1|``, the fitted scale of ``C.1`` on ``A.(B.1)``.
    """

    max_error: float
    nonfinite: int
    blocks: int
    calls_checked: int = 0
    calls_failed: int = 0
    outlier_score: float = 0.0
    scale_error: float = 0.0


class GemmCase(ABC):
    """One shape on one device, ready to launch: inputs are views into the session's pool."""

    shape: Shape
    dtype: str

    @abstractmethod
    def run(self) -> None:
        """Launch one product on the next rotating input set (asynchronous on GPUs)."""

    def before(self) -> None:  # noqa: B027 - optional hook, no-op by default
        """Untimed work before each timed call (a last-level-cache flush on GPUs)."""

    @abstractmethod
    def check(self, *, blocks: int, block: int, seed: int) -> GemmCheck:
        """Compare blocks of the last product's output with an fp64 reference.

        :param blocks: how many blocks to compare.
        :param block: edge of a block (clipped to the matrix).
        :param seed: where the blocks are, reproducibly.
        """

    def close(self) -> None:  # noqa: B027 - optional hook, no-op by default
        """Release the output buffer."""


class GemmSession(ABC):
    """A pool of random normal inputs of one dtype on one device."""

    dtype: str
    max_input_elements: int

    @abstractmethod
    def case(self, shape: Shape) -> GemmCase:
        """Views of the pool shaped for ``shape``, plus an output buffer."""

    def close(self) -> None:  # noqa: B027 - optional hook, no-op by default
        """Release the pool."""


class StreamCase(ABC):
    """Three arrays ``a, b, c`` of ``elements`` values and the five stream kernels over them."""

    elements: int
    dtype: str

    @abstractmethod
    def kernel(self, name: str) -> Callable[[], None]:
        """The launch function of ``copy``, ``scale``, ``add``, ``triad`` or ``dot``."""

    @abstractmethod
    def deviation(self, array: str, expected: float) -> float:
        """Largest ``|x - expected|`` over array ``a``, ``b`` or ``c`` (NaN counts as inf)."""

    @abstractmethod
    def dot_value(self) -> float:
        """The value the last ``dot`` returned."""

    def close(self) -> None:  # noqa: B027 - optional hook, no-op by default
        """Release the arrays."""


class Backend(ABC):
    """A family of devices the benchmark can run on.

    :ivar kind: the backend kind, reported with the results.
    :ivar clock: monotonic seconds used for budgets (a fake clock in tests).
    """

    kind: BackendKind
    clock: Clock = time.perf_counter

    @abstractmethod
    def devices(self) -> tuple[DeviceProps, ...]:
        """Every device this backend will benchmark, in index order."""

    @abstractmethod
    def unsupported(self, device: DeviceProps, dtype: str) -> str | None:
        """``None`` when ``device`` runs GEMMs in ``dtype``, else why not (one sentence)."""

    @abstractmethod
    def open_gemm(self, device: DeviceProps, dtype: str, *, pool_elements: int) -> GemmSession:
        """Allocate a pool of ``pool_elements`` random normal values on ``device``."""

    @abstractmethod
    def open_stream(self, device: DeviceProps, *, elements: int, dtype: str) -> StreamCase:
        """Allocate and initialise the three stream arrays on ``device``."""

    @abstractmethod
    def timer(self, device: DeviceProps) -> Timer:
        """The timer for kernels on ``device``."""

    @abstractmethod
    def synchronize(self, device: DeviceProps) -> None:
        """Block until ``device`` is idle."""

    def memory_budget_bytes(self, device: DeviceProps) -> int | None:
        """Bytes the benchmark may allocate on ``device`` at once, ``None`` when unknown."""
        if device.memory_bytes is None:
            return None
        return device.memory_bytes // 4

    def stream_dtype(self, device: DeviceProps) -> str:
        """The stream element type: fp64 (BabelStream's default) unless the device lacks it."""
        return "fp64"

    # -- CPU threads ---------------------------------------------------------------------
    def thread_options(self, device: DeviceProps) -> tuple[int, ...]:
        """Thread counts worth comparing on ``device`` (empty: threads are not a knob)."""
        return ()

    def get_threads(self) -> int | None:
        return None

    def set_threads(self, threads: int) -> None:  # noqa: B027 - optional hook
        """Use ``threads`` threads for the following kernels."""

    # -- context -------------------------------------------------------------------------
    @contextlib.contextmanager
    def activate(self, device: DeviceProps) -> Iterator[None]:
        """Make ``device`` current in this thread for the duration of the block."""
        yield

    @contextlib.contextmanager
    def precision(self, dtype: str) -> Iterator[None]:
        """Set global math flags for ``dtype`` (TF32 on or off) and restore them afterwards."""
        yield

    def describe(self) -> dict[str, str]:
        """Versions worth recording with the results (torch, CUDA/HIP...)."""
        return {}
