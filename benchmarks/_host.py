"""Which host a benchmark ran on, read from the host itself (never assumed): printed first by
the scripts, so every figure they print carries its machine."""

from __future__ import annotations

import os
import platform

#: The flags that decide a CPU's GEMM peak and bf16 path.
_FLAGS = ("avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "amx_bf16", "amx_tile")


def describe_host() -> str:
    """One line: CPU model, x86 family/model, cores, caches, reported clock, the ISA flags
    that matter, the hypervisor, the kernel and Python."""
    from accelerators.detect import current

    cpu = current(refresh=True).cpu
    flags = " ".join(f for f in _FLAGS if f in cpu.flags) or "none of " + "/".join(_FLAGS)
    hypervisor = "hypervisor" in cpu.flags
    caches = f"L2 {(cpu.l2_bytes or 0) >> 10} KiB, L3 {(cpu.l3_bytes or 0) >> 20} MiB"
    return (
        f"host {platform.node()}: {cpu.model_name} (vendor {cpu.vendor}, family {cpu.family}, "
        f"model {cpu.model}), {cpu.physical_cores} cores / {os.cpu_count()} logical CPUs, "
        f"{caches}, reported clock {cpu.max_mhz} MHz; flags: {flags}; "
        f"{'a VM (hypervisor flag)' if hypervisor else 'bare metal or no hypervisor flag'}; "
        f"Linux {platform.release()}, Python {platform.python_version()}"
    )
