"""``accelerators.detect._nvidia``: NVML (MIG, CUDA_VISIBLE_DEVICES, telemetry) and torch.cuda."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from detect_fakes import (
    A100_80,
    CATALOG,
    H100,
    FakeNvml,
    GiB,
    Handle,
    MiB,
    a100_mig,
    fake_torch,
    h100s,
    head,
    nvml_probe,
)

from accelerators.detect import current
from accelerators.detect._nvidia import (
    NvmlProbe,
    TorchCudaProbe,
    parse_mig_name,
    throttle_reason_names,
)


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
        "graphics": 1755.0,
        "graphics_max": 1980.0,
        "sm": 1755.0,
        "sm_max": 1980.0,
        "mem": 2619.0,
        "mem_max": 2619.0,
    }
    assert (first.multiprocessors, first.compute_capability) == (132, "9.0")
    assert (first.temperature_c, first.power_w, first.power_limit_w, first.ecc_errors) == (
        41.0,
        350.0,
        700.0,
        0,
    )
    assert first.memory_bytes == 80 * GiB
    assert found.memory_gb == 80.0
    assert first.extra["uuid"] == "GPU-00000000-aaaa"
    assert first.extra["driver_version"] == "550.54.15"
    assert not found.is_mig
    assert found.mig_profile is None
    assert str(found.to_spec()) == "H100-SXM:8"
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
        "NVIDIA H100 80GB HBM3",
        "2g.20gb",
        True,
    )
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
        "sw_thermal_slowdown",
        "hw_power_brake_slowdown",
        "unknown_0x1000",
    )


# -- torch.cuda ---------------------------------------------------------------------------
def test_torch_cuda_probe() -> None:
    torch = fake_torch(["NVIDIA H100 80GB HBM3"] * 2)
    found = current(probes=[TorchCudaProbe(torch=torch, catalog=CATALOG)])
    assert head(found) == ("gpu", "torch.cuda", 2, H100)
    first = found.devices[0]
    assert (first.multiprocessors, first.compute_capability, first.l2_cache_bytes) == (
        132,
        "9.0",
        50 * MiB,
    )


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
