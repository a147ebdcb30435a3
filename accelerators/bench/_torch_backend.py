"""The torch implementation of :class:`~accelerators.bench._backend.Backend`.

One class covers CUDA, ROCm (torch's ``cuda`` device on a HIP build), Intel XPU and the CPU.
torch is imported when a :class:`TorchBackend` is created, never at module import.

GEMM inputs are views into one pool of random normal values per dtype and device:

* GPUs flush the last-level cache before every timed call (a ``max(256 MiB, 4 x L2)`` buffer
  zeroed ahead of the start event, as mamf-finder does; 256 MiB also covers MI300X's
  Infinity Cache);
* CPUs rotate through up to 64 input sets cut from a pool of at least twice the LLC, so
  consecutive calls read inputs that are not in cache (a flush would cost more than a call).

``A`` is row-major ``m x k`` and ``B`` a transposed view of a row-major ``n x k`` block, the
layout mamf-finder uses and ``torch._scaled_mm`` requires for fp8.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

from accelerators.bench._abft import call_stats, summarize
from accelerators.bench._backend import (
    Backend,
    BackendKind,
    DeviceProps,
    GemmCase,
    GemmCheck,
    GemmSession,
    Shape,
    StreamCase,
)
from accelerators.bench._stream import STREAM_SCALAR, STREAM_START
from accelerators.bench._timing import EventTimer, SyncTimer, Timer

__all__ = ["TORCH_IMPORT_ERROR_MESSAGE", "TorchBackend", "import_torch"]

TORCH_IMPORT_ERROR_MESSAGE = (
    "accelerators.bench needs torch, which is not installed. "
    'Install it with: pip install "accelerators[bench]"'
)

_MIB = 1 << 20
#: mamf-finder's flush size: "the largest LLC among current accelerators" (MI300X).
_MIN_FLUSH_BYTES = 256 * _MIB
#: Most input sets a CPU case rotates through.
_MAX_ROTATIONS = 64
#: Fresh random values generated on the CPU per pool; the rest of the pool repeats them.
_CPU_FRESH_ELEMENTS = 8 * _MIB
#: GPU pools are drawn in chunks of this many values.
_GPU_CHUNK_ELEMENTS = 64 * _MIB
#: Views start on multiples of this many elements (keeps vector and tensor-core alignment).
_ALIGN_ELEMENTS = 64


def import_torch() -> Any:
    """Import torch or raise :class:`ImportError` saying how to install it."""
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - torch is installed where tests run
        raise ImportError(TORCH_IMPORT_ERROR_MESSAGE) from exc
    return torch


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


class TorchBackend(Backend):
    """Benchmark devices through torch.

    :param device_type: ``"cuda"`` (also ROCm), ``"xpu"`` or ``"cpu"``.
    :param indices: the device indices to benchmark; every visible device by default.
    :param cpu_caches: CPU only: ``(l2_per_core_bytes, llc_bytes)`` when already known
        (from :func:`accelerators.current`); read from sysfs otherwise.
    :param cpu_name: CPU only: the model name to report.
    """

    def __init__(
        self,
        device_type: Literal["cuda", "xpu", "cpu"],
        *,
        indices: Sequence[int] | None = None,
        cpu_caches: tuple[int | None, int | None] | None = None,
        cpu_name: str | None = None,
    ):
        self.torch: Any = import_torch()
        self.device_type = device_type
        torch = self.torch
        kind: BackendKind
        if device_type == "cuda":
            kind = "rocm" if getattr(torch.version, "hip", None) else "cuda"
            available = torch.cuda.is_available()
            count = torch.cuda.device_count() if available else 0
        elif device_type == "xpu":
            kind = "xpu"
            available = hasattr(torch, "xpu") and torch.xpu.is_available()
            count = torch.xpu.device_count() if available else 0
        elif device_type == "cpu":
            kind = "cpu"
            available, count = True, 1
        else:
            raise ValueError(f"Unknown torch device type {device_type!r}: cuda, xpu or cpu")
        if not available:
            raise RuntimeError(f"torch {torch.__version__} sees no {device_type} device")
        chosen = tuple(range(count)) if indices is None else tuple(indices)
        for index in chosen:
            if not 0 <= index < count:
                raise ValueError(
                    f"Device index {index} is not visible: torch sees {count} {device_type} "
                    f"device(s) (0..{count - 1})"
                )
        self.kind = kind
        self._indices = chosen
        self._cpu_caches = cpu_caches
        self._cpu_name = cpu_name
        self._default_threads = int(torch.get_num_threads())
        self._devices: tuple[DeviceProps, ...] | None = None

    # -- devices -------------------------------------------------------------------------
    def devices(self) -> tuple[DeviceProps, ...]:
        if self._devices is None:
            self._devices = tuple(self._props(i) for i in self._indices)
        return self._devices

    def _props(self, index: int) -> DeviceProps:
        torch = self.torch
        if self.device_type == "cpu":
            from accelerators.detect import cpu_info
            from accelerators.detect._cpu import memory_bytes

            l2, llc = self._cpu_caches or (None, None)
            name = self._cpu_name
            if l2 is None or llc is None or name is None:
                host = cpu_info()
                l2, llc = l2 or host.l2_bytes, llc or host.l3_bytes or host.l2_bytes
                name = name or host.model_name
            return DeviceProps(
                index=0,
                kind="cpu",
                name=name,
                compute_units=os.cpu_count() or 1,
                llc_bytes=llc,
                l2_bytes=l2,
                memory_bytes=memory_bytes(),
                capability=str(torch.backends.cpu.get_cpu_capability()),
            )
        if self.device_type == "xpu":
            p = torch.xpu.get_device_properties(index)
            units = getattr(p, "gpu_subslice_count", None) or getattr(p, "max_compute_units", 64)
            return DeviceProps(
                index=index,
                kind="xpu",
                name=str(p.name),
                compute_units=int(units or 64),
                llc_bytes=None,
                memory_bytes=int(p.total_memory),
                capability=str(getattr(p, "platform_name", "")) or None,
                parallel_safe=True,
            )
        p = torch.cuda.get_device_properties(index)
        l2 = getattr(p, "L2_cache_size", None) or None
        capability = (
            str(getattr(p, "gcnArchName", "")).split(":")[0] or None
            if self.kind == "rocm"
            else f"{p.major}.{p.minor}"
        )
        uuid = getattr(p, "uuid", None)
        return DeviceProps(
            index=index,
            kind=self.kind,
            name=str(p.name),
            compute_units=int(p.multi_processor_count),
            llc_bytes=int(l2) if l2 else None,
            l2_bytes=int(l2) if l2 else None,
            memory_bytes=int(p.total_memory),
            capability=capability,
            parallel_safe=True,
            uuid=str(uuid) if uuid else None,
        )

    def _device(self, device: DeviceProps) -> Any:
        if self.device_type == "cpu":
            return self.torch.device("cpu")
        return self.torch.device(self.device_type, device.index)

    # -- dtypes --------------------------------------------------------------------------
    def unsupported(self, device: DeviceProps, dtype: str) -> str | None:
        torch = self.torch
        if dtype not in ("fp32", "tf32", "bf16", "fp16", "fp8"):
            return f"{dtype} is not a GEMM dtype of this benchmark"
        if self.kind == "cpu":
            if dtype == "tf32":
                return "TF32 is a GPU tensor-core format"
            if dtype == "fp8":
                return "fp8 GEMMs are measured on GPUs only"
            return None
        if self.kind == "xpu":
            if dtype in ("tf32", "fp8"):
                return f"{dtype} GEMMs are not measured on Intel XPU by this benchmark"
            return None
        if self.kind == "rocm":
            arch = device.capability or ""
            if dtype == "tf32":
                return "TF32 through torch is not measured on ROCm"
            if dtype == "fp8" and not arch.startswith(("gfx94", "gfx95")):
                return f"fp8 GEMMs need an MI300-class GPU (gfx94x/gfx95x), this is {arch}"
            if dtype == "fp8" and not hasattr(torch, "_scaled_mm"):
                return f"torch {torch.__version__} has no torch._scaled_mm"
            return None
        major, minor = (int(x) for x in (device.capability or "0.0").split(".")[:2])
        if dtype in ("tf32", "bf16") and major < 8:
            return f"{dtype} tensor cores need compute capability 8.0+, this is {major}.{minor}"
        if dtype == "fp8":
            if (major, minor) < (8, 9):
                return f"fp8 tensor cores need compute capability 8.9+, this is {major}.{minor}"
            if not hasattr(torch, "_scaled_mm"):
                return f"torch {torch.__version__} has no torch._scaled_mm"
        return None

    def torch_dtype(self, dtype: str, device: DeviceProps) -> Any:
        """The torch dtype that stores ``dtype`` inputs on ``device``."""
        torch = self.torch
        if dtype == "fp8":
            arch = device.capability or ""
            if self.kind == "rocm" and arch.startswith("gfx94"):
                return torch.float8_e4m3fnuz
            return torch.float8_e4m3fn
        return {
            "fp64": torch.float64,
            "fp32": torch.float32,
            "tf32": torch.float32,
            "bf16": torch.bfloat16,
            "fp16": torch.float16,
        }[dtype]

    def stream_dtype(self, device: DeviceProps) -> str:
        if self.device_type == "xpu":
            props = self.torch.xpu.get_device_properties(device.index)
            if not getattr(props, "has_fp64", True):
                return "fp32"
        return "fp64"

    # -- sessions ------------------------------------------------------------------------
    def open_gemm(self, device: DeviceProps, dtype: str, *, pool_elements: int) -> GemmSession:
        return _TorchGemmSession(self, device, dtype, pool_elements)

    def open_stream(self, device: DeviceProps, *, elements: int, dtype: str) -> StreamCase:
        return _TorchStreamCase(self, device, elements, self.torch_dtype(dtype, device), dtype)

    def timer(self, device: DeviceProps) -> Timer:
        if self.device_type == "cuda":
            return EventTimer(self.torch.cuda, device.index)
        if self.device_type == "xpu":
            return EventTimer(self.torch.xpu, device.index)
        return SyncTimer()

    def synchronize(self, device: DeviceProps) -> None:
        if self.device_type == "cuda":
            self.torch.cuda.synchronize(device.index)
        elif self.device_type == "xpu":
            self.torch.xpu.synchronize(device.index)

    def memory_budget_bytes(self, device: DeviceProps) -> int | None:
        if self.device_type == "cuda":
            free, _total = self.torch.cuda.mem_get_info(device.index)
            return int(free * 0.6)
        if device.memory_bytes is None:
            return None
        if self.device_type == "cpu":
            return device.memory_bytes // 8
        return int(device.memory_bytes * 0.5)

    # -- threads -------------------------------------------------------------------------
    def thread_options(self, device: DeviceProps) -> tuple[int, ...]:
        if self.device_type != "cpu":
            return ()
        return tuple(sorted({1, self._default_threads}))

    def get_threads(self) -> int | None:
        return int(self.torch.get_num_threads())

    def set_threads(self, threads: int) -> None:
        self.torch.set_num_threads(int(threads))

    # -- context -------------------------------------------------------------------------
    @contextlib.contextmanager
    def activate(self, device: DeviceProps) -> Iterator[None]:
        if self.device_type == "cuda":
            with self.torch.cuda.device(device.index):
                yield
        elif self.device_type == "xpu":
            with self.torch.xpu.device(device.index):
                yield
        else:
            yield

    @contextlib.contextmanager
    def precision(self, dtype: str) -> Iterator[None]:
        if self.device_type != "cuda" or self.kind == "rocm":
            yield
            return
        matmul = self.torch.backends.cuda.matmul
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            new_api = getattr(matmul, "fp32_precision", "none") not in ("none", None)
            if new_api:
                old = matmul.fp32_precision
                matmul.fp32_precision = "tf32" if dtype == "tf32" else "ieee"
            else:
                old = matmul.allow_tf32
                matmul.allow_tf32 = dtype == "tf32"
        try:
            yield
        finally:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if new_api:
                    matmul.fp32_precision = old
                else:
                    matmul.allow_tf32 = old

    def describe(self) -> dict[str, str]:
        torch = self.torch
        info = {"torch": str(torch.__version__)}
        if getattr(torch.version, "cuda", None):
            info["cuda"] = str(torch.version.cuda)
        if getattr(torch.version, "hip", None):
            info["hip"] = str(torch.version.hip)
            info["PYTORCH_TUNABLEOP_ENABLED"] = os.environ.get("PYTORCH_TUNABLEOP_ENABLED", "")
        if self.device_type == "cpu":
            info["cpu_capability"] = str(torch.backends.cpu.get_cpu_capability())
        return info


class _TorchGemmSession(GemmSession):
    def __init__(self, backend: TorchBackend, device: DeviceProps, dtype: str, elements: int):
        torch = backend.torch
        self.backend = backend
        self.device = device
        self.dtype = dtype
        self.tdtype = backend.torch_dtype(dtype, device)
        self.where = backend._device(device)
        self.max_input_elements = int(elements)
        generator = torch.Generator(device=self.where)
        generator.manual_seed(0x5EED + device.index)
        # fp8 has no randn: draw fp32 and convert (copy_ converts), in chunks so that the
        # fp32 draw never needs 4x the pool's memory.
        gen_dtype = torch.float32 if dtype == "fp8" else self.tdtype
        self.pool = torch.empty(elements, dtype=self.tdtype, device=self.where)
        if backend.kind == "cpu":
            # Page faults and randn cost more than a call on a VM: draw 8 Mi values and repeat
            # them; rotation is about addresses (cache), the values stay random normal.
            fresh = min(elements, _CPU_FRESH_ELEMENTS)
            block = torch.randn(fresh, dtype=gen_dtype, generator=generator)
            for start in range(0, elements, fresh):
                stop = min(elements, start + fresh)
                self.pool[start:stop].copy_(block[: stop - start])
        else:
            for start in range(0, elements, _GPU_CHUNK_ELEMENTS):
                stop = min(elements, start + _GPU_CHUNK_ELEMENTS)
                draw = torch.randn(
                    stop - start, dtype=gen_dtype, device=self.where, generator=generator
                )
                self.pool[start:stop].copy_(draw)
        #: Per-call checksum results of every case of this session (device tensors).
        self.stats: list[Any] = []
        self.flush: Any = None
        if backend.kind != "cpu":
            flush_bytes = max(_MIN_FLUSH_BYTES, 4 * (device.llc_bytes or 0))
            self.flush = torch.empty(flush_bytes, dtype=torch.int8, device=self.where)

    def case(self, shape: Shape) -> GemmCase:
        return _TorchGemmCase(self, shape)

    def close(self) -> None:
        self.pool = None
        self.flush = None


class _TorchGemmCase(GemmCase):
    def __init__(self, session: _TorchGemmSession, shape: Shape):
        torch = session.backend.torch
        self.session = session
        self.shape = shape
        self.dtype = session.dtype
        m, n, k = shape.m, shape.n, shape.k
        stride = _round_up(shape.input_elements, _ALIGN_ELEMENTS)
        if shape.input_elements > session.max_input_elements:
            raise ValueError(f"Shape {shape} needs more inputs than the pool holds")
        sets = 1
        if session.flush is None:
            sets = max(1, min(_MAX_ROTATIONS, session.max_input_elements // stride))
        pool = session.pool
        self.views: list[tuple[Any, Any]] = []
        for i in range(sets):
            off = i * stride
            a = pool[off : off + m * k].view(m, k)
            b = pool[off + m * k : off + m * k + n * k].view(n, k).t()
            self.views.append((a, b))
        self.fp8 = session.dtype == "fp8"
        out_dtype = torch.bfloat16 if self.fp8 else session.tdtype
        self.out = torch.empty(m, n, dtype=out_dtype, device=session.where)
        self.scale = torch.ones((), dtype=torch.float32, device=session.where)
        self._next = 0
        self._last = 0
        self._pending = False
        self._mm: Callable[[Any, Any], None] = self._plain if not self.fp8 else self._scaled_out
        if self.fp8:
            try:
                self._scaled_out(*self.views[0])
            except (RuntimeError, TypeError):
                self._mm = self._scaled_alloc

    def _plain(self, a: Any, b: Any) -> None:
        self.session.backend.torch.mm(a, b, out=self.out)

    def _scaled_out(self, a: Any, b: Any) -> None:
        torch = self.session.backend.torch
        torch._scaled_mm(
            a, b, scale_a=self.scale, scale_b=self.scale, out_dtype=torch.bfloat16, out=self.out
        )

    def _scaled_alloc(self, a: Any, b: Any) -> None:
        torch = self.session.backend.torch
        self.out = torch._scaled_mm(
            a, b, scale_a=self.scale, scale_b=self.scale, out_dtype=torch.bfloat16
        )

    def run(self) -> None:
        a, b = self.views[self._next]
        self._last = self._next
        self._next = (self._next + 1) % len(self.views)
        self._mm(a, b)
        self._pending = True

    def verify(self) -> None:
        """Checksum the output of the last call (queued on the device, not waited for)."""
        if not self._pending:
            return
        self._pending = False
        a, b = self.views[self._last]
        torch = self.session.backend.torch
        self.session.stats.append(call_stats(torch, self.out, a, b, self.dtype))

    def before(self) -> None:
        self.verify()  # the previous call's output, before this call overwrites it
        if self.session.flush is not None:
            self.session.flush.zero_()

    def check(self, *, blocks: int, block: int, seed: int) -> GemmCheck:
        torch = self.session.backend.torch
        backend = self.session.backend
        m, n, k = self.shape.m, self.shape.n, self.shape.k
        a, b = self.views[self._last]
        # fp64 reference on the device where it exists (CUDA, ROCm, CPU), else on the CPU.
        ref_on = self.session.where if backend.device_type != "xpu" else torch.device("cpu")
        rng = random.Random(seed)
        bm, bn = min(block, m), min(block, n)
        worst = 0.0
        nonfinite = 0
        self.verify()
        backend.synchronize(self.session.device)
        calls, failed, outlier, scale_error = summarize(torch, self.session.stats)
        self.session.stats.clear()
        for _ in range(blocks):
            r0 = rng.randrange(0, m - bm + 1)
            c0 = rng.randrange(0, n - bn + 1)
            got = self.out[r0 : r0 + bm, c0 : c0 + bn].to(ref_on).to(torch.float64)
            lhs = a[r0 : r0 + bm].to(ref_on).to(torch.float32).to(torch.float64)
            rhs = b[:, c0 : c0 + bn].to(ref_on).to(torch.float32).to(torch.float64)
            ref = lhs @ rhs
            finite = torch.isfinite(got)
            nonfinite += int((~finite).sum().item())
            error = float((got - ref).abs().max().item())  # NaN stays NaN, Inf stays Inf
            worst = error if math.isnan(error) or error > worst else worst
        return GemmCheck(
            max_error=worst / math.sqrt(k),
            nonfinite=nonfinite,
            blocks=blocks,
            calls_checked=calls,
            calls_failed=failed,
            outlier_score=outlier,
            scale_error=scale_error,
        )

    def close(self) -> None:
        if self.views:
            with contextlib.suppress(RuntimeError):  # a failing device already has its reason
                self.verify()
        self.views = []
        self.out = None


class _TorchStreamCase(StreamCase):
    def __init__(
        self, backend: TorchBackend, device: DeviceProps, elements: int, tdtype: Any, dtype: str
    ):
        torch = backend.torch
        self.torch = torch
        self.elements = int(elements)
        self.dtype = dtype
        where = backend._device(device)
        self.arrays: dict[str, Any] = {
            name: torch.full((self.elements,), value, dtype=tdtype, device=where)
            for name, value in STREAM_START.items()
        }
        self._dot: Any = None
        backend.synchronize(device)

    def kernel(self, name: str) -> Callable[[], None]:
        torch = self.torch
        a, b, c = self.arrays["a"], self.arrays["b"], self.arrays["c"]
        s = STREAM_SCALAR

        def copy() -> None:  # c = a            2 arrays moved
            c.copy_(a)

        def scale() -> None:  # b = s * c       2 arrays
            torch.mul(c, s, out=b)

        def add() -> None:  # c = a + b         3 arrays
            torch.add(a, b, out=c)

        def triad() -> None:  # a = b + s * c   3 arrays
            torch.add(b, c, alpha=s, out=a)

        def dot() -> None:  # sum(a * b)        2 arrays read
            self._dot = torch.dot(a, b)

        kernels = {"copy": copy, "scale": scale, "add": add, "triad": triad, "dot": dot}
        if name not in kernels:
            raise ValueError(f"Unknown stream kernel {name!r}: expected one of {list(kernels)}")
        return kernels[name]

    def deviation(self, array: str, expected: float) -> float:
        lo, hi = self.torch.aminmax(self.arrays[array])
        low, high = float(lo.item()), float(hi.item())
        if math.isnan(low) or math.isnan(high):
            return math.inf
        return max(abs(low - expected), abs(high - expected))

    def dot_value(self) -> float:
        if self._dot is None:
            raise RuntimeError("dot has not run yet")
        return float(self._dot.item())

    def close(self) -> None:
        self.arrays = {}
        self._dot = None
