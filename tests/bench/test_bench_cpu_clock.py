"""The CPU's sustained clock: measured (dependent-add chain, else cpufreq), bounded by the
reported clock, and the peak computed from it."""

from __future__ import annotations

import ctypes
import dataclasses
import mmap
import platform
import struct
import sys
from pathlib import Path

import pytest

from accelerators.bench.expect import _cpu_clock
from accelerators.bench.expect._cpu_clock import ClockEstimate, add_chain_code, measure_clock
from accelerators.bench.expect._cpu_peak import sustained_clock
from accelerators.bench.expect._peaks import cpu_gemm_peak
from accelerators.bench.testing import fake_detected

X86_LINUX = sys.platform == "linux" and platform.machine().lower() in ("x86_64", "amd64")


def _cpu(**changes: object) -> object:
    return dataclasses.replace(fake_detected(None).cpu, **changes)  # type: ignore[attr-defined]


def test_the_chain_is_one_loop_of_dependent_adds() -> None:
    code = add_chain_code(iterations=7, unroll=3)
    assert code.startswith(b"\x31\xc0\xba\x01\x00\x00\x00\x48\xb9" + struct.pack("<Q", 7))
    body = b"\x48\x01\xd0" * 3 + b"\x48\xff\xc9"
    assert code[17 : 17 + len(body)] == body
    # jnz back to the body's first byte, then ret
    assert code[17 + len(body) : 19 + len(body)] == b"\x0f\x85"
    (offset,) = struct.unpack("<i", code[19 + len(body) : 23 + len(body)])
    assert offset == -(len(body) + 6)
    assert code.endswith(b"\xc3")
    with pytest.raises(ValueError, match="iterations"):
        add_chain_code(0)


@pytest.mark.skipif(not X86_LINUX, reason="the add chain is x86-64 Linux code")
def test_the_chain_runs_and_returns_its_count_of_adds() -> None:
    memory = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    memory.write(add_chain_code(iterations=1000, unroll=200))
    anchor = ctypes.c_char.from_buffer(memory)
    chain = ctypes.CFUNCTYPE(ctypes.c_uint64)(ctypes.addressof(anchor))
    assert chain() == 1000 * 200
    del chain, anchor
    memory.close()


@pytest.mark.skipif(not X86_LINUX, reason="the add chain is x86-64 Linux code")
def test_the_clock_is_measured_on_every_core_at_once() -> None:
    found = measure_clock(2)
    assert found.method == "add_chain", found.why
    assert len(found.per_thread_mhz) == 2
    assert found.mhz == pytest.approx(sum(found.per_thread_mhz) / 2)
    assert "dependent-add chain on 2 cores" in found.describe()


def test_without_the_chain_the_kernels_current_clock_is_read_under_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_cpu_clock, "_supported", lambda: "not here (test)")
    for index, khz in enumerate((3_400_000, 3_600_000, 1_200_000)):
        folder = tmp_path / f"cpu{index}" / "cpufreq"
        folder.mkdir(parents=True)
        (folder / "scaling_cur_freq").write_text(f"{khz}\n")
    pattern = str(tmp_path / "cpu[0-9]*" / "cpufreq" / "scaling_cur_freq")
    found = measure_clock(2, cur_freq_glob=pattern)
    # The two busiest CPUs (the two spinning threads), not the idle third.
    assert (found.method, found.mhz) == ("cpufreq_cur", pytest.approx(3500.0))
    nothing = measure_clock(2, cur_freq_glob=str(tmp_path / "none" / "*"))
    assert nothing.mhz is None
    assert nothing.method == "none"
    assert "not here (test)" in (nothing.why or "")


