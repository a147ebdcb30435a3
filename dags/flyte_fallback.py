"""A fallback pipeline, ``H100 | A100-80GB``: take whichever the cluster has, prove it, use it.

    pyflyte run flyte_fallback.py fallback_finetune
    python flyte_fallback.py

The gate node asks for an H100, or else an 80 GB A100 (required node affinity allows both,
preferred affinity favours the H100). Its result says which one it got (``matched``); the
fine-tuning task then runs on that node with that accelerator (``pinned``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from flytekit import dynamic, task, workflow
from flytekitplugins.accelerators import GateResult, gate, pinned, task_args

#: Preferred first.
FALLBACK = "H100-SXM | A100-80GB"


@dataclass
class FinetuneResult:
    """What ran where."""

    accelerator: str
    gate_verdict: str
    gate_matched: str
    gate_note: str
    steps: int
    checksum: float
    #: The verdict in one line, saying first when the accelerator asked for was not checked.
    gate_headline: str


@task(**task_args(FALLBACK))
def finetune(steps: int, gate_result: GateResult) -> FinetuneResult:
    """A few optimiser steps of a small matrix factorisation; on CUDA when there is one."""
    import torch

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    left = torch.randn(64, 8, device=device, requires_grad=True)
    right = torch.randn(8, 64, device=device, requires_grad=True)
    target = torch.eye(64, device=device)
    for _ in range(steps):  # plain gradient descent: torch.optim imports torch._dynamo
        loss = ((left @ right - target) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for tensor in (left, right):
                tensor.sub_(0.5 * tensor.grad)
                tensor.grad = None
    return FinetuneResult(
        accelerator=gate_result.matched or gate_result.checked,
        gate_verdict=gate_result.verdict,
        gate_matched=gate_result.matched,
        gate_note=gate_result.note,
        steps=steps,
        checksum=float(loss.detach()),
        gate_headline=gate_result.headline,
    )


@dynamic
def finetune_on_gated_node(gate_result: GateResult, steps: int) -> FinetuneResult:
    """Run on the gate's node, with the alternative the gate matched."""
    return finetune(steps=steps, gate_result=gate_result).with_overrides(
        **pinned(FALLBACK, gate_result)
    )


@workflow
def fallback_finetune(steps: int = 50) -> FinetuneResult:
    """Gate on H100-SXM or A100-80GB, then fine-tune on what it found."""
    checked = gate(FALLBACK)
    return finetune_on_gated_node(gate_result=checked, steps=steps)


if __name__ == "__main__":
    started = time.perf_counter()
    result = fallback_finetune()
    print(f"gate: {result.gate_headline}")
    print(f"      {result.gate_verdict.upper()}, matched {result.gate_matched or '-'}")
    if result.gate_note:
        print(f"      {result.gate_note}")
    print(f"finetune: {result.steps} steps, loss {result.checksum:.4f}")
    print(f"total: {time.perf_counter() - started:.1f} s")
