"""``accelerators.detect._cpu``: ``cpu_info`` from /proc and sysfs fixtures."""

from __future__ import annotations

from pathlib import Path

from detect_fakes import (
    MiB,
)

from accelerators.detect import CpuInfo, cpu_info

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
