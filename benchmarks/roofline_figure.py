"""Draw the roofline figures of docs/benchmark.md from real runs of the gate.

* ``docs/roofline.png``: the quick gate on this machine's CPU (measured now);
* ``docs/roofline-h100-simulated.png``: the quick gate on the fake backend's H100, whose
  rates are planted (``accelerators.bench.testing``): what a GPU report looks like, not a
  measurement.

    python benchmarks/roofline_figure.py --out-dir docs
"""

from __future__ import annotations

import argparse
from pathlib import Path

from accelerators.bench import plot_report, run
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out-dir", type=Path, default=Path("docs"))
    args = parser.parse_args()
    cpu = run(devices="cpu", profile="quick")
    plot_report(cpu, args.out_dir / "roofline.png")
    print(f"CPU: verdict {cpu.verdict.value}, {cpu.elapsed_s:.1f} s, conditions {cpu.conditions}")
    for g in cpu.gemm:
        print(f"  GEMM {g.dtype}: best {g.tflops} median {g.median_tflops} TFLOPS")
    for m in cpu.memory:
        print(f"  {m.kernel}: best {m.gbps} median {m.median_gbps} GB/s")
    h100 = run("H100", backend=FakeBackend([FakeDevice()]), detected=fake_detected("H100-SXM"))
    plot_report(h100, args.out_dir / "roofline-h100-simulated.png")
    print(f"simulated H100: verdict {h100.verdict.value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
