"""`accelerators.detect`: every probe against fakes (no GPU needed), the CPU on this machine."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import accelerators
import accelerators.detect as detect
from accelerators.catalog._schema import Accelerator
from accelerators.detect import CpuInfo, Detected, DeviceInfo, Probe, cpu_info, current
from accelerators.detect._gaudi import GaudiProbe, gaudi_name_candidates
from accelerators.detect._neuron import NeuronProbe
from accelerators.detect._nvidia import (
    NvmlProbe,
    TorchCudaProbe,
    parse_mig_name,
    throttle_reason_names,
)
from accelerators.detect._rocm import RocmProbe, amd_name_candidates
from accelerators.detect._tpu import TpuProbe, tpu_name_candidates

GiB = 1 << 30
MiB = 1 << 20


# -- a small fake catalog, independent of the packaged data ----------------------------------
def _entry(
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


def _mig(profile: str, memory: float) -> dict[str, Any]:
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


H100 = _entry("H100-SXM", "H100", "nvidia", "gpu", 80, names={"nvml": ["NVIDIA H100 80GB HBM3"]})
A100_80 = _entry(
    "A100-80GB-SXM",
    "A100-80GB",
    "nvidia",
    "gpu",
    80,
    names={"nvml": ["NVIDIA A100-SXM4-80GB"]},
    mig=[_mig("1g.10gb", 10), _mig("3g.40gb", 40)],
)
MI300X = _entry("MI300X", "MI300X", "amd", "gpu", 192, names={"rocm": ["AMD Instinct MI300X"]})
V5E = _entry(
    "TPU-V5E",
    "TPU-V5E",
    "google",
    "tpu",
    16,
    aliases=["v5e"],
    tpu_topologies=[{"topology": "2x4", "chips": 8, "source": "test"}],
)
TRN2 = _entry("TRAINIUM2", "TRAINIUM2", "aws", "neuron", 96, aliases=["Trainium2", "trn2"])
GAUDI2 = _entry("GAUDI2", "GAUDI2", "intel", "hpu", 96, aliases=["Gaudi2"])
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


# -- NVML ---------------------------------------------------------------------------------
def test_nvml_eight_h100_with_telemetry() -> None:
    # GIVEN eight H100s, GPU 0 power-capped and thermally slowed (idle bit set too)
    gpus = h100s()
    gpus[0].reasons = 0x1 | 0x4 | 0x40
    fake = FakeNvml(gpus)
    # WHEN detecting
    found = current(probes=[NvmlProbe(nvml=fake, env={}, catalog=CATALOG)])
    # THEN all eight are the catalog's H100-SXM, with NVML's telemetry
    assert (found.kind, found.source, found.count, found.reason) == ("gpu", "nvml", 8, None)
    assert found.accelerator is H100
    assert all(d.accelerator is H100 for d in found.devices)
    first = found.devices[0]
    assert first.throttle_reasons == ("sw_power_cap", "hw_thermal_slowdown")
    assert found.devices[1].throttle_reasons == ()
    assert first.clocks_mhz == {
        "graphics": 1755.0, "graphics_max": 1980.0, "sm": 1755.0, "sm_max": 1980.0,
        "mem": 2619.0, "mem_max": 2619.0,
    }  # fmt: skip
    assert (first.multiprocessors, first.compute_capability) == (132, "9.0")
    assert (first.temperature_c, first.power_w, first.power_limit_w, first.ecc_errors) == (
        41.0, 350.0, 700.0, 0,
    )  # fmt: skip
    assert first.memory_bytes == 80 * GiB
    assert found.memory_gb == 80.0
    assert first.extra["uuid"] == "GPU-00000000-aaaa"
    assert first.extra["driver_version"] == "550.54.15"
    assert not found.is_mig
    assert found.mig_profile is None
    assert str(found.to_spec()) == "H100:8"
    assert fake.shut_down


def test_nvml_falls_back_to_the_throttle_reasons_call_of_older_drivers() -> None:
    gpus = h100s(1)
    gpus[0].reasons = 0x8
    devices = nvml_probe(gpus, event_api=False).detect()
    assert devices is not None
    assert devices[0].throttle_reasons == ("hw_slowdown",)


def test_nvml_pinned_to_a_mig_device() -> None:
    # GIVEN a process pinned to the second 1g.10gb slice of an A100 80GB
    probe = nvml_probe(a100_mig(), {"CUDA_VISIBLE_DEVICES": "MIG-00000008-bbbb"})
    found = current(probes=[probe])
    # THEN it sees one MIG device of the A100-80GB, and the spec says so
    assert (found.kind, found.count, found.is_mig, found.mig_profile) == ("gpu", 1, True, "1g.10gb")
    assert found.accelerator is A100_80
    assert found.raw_name == "NVIDIA A100-SXM4-80GB MIG 1g.10gb"
    device = found.devices[0]
    assert device.memory_bytes == 9728 * MiB
    assert device.multiprocessors == 14
    assert device.compute_capability == "8.0"  # from the parent GPU
    assert device.extra["parent_uuid"] == "GPU-a100"
    assert device.extra["gpu_instance_id"] == "8"
    spec = found.to_spec()
    assert spec is not None
    assert str(spec) == "A100-80GB@1g.10gb"
    assert (spec.accelerator, spec.count, spec.partition) == (A100_80, 1, "1g.10gb")


def test_nvml_without_visible_devices_lists_mig_devices_then_whole_gpus() -> None:
    found = current(probes=[nvml_probe(a100_mig())])
    assert [d.is_mig for d in found.devices] == [True, True, False]
    assert [d.mig_profile for d in found.devices] == ["1g.10gb", "1g.10gb", None]
    # to_spec counts the devices like device 0 only
    assert str(found.to_spec()) == "A100-80GB@1g.10gb:2"


def test_nvml_legacy_mig_uuid_form() -> None:
    found = current(probes=[nvml_probe(a100_mig(), {"CUDA_VISIBLE_DEVICES": "MIG-GPU-a100/7/0"})])
    assert found.count == 1
    assert found.devices[0].extra["uuid"] == "MIG-00000007-bbbb"


def test_mig_profile_not_in_the_catalog_gives_no_spec() -> None:
    gpus = a100_mig()
    gpus[0].migs[0].name = "NVIDIA A100-SXM4-80GB MIG 2g.20gb"
    found = current(probes=[nvml_probe(gpus, {"CUDA_VISIBLE_DEVICES": "MIG-00000007-bbbb"})])
    assert found.accelerator is A100_80
    assert found.mig_profile == "2g.20gb"
    assert found.to_spec() is None


@pytest.mark.parametrize(
    ("visible", "expected"),
    [
        ("2,0", ["GPU-00000002-aaaa", "GPU-00000000-aaaa"]),
        ("GPU-00000003", ["GPU-00000003-aaaa"]),  # UUID prefix
        ("1,bogus,2", ["GPU-00000001-aaaa"]),  # CUDA stops at the first bad entry
        ("1,1", ["GPU-00000001-aaaa"]),
    ],
)
def test_cuda_visible_devices_selects_and_orders(visible: str, expected: list[str]) -> None:
    devices = nvml_probe(h100s(4), {"CUDA_VISIBLE_DEVICES": visible}).detect()
    assert devices is not None
    assert [d.extra["uuid"] for d in devices] == expected
    assert [d.index for d in devices] == list(range(len(expected)))
    assert [d.extra["nvml_index"] for d in devices] == [
        u[4:12].lstrip("0") or "0" for u in expected
    ]


@pytest.mark.parametrize("visible", ["", "-1", "NoDevFiles"])
def test_cuda_visible_devices_hiding_everything_falls_through_to_cpu(visible: str) -> None:
    probe = nvml_probe(h100s(2), {"CUDA_VISIBLE_DEVICES": visible})
    found = current(probes=[probe])
    assert probe.detect() == ()
    assert found.kind == "cpu"
    assert found.reason is not None
    assert "hides all 2 GPU(s)" in found.reason


def test_nvml_name_not_in_the_catalog() -> None:
    # GIVEN an NVML name the catalog does not know (sent as bytes, as old pynvml does)
    gpus = [Handle(b"NVIDIA Foo 9000", "GPU-f", 48 * GiB)]
    found = current(probes=[nvml_probe(gpus)])
    # THEN it is still a GPU, with no entry, and the reason names the string
    assert (found.kind, found.accelerator, found.raw_name) == ("gpu", None, "NVIDIA Foo 9000")
    assert found.reason == "NVML reported 'NVIDIA Foo 9000', which is not in the catalog"
    assert found.to_spec() is None
    assert found.memory_gb == 48.0


def test_nvml_that_cannot_start_lets_the_next_probe_answer() -> None:
    broken = nvml_probe(h100s(), init_error=True)
    found = current(probes=[broken, nvml_probe(h100s(2))])
    assert broken.reason is not None
    assert "NVML could not start" in broken.reason
    assert not broken.failed
    assert found.count == 2


def test_mig_names_and_throttle_masks() -> None:
    assert parse_mig_name("NVIDIA H100 80GB HBM3 MIG 1c.2g.20gb") == (
        "NVIDIA H100 80GB HBM3", "2g.20gb", True,
    )  # fmt: skip
    assert parse_mig_name("NVIDIA H100 80GB HBM3 MIG 1g.10gb+me")[1] == "1g.10gb+me"
    assert parse_mig_name("Ampere A100-SXM4-40GB MIG 1g.5gb") == (
        "Ampere A100-SXM4-40GB",
        "1g.5gb",
        True,
    )
    assert parse_mig_name("NVIDIA A100-SXM4-40GB MIG") == ("NVIDIA A100-SXM4-40GB", None, True)
    assert parse_mig_name("NVIDIA MIGHTY 9") == ("NVIDIA MIGHTY 9", None, False)
    assert throttle_reason_names(0x1 | 0x2) == ()
    assert throttle_reason_names(0x20 | 0x80 | 0x1000) == (
        "sw_thermal_slowdown", "hw_power_brake_slowdown", "unknown_0x1000",
    )  # fmt: skip


# -- torch.cuda ---------------------------------------------------------------------------
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


def test_torch_cuda_probe() -> None:
    torch = fake_torch(["NVIDIA H100 80GB HBM3"] * 2)
    found = current(probes=[TorchCudaProbe(torch=torch, catalog=CATALOG)])
    assert head(found) == ("gpu", "torch.cuda", 2, H100)
    first = found.devices[0]
    assert (first.multiprocessors, first.compute_capability, first.l2_cache_bytes) == (
        132, "9.0", 50 * MiB,
    )  # fmt: skip


def test_torch_cuda_probe_sees_mig_names() -> None:
    torch = fake_torch(["NVIDIA A100-SXM4-80GB MIG 3g.40gb"])
    found = current(probes=[TorchCudaProbe(torch=torch, catalog=CATALOG)])
    assert (found.accelerator, found.is_mig, str(found.to_spec())) == (
        A100_80,
        True,
        "A100-80GB@3g.40gb",
    )


def test_torch_cuda_probe_leaves_rocm_builds_and_unavailable_cuda_alone() -> None:
    rocm = TorchCudaProbe(torch=fake_torch(["AMD Instinct MI300X"], hip="6.2"), catalog=CATALOG)
    assert rocm.detect() is None
    assert rocm.reason is not None
    assert "ROCm" in rocm.reason
    off = TorchCudaProbe(torch=fake_torch([], available=False), catalog=CATALOG)
    assert off.detect() is None
    assert off.reason == "torch.cuda.is_available() is False"


def test_torch_cuda_probe_does_not_import_torch_without_a_driver(tmp_path: Path) -> None:
    # GIVEN an empty filesystem root: no /proc/driver/nvidia, no /dev/nvidiactl
    code = (
        "import sys; from accelerators.detect._nvidia import TorchCudaProbe; "
        f"p = TorchCudaProbe(root={str(tmp_path)!r}); "
        "print(p.detect(), p.reason, 'torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "None no NVIDIA driver found False"


# -- ROCm ---------------------------------------------------------------------------------
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


@pytest.fixture
def kfd_root(tmp_path: Path) -> Path:
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "kfd").touch()
    return tmp_path


def rocm_probe(root: Path, runner: FakeRunner, env: Mapping[str, str] | None = None) -> RocmProbe:
    return RocmProbe(run=runner, env=env or {}, root=str(root), catalog=CATALOG)


@pytest.mark.parametrize(
    "output",
    [amd_smi_json(), amd_smi_json(wrapped=True), amd_smi_json(size="196592 MB")],
    ids=["list", "gpu_data", "size-string"],
)
def test_rocm_from_amd_smi(kfd_root: Path, output: str) -> None:
    runner = FakeRunner({"amd-smi": (0, output)})
    found = current(probes=[rocm_probe(kfd_root, runner)])
    assert head(found) == ("gpu", "rocm", 8, MI300X)
    first = found.devices[0]
    assert (first.vendor, first.multiprocessors, first.compute_capability) == ("amd", 304, "gfx942")
    assert first.memory_bytes == 196592 * MiB
    assert first.extra["tool"] == "amd-smi"
    assert first.extra["device_id"] == "0x74a1"
    assert str(found.to_spec()) == "MI300X:8"
    assert runner.calls == [("amd-smi", "static", "--asic", "--vram", "--json")]


def test_rocm_visible_devices_narrow_the_smi_list(kfd_root: Path) -> None:
    runner = FakeRunner({"amd-smi": (0, amd_smi_json())})
    devices = rocm_probe(kfd_root, runner, {"HIP_VISIBLE_DEVICES": "3,5"}).detect()
    assert devices is not None
    assert [d.extra["smi_index"] for d in devices] == ["3", "5"]
    both = rocm_probe(
        kfd_root, runner, {"ROCR_VISIBLE_DEVICES": "4,5,6", "HIP_VISIBLE_DEVICES": "2"}
    )
    devices = both.detect()
    assert devices is not None
    assert [d.extra["smi_index"] for d in devices] == ["6"]


def test_rocm_falls_back_to_rocm_smi(kfd_root: Path) -> None:
    rocm_smi = {
        f"card{i}": {
            "Card Series": "AMD Instinct MI300X",
            "Card Model": "0x74a1",
            "GFX Version": "gfx942",
            "VRAM Total Memory (B)": str(192 * GiB),
        }
        for i in range(2)
    }
    runner = FakeRunner({"amd-smi": (127, ""), "rocm-smi": (0, json.dumps(rocm_smi))})
    devices = rocm_probe(kfd_root, runner).detect()
    assert devices is not None
    assert [d.accelerator for d in devices] == [MI300X, MI300X]
    assert devices[0].memory_bytes == 192 * GiB
    assert devices[0].extra["tool"] == "rocm-smi"


def test_rocm_via_a_rocm_build_of_torch() -> None:
    torch = fake_torch(["AMD Instinct MI300X"] * 4, hip="6.2")
    found = current(probes=[RocmProbe(torch=torch, env={}, catalog=CATALOG)])
    assert (found.kind, found.count, found.accelerator) == ("gpu", 4, MI300X)
    assert found.devices[0].compute_capability == "gfx942"
    assert found.devices[0].multiprocessors == 304


def test_rocm_without_the_driver_runs_nothing(tmp_path: Path) -> None:
    runner = FakeRunner({"amd-smi": (0, amd_smi_json())})
    probe = rocm_probe(tmp_path, runner)
    assert probe.detect() is None
    assert runner.calls == []


def test_amd_name_candidates() -> None:
    assert amd_name_candidates("AMD Instinct MI300X OAM") == [
        "AMD Instinct MI300X OAM", "AMD Instinct MI300X", "Instinct MI300X", "MI300X",
    ]  # fmt: skip


# -- TPU ----------------------------------------------------------------------------------
V5E_ENV = {
    "TPU_ACCELERATOR_TYPE": "v5litepod-8",
    "TPU_CHIPS_PER_HOST_BOUNDS": "2,4,1",
    "TPU_HOST_BOUNDS": "1,1,1",
    "TPU_TOPOLOGY": "2x4",
    "TPU_WORKER_HOSTNAMES": "localhost",
    "TPU_WORKER_ID": "0",
}


def test_tpu_from_the_environment(tmp_path: Path) -> None:
    found = current(probes=[TpuProbe(env=V5E_ENV, dev_root=str(tmp_path), catalog=CATALOG)])
    assert head(found) == ("tpu", "tpu-env", 8, V5E)
    assert found.devices[0].extra["topology"] == "2x4"
    assert found.memory_gb == 16.0  # from the catalog: TPUs report no memory here
    assert str(found.to_spec()) == "TPU-V5E@2x4:8"


@pytest.mark.parametrize(
    ("accelerator_type", "hosts", "chips"),
    [("v5litepod-8", "", 8), ("v4-8", "", 4), ("v5p-16", "a,b", 4), ("v6e-16", "a,b,c,d", 4)],
)
def test_tpu_chip_count_without_host_bounds(
    tmp_path: Path, accelerator_type: str, hosts: str, chips: int
) -> None:
    env = {"TPU_ACCELERATOR_TYPE": accelerator_type, "TPU_WORKER_HOSTNAMES": hosts}
    devices = TpuProbe(env=env, dev_root=str(tmp_path), catalog=CATALOG).detect()
    assert devices is not None
    assert len(devices) == chips


def test_dev_accel_without_a_tpu_variable_is_not_a_tpu(tmp_path: Path) -> None:
    # GIVEN accel nodes (e.g. a consumer-GPU or NPU host) and no TPU variable
    for name in ("accel0", "accel1"):
        (tmp_path / name).touch()
    probe = TpuProbe(env={"PATH": "/usr/bin"}, dev_root=str(tmp_path), catalog=CATALOG)
    found = current(probes=[probe])
    # THEN the probe stays out, and says why
    assert probe.detect() is None
    assert probe.reason is not None
    assert "/dev/accel*" in probe.reason
    assert found.kind == "cpu"


def test_dev_accel_counts_chips_when_a_tpu_variable_is_set(tmp_path: Path) -> None:
    for n in range(4):
        (tmp_path / f"accel{n}").touch()
    env = {"TPU_ACCELERATOR_TYPE": "v5litepod-16", "TPU_WORKER_HOSTNAMES": "a,b,c,d"}
    devices = TpuProbe(env=env, dev_root=str(tmp_path), catalog=CATALOG).detect()
    assert devices is not None
    assert len(devices) == 4
    assert devices[0].extra["chips_counted_by"] == "/dev/accel*"


def test_tpu_not_in_the_catalog_or_without_a_type(tmp_path: Path) -> None:
    unknown = current(probes=[TpuProbe(env={"TPU_ACCELERATOR_TYPE": "v99-8"}, catalog=CATALOG)])
    assert (unknown.kind, unknown.accelerator) == ("tpu", None)
    assert unknown.reason == "TPU_ACCELERATOR_TYPE is 'v99-8', which is not in the catalog"
    untyped = current(probes=[TpuProbe(env={"TPU_WORKER_HOSTNAMES": "a"}, catalog=CATALOG)])
    assert untyped.kind == "tpu"
    assert untyped.reason is not None
    assert "TPU_ACCELERATOR_TYPE is not set" in untyped.reason


def test_tpu_name_candidates() -> None:
    assert tpu_name_candidates("v5litepod-8")[:6] == [
        "v5litepod-8", "tpu-v5litepod-8", "TPU-V5LITEPOD",
        "v5litepod", "tpu-v5litepod", "TPU v5litepod",
    ]  # fmt: skip
    assert "TPU-V5E" in tpu_name_candidates("v5litepod-8")


# -- Neuron -------------------------------------------------------------------------------
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


def test_neuron_from_sysfs(tmp_path: Path) -> None:
    runner = FakeRunner({})
    probe = NeuronProbe(sysfs_root=str(neuron_tree(tmp_path)), run=runner, catalog=CATALOG)
    found = current(probes=[probe])
    assert head(found) == ("neuron", "neuron-sysfs", 16, TRN2)
    first = found.devices[0]
    assert (first.vendor, first.raw_name, first.ecc_errors) == ("aws", "Trainium2", 1)
    assert first.extra["neuron_cores"] == "8"
    assert first.extra["instance_type"] == "Trn2"
    assert [d.extra["sysfs"] for d in found.devices[:3]] == ["neuron0", "neuron1", "neuron2"]
    assert found.devices[10].extra["sysfs"] == "neuron10"  # numeric, not lexical, order
    assert str(found.to_spec()) == "TRAINIUM2:16"
    assert runner.calls == []


def test_neuron_from_neuron_ls_when_sysfs_is_missing(tmp_path: Path) -> None:
    listing = [
        {"neuron_device": i, "bdf": f"00:1{i}.0", "nc_count": 2, "memory_size": 32 * GiB}
        for i in range(2)
    ]
    runner = FakeRunner({"neuron-ls": (0, json.dumps(listing))})
    found = current(probes=[NeuronProbe(sysfs_root=str(tmp_path), run=runner, catalog=CATALOG)])
    assert head(found) == ("neuron", "neuron-ls", 2, None)
    assert found.devices[0].memory_bytes == 32 * GiB
    assert found.reason == "neuron-ls reported 'Neuron device', which is not in the catalog"
    assert runner.calls == [("neuron-ls", "--json-output")]


def test_no_neuron(tmp_path: Path) -> None:
    probe = NeuronProbe(sysfs_root=str(tmp_path), run=FakeRunner({}), catalog=CATALOG)
    assert probe.detect() is None
    assert not probe.failed


# -- Gaudi --------------------------------------------------------------------------------
@pytest.fixture
def habana_root(tmp_path: Path) -> Path:
    (tmp_path / "sys" / "module" / "habanalabs").mkdir(parents=True)
    return tmp_path


def test_gaudi_from_hl_smi(habana_root: Path) -> None:
    csv = "".join(f"{i}, HL-225, 98304 MiB\n" for i in range(8))
    runner = FakeRunner({"hl-smi": (0, csv)})
    found = current(probes=[GaudiProbe(run=runner, root=str(habana_root), catalog=CATALOG)])
    assert head(found) == ("hpu", "habana", 8, GAUDI2)
    assert found.devices[0].memory_bytes == 98304 * MiB
    assert found.devices[0].vendor == "intel"
    assert runner.calls == [("hl-smi", "-Q", "index,name,memory.total", "-f", "csv,noheader")]


def test_gaudi_from_the_sdk() -> None:
    hpu = SimpleNamespace(
        is_available=lambda: True, device_count=lambda: 8, get_device_name=lambda: "GAUDI2"
    )
    found = current(probes=[GaudiProbe(hpu=hpu, run=FakeRunner({}), catalog=CATALOG)])
    assert (found.kind, found.count, found.accelerator, found.raw_name) == (
        "hpu",
        8,
        GAUDI2,
        "GAUDI2",
    )


def test_gaudi_without_the_driver_runs_nothing(tmp_path: Path) -> None:
    runner = FakeRunner({"hl-smi": (0, "0, HL-225, 98304 MiB\n")})
    probe = GaudiProbe(run=runner, root=str(tmp_path), catalog=CATALOG)
    assert probe.detect() is None
    assert runner.calls == []


def test_gaudi_name_candidates() -> None:
    assert gaudi_name_candidates("HL-325L")[:2] == ["HL-325L", "Gaudi3"]
    assert gaudi_name_candidates("GAUDI")[:2] == ["GAUDI", "Gaudi"]


# -- failures, order, caching --------------------------------------------------------------
class Boom(Probe):
    name = "boom"

    def _detect(self) -> tuple[DeviceInfo, ...] | None:
        raise RuntimeError("driver exploded")


class RudeProbe(Probe):
    """Breaks the contract: ``detect`` itself raises."""

    name = "rude"

    def detect(self) -> tuple[DeviceInfo, ...] | None:
        raise OSError("no contract here")

    def _detect(self) -> tuple[DeviceInfo, ...] | None:  # pragma: no cover - never called
        return None


def test_a_raising_probe_does_not_break_detection() -> None:
    boom = Boom()
    assert boom.detect() is None
    assert boom.failed
    assert boom.reason == "boom probe failed: RuntimeError: driver exploded"
    # a later probe still answers
    found = current(probes=[Boom(), RudeProbe(), nvml_probe(h100s(1))])
    assert (found.kind, found.accelerator) == ("gpu", H100)
    # with nobody answering, the answer is "unknown", not "cpu"
    unknown = current(probes=[RudeProbe(), Boom()])
    assert (unknown.kind, unknown.source, unknown.accelerator, unknown.devices) == (
        "unknown", "rude", None, (),
    )  # fmt: skip
    assert unknown.reason is not None
    assert "OSError: no contract here" in unknown.reason
    assert "RuntimeError: driver exploded" in unknown.reason
    assert unknown.to_spec() is None


def test_probe_that_raises_inside_an_sdk_call() -> None:
    class Exploding(FakeNvml):
        def nvmlDeviceGetCount(self) -> int:
            raise MemoryError("boom")

    probe = NvmlProbe(nvml=Exploding(h100s()), env={}, catalog=CATALOG)
    assert probe.detect() is None
    assert probe.failed
    assert probe.reason == "nvml probe failed: MemoryError: boom"


def test_first_probe_with_devices_answers() -> None:
    found = current(
        probes=[
            TpuProbe(env={}, catalog=CATALOG),
            nvml_probe(h100s(2)),
            TpuProbe(env=V5E_ENV, catalog=CATALOG),
        ]
    )
    assert found.source == "nvml"


def test_default_probes_order() -> None:
    assert [p.name for p in detect.default_probes()] == [
        "nvml", "torch.cuda", "rocm", "tpu-env", "neuron-sysfs", "habana",
    ]  # fmt: skip


# -- the CPU, on this machine and from fixtures -----------------------------------------------
_VENDOR_HINTS = (
    "/proc/driver/nvidia/version",
    "/dev/nvidiactl",
    "/dev/kfd",
    "/sys/module/habanalabs",
)


def test_cpu_fallback_on_this_machine() -> None:
    found = current(probes=[])
    assert (found.kind, found.source, found.accelerator) == ("cpu", "cpu", None)
    assert found.to_spec() is None
    cpu = found.cpu
    assert cpu.logical_cpus >= 1
    assert cpu.model_name
    assert found.devices[0].kind == "cpu"
    assert found.raw_name == cpu.model_name
    if Path("/proc/cpuinfo").exists():
        assert cpu.flags
    if Path("/sys/devices/system/cpu/cpu0/cache/index3/size").exists():
        assert cpu.l3_bytes is not None
        assert cpu.l3_bytes > 0
    if Path("/proc/meminfo").exists():
        assert found.devices[0].memory_bytes
        assert found.memory_gb


@pytest.mark.skipif(
    any(Path(p).exists() for p in _VENDOR_HINTS), reason="an accelerator driver is loaded here"
)
def test_current_with_the_default_probes_is_cached_per_process() -> None:
    first = current(refresh=True)
    assert first.kind == "cpu"
    assert first.reason is not None
    assert "nvml:" in first.reason
    assert "tpu-env:" in first.reason
    assert current() is first
    assert accelerators.current() is first
    assert detect.current_accelerator is detect.current
    assert current(refresh=True) is not first


X86_CPUINFO = "".join(
    f"""processor\t: {n}
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 143
model name\t: Intel(R) Xeon(R) Platinum 8480+ @ 2.00GHz
cpu MHz\t\t: 2000.000
physical id\t: 0
core id\t\t: {n // 2}
flags\t\t: fpu sse2 avx2 avx512f amx_tile amx_bf16

"""
    for n in range(4)
)


def sysfs_tree(root: Path, *, max_khz: int | None = 3_800_000) -> Path:
    cpu0 = root / "devices" / "system" / "cpu" / "cpu0"
    caches = [
        (1, "Data", "48K"),
        (1, "Instruction", "32K"),
        (2, "Unified", "2048K"),
        (3, "Unified", "107520K"),
    ]
    for i, (level, kind, size) in enumerate(caches):
        index = cpu0 / "cache" / f"index{i}"
        index.mkdir(parents=True)
        (index / "level").write_text(f"{level}\n")
        (index / "type").write_text(f"{kind}\n")
        (index / "size").write_text(f"{size}\n")
    if max_khz is not None:
        (cpu0 / "cpufreq").mkdir()
        (cpu0 / "cpufreq" / "cpuinfo_max_freq").write_text(f"{max_khz}\n")
    return root


def test_cpu_info_from_fixtures(tmp_path: Path) -> None:
    root = sysfs_tree(tmp_path)
    info = cpu_info(proc_cpuinfo=X86_CPUINFO, sysfs_root=str(root), affinity={0, 1, 2, 3})
    assert info == CpuInfo(
        model_name="Intel(R) Xeon(R) Platinum 8480+ @ 2.00GHz",
        vendor="intel",
        logical_cpus=4,
        physical_cores=2,
        flags=frozenset({"fpu", "sse2", "avx2", "avx512f", "amx_tile", "amx_bf16"}),
        l1d_bytes=48 * 1024,
        l2_bytes=2 * MiB,
        l3_bytes=105 * MiB,
        max_mhz=3800.0,
        family=6,
        model=143,
    )
    # an affinity mask of one hyperthread sees one core
    pinned = cpu_info(proc_cpuinfo=X86_CPUINFO, sysfs_root=str(root), affinity={1})
    assert (pinned.logical_cpus, pinned.physical_cores) == (1, 1)


def test_cpu_info_max_mhz_fallbacks(tmp_path: Path) -> None:
    root = sysfs_tree(tmp_path, max_khz=None)
    assert cpu_info(proc_cpuinfo=X86_CPUINFO, sysfs_root=str(root), affinity={0}).max_mhz == 2000.0
    plain = X86_CPUINFO.replace(" @ 2.00GHz", "").replace("2000.000", "2450.123")
    assert cpu_info(proc_cpuinfo=plain, sysfs_root=str(root), affinity={0}).max_mhz == 2450.123


def test_cpu_info_on_arm(tmp_path: Path) -> None:
    arm = "".join(
        f"processor\t: {n}\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd sve sve2 bf16\n"
        f"CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\n"
        f"CPU part\t: 0xd4f\nCPU revision\t: 1\n\n"
        for n in range(2)
    )
    info = cpu_info(proc_cpuinfo=arm, sysfs_root=str(tmp_path), affinity={0, 1})
    assert (info.model_name, info.vendor, info.family, info.model) == (
        "Neoverse-V2",
        "arm",
        8,
        0xD4F,
    )
    assert info.flags == frozenset({"fp", "asimd", "sve", "sve2", "bf16"})
    assert (info.l3_bytes, info.physical_cores, info.max_mhz) == (None, None, None)


def test_cpu_info_with_nothing_to_read(tmp_path: Path) -> None:
    info = cpu_info(proc_cpuinfo="", sysfs_root=str(tmp_path), affinity={0})
    assert info.logical_cpus == 1
    assert info.model_name
    assert info.flags == frozenset()


# -- the records and the public surface -------------------------------------------------------
def test_records_are_frozen_and_hashable() -> None:
    devices = nvml_probe(h100s(1)).detect()
    assert devices is not None
    device = devices[0]
    with pytest.raises(TypeError):
        device.extra["uuid"] = "x"  # type: ignore[index]
    with pytest.raises(AttributeError):
        device.index = 3  # type: ignore[misc]
    found = current(probes=[nvml_probe(h100s(1))])
    assert isinstance(hash(found), int)
    assert isinstance(found, Detected)


def test_public_surface() -> None:
    for name in detect.__all__:
        assert getattr(detect, name) is not None
    assert dir(detect) == sorted(detect.__all__)
    assert detect.__doc__ is not None
    assert all(name in detect.__doc__ for name in detect.__all__)
    assert accelerators.Detected is Detected


def test_import_is_cheap() -> None:
    code = (
        "import sys, accelerators; accelerators.current; import accelerators.detect; "
        "print(sorted(m for m in ('torch', 'pynvml', 'pydantic', 'accelerators.catalog._schema') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- against the packaged catalog (entries still being written are skipped) -------------------
def _packaged(name: str) -> Accelerator:
    from accelerators import catalog
    from accelerators.errors import UnknownAcceleratorError

    try:
        return catalog.get(name)
    except UnknownAcceleratorError:
        pytest.skip(f"{name} is not in the packaged catalog yet")


def test_packaged_catalog_nvml_names() -> None:
    h100 = _packaged("H100-SXM")
    found = current(probes=[NvmlProbe(nvml=FakeNvml(h100s()), env={})])
    assert found.accelerator == h100
    assert str(found.to_spec()) == "H100:8"


def test_packaged_catalog_mig_slice() -> None:
    a100 = _packaged("A100-80GB-SXM")
    if a100.mig_profile("1g.10gb") is None:
        pytest.skip("the packaged A100-80GB-SXM lists no 1g.10gb profile")
    env = {"CUDA_VISIBLE_DEVICES": "MIG-00000007-bbbb"}
    found = current(probes=[NvmlProbe(nvml=FakeNvml(a100_mig()), env=env)])
    assert found.accelerator == a100
    assert str(found.to_spec()) == "A100-80GB@1g.10gb"


@pytest.mark.parametrize(
    ("entry", "probe_factory"),
    [
        ("MI300X", "rocm"),
        ("TPU-V5E", "tpu"),
        ("TRAINIUM2", "neuron"),
        ("GAUDI2", "gaudi"),
    ],
)
def test_packaged_catalog_other_vendors(tmp_path: Path, entry: str, probe_factory: str) -> None:
    expected = _packaged(entry)
    probe: Probe
    if probe_factory == "rocm":
        (tmp_path / "dev").mkdir()
        (tmp_path / "dev" / "kfd").touch()
        probe = RocmProbe(
            run=FakeRunner({"amd-smi": (0, amd_smi_json())}), env={}, root=str(tmp_path)
        )
    elif probe_factory == "tpu":
        probe = TpuProbe(env=V5E_ENV, dev_root=str(tmp_path))
    elif probe_factory == "neuron":
        probe = NeuronProbe(sysfs_root=str(neuron_tree(tmp_path)), run=FakeRunner({}))
    else:
        (tmp_path / "sys" / "module" / "habanalabs").mkdir(parents=True)
        probe = GaudiProbe(
            run=FakeRunner({"hl-smi": (0, "0, HL-225, 98304 MiB\n")}), root=str(tmp_path)
        )
    found = current(probes=[probe])
    assert found.accelerator == expected, found.reason


def test_run_command_never_raises() -> None:
    from accelerators.detect._base import run_command

    assert run_command([sys.executable, "-c", "print('ok')"], 30) == (0, "ok\n")
    assert run_command(["accelerators-no-such-tool"], 5) == (127, "")
    assert run_command([sys.executable, "-c", "import time; time.sleep(5)"], 0.5) == (124, "")
