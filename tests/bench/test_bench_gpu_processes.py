"""Another process on the GPU (NVML) is named as contention; when NVML cannot tell, why."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from accelerators.bench import ReasonCode, Severity, Verdict, run
from accelerators.bench.device._gpu_processes import Occupancy, gpu_occupancy, occupancy_reasons
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

_UUID = "GPU-11111111-2222-3333-4444-555555555555"


class _FakeNvml:
    """The pynvml calls gpu_occupancy makes, over planted processes."""

    def __init__(
        self,
        compute: list[tuple[int, int | None]],
        graphics: list[tuple[int, int | None]] = (),  # type: ignore[assignment]
        *,
        broken: str | None = None,
        unsupported: bool = False,
    ):
        self.compute, self.graphics = compute, list(graphics)
        self.broken, self.unsupported = broken, unsupported
        self.shut = False

    def nvmlInit(self) -> None:
        if self.broken:
            raise RuntimeError(self.broken)

    def nvmlShutdown(self) -> None:
        self.shut = True

    def nvmlDeviceGetCount(self) -> int:
        return 1

    def nvmlDeviceGetHandleByIndex(self, index: int) -> str:
        return f"handle{index}"

    def nvmlDeviceGetUUID(self, handle: str) -> bytes:
        return _UUID.encode()

    def _listed(self, items: list[tuple[int, int | None]]) -> list[Any]:
        if self.unsupported:
            raise RuntimeError("NVMLError_NotSupported: Not Supported")
        return [SimpleNamespace(pid=p, usedGpuMemory=m) for p, m in items]

    def nvmlDeviceGetComputeRunningProcesses(self, handle: str) -> list[Any]:
        return self._listed(self.compute)

    def nvmlDeviceGetGraphicsRunningProcesses(self, handle: str) -> list[Any]:
        return self._listed(self.graphics)

    def nvmlSystemGetProcessName(self, pid: int) -> bytes:
        return f"/usr/bin/trainer-{pid}".encode()

    def nvmlDeviceGetUtilizationRates(self, handle: str) -> Any:
        return SimpleNamespace(gpu=87, memory=40)


def test_other_processes_are_listed_and_our_own_left_out() -> None:
    nvml = _FakeNvml([(4242, 10 << 30), (99, 1 << 30)], [(4242, None)])
    found = gpu_occupancy(nvml=nvml, own_pid=99)
    assert isinstance(found, dict)
    occupancy = found[_UUID]
    assert [(p.pid, p.name, p.memory_bytes) for p in occupancy.processes] == [
        (4242, "trainer-4242", 10 << 30)
    ]
    assert occupancy.utilization_pct == 87
    assert nvml.shut


def test_why_nvml_cannot_tell_is_kept() -> None:
    assert gpu_occupancy(nvml=_FakeNvml([], broken="NVMLError_DriverNotLoaded")) == (
        "NVML could not start: RuntimeError: NVMLError_DriverNotLoaded"
    )
    found = gpu_occupancy(nvml=_FakeNvml([], unsupported=True), own_pid=1)
    assert isinstance(found, dict)
    (reason,) = occupancy_reasons(0, {"uuid": _UUID}, found, severity="warn")
    assert (reason.code, reason.severity) == (ReasonCode.OTHER_PROCESS, Severity.INFO)
    assert "NotSupported" in reason.message
    (absent,) = occupancy_reasons(0, {"uuid": "GPU-other"}, found, severity="warn")
    assert "no NVML GPU with its UUID" in absent.message


def _gate(occupancy: dict[str, Occupancy] | str, device: FakeDevice | None = None) -> Any:
    return run(
        "H100-SXM",
        backend=FakeBackend([device or FakeDevice()]),
        detected=fake_detected("H100-SXM", uuids=[_UUID]),
        processes=lambda: occupancy,
    )


def test_a_gate_names_another_process_on_the_gpu() -> None:
    found = gpu_occupancy(nvml=_FakeNvml([(4242, 10 << 30)]), own_pid=1)
    report = _gate(found)
    (reason,) = [r for r in report.reasons if r.code is ReasonCode.OTHER_PROCESS]
    assert reason.severity is Severity.WARN  # the contention policy's severity
    assert "other process on the device (pid 4242 trainer-4242, 10.0 GiB)" in reason.message
    assert "87 % utilised before the run" in reason.message
    assert report.verdict is Verdict.WARN


def test_a_slow_figure_beside_another_process_is_inconclusive_not_slow() -> None:
    rates = {"fp32": 20.0, "tf32": 180.0, "bf16": 400.0, "fp16": 400.0, "fp8": 700.0}
    found = gpu_occupancy(nvml=_FakeNvml([(4242, 10 << 30)]), own_pid=1)
    report = _gate(found, FakeDevice(gemm_tflops=rates))
    assert not any(r.code is ReasonCode.GEMM_SLOW for r in report.reasons)
    busy = [r for r in report.reasons if r.code is ReasonCode.NODE_BUSY]
    assert busy
    assert all("other process on the device (pid 4242" in r.message for r in busy)
    assert report.verdict is Verdict.WARN


def test_an_idle_gpu_adds_nothing_and_an_unreadable_one_says_why() -> None:
    idle = _gate({_UUID: Occupancy(_UUID, (), 0.0)})
    assert not any(r.code is ReasonCode.OTHER_PROCESS for r in idle.reasons)
    assert idle.verdict is Verdict.PASS
    unknown = _gate("pynvml (nvidia-ml-py) is not installed")
    (reason,) = [r for r in unknown.reasons if r.code is ReasonCode.OTHER_PROCESS]
    assert reason.severity is Severity.INFO
    assert "pynvml (nvidia-ml-py) is not installed" in reason.message
    assert unknown.verdict is Verdict.PASS
