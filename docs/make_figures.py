"""Regenerate the README's figures: ``python docs/make_figures.py``.

``docs/img/bench-quick.png`` is the roofline ``accelerators bench --plot`` writes (measured
GEMM and stream points under the catalog's compute and bandwidth ceilings), from a
quick-profile run of the benchmark gate on this machine. The report it was drawn from is kept
beside it (``bench-quick.json``), so the picture can be traced to a run: device, versions,
time. Needs the ``[bench]`` extra (torch, matplotlib).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from accelerators import bench

OUT = Path(__file__).resolve().parent / "img"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="quick", help="bench profile (default: quick)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder (default: {OUT})")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    report = bench.run(None, args.profile)
    png = bench.plot_report(report, args.out / f"bench-{args.profile}.png")
    json_path = bench.write_json(report, args.out / f"bench-{args.profile}.json")
    print(f"{png} and {json_path.name}: verdict {report.verdict.value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
