"""GEMM inputs and products through torch: the pool of one dtype on one device, and its cases.

Inputs are views into one pool of random normal values per dtype and device:

* GPUs flush the last-level cache before every timed call (a ``max(256 MiB, 4 x L2)`` buffer
  zeroed ahead of the start event, as mamf-finder does; 256 MiB also covers MI300X's
  Infinity Cache);
* CPUs rotate through up to 64 input sets cut from a pool of at least twice the LLC, so
  consecutive calls read inputs that are not in cache (a flush would cost more than a call).

``A`` is row-major ``m x k`` and ``B`` a transposed view of a row-major ``n x k`` block, the
layout mamf-finder uses and ``torch._scaled_mm`` requires for fp8 (and ``torch._int_mm``
prefers for int8).
"""

from __future__ import annotations

import contextlib
import functools
import math
import random
from collections.abc import Callable
from typing import Any, Protocol

from accelerators.bench.measure._backend import DeviceProps, GemmCase, GemmCheck, GemmSession, Shape
from accelerators.bench.torch_backend._abft import call_stats, summarize
from accelerators.bench.torch_backend._abft_exact import exact_call_stats
from accelerators.bench.torch_backend._block_scaled import (
    fp4_codes,
    fp4_ones_b,
    scaled_mm,
    unit_scales,
    widen_fp4,
)

__all__ = ["TorchGemmCase", "TorchGemmSession", "TorchHost"]

_MIB = 1 << 20
#: mamf-finder's flush size: "the largest LLC among current accelerators" (MI300X).
_MIN_FLUSH_BYTES = 256 * _MIB
#: Most input sets a CPU case rotates through.
_MAX_ROTATIONS = 64
#: Fresh random values generated on the CPU per pool; the rest of the pool repeats them. A
#: prime, so that no row of ``A`` can repeat a row of ``B`` (offsets ``k x (m + c - r)`` apart:
#: with a period of 8 Mi values, row ``r`` of ``A`` was column ``r + 1024`` of ``B`` at
#: 1024 x 1280 x 4096, and those outputs, sums of squares, read as a bf16 miscompare).
_CPU_FRESH_ELEMENTS = 8_388_593  # the largest prime below 8 Mi
#: GPU pools are drawn in chunks of this many values.
_GPU_CHUNK_ELEMENTS = 64 * _MIB
#: Views start on multiples of this many elements (keeps vector and tensor-core alignment).
_ALIGN_ELEMENTS = 64


class TorchHost(Protocol):
    """What the GEMM and stream cases need from :class:`~._backend.TorchBackend`."""

    @property
    def torch(self) -> Any: ...

    @property
    def kind(self) -> str: ...

    @property
    def device_type(self) -> str: ...

    def _device(self, device: DeviceProps) -> Any: ...

    def torch_dtype(self, dtype: str, device: DeviceProps) -> Any: ...

    def synchronize(self, device: DeviceProps) -> None: ...


def _integral(torch: Any, values: Any, dtype: str) -> Any:
    """``values`` as small integers for an int8 pool (``x 4``, rounded, clipped to +-16)."""
    if dtype != "int8":
        return values
    return torch.clamp(torch.round(values * 4), -16, 16)


def _widen(torch: Any, values: Any) -> Any:
    """``values`` in fp64 (narrow floats through fp32, which holds fp8/fp16/bf16 exactly)."""
    if values.dtype in (torch.float64, torch.int8):
        return values.to(torch.float64)
    return values.to(torch.float32).to(torch.float64)


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


class TorchGemmSession(GemmSession):
    def __init__(self, backend: TorchHost, device: DeviceProps, dtype: str, elements: int):
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
        # int8 likewise: normal values x 4 rounded and clipped to +-16, so that every product
        # and every checksum is an integer far below 2**53 (exact in fp64, see _abft_exact).
        gen_dtype = torch.float32 if dtype in ("fp8", "mxfp8", "int8") else self.tdtype
        self.pool = torch.empty(elements, dtype=self.tdtype, device=self.where)
        if dtype == "fp4":  # random E2M1 codes, both nibbles of a byte equal (_block_scaled)
            for start in range(0, elements, _GPU_CHUNK_ELEMENTS):
                stop = min(elements, start + _GPU_CHUNK_ELEMENTS)
                self.pool[start:stop].copy_(fp4_codes(torch, stop - start, generator, self.where))
        elif backend.kind == "cpu":
            # Page faults and randn cost more than a call on a VM: draw ~8 Mi values and repeat
            # them (a prime period); rotation is about addresses (cache), the values stay
            # random normal.
            fresh = min(elements, _CPU_FRESH_ELEMENTS)
            block = _integral(
                torch, torch.randn(fresh, dtype=gen_dtype, generator=generator), dtype
            )
            for start in range(0, elements, fresh):
                stop = min(elements, start + fresh)
                self.pool[start:stop].copy_(block[: stop - start])
        else:
            for start in range(0, elements, _GPU_CHUNK_ELEMENTS):
                stop = min(elements, start + _GPU_CHUNK_ELEMENTS)
                draw = _integral(
                    torch,
                    torch.randn(
                        stop - start, dtype=gen_dtype, device=self.where, generator=generator
                    ),
                    dtype,
                )
                self.pool[start:stop].copy_(draw)
        #: Per-call checksum results of every case of this session (device tensors).
        self.stats: list[Any] = []
        self.flush: Any = None
        if backend.kind != "cpu":
            flush_bytes = max(_MIN_FLUSH_BYTES, 4 * (device.llc_bytes or 0))
            self.flush = torch.empty(flush_bytes, dtype=torch.int8, device=self.where)

    def case(self, shape: Shape) -> GemmCase:
        return TorchGemmCase(self, shape)

    def close(self) -> None:
        self.pool = None
        self.flush = None


