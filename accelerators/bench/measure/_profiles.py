"""Benchmark profiles: every time budget, dtype list, array size and repetition count in one place.

A :class:`Profile` is a frozen value; :data:`PROFILES` holds the three named ones. Budgets are
wall-clock seconds per device (devices run side by side on GPU hosts), so a profile's total is
about ``warm-up + len(dtypes) * gemm budget + stream`` whatever the number of GPUs.

=========  ==========================================  =====================================
profile    GPU (per device)                            CPU
=========  ==========================================  =====================================
quick      0.5 s warm-up, 1 s per dtype, 512 MiB      2.25 s per dtype (thread windows
           stream arrays: about 8-9 s on an H100       included), copy and triad on 4x LLC
                                                       arrays: the measurements end within
                                                       6.7 s on a 2-core VM (a hard deadline)
standard   5 s warm-up, 4 s per dtype, 1 GiB arrays,   8 s per dtype
           5 s sustained GEMM
full       30 s warm-up (mamf-finder's), 15 s per      30 s per dtype, 8x LLC arrays
           dtype, 2 GiB arrays (AMD acceptance size),
           20 s sustained GEMM
=========  ==========================================  =====================================

Every budget is a hard deadline (:meth:`~accelerators.bench.device._context.Context.phase_end`): no
timed call starts that cannot end inside its phase's budget, nor inside the run's, which is
the planned total plus the reruns' share; a phase cut short says so in the report
(``phase_cut_short``).

Dtypes:

=========  ==========================================  =====================================
profile    GPU                                         CPU
=========  ==========================================  =====================================
quick      the headline dtypes: fp32, tf32, bf16,      fp32, bf16
           fp16, fp8 (each skipped, with the reason,
           where the device lacks it; fp16 only
           where bf16 is not the same datasheet rate)
standard   the headline dtypes, then fp64, int8, fp4   fp32, bf16, fp64, int8
full       and mxfp8 where the catalog has a dense     (measured only: no CPU peak for
           figure for the device                       int8)
=========  ==========================================  =====================================

The dtypes in :attr:`Profile.catalog_gated` run on a GPU only where the catalog lists a dense
figure of that dtype for the identified device (an HPC part's fp64, a datacenter part's int8):
with nothing to compare with they would only cost time. A dtype left out that way is reported
as not run, with the reason. quick keeps to the headline dtypes so that it stays within its
budget; the sustained phase (:attr:`Profile.sustained_s`) is likewise off in quick, and on a
CPU it runs only the stream kernels a CPU's verdict reads (:attr:`Profile.cpu_stream_kernels`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Literal

from accelerators.bench.measure._profile_names import profile_name
from accelerators.bench.measure._stream import KERNELS
from accelerators.errors import AcceleratorError

__all__ = ["PROFILES", "Profile", "ProfileName", "get_profile"]

ProfileName = Literal["quick", "standard", "full"]

_MIB = 1 << 20


@dataclass(frozen=True)
class Profile:
    """What one benchmark run does and how long it may take.

    :param name: the profile's name, reported with the results.
    :param gpu_dtypes: GEMM dtypes measured on GPUs (those the device lacks are reported as
        unsupported).
    :param cpu_dtypes: GEMM dtypes measured on CPUs.
    :param gpu_warmup_s: continuous GEMM load before the first measurement (a cold GPU
        over-reports: mamf-finder warms up for 30 s).
    :param gpu_gemm_budget_s: shape search budget per dtype and GPU, in seconds.
    :param cpu_gemm_budget_s: budget per dtype on a CPU: the shape search, then (its final
        share) the thread windows on the winning shape.
    :param final_fraction: share of a dtype's budget kept to re-measure the best shapes.
    :param stream_llc_multiple: every stream array is at least this many times the last-level
        cache (STREAM's rule is 4).
    :param gpu_stream_min_bytes: lower bound for a GPU stream array, in bytes.
    :param cpu_stream_min_bytes: lower bound for a CPU stream array, in bytes.
    :param stream_budget_s: timing budget per stream kernel, in seconds.
    :param stream_min_reps: fewest timed repetitions per stream kernel (after warm-up).
    :param stream_max_reps: most timed repetitions per stream kernel.
    :param check_blocks: GEMM output blocks compared with an fp64 reference per dtype.
    :param check_block: edge of one checked block (rows and columns).
    :param stream: whether to run the memory-bandwidth phase (an empty dtype tuple skips
        the GEMM phase likewise).
    :param cpu_stream_kernels: the stream kernels run on a CPU, in STREAM order (GPUs run all
        five, each judged against the datasheet). quick runs what a CPU's verdict reads:
        triad (the contention and history figure) and copy (the first, on which the thread
        count is chosen).
    :param catalog_gated: GPU dtypes run only where the catalog has a dense figure of that
        dtype for the identified device (reported as not run otherwise).
    :param sustained_s: GPUs: seconds of back-to-back GEMMs after the search, judged against
        the burst rate (:mod:`accelerators.bench.runner._sustained`); 0 skips the phase.
    :param gpu_stand_ins: ``(dtype, instead)`` pairs: on a GPU the first is not run where the
        second is measured and the catalog gives the device the same dense rate for both
        (fp16 and bf16 on every NVIDIA part since Ampere and on AMD's MI200/MI300): the same
        matrix units at the same rate, measured once.
    :raises AcceleratorError: a field is not a number where one is expected, or out of its
        range (the message lists every such field).
    """

    name: str
    gpu_dtypes: tuple[str, ...] = ("fp32", "tf32", "bf16", "fp16", "fp8")
    cpu_dtypes: tuple[str, ...] = ("fp32", "bf16")
    gpu_warmup_s: float = 0.5
    gpu_gemm_budget_s: float = 1.0
    cpu_gemm_budget_s: float = 2.25
    final_fraction: float = 0.3
    stream_llc_multiple: float = 4.0
    gpu_stream_min_bytes: int = 512 * _MIB
    cpu_stream_min_bytes: int = 0
    stream_budget_s: float = 0.2
    stream_min_reps: int = 10
    stream_max_reps: int = 200
    check_blocks: int = 4
    check_block: int = 64
    stream: bool = True
    cpu_stream_kernels: tuple[str, ...] = ("copy", "triad")
    catalog_gated: tuple[str, ...] = ("fp64", "int8", "fp4", "mxfp8")
    sustained_s: float = 0.0
    gpu_stand_ins: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        problems = _not_numbers(self)
        if problems:  # the comparisons below need numbers
            raise AcceleratorError(
                f"Invalid benchmark profile {self.name!r}: " + "; ".join(problems)
            )
        for field in ("gpu_warmup_s", "sustained_s"):
            if getattr(self, field) < 0:
                problems.append(f"{field} must be >= 0, got {getattr(self, field)!r}")
        for field in ("gpu_gemm_budget_s", "cpu_gemm_budget_s", "stream_budget_s"):
            if getattr(self, field) <= 0:
                problems.append(f"{field} must be > 0, got {getattr(self, field)!r}")
        if not 0 < self.final_fraction < 1:
            problems.append(f"final_fraction must be in (0, 1), got {self.final_fraction!r}")
        if self.stream_llc_multiple <= 0:
            problems.append(f"stream_llc_multiple must be > 0, got {self.stream_llc_multiple!r}")
        if not 1 <= self.stream_min_reps <= self.stream_max_reps:
            problems.append(
                "need 1 <= stream_min_reps <= stream_max_reps, got "
                f"{self.stream_min_reps!r} and {self.stream_max_reps!r}"
            )
        names = tuple(k.name for k in KERNELS)
        kernels = self.cpu_stream_kernels
        listed = isinstance(kernels, tuple | list)
        unknown = [k for k in kernels if k not in names] if listed else [kernels]
        if unknown or not kernels:
            problems.append(
                f"cpu_stream_kernels must be a non-empty subset of {names}, got "
                f"{self.cpu_stream_kernels!r}"
            )
        if self.check_blocks < 1 or self.check_block < 1:
            problems.append("check_blocks and check_block must be >= 1")
        if problems:
            raise AcceleratorError(
                f"Invalid benchmark profile {self.name!r}: " + "; ".join(problems)
            )

    def scaled(self, factor: float) -> Profile:
        """This profile with every time budget multiplied by ``factor`` (sizes unchanged).

        Used by tests and by ``--budget-scale`` to make a run shorter or longer.

        :param factor: a positive multiplier.
        """
        raw: object = factor  # typed float; a string or a bool is refused here, by name
        if isinstance(raw, bool) or not isinstance(raw, int | float) or not raw > 0:
            raise AcceleratorError(f"Expected a positive budget scale factor, got {factor!r}")
        return dataclasses.replace(
            self,
            gpu_warmup_s=self.gpu_warmup_s * factor,
            gpu_gemm_budget_s=self.gpu_gemm_budget_s * factor,
            cpu_gemm_budget_s=self.cpu_gemm_budget_s * factor,
            stream_budget_s=self.stream_budget_s * factor,
            sustained_s=self.sustained_s * factor,
        )


#: The fields that are numbers (checked first: a string among them is refused by name).
_NUMBERS = (
    "gpu_warmup_s",
    "gpu_gemm_budget_s",
    "cpu_gemm_budget_s",
    "final_fraction",
    "stream_llc_multiple",
    "gpu_stream_min_bytes",
    "cpu_stream_min_bytes",
    "stream_budget_s",
    "stream_min_reps",
    "stream_max_reps",
    "check_blocks",
    "check_block",
    "sustained_s",
)


def _not_numbers(profile: Profile) -> list[str]:
    """A sentence for each field of :data:`_NUMBERS` that is not a number."""
    problems = []
    for field in _NUMBERS:
        value: object = getattr(profile, field)
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            problems.append(f"{field} must be a number, got {value!r}")
    return problems


#: Every GPU dtype: the headline ones, then those run only where the catalog has a figure.
_GPU_ALL = ("fp32", "tf32", "bf16", "fp16", "fp8", "fp64", "int8", "fp4", "mxfp8")
_CPU_ALL = ("fp32", "bf16", "fp64", "int8")
_STREAM_ALL = tuple(k.name for k in KERNELS)

#: The named profiles. ``quick`` is the pipeline gate: at most 15 s on a 2-core CPU VM and
#: designed for at most 10 s on one H100.
PROFILES: dict[str, Profile] = {
    # fp16 only where bf16 is not measured or not the same rate: a cold quick gate on an H200
    # took 10.7-11.8 s with both (docs/gpu-validation.md), each dtype about 1.3 s.
    "quick": Profile(name="quick", gpu_stand_ins=(("fp16", "bf16"),)),
    "standard": Profile(
        name="standard",
        gpu_dtypes=_GPU_ALL,
        cpu_dtypes=_CPU_ALL,
        gpu_warmup_s=5.0,
        gpu_gemm_budget_s=4.0,
        cpu_gemm_budget_s=8.0,
        final_fraction=0.3,
        cpu_stream_kernels=_STREAM_ALL,
        gpu_stream_min_bytes=1024 * _MIB,
        stream_budget_s=0.5,
        stream_min_reps=10,
        stream_max_reps=500,
        check_blocks=8,
        sustained_s=5.0,
    ),
    "full": Profile(
        name="full",
        gpu_dtypes=_GPU_ALL,
        cpu_dtypes=_CPU_ALL,
        gpu_warmup_s=30.0,
        gpu_gemm_budget_s=15.0,
        cpu_gemm_budget_s=30.0,
        final_fraction=0.25,
        cpu_stream_kernels=_STREAM_ALL,
        stream_llc_multiple=8.0,
        gpu_stream_min_bytes=2048 * _MIB,
        stream_budget_s=2.0,
        stream_min_reps=20,
        stream_max_reps=2000,
        check_blocks=16,
        sustained_s=20.0,
    ),
}


def get_profile(profile: str | Profile) -> Profile:
    """Resolve a profile name (or pass a :class:`Profile` through).

    :param profile: ``"quick"``, ``"standard"``, ``"full"`` or a :class:`Profile`.
    :raises AcceleratorError: for an unknown name, listing the valid ones and the closest.
    """
    if isinstance(profile, Profile):
        return profile
    return PROFILES[profile_name(profile)]
