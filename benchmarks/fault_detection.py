"""How often the gate catches corrupted GEMM outputs: faults injected into real torch outputs.

Four faults, each injected into the output of *every* product right after it is computed
(``_TorchGemmCase.run`` is wrapped), on the CPU backend:

* ``nan``: one element set to NaN;
* ``tile``: one 64 x 64 tile overwritten by another tile of the same output (misrouted data);
* ``bitflip``: 8 random elements, one random bit flipped in each, among the exponent bits
  and the top 3 mantissa bits (a flip in a low mantissa bit is below rounding: no check
  can tell it from a correct result, and it does not matter);
* ``scale``: every element 1 % too large (a systematic error).

``--device cuda`` runs the same on GPU 0 (``benchmarks/gpu_validation.py`` does, through
:func:`case_trials` and :func:`gate_runs`).

``none`` runs the same code without a fault: its rate is the false-alarm rate.

Two levels, both through the gate's own code:

* ``--trials``: one case per trial (a random shape the quick profile picks on a CPU, 5 calls
  with the untimed verification between them, then the winner's check, as in a search);
* ``--gate-runs``: whole :func:`accelerators.bench.run` calls (GEMM phases only, budgets cut
  to ``--budget-scale``), a MISCOMPARE failure in the report counting as caught.

    python benchmarks/fault_detection.py --trials 200 --gate-runs 20

Correctness detection does not depend on timing, so a busy machine changes only how long
this takes.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import random
import time
from collections.abc import Callable, Iterator
from typing import Any

from accelerators.bench import ReasonCode, run
from accelerators.bench.measure._backend import Shape
from accelerators.bench.measure._correctness import gemm_check_passes
from accelerators.bench.measure._profiles import get_profile
from accelerators.bench.torch_backend._backend import TorchBackend, _TorchGemmCase

FAULTS = ("none", "nan", "tile", "bitflip", "scale")
_TILE = 64
#: Bits a flip may hit: (lowest, highest) of exponent + top 3 mantissa bits.
_FLIP_BITS = {"fp32": (20, 30), "bf16": (4, 14), "fp16": (7, 14)}
_INT_VIEW = {"fp32": "int32", "bf16": "int16", "fp16": "int16"}


def corrupt(torch: Any, out: Any, fault: str, dtype: str, rng: random.Random) -> None:
    """Apply ``fault`` to ``out`` in place."""
    m, n = out.shape
    if fault == "nan":
        out[rng.randrange(m), rng.randrange(n)] = math.nan
    elif fault == "tile":
        tm, tn = min(_TILE, m), min(_TILE, n)
        r0, c0 = rng.randrange(m - tm + 1), rng.randrange(n - tn + 1)
        r1, c1 = rng.randrange(m - tm + 1), rng.randrange(n - tn + 1)
        if (r0, c0) == (r1, c1):
            r1 = (r1 + tm) % (m - tm + 1)
        out[r0 : r0 + tm, c0 : c0 + tn] = out[r1 : r1 + tm, c1 : c1 + tn].clone()
    elif fault == "bitflip":
        bits = out.view(getattr(torch, _INT_VIEW[dtype]))
        low, high = _FLIP_BITS[dtype]
        for _ in range(8):
            i, j, bit = rng.randrange(m), rng.randrange(n), rng.randint(low, high)
            value = int(bits[i, j].item())
            flipped = value ^ (1 << bit)
            width = 32 if dtype == "fp32" else 16
            if flipped >= 1 << (width - 1):  # back to a signed integer of that width
                flipped -= 1 << width
            bits[i, j] = flipped
    elif fault == "scale":
        out.mul_(1.01)


@contextlib.contextmanager
def injected(fault: str, seed: int) -> Iterator[None]:
    """Wrap ``_TorchGemmCase.run`` so that every product's output carries ``fault``."""
    original: Callable[[Any], None] = _TorchGemmCase.run
    rng = random.Random(seed)

    def run_and_corrupt(self: Any) -> None:
        original(self)
        if fault != "none":
            corrupt(self.session.backend.torch, self.out, fault, self.dtype, rng)

    _TorchGemmCase.run = run_and_corrupt  # type: ignore[method-assign]
    try:
        yield
    finally:
        _TorchGemmCase.run = original  # type: ignore[method-assign]


