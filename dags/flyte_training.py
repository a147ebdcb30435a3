"""GPU training with the benchmark gate first: a Flyte workflow to copy.

    pyflyte run flyte_training.py training --epochs 40
    python flyte_training.py            # the same, prints a summary

The gate runs as its own node on the training accelerator; the training task then runs on
the node the gate checked (``pinned``: required affinity on ``kubernetes.io/hostname``)
and receives the gate's result. The model is tiny: on this machine it trains on the CPU.

Locally the H100 is absent, so the gate checks the CPU's health and records that the H100
was not there (docs/flyte.md, "Running locally"); in a cluster it must find the H100.
Set ACCELERATORS_GATE_EXPECT to change what a local run expects.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from flytekit import dynamic, task, workflow
from flytekitplugins.accelerators import GateResult, gate, pinned, task_args

#: What training runs on. Change it here; every node follows.
ACCELERATOR = "H100-SXM:1"


@dataclass
class TrainResult:
    """What training produced and which gate vouched for its node."""

    final_loss: float
    first_loss: float
    epochs: int
    device: str
    gate_verdict: str
    gate_node: str
    gate_host: str
    gate_device: str
    gate_note: str
    gate_reasons: list[str]
    #: The verdict in one line, saying first when the accelerator asked for was not checked.
    gate_headline: str


@task(**task_args(ACCELERATOR))
def train(epochs: int, gate_result: GateResult) -> TrainResult:
    """Fit a two-layer network to a noisy sine; runs on CUDA when there is one."""
    import torch

    if not gate_result.passed:  # unreachable with policy "fail"; here for copy-paste safety
        raise RuntimeError(f"refusing to train after a failed gate: {gate_result.summary()}")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    generator = torch.Generator().manual_seed(0)
    x = torch.linspace(-3, 3, 512).unsqueeze(1)
    y = torch.sin(x) + 0.05 * torch.randn(x.shape, generator=generator)
    x, y = x.to(device), y.to(device)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(1, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
    model = model.to(device)
    # Plain gradient descent with momentum: torch.optim imports torch._dynamo (seconds).
    velocity = [torch.zeros_like(p) for p in model.parameters()]
    losses = []
    for _ in range(epochs):
        model.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        with torch.no_grad():
            for parameter, v in zip(model.parameters(), velocity, strict=True):
                v.mul_(0.9).add_(parameter.grad)
                parameter.sub_(0.05 * v)
        losses.append(float(loss.detach()))
    return TrainResult(
        final_loss=losses[-1],
        first_loss=losses[0],
        epochs=epochs,
        device=device,
        gate_verdict=gate_result.verdict,
        gate_node=gate_result.node,
        gate_host=gate_result.host,
        gate_device=gate_result.device,
        gate_note=gate_result.note,
        gate_reasons=[r for r in gate_result.reasons if not r.startswith("[info]")],
        gate_headline=gate_result.headline,
    )


@dynamic
def train_on_gated_node(gate_result: GateResult, epochs: int) -> TrainResult:
    """Pin training to the node the gate checked, with the same accelerator."""
    return train(epochs=epochs, gate_result=gate_result).with_overrides(
        **pinned(ACCELERATOR, gate_result)
    )


@workflow
def training(epochs: int = 40) -> TrainResult:
    """Gate, then train on the gated node."""
    checked = gate(ACCELERATOR)
    return train_on_gated_node(gate_result=checked, epochs=epochs)


if __name__ == "__main__":
    started = time.perf_counter()
    result = training()
    print(f"gate: {result.gate_headline}")
    print(
        f"      {result.gate_verdict.upper()} on {result.gate_device} "
        f"(node {result.gate_node or '-'}, host {result.gate_host}); expected {ACCELERATOR}"
    )
    if result.gate_note:
        print(f"      {result.gate_note}")
    for reason in result.gate_reasons:
        print(f"      {reason}")
    print(
        f"train: {result.epochs} epochs on {result.device}, loss "
        f"{result.first_loss:.4f} -> {result.final_loss:.4f}"
    )
    print(f"total: {time.perf_counter() - started:.1f} s")
