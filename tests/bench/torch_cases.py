"""Shared by the torch-backend correctness tests: time a few calls of one real GEMM case,
corrupting its output after each call if asked, then run the case's check."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from accelerators.bench._backend import Shape


def run_checked_case(
    backend: Any, dtype: str, corrupt: Callable[[Any, int], None] | None, calls: int
) -> Any:
    """``calls`` timed calls of a 384x320x512 ``dtype`` GEMM on ``backend``'s one device, each
    output handed to ``corrupt(out, call)``; returns ``case.check(...)``."""
    from accelerators.bench._torch_backend import _TorchGemmCase

    (device,) = backend.devices()
    session = backend.open_gemm(device, dtype, pool_elements=1 << 20)
    case = session.case(Shape(384, 320, 512))
    if not isinstance(case, _TorchGemmCase):
        raise TypeError(f"expected a torch GEMM case, got {type(case).__name__}")
    try:
        for call in range(calls):
            case.before()
            case.run()
            if corrupt is not None:
                corrupt(case.out, call)
        return case.check(blocks=2, block=32, seed=1)
    finally:
        case.close()
        session.close()
