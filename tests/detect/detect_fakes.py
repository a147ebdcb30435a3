"""Fakes shared by the tests of ``accelerators.detect``: a small catalog, pynvml, torch,
vendor command lines and sysfs trees. No GPU is needed anywhere."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from accelerators.catalog._schema import Accelerator
from accelerators.detect import Detected
from accelerators.detect._nvidia import NvmlProbe

GiB = 1 << 30
MiB = 1 << 20


# -- a small fake catalog, independent of the packaged data ----------------------------------
def entry(
    name: str, model: str, vendor: str, device_class: str, memory: float, **more: Any
) -> Accelerator:
    fig = {"value": memory, "source": "test"}
    return Accelerator.model_validate(
        {
            "name": name,
            "model": model,
            "vendor": vendor,
            "family": model,
            "device_class": device_class,
            "architecture": "test",
            "form_factor": "test",
            "memory_type": "HBM",
            "interconnect": "test",
            "memory_gb": fig,
            "bandwidth_tbps": {"value": 1.0, "source": "test"},
            **more,
        }
    )


def mig_entry(profile: str, memory: float) -> dict[str, Any]:
    g = int(profile[0])
    return {
        "profile": profile,
        "max_instances": 7 // g,
        "compute_slices": g,
        "memory_slices": g,
        "memory_gb": memory,
        "sm_fraction": g / 7,
        "source": "test",
    }


H100 = entry("H100-SXM", "H100-SXM", "nvidia", "gpu", 80, names={"nvml": ["NVIDIA H100 80GB HBM3"]})
A100_80 = entry(
    "A100-80GB-SXM",
    "A100-80GB",
    "nvidia",
    "gpu",
    80,
    names={"nvml": ["NVIDIA A100-SXM4-80GB"]},
    mig=[mig_entry("1g.10gb", 10), mig_entry("3g.40gb", 40)],
)
MI300X = entry("MI300X", "MI300X", "amd", "gpu", 192, names={"rocm": ["AMD Instinct MI300X"]})
V5E = entry(
    "TPU-V5E",
    "TPU-V5E",
    "google",
    "tpu",
    16,
    aliases=["v5e"],
    tpu_topologies=[{"topology": "2x4", "chips": 8, "source": "test"}],
)
TRN2 = entry("TRAINIUM2", "TRAINIUM2", "aws", "neuron", 96, aliases=["Trainium2", "trn2"])
GAUDI2 = entry("GAUDI2", "GAUDI2", "intel", "hpu", 96, aliases=["Gaudi2"])
CATALOG = (H100, A100_80, MI300X, V5E, TRN2, GAUDI2)


# -- fake pynvml ------------------------------------------------------------------------------
class FakeNVMLError(Exception):
    pass


@dataclass
class Handle:
    name: str | bytes
    uuid: str
    memory: int
    sms: int | None = None
    cc: tuple[int, int] = (9, 0)
    mig_mode: int | None = None  # None: MIG not supported
    migs: list[Handle] = field(default_factory=list)
    gi: int | None = None
    clocks: dict[int, int] = field(default_factory=lambda: {0: 1755, 1: 1755, 2: 2619})
    max_clocks: dict[int, int] = field(default_factory=lambda: {0: 1980, 1: 1980, 2: 2619})
    reasons: int = 0
    temp: int = 41
    power_mw: int = 350_000
    limit_mw: int = 700_000
    ecc: int = 0


class FakeNvml:
    """The slice of pynvml's API the probe uses, with MIG enumeration."""

    NVMLError = FakeNVMLError

    def __init__(self, gpus: list[Handle], *, init_error: bool = False, event_api: bool = True):
        self.gpus = gpus
        self.init_error = init_error
        self.event_api = event_api
        self.shut_down = False

    def nvmlInit(self) -> None:
        if self.init_error:
            raise FakeNVMLError("NVML Shared Library Not Found")

    def nvmlShutdown(self) -> None:
        self.shut_down = True

    def nvmlSystemGetDriverVersion(self) -> str:
        return "550.54.15"

    def nvmlDeviceGetCount(self) -> int:
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> Handle:
        return self.gpus[index]

    def nvmlDeviceGetName(self, h: Handle) -> str | bytes:
        return h.name

    def nvmlDeviceGetUUID(self, h: Handle) -> str:
        return h.uuid

    def nvmlDeviceGetMemoryInfo(self, h: Handle) -> SimpleNamespace:
        return SimpleNamespace(total=h.memory, free=h.memory, used=0)

    def nvmlDeviceGetMigMode(self, h: Handle) -> list[int]:
        if h.mig_mode is None:
            raise FakeNVMLError("Not Supported")
        return [h.mig_mode, h.mig_mode]

    def nvmlDeviceGetMaxMigDeviceCount(self, h: Handle) -> int:
        return 7

    def nvmlDeviceGetMigDeviceHandleByIndex(self, h: Handle, index: int) -> Handle:
        if index >= len(h.migs):
            raise FakeNVMLError("Not Found")
        return h.migs[index]

    def nvmlDeviceGetGpuInstanceId(self, h: Handle) -> int:
        if h.gi is None:
            raise FakeNVMLError("Invalid Argument")
        return h.gi

    def nvmlDeviceGetAttributes(self, h: Handle) -> SimpleNamespace:
        if h.sms is None:
            raise FakeNVMLError("Not Supported")
        return SimpleNamespace(multiprocessorCount=h.sms)

    def nvmlDeviceGetCudaComputeCapability(self, h: Handle) -> tuple[int, int]:
        return h.cc

    def nvmlDeviceGetClockInfo(self, h: Handle, clock: int) -> int:
        return h.clocks[clock]

    def nvmlDeviceGetMaxClockInfo(self, h: Handle, clock: int) -> int:
        return h.max_clocks[clock]

    def nvmlDeviceGetCurrentClocksEventReasons(self, h: Handle) -> int:
        if not self.event_api:
            raise FakeNVMLError("Function Not Found")
        return h.reasons

    def nvmlDeviceGetCurrentClocksThrottleReasons(self, h: Handle) -> int:
        return h.reasons

    def nvmlDeviceGetTemperature(self, h: Handle, sensor: int) -> int:
        return h.temp

    def nvmlDeviceGetPowerUsage(self, h: Handle) -> int:
        return h.power_mw

    def nvmlDeviceGetEnforcedPowerLimit(self, h: Handle) -> int:
        return h.limit_mw

    def nvmlDeviceGetTotalEccErrors(self, h: Handle, error_type: int, counter: int) -> int:
        return h.ecc


