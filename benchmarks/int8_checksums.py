"""How often the exact int8 row checksums catch corrupted integer GEMM outputs (issue 11).

int8 products (``torch._int_mm``, int32 outputs) are checked exactly: every row sum ``C.1``
must equal ``A.(B.1)`` (``accelerators/bench/torch_backend/_abft_exact.py``). This script
injects faults into real CPU-torch outputs after every product of a case, then reads the case's
check as the gate does, and prints how many trials were caught:

* ``off_by_one``: one random element +1 or -1 (far below any floating-point tolerance);
* ``bitflip``: 8 random elements, one random bit (0-30) flipped in each;
* ``tile``: one 64 x 64 tile overwritten by another tile of the same output;
* ``zero_row``: one output row zeroed (a stale or dropped block).

``none`` runs the same code without a fault: its rate is the false-alarm rate.

    python benchmarks/int8_checksums.py --trials 200
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable
from typing import Any

from accelerators.bench.measure._backend import Shape
from accelerators.bench.measure._correctness import gemm_check_passes
from accelerators.bench.torch_backend._backend import TorchBackend, _TorchGemmCase

Fault = Callable[[Any, random.Random], None]


def _off_by_one(out: Any, rng: random.Random) -> None:
    out[rng.randrange(out.shape[0]), rng.randrange(out.shape[1])] += rng.choice((-1, 1))


def _bitflip(out: Any, rng: random.Random) -> None:
    for _ in range(8):
        i, j = rng.randrange(out.shape[0]), rng.randrange(out.shape[1])
        out[i, j] = int(out[i, j]) ^ (1 << rng.randrange(31))


def _tile(out: Any, rng: random.Random) -> None:
    out[64:128, 128:192] = out[192:256, 0:64].clone()


def _zero_row(out: Any, rng: random.Random) -> None:
    out[rng.randrange(out.shape[0])] = 0


FAULTS: dict[str, Fault | None] = {
    "none": None,
    "off_by_one": _off_by_one,
    "bitflip": _bitflip,
    "tile": _tile,
    "zero_row": _zero_row,
}


def trial(backend: TorchBackend, fault: Fault | None, rng: random.Random) -> bool:
    """One case of 5 calls with ``fault`` in every output; ``True`` when the check fails it."""
    (device,) = backend.devices()
    session = backend.open_gemm(device, "int8", pool_elements=1 << 22)
    # Small shapes: torch's CPU int8 GEMM is slow (about 1-2 GOPS on the 2-vCPU VM).
    edge = rng.choice((256, 320, 384))
    case = session.case(Shape(edge, edge - 64, rng.choice((128, 256, 384))))
    assert isinstance(case, _TorchGemmCase)
    try:
        for _ in range(5):
            case.before()
            case.run()
            if fault is not None:
                fault(case.out, rng)
        check = case.check(blocks=4, block=64, seed=rng.randrange(1 << 30))
    finally:
        case.close()
        session.close()
    return not gemm_check_passes(check, "int8")[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100, help="trials per fault")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    backend = TorchBackend("cpu", cpu_caches=(512 << 10, 32 << 20), cpu_name="CPU")
    rng = random.Random(args.seed)
    print(f"int8 exact row checksums, {args.trials} trials per fault, CPU torch")
    print(f"{'fault':<11} {'caught':>9}")
    for name, fault in FAULTS.items():
        caught = sum(trial(backend, fault, rng) for _ in range(args.trials))
        print(f"{name:<11} {caught:>4}/{args.trials:<4} = {100 * caught / args.trials:5.1f}%")


if __name__ == "__main__":
    main()
