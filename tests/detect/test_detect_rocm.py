"""``accelerators.detect._rocm``: amd-smi, rocm-smi and ROCm builds of torch."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from detect_fakes import (
    CATALOG,
    MI300X,
    FakeRunner,
    GiB,
    MiB,
    amd_smi_json,
    fake_torch,
    head,
)

from accelerators.detect import current
from accelerators.detect._rocm import RocmProbe, amd_name_candidates


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
        "AMD Instinct MI300X OAM",
        "AMD Instinct MI300X",
        "Instinct MI300X",
        "MI300X",
    ]
