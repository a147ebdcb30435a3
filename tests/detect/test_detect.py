"""``accelerators.detect``: ``current()`` (probe order, the CPU fallback, the per-process cache),
the public surface, and the probes against the packaged catalog."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from detect_fakes import (
    CATALOG,
    V5E_ENV,
    FakeNvml,
    FakeRunner,
    a100_mig,
    amd_smi_json,
    h100s,
    neuron_tree,
    nvml_probe,
)

import accelerators
import accelerators.detect as detect
from accelerators.catalog import Accelerator
from accelerators.detect import Detected, Probe, current
from accelerators.detect._gaudi import GaudiProbe
from accelerators.detect._neuron import NeuronProbe
from accelerators.detect._nvidia import (
    NvmlProbe,
)
from accelerators.detect._rocm import RocmProbe
from accelerators.detect._tpu import TpuProbe

ROOT = Path(__file__).resolve().parents[2]


def test_first_probe_with_devices_answers() -> None:
    found = current(
        probes=[
            TpuProbe(env={}, catalog=CATALOG),
            nvml_probe(h100s(2)),
            TpuProbe(env=V5E_ENV, catalog=CATALOG),
        ]
    )
    assert found.source == "nvml"


def test_default_probes_run_in_the_documented_order() -> None:
    """docs/detect.md's table of probes is the order users rely on (NVML before torch.cuda,
    torch.cuda before ROCm...): the code and the page agree."""
    page = (ROOT / "docs" / "detect.md").read_text(encoding="utf-8")
    table = page.split("## Probes, in order", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `([\w.-]+)`", table, flags=re.MULTILINE)
    assert documented, "docs/detect.md lists no probe"
    assert [p.name for p in detect.default_probes()] == documented


# -- the CPU on this machine -----------------------------------------------------------------
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
    with pytest.warns(
        DeprecationWarning, match=r"current_accelerator\(\) is deprecated.*current\(\)"
    ):
        assert detect.current_accelerator() is first
    with pytest.warns(DeprecationWarning, match="current_accelerator"):
        assert accelerators.current_accelerator() is first
    assert "current_accelerator" not in accelerators.__all__
    assert "current_accelerator" not in detect.__all__
    assert current(refresh=True) is not first


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
    assert str(found.to_spec()) == "H100-SXM:8"


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


def test_each_module_of_detect_has_its_test_module() -> None:
    """The tests mirror the package: ``detect/_nvidia.py`` is tested in
    ``tests/detect/test_detect_nvidia.py``, ``detect/__init__.py`` here."""
    package = Path(detect.__file__).parent
    here = Path(__file__).parent
    wanted = {
        "test_detect.py" if p.stem == "__init__" else f"test_detect{p.stem}.py"
        for p in package.glob("*.py")
    }
    assert sorted(wanted - {p.name for p in here.glob("test_*.py")}) == []