class TorchGemmCase(GemmCase):
    def __init__(self, session: TorchGemmSession, shape: Shape):
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
        self.block_scaled = session.dtype in ("mxfp8", "fp4")
        kk = k // 2 if session.dtype == "fp4" else k  # stored columns: FP4 packs two per byte
        self.views: list[tuple[Any, Any]] = []
        for i in range(sets):
            off = i * stride
            a = pool[off : off + m * kk].view(m, kk)
            b = pool[off + m * kk : off + m * kk + n * kk].view(n, kk).t()
            self.views.append((a, b))
        self.fp8 = session.dtype == "fp8"
        self.int8 = session.dtype == "int8"
        bf16_out = self.fp8 or self.block_scaled
        out_dtype = torch.bfloat16 if bf16_out else torch.int32 if self.int8 else session.tdtype
        self.out = torch.empty(m, n, dtype=out_dtype, device=session.where)
        self.scale = torch.ones((), dtype=torch.float32, device=session.where)
        self.block_scales: tuple[Any, Any] = (None, None)
        if self.block_scaled:
            self.block_scales = (
                unit_scales(torch, m, k, session.where),
                unit_scales(torch, n, k, session.where),
            )
        self._next = 0
        self._last = 0
        self._pending = False
        self._ran = False  # ``out`` is uninitialised memory until the first call
        self._mm: Callable[[Any, Any], None] = self._plain
        if self.block_scaled:
            self._mm = self._block_scaled
        elif self.fp8 or self.int8:
            # The out= overload where this torch has it, else a new output per call.
            self._mm = self._scaled_out if self.fp8 else self._int_out
            try:
                self._mm(*self.views[0])
            except (RuntimeError, TypeError):
                self._mm = self._scaled_alloc if self.fp8 else self._int_alloc

    def _plain(self, a: Any, b: Any) -> None:
        self.session.backend.torch.mm(a, b, out=self.out)

    def _scaled_out(self, a: Any, b: Any) -> None:
        torch = self.session.backend.torch
        torch._scaled_mm(
            a, b, scale_a=self.scale, scale_b=self.scale, out_dtype=torch.bfloat16, out=self.out
        )

    def _block_scaled(self, a: Any, b: Any) -> None:
        torch = self.session.backend.torch
        self.out = scaled_mm(torch, self.dtype, a, b, self.block_scales)

    def _int_out(self, a: Any, b: Any) -> None:
        self.session.backend.torch._int_mm(a, b, out=self.out)

    def _int_alloc(self, a: Any, b: Any) -> None:
        self.out = self.session.backend.torch._int_mm(a, b)

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
        self._ran = True

    def verify(self) -> None:
        """Checksum the output of the last call (queued on the device, not waited for)."""
        if not self._pending:
            return
        self._pending = False
        a, b = self.views[self._last]
        torch = self.session.backend.torch
        if self.int8:
            self.session.stats.append(exact_call_stats(torch, self.out, a, b))
        elif self.dtype == "fp4":
            widen = functools.partial(widen_fp4, torch, dtype=torch.float32)
            ones_b = fp4_ones_b(torch, b)
            self.session.stats.append(
                call_stats(torch, self.out, a, b, "fp8", widen=widen, ones_b=ones_b)
            )
        else:
            floors = "fp8" if self.block_scaled else self.dtype  # bf16 output, as fp8's
            self.session.stats.append(call_stats(torch, self.out, a, b, floors))

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
        if not self._ran:
            # No call wrote ``out``: its blocks are whatever memory ``torch.empty`` returned
            # (NaN, 1e18...), not a result. Comparing them was a false miscompare.
            blocks = 0
        for _ in range(blocks):
            r0 = rng.randrange(0, m - bm + 1)
            c0 = rng.randrange(0, n - bn + 1)
            got = self.out[r0 : r0 + bm, c0 : c0 + bn].to(ref_on).to(torch.float64)
            lhs, rhs = a[r0 : r0 + bm].to(ref_on), b[:, c0 : c0 + bn].to(ref_on)
            if self.dtype == "fp4":  # doubled codes: C = 2 v(A8) v(B8)
                lhs = widen_fp4(torch, lhs, torch.float64)
                rhs = 2 * widen_fp4(torch, rhs, torch.float64)
            else:
                lhs, rhs = _widen(torch, lhs), _widen(torch, rhs)
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
