"""Identity phase: the expected spec, the backend for what is visible."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from accelerators.bench.device._context import DeviceSelection
from accelerators.bench.measure._backend import Backend
from accelerators.bench.report._models import (
    Reason,
    ReasonCode,
    Severity,
)
from accelerators.errors import AcceleratorError

if TYPE_CHECKING:
    from accelerators.detect import Detected
    from accelerators.spec import AcceleratorSpec, SpecLike

__all__ = ["parse_expect", "sample_current", "select_backend"]


def sample_current() -> Detected:
    from accelerators.detect import current

    return current(refresh=True)


def parse_expect(expect: SpecLike | None) -> AcceleratorSpec | None:
    if expect is None:
        return None
    from accelerators.spec import AcceleratorSpec

    return AcceleratorSpec.coerce(expect)


def select_backend(
    detected: Detected, devices: DeviceSelection
) -> tuple[Backend | None, Reason | None]:
    """The torch backend for what is visible, or why there is none."""
    from accelerators.bench.torch_backend._backend import TorchBackend, import_torch

    cpu = detected.cpu

    def cpu_backend() -> TorchBackend:
        return TorchBackend("cpu", cpu_caches=(cpu.l2_bytes, cpu.l3_bytes), cpu_name=cpu.model_name)

    if devices == "cpu":
        return cpu_backend(), None
    indices = None if devices is None else tuple(int(i) for i in devices)
    kind = detected.kind
    try:
        if kind in ("tpu", "neuron", "hpu"):
            return None, Reason(
                code=ReasonCode.NOT_BENCHMARKED,
                severity=Severity.WARN,
                message=f"{detected.count} {kind} device(s) ({detected.raw_name}) identified "
                "but not benchmarked: accelerators.bench measures through torch on CUDA, "
                "ROCm, XPU and CPU",
            )
        if kind == "gpu":
            vendor = detected.devices[0].vendor if detected.devices else None
            device_type: Literal["cuda", "xpu"] = "xpu" if vendor == "intel" else "cuda"
            try:
                return TorchBackend(device_type, indices=indices), None
            except RuntimeError as exc:
                return None, Reason(
                    code=ReasonCode.BACKEND_UNAVAILABLE,
                    severity=Severity.FAIL,
                    message=f"{detected.count} GPU(s) visible ({detected.raw_name}), but "
                    f"{exc}: install a torch build for this GPU and driver",
                )
        torch = import_torch()
        if torch.cuda.is_available():
            return TorchBackend("cuda", indices=indices), None
        if indices not in (None, (0,)):
            raise AcceleratorError(
                f"Device selection {list(indices or ())} names devices that are not "
                "visible: no accelerator was found, only the CPU ('cpu' or 0)"
            )
        return cpu_backend(), None
    except ValueError as exc:
        if isinstance(exc, AcceleratorError):
            raise
        raise AcceleratorError(str(exc)) from exc
