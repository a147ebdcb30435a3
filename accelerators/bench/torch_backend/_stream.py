"""The five stream kernels over three torch arrays on one device."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from accelerators.bench.measure._backend import DeviceProps, StreamCase
from accelerators.bench.measure._stream import STREAM_SCALAR, STREAM_START
from accelerators.bench.torch_backend._gemm import TorchHost

__all__ = ["TorchStreamCase"]


class TorchStreamCase(StreamCase):
    def __init__(
        self, backend: TorchHost, device: DeviceProps, elements: int, tdtype: Any, dtype: str
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
