"""Batch inference fanned out over MIG slices with ``map_task``: a Flyte workflow to copy.

    pyflyte run flyte_mig_inference.py batch_inference --batches 4
    python flyte_mig_inference.py

Each mapped task gets one ``A100@1g.5gb`` slice (one slice per pod: a CUDA process can use
only one MIG device) and gates it in its own pod before scoring (``accelerator_task``, the
default): several slices of one GPU sit on one node, so a gate in another pod could not
vouch for this pod's slice. Locally all mapped tasks share this process and its CPU, so
the gate runs once.
"""

from __future__ import annotations

import time

from flytekit import map_task, task, workflow
from flytekitplugins.accelerators import accelerator_task, last_gate_result

#: One MIG slice per mapped task.
SLICE = "A100@1g.5gb"


@task
def make_batches(batches: int, size: int) -> list[list[float]]:
    """Split a synthetic dataset into ``batches`` lists of ``size`` numbers."""
    return [[(b * size + i) / (batches * size) for i in range(size)] for b in range(batches)]


@accelerator_task(SLICE)
def score(batch: list[float]) -> list[float]:
    """Score one batch with a fixed model; on CUDA when there is one."""
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    model = model.to(device).eval()
    with torch.no_grad():
        out = model(torch.tensor(batch, device=device).unsqueeze(1)).squeeze(1)
    return [float(v) for v in out.cpu()]


@task
def summarise(scores: list[list[float]]) -> str:
    """Count and average the scores."""
    flat = [s for batch in scores for s in batch]
    return f"{len(scores)} batches, {len(flat)} scores, mean {sum(flat) / len(flat):.4f}"


@workflow
def batch_inference(batches: int = 4, size: int = 256) -> str:
    """Batches -> one MIG slice per batch (each gated in its pod) -> summary."""
    data = make_batches(batches=batches, size=size)
    scores = map_task(score, concurrency=7)(batch=data)
    return summarise(scores=scores)


if __name__ == "__main__":
    started = time.perf_counter()
    summary = batch_inference()
    result = last_gate_result(SLICE)
    if result is not None:
        print(result.summary())
    print(f"inference: {summary}")
    print(f"total: {time.perf_counter() - started:.1f} s")