def h100s(n: int = 8) -> list[Handle]:
    return [
        Handle("NVIDIA H100 80GB HBM3", f"GPU-{i:08x}-aaaa", 80 * GiB, sms=132) for i in range(n)
    ]


def a100_mig() -> list[Handle]:
    slices = [
        Handle("NVIDIA A100-SXM4-80GB MIG 1g.10gb", f"MIG-{i:08x}-bbbb", 9728 * MiB, sms=14, gi=i)
        for i in (7, 8)
    ]
    whole = Handle(
        "NVIDIA A100-SXM4-80GB", "GPU-a100", 80 * GiB, cc=(8, 0), mig_mode=1, migs=slices
    )
    return [whole, Handle("NVIDIA A100-SXM4-80GB", "GPU-a101", 80 * GiB, cc=(8, 0), mig_mode=0)]


def head(found: Detected) -> tuple[str, str, int, Accelerator | None]:
    """The four facts most tests check first."""
    return (found.kind, found.source, found.count, found.accelerator)


def nvml_probe(gpus: list[Handle], env: Mapping[str, str] | None = None, **kw: Any) -> NvmlProbe:
    return NvmlProbe(nvml=FakeNvml(gpus, **kw), env=env or {}, catalog=CATALOG)


# -- fake torch -------------------------------------------------------------------------------
def fake_torch(names: Sequence[str], *, hip: str | None = None, available: bool = True) -> Any:
    def props(index: int) -> SimpleNamespace:
        return SimpleNamespace(
            name=names[index],
            total_memory=80 * GiB,
            multi_processor_count=132 if hip is None else 304,
            major=9,
            minor=0,
            L2_cache_size=50 * MiB,
            gcnArchName="gfx942:sramecc+:xnack-" if hip else None,
        )

    cuda = SimpleNamespace(
        is_available=lambda: available,
        device_count=lambda: len(names),
        get_device_properties=props,
    )
    return SimpleNamespace(
        version=SimpleNamespace(hip=hip, cuda=None if hip else "12.4"), cuda=cuda
    )


# -- vendor command lines ---------------------------------------------------------------------
class FakeRunner:
    """Answers fixed argv with canned output; records the calls."""

    def __init__(self, answers: Mapping[str, tuple[int, str]]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, argv: Sequence[str], timeout: float) -> tuple[int, str]:
        assert 0 < timeout <= 60
        self.calls.append(tuple(argv))
        return self.answers.get(argv[0], (127, ""))


def amd_smi_json(n: int = 8, *, wrapped: bool = False, size: Any = None) -> str:
    gpus = [
        {
            "gpu": i,
            "asic": {
                "market_name": "AMD Instinct MI300X",
                "vendor_id": "0x1002",
                "device_id": "0x74a1",
                "num_compute_units": 304,
                "target_graphics_version": "gfx942",
            },
            "vram": {"type": "HBM", "size": size or {"value": 196592, "unit": "MB"}},
        }
        for i in range(n)
    ]
    return json.dumps({"gpu_data": gpus} if wrapped else gpus)


# -- TPU environment and Neuron sysfs ---------------------------------------------------------
V5E_ENV = {
    "TPU_ACCELERATOR_TYPE": "v5litepod-8",
    "TPU_CHIPS_PER_HOST_BOUNDS": "2,4,1",
    "TPU_HOST_BOUNDS": "1,1,1",
    "TPU_TOPOLOGY": "2x4",
    "TPU_WORKER_HOSTNAMES": "localhost",
    "TPU_WORKER_ID": "0",
}


def neuron_tree(root: Path, devices: int = 16, name: str = "Trainium2", cores: int = 8) -> Path:
    for n in range(devices):
        device = root / "devices" / "virtual" / "neuron_device" / f"neuron{n}"
        arch = device / "info" / "architecture"
        arch.mkdir(parents=True)
        (arch / "device_name").write_text(name + "\n")
        (arch / "instance_type").write_text("Trn2\n")
        (arch / "arch_type").write_text("NDv4\n")
        (device / "core_count").write_text(f"{cores}\n")
        (device / "info" / "serial_number").write_text(f"{n:016x}\n")
        ecc = device / "stats" / "hardware" / "mem_ecc_uncorrected"
        ecc.mkdir(parents=True)
        (ecc / "total").write_text("0\n")
        (ecc / "present").write_text("0\n")
        (device / "stats" / "hardware" / "sram_ecc_uncorrected").write_text("1\n")
    return root