def case_trials(
    backend: TorchBackend, dtype: str, fault: str, trials: int, seed: int
) -> tuple[int, float, float]:
    """Trials (of ``trials``) in which the check failed; the largest outlier score and scale
    error seen (the margin of a healthy run below 1 and the floor)."""
    props = backend.devices()[0]
    rng = random.Random(seed)
    session = backend.open_gemm(props, dtype, pool_elements=2 * 2048 * 2048)
    caught = 0
    worst_outlier = worst_scale = 0.0
    try:
        with injected(fault, seed):
            for trial in range(trials):
                shape = Shape(*(rng.choice((256, 384, 512, 768, 1024)) for _ in range(3)))
                case = session.case(shape)
                try:
                    for _ in range(5):
                        case.before()
                        case.run()
                    check = case.check(blocks=4, block=64, seed=trial)
                finally:
                    case.close()
                passes, _ = gemm_check_passes(check, dtype)
                caught += not passes
                worst_outlier = max(worst_outlier, check.outlier_score)
                worst_scale = max(worst_scale, check.scale_error)
    finally:
        session.close()
    return caught, worst_outlier, worst_scale


def gate_runs(
    fault: str, runs: int, budget_scale: float, devices: str | list[int] = "cpu"
) -> tuple[int, float]:
    """Gate runs (of ``runs``) that failed with a MISCOMPARE, and seconds per run.

    ``devices`` is :func:`accelerators.bench.run`'s: ``"cpu"``, or GPU indices (``[0]``).
    """
    profile = get_profile("quick").scaled(budget_scale)
    profile = type(profile)(**{**profile.__dict__, "stream": False, "name": "fault-check"})
    caught = 0
    start = time.perf_counter()
    for number in range(runs):
        with injected(fault, seed=number):
            report = run(devices=devices, profile=profile)
        caught += any(r.code is ReasonCode.MISCOMPARE for r in report.reasons)
    return caught, (time.perf_counter() - start) / max(runs, 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--trials", type=int, default=200, help="case-level trials per fault")
    parser.add_argument("--gate-runs", type=int, default=20, help="gate runs per fault")
    parser.add_argument("--budget-scale", type=float, default=0.25)
    parser.add_argument("--dtype", action="append", choices=("fp32", "bf16", "fp16"))
    parser.add_argument("--fault", action="append", choices=FAULTS)
    parser.add_argument(
        "--device", choices=("cpu", "cuda"), default="cpu", help="cuda: GPU 0 (also ROCm)"
    )
    args = parser.parse_args()
    dtypes = args.dtype or ["fp32", "bf16"]
    faults = args.fault or list(FAULTS)
    backend = TorchBackend(args.device, indices=None if args.device == "cpu" else [0])
    devices: str | list[int] = "cpu" if args.device == "cpu" else [0]
    print(f"torch {backend.describe()}; faults in every product's output; {args.device} backend")
    print(f"{'fault':8} {'dtype':6} {'case trials caught':>24}  worst outlier  worst |alpha-1|")
    for fault in faults if args.trials else ():
        for dtype in dtypes:
            seed = FAULTS.index(fault) * 10 + dtypes.index(dtype)
            caught, outlier, scale = case_trials(backend, dtype, fault, args.trials, seed)
            print(
                f"{fault:8} {dtype:6} {caught:>9}/{args.trials:<5} = {caught / args.trials:6.1%}"
                f"  {outlier:13.3g}  {scale:15.3g}",
                flush=True,
            )
    if args.gate_runs:
        print(f"\n{'fault':8} {'gate runs with MISCOMPARE':>28}  (quick x {args.budget_scale})")
        for fault in faults:
            caught, per_run = gate_runs(fault, args.gate_runs, args.budget_scale, devices)
            print(
                f"{fault:8} {caught:>13}/{args.gate_runs:<5} = {caught / args.gate_runs:6.1%}"
                f"   {per_run:.1f} s/run",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
