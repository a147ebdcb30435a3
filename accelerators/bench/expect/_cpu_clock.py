"""The clock a CPU's cores sustain under load, measured in about 50 ms.

A CPU peak is FLOPs per cycle x cores x a clock. The clocks a host reports are often not the
one its cores run at: on a VM without cpufreq, ``/proc/cpuinfo`` shows the TSC rate (2596 MHz
on the development VM, whose cores ran GEMMs at about 3.6 GHz: "131 % of peak"); a model
name's ``@ 2.45GHz`` is the base clock, below any boost. So the benchmark measures the clock:

* **a dependent-add chain** (x86-64 Linux): a few hundred bytes of machine code, ``add rax,
  rdx`` repeated, each add waiting for the one before, so the chain advances exactly one add
  per cycle on every x86 core since the Pentium Pro; adds per second is the clock. The chain
  runs on one thread per core at once (ctypes releases the GIL during the call), in windows
  of ~2 ms after a short spin-up; each thread keeps its fastest window (another process or
  the hypervisor can only make a window slower), and the cores' mean is the all-core clock:
  the clock a GEMM on every core runs at, minus any AVX frequency offset (older Intel parts
  clock down under 512-bit FMAs, so there the peak is a ceiling);
* else **the kernel's current clock** while the cores are busy
  (``/sys/devices/system/cpu/cpu*/cpufreq/scaling_cur_freq``), where readable;
* else nothing, and the peak falls back to the reported clock with its caveat
  (:mod:`accelerators.bench.expect._cpu_peak`).

Code that cannot map executable memory (a hardened kernel, SELinux ``execmem``) falls back
the same way; the estimate says why.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import mmap
import platform
import struct
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["ClockEstimate", "add_chain_code", "measure_clock"]

#: Adds in one pass of the loop body (the loop's own decrement and branch run beside them).
_UNROLL = 200
#: Timed windows per thread and the target length of each.
_WINDOWS = 12
_WINDOW_S = 0.002
#: Spin-up before the timed windows, so an idle core's governor reaches its load clock.
_SPIN_S = 0.008
#: Clocks outside this range (MHz) mean the chain did not run as modelled.
_PLAUSIBLE_MHZ = (200.0, 10_000.0)
CUR_FREQ_GLOB = "/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq"

Method = Literal["add_chain", "cpufreq_cur", "none"]


@dataclass(frozen=True)
class ClockEstimate:
    """A measured clock.

    :param mhz: the mean sustained clock over the busy cores, ``None`` when not measured.
    :param method: ``add_chain``, ``cpufreq_cur`` or ``none``.
    :param per_thread_mhz: each busy thread's clock (its fastest window).
    :param seconds: how long the measurement took.
    :param why: why nothing was measured (``method == "none"``), else ``None``.
    """

    mhz: float | None
    method: Method
    per_thread_mhz: tuple[float, ...] = ()
    seconds: float = 0.0
    why: str | None = None

    def describe(self) -> str:
        if self.mhz is None:
            return f"no sustained clock measured ({self.why})"
        if self.method == "add_chain":
            cores = len(self.per_thread_mhz)
            return (
                f"the sustained clock, measured with a dependent-add chain on {cores} "
                f"core{'s' if cores != 1 else ''} at once in {self.seconds * 1e3:.0f} ms"
            )
        return "the clock the kernel's cpufreq reports while every core is busy"


def add_chain_code(iterations: int, unroll: int = _UNROLL) -> bytes:
    """x86-64 machine code of ``uint64_t f(void)``: ``iterations x unroll`` dependent adds.

    ``xor eax, eax; mov edx, 1; mov rcx, iterations; loop: (add rax, rdx) x unroll;
    dec rcx; jnz loop; ret`` - it touches only rax, rcx and rdx (caller-saved in every x86-64
    calling convention) and returns ``iterations x unroll``.
    """
    if iterations < 1 or unroll < 1:
        raise ValueError(f"Expected iterations and unroll >= 1, got {iterations}, {unroll}")
    head = b"\x31\xc0" + b"\xba\x01\x00\x00\x00" + b"\x48\xb9" + struct.pack("<Q", iterations)
    body = b"\x48\x01\xd0" * unroll + b"\x48\xff\xc9"
    # jnz rel32 back to the start of the body, relative to the end of the 6-byte jump.
    jump = b"\x0f\x85" + struct.pack("<i", -(len(body) + 6))
    return head + body + jump + b"\xc3"


class _Chain:
    """The chain mapped into executable memory, callable from several threads."""

    def __init__(self, iterations: int):
        code = add_chain_code(iterations)
        self.adds = iterations * _UNROLL
        prot = mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC
        self.memory = mmap.mmap(-1, mmap.PAGESIZE, prot=prot)
        self.memory.write(code)
        self.anchor = ctypes.c_char.from_buffer(self.memory)
        address = ctypes.addressof(self.anchor)
        # CFUNCTYPE releases the GIL for the call, so threads run the chain side by side.
        self.call: Callable[[], int] = ctypes.CFUNCTYPE(ctypes.c_uint64)(address)

    def close(self) -> None:
        del self.call
        del self.anchor
        self.memory.close()


def _supported() -> str | None:
    """Why the add chain cannot run here, ``None`` when it can."""
    if sys.platform != "linux":
        return f"the add chain runs on Linux only (this is {sys.platform})"
    machine = platform.machine().lower()
    if machine not in ("x86_64", "amd64"):
        return f"the add chain is x86-64 code (this is {machine})"
    return None


def _thread_clock(chain: _Chain, start: threading.Barrier, out: list[float], slot: int) -> None:
    start.wait()
    spin_end = time.perf_counter() + _SPIN_S
    while time.perf_counter() < spin_end:
        chain.call()
    best = 0.0
    for _ in range(_WINDOWS):
        begin = time.perf_counter_ns()
        chain.call()
        elapsed = time.perf_counter_ns() - begin
        if elapsed > 0:
            best = max(best, chain.adds / elapsed * 1e3)  # adds per ns x 1e3 = MHz
    out[slot] = best


def _calibrate(threads: int) -> ClockEstimate:
    began = time.perf_counter()
    probe = _Chain(iterations=50)
    try:
        begin = time.perf_counter_ns()
        probe.call()
        first_ns = max(time.perf_counter_ns() - begin, 1)
    finally:
        probe.close()
    # Size a window at a generous guess of the rate: a slow machine's windows run longer.
    rate_mhz = max(probe.adds / first_ns * 1e3, 1000.0)
    iterations = max(1, int(_WINDOW_S * rate_mhz * 1e6 / _UNROLL))
    chain = _Chain(iterations)
    try:
        clocks = [0.0] * threads
        barrier = threading.Barrier(threads)
        workers = [
            threading.Thread(target=_thread_clock, args=(chain, barrier, clocks, i), daemon=True)
            for i in range(threads)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        chain.close()
    seconds = time.perf_counter() - began
    low, high = _PLAUSIBLE_MHZ
    if not all(low <= c <= high for c in clocks):
        shown = ", ".join(f"{c:.0f}" for c in clocks)
        why = f"the add chain gave implausible clocks ({shown} MHz)"
        return ClockEstimate(None, "none", seconds=seconds, why=why)
    return ClockEstimate(sum(clocks) / threads, "add_chain", tuple(clocks), seconds)


def _cpufreq_now(pattern: str) -> tuple[float, ...]:
    found = []
    for path in sorted(glob.glob(pattern)):
        with contextlib.suppress(OSError, ValueError):
            found.append(int(Path(path).read_text(encoding="ascii").strip()) / 1000.0)
    return tuple(found)


def _busy_cpufreq(threads: int, pattern: str) -> ClockEstimate:
    """The kernel's current clock of each CPU read while ``threads`` threads spin."""
    began = time.perf_counter()
    stop = threading.Event()

    def spin() -> None:
        x = 0
        while not stop.is_set():
            x += 1

    workers = [threading.Thread(target=spin, daemon=True) for _ in range(threads)]
    for worker in workers:
        worker.start()
    try:
        time.sleep(_SPIN_S * 4)
        clocks = _cpufreq_now(pattern)
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    busiest = sorted(clocks, reverse=True)[:threads]
    if not busiest:
        return ClockEstimate(None, "none", seconds=time.perf_counter() - began, why="no cpufreq")
    mean = sum(busiest) / len(busiest)
    return ClockEstimate(mean, "cpufreq_cur", tuple(busiest), time.perf_counter() - began)


def measure_clock(threads: int, *, cur_freq_glob: str | None = None) -> ClockEstimate:
    """The sustained clock of ``threads`` busy cores: the add chain, else cpufreq's current
    clock, else none (with why). Never raises.

    :param threads: cores to load at once (the physical cores a peak counts).
    :param cur_freq_glob: where cpufreq's current clocks are; :data:`CUR_FREQ_GLOB` by default.
    """
    threads = max(1, int(threads))
    why = _supported()
    if why is None:
        try:
            return _calibrate(threads)
        except (OSError, ValueError, AttributeError, RuntimeError) as exc:
            why = f"the add chain could not run: {type(exc).__name__}: {exc}"
    pattern = cur_freq_glob or CUR_FREQ_GLOB
    if glob.glob(pattern):
        found = _busy_cpufreq(threads, pattern)
        if found.mhz is not None:
            return found
    return ClockEstimate(None, "none", why=f"{why}; no cpufreq current clock to read")