def test_the_measured_clock_is_bounded_by_what_the_host_reports(tmp_path: Path) -> None:
    # A VM's TSC rate (no cpufreq): a floor. Cores measured faster: the measured clock wins.
    tsc = _cpu(max_mhz=2596.0)
    faster = sustained_clock(tsc, ClockEstimate(3693.0, "add_chain", (3693.0, 3693.0), 0.05))  # type: ignore[arg-type]
    assert (faster.kind, faster.mhz, faster.ceiling) == ("measured", 3693.0, True)
    assert "2596 MHz the host reports" in faster.describe()
    assert "only a floor" in faster.describe()
    # Cores held below the base clock (a power cap): the floor stays, and the note says why.
    held = sustained_clock(tsc, ClockEstimate(1800.0, "add_chain", (1800.0,), 0.05))  # type: ignore[arg-type]
    assert held.mhz == 2596.0
    assert "held below it" in held.describe()
    # Nothing measured: the reported clock, with why the measurement is missing.
    unmeasured = sustained_clock(tsc, ClockEstimate(None, "none", why="no chain"))  # type: ignore[arg-type]
    assert (unmeasured.kind, unmeasured.mhz) == ("current", 2596.0)
    assert "no chain" in unmeasured.describe()


def test_a_cpufreq_maximum_is_the_ceiling(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from accelerators.bench.expect import _cpu_peak

    folder = tmp_path / "cpu0" / "cpufreq"
    folder.mkdir(parents=True)
    (folder / "cpuinfo_max_freq").write_text("3700000\n")
    monkeypatch.setattr(
        _cpu_peak, "CPUFREQ_GLOB", str(tmp_path / "cpu[0-9]*/cpufreq/cpuinfo_max_freq")
    )
    boosted = _cpu(max_mhz=3700.0)
    over = sustained_clock(boosted, ClockEstimate(3790.0, "add_chain", (3790.0,), 0.05))  # type: ignore[arg-type]
    assert over.mhz == 3700.0
    assert "is the ceiling" in over.describe()


def test_the_peak_uses_the_measured_clock() -> None:
    tsc = _cpu(max_mhz=2250.0)  # the fake host: AVX2 + FMA, 2 cores, 32 FLOPs/cycle fp32
    clock = sustained_clock(tsc, ClockEstimate(3600.0, "add_chain", (3600.0, 3600.0), 0.05))  # type: ignore[arg-type]
    peak = cpu_gemm_peak(tsc, "fp32", clock=clock)  # type: ignore[arg-type]
    assert peak is not None
    assert peak.value == pytest.approx(32 * 2 * 3600e6 / 1e12)
    assert "x 3600 MHz" in (peak.note or "")
    assert "dependent-add chain" in (peak.note or "")
    one = cpu_gemm_peak(tsc, "fp32", cores=1, clock=clock)  # type: ignore[arg-type]
    assert one is not None
    assert one.value == pytest.approx(peak.value / 2)


def test_a_measured_clock_makes_the_peak_but_the_nodes_history_still_sets_the_band() -> None:
    """The peak comes from the measured clock; a CPU's unconfirmed band still gives way to the
    node's own passing runs (a VM's vCPUs sustain what they sustain)."""
    from accelerators.bench import PROFILES
    from accelerators.bench.runner._session import Session
    from accelerators.bench.testing import FakeBackend, FakeDevice

    session = Session(
        FakeBackend([FakeDevice.cpu()]),
        PROFILES["quick"],
        fake_detected(None),
        None,
        None,
        False,  # type: ignore[arg-type]
    )
    ctx = session.ctx
    ctx.cpu_clock = sustained_clock(
        ctx.detected.cpu, ClockEstimate(3600.0, "add_chain", (3600.0, 3600.0), 0.05)
    )
    ctx.own = {(0, "gemm.fp32"): (0.05, 5)}
    (report,) = session.run()
    fp32 = next(g for g in report.gemm if g.dtype == "fp32")
    assert fp32.peak_tflops == pytest.approx(32 * 2 * 3600e6 / 1e12)
    assert "dependent-add chain" in (fp32.peak_note or "")
    assert fp32.band_confidence == "history"
    assert fp32.expected_tflops == pytest.approx(0.75 * 0.05)
    assert report.clocks_mhz["peak"] == 3600.0
    assert report.clocks_mhz["measured"] == 3600.0
    assert report.clocks_mhz["reported"] == 2250.0
