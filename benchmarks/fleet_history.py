"""Build a simulated fleet's bench history and show it: 6 H100 nodes, one of them degrading.

Every report is a real :func:`accelerators.bench.run` on the fake backend
(``accelerators.bench.testing``): each node gets a planted GEMM and bandwidth level within a
few per cent of the others, with seeded call-to-call noise; node ``gpu-node-4`` loses 3 %
of its bf16/fp16 GEMM rate and 2 % of its bandwidth per run after run 8 (a fan failing, a
throttling node). The reports are stamped one day apart and appended to a history store; then
the script prints what ``accelerators bench history`` prints and writes its chart.

    python benchmarks/fleet_history.py --store /tmp/fleet.sqlite --chart docs/fleet-history.png

``--store s3://bucket/prefix`` writes to S3 instead (boto3, ``AWS_ENDPOINT_URL`` honoured).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from accelerators.bench import BenchReport, run
from accelerators.bench.history._open import open_store
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

NODES = 6
RUNS = 14
DEGRADING = "gpu-node-4"
DEGRADE_FROM = 8
_BASE_GEMM = {"fp32": 40.0, "tf32": 360.0, "bf16": 800.0, "fp16": 800.0, "fp8": 1420.0}
_BASE_BW = {"copy": 2900.0, "scale": 2900.0, "add": 2970.0, "triad": 2970.0, "dot": 3180.0}


def node_report(node: str, level: float, run_index: int, day: datetime, seed: int) -> BenchReport:
    """One gate run of ``node``: its planted level, the degradation, noise on every call."""
    gemm_factor = bw_factor = level
    if node == DEGRADING and run_index >= DEGRADE_FROM:
        steps = run_index - DEGRADE_FROM + 1
        gemm_factor *= 1 - 0.03 * steps
        bw_factor *= 1 - 0.02 * steps
    rng = random.Random(seed)
    jitter = 1 + rng.uniform(-0.01, 0.01)  # run-to-run drift of a healthy node
    device = FakeDevice(
        gemm_tflops={
            d: v * (gemm_factor if d in ("bf16", "fp16") else level) * jitter
            for d, v in _BASE_GEMM.items()
        },
        bandwidth_gbps={k: v * bw_factor * jitter for k, v in _BASE_BW.items()},
        noise=0.01,
    )
    report = run("H100", backend=FakeBackend([device], seed=seed), detected=fake_detected())
    return report.model_copy(update={"node": node, "started_at": day, "host": f"{node}-pod"})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--store", default=None, help="history path or s3://bucket/prefix")
    parser.add_argument("--chart", type=Path, default=Path("fleet-history.png"))
    parser.add_argument("--nodes", type=int, default=NODES)
    parser.add_argument("--runs", type=int, default=RUNS)
    args = parser.parse_args()
    store_location = args.store or str(Path.cwd() / "fleet-history.sqlite")
    if not store_location.startswith("s3://") and Path(store_location).exists():
        Path(store_location).unlink()  # a fresh history each time the script runs
    store = open_store(store_location)
    levels = random.Random(7)
    nodes = {f"gpu-node-{i}": 1 + levels.uniform(-0.03, 0.03) for i in range(args.nodes)}
    start = datetime(2026, 11, 1, 6, 0, tzinfo=UTC)
    wall = time.perf_counter()
    count = 0
    for run_index in range(args.runs):
        for number, (node, level) in enumerate(nodes.items()):
            day = start + timedelta(days=run_index, minutes=7 * number)
            store.append(node_report(node, level, run_index, day, seed=1000 * run_index + number))
            count += 1
    print(
        f"{count} gate runs ({args.nodes} nodes x {args.runs}) appended to {store.location} "
        f"in {time.perf_counter() - wall:.1f} s; degrading: {DEGRADING} from run {DEGRADE_FROM}"
    )
    env = dict(os.environ, COLUMNS="160")
    command = [
        sys.executable,
        "-m",
        "accelerators.cli",
        "bench",
        "history",
        "--store",
        store_location,
        "--metric",
        "gemm.bf16",
        "--metric",
        "memory.triad",
        "--chart",
        str(args.chart),
    ]
    print("$ accelerators " + " ".join(command[3:]), flush=True)
    return subprocess.run(command, env=env, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main())
