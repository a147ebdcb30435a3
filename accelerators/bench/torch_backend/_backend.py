"""The torch implementation of :class:`~accelerators.bench.measure._backend.Backend`.

One class covers CUDA, ROCm (torch's ``cuda`` device on a HIP build), Intel XPU and the CPU.
torch is imported when a :class:`TorchBackend` is created, never at module import.

GEMM pools and cases live in :mod:`~accelerators.bench.torch_backend._gemm`, the stream arrays in
:mod:`~accelerators.bench.torch_backend._stream`.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from accelerators.bench.measure._backend import (
    Backend,
    BackendKind,
    DeviceProps,
    GemmSession,
    StreamCase,
)
from accelerators.bench.measure._timing import EventTimer, SyncTimer, Timer
from accelerators.bench.torch_backend import _dtypes
from accelerators.bench.torch_backend._gemm import TorchGemmCase, TorchGemmSession
from accelerators.bench.torch_backend._stream import TorchStreamCase

#: Device-side wait enqueued ahead of each timed call on CUDA (:class:`EventTimer`'s spacer):
#: longer than the host needs to enqueue a start event, one call and an end event (tens of
#: microseconds in Python), short against the calls timed (a GEMM of the search: 0.1-10 ms).
SPACER_S = 50e-6

#: The GEMM case class under its former name (tests and benchmarks/fault_detection.py wrap it).
_TorchGemmCase = TorchGemmCase

__all__ = ["TORCH_IMPORT_ERROR_MESSAGE", "TorchBackend", "import_torch"]

TORCH_IMPORT_ERROR_MESSAGE = (
    "accelerators.bench needs torch, which is not installed. "
    'Install it with: pip install "accelerators[bench]"'
)


def import_torch() -> Any:
    """Import torch or raise :class:`ImportError` saying how to install it."""
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - torch is installed where tests run
        raise ImportError(TORCH_IMPORT_ERROR_MESSAGE) from exc
    return torch


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
        return _dtypes.unsupported(self.torch, self.kind, device, dtype, self._device(device))

    def torch_dtype(self, dtype: str, device: DeviceProps) -> Any:
        """The torch dtype that stores ``dtype`` inputs on ``device``."""
        return _dtypes.torch_dtype(self.torch, self.kind, device, dtype)

    def stream_dtype(self, device: DeviceProps) -> str:
        if self.device_type == "xpu":
            props = self.torch.xpu.get_device_properties(device.index)
            if not getattr(props, "has_fp64", True):
                return "fp32"
        return "fp64"

    # -- sessions ------------------------------------------------------------------------
    def open_gemm(self, device: DeviceProps, dtype: str, *, pool_elements: int) -> GemmSession:
        return TorchGemmSession(self, device, dtype, pool_elements)

    def open_stream(self, device: DeviceProps, *, elements: int, dtype: str) -> StreamCase:
        return TorchStreamCase(self, device, elements, self.torch_dtype(dtype, device), dtype)

    def timer(self, device: DeviceProps) -> Timer:
        if self.device_type == "cuda":
            return EventTimer(self.torch.cuda, device.index, spacer=self._spacer(device))
        if self.device_type == "xpu":
            return EventTimer(self.torch.xpu, device.index)
        return SyncTimer()

    def _spacer(self, device: DeviceProps) -> Any:
        """About :data:`SPACER_S` of device-side busy wait (``torch.cuda._sleep`` spins for
        a number of clock cycles), or ``None`` where this torch lacks it."""
        sleep = getattr(self.torch.cuda, "_sleep", None)
        if sleep is None:
            return None
        p = self.torch.cuda.get_device_properties(device.index)
        khz = getattr(p, "clock_rate", None) or 2_000_000  # the SM clock in kHz, when exposed
        cycles = round(SPACER_S * khz * 1e3)
        return lambda: sleep(cycles)

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
