"""Regenerate the README's figure: ``python docs/make_figures.py``.

``docs/img/bench-quick.png`` is the roofline ``accelerators bench --plot`` writes (measured
GEMM and stream points under the catalog's compute and bandwidth ceilings), from a
quick-profile run of the benchmark gate on this machine. The report it was drawn from is kept
beside it (``bench-quick.json``), so the picture can be traced to a run: device, versions,
time. The PNG is stamped with the report's SHA-256, and the README's alt text for it and its
``accelerators bench`` console block are then rewritten from the same report
(``docs/make_outputs.py``): the three cannot disagree, and ``tests/test_docs_outputs.py`` fails
when they do.

``--redraw`` draws the chart again from the committed report without a new run (after a change
to the plotting code). Needs the ``[bench]`` extra (torch, matplotlib).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import make_outputs  # docs/make_outputs.py, beside this file

from accelerators import bench

OUT = Path(__file__).resolve().parent / "img"
#: The README blocks written from the report.
BLOCKS = ("readme-bench", "readme-roofline")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--profile", default="quick", help="bench profile (default: quick)")
    parser.add_argument(
        "--redraw", action="store_true", help="draw from the committed report; run nothing"
    )
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    json_path = OUT / f"bench-{args.profile}.json"
    png_path = OUT / f"bench-{args.profile}.png"
    if args.redraw:
        report = bench.BenchReport.model_validate_json(json_path.read_text(encoding="utf-8"))
    else:
        report = bench.run(None, args.profile)
        bench.write_json(report, json_path)
    digest = make_outputs.report_digest(str(json_path.relative_to(make_outputs.ROOT)))
    bench.plot_report(report, png_path)
    png_path.write_bytes(make_outputs.stamp(png_path.read_bytes(), digest))
    print(f"{png_path} and {json_path.name}: verdict {report.verdict.value}")
    if args.profile == "quick":
        return make_outputs.main([f"--only={name}" for name in BLOCKS])
    return 0


if __name__ == "__main__":
    sys.exit(main())
