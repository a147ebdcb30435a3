"""A fine-tune that sizes itself: plan by the job, gate the chosen accelerator, train there.

    pyflyte run dags/flyte_finetune.py finetune --tokens 2e7 --budget_usd 5
    python dags/flyte_finetune.py            # the same, prints a summary

1. ``plan_job`` reads the model's ``config.json``, then ``accelerators.sizing.plan`` ranks the
   rentable choices for the method, the tokens and the budget by total cost (or by time, or
   cost within a deadline), each timed with what the accelerator really delivers: the bench
   history's fleet median where ``$ACCELERATORS_BENCH_HISTORY`` has records, else a sourced
   default. Its Deck shows the ranking; it returns the best choice with two fallbacks that
   one pod can ask for (``L40S | H200 | RTX-PRO-6000``).
2. ``gate_then_train`` (``@dynamic``: the spec is known only now) runs the benchmark gate on
   that spec, as a node of its own (``gate(spec)``).
3. ``train_on_gated_node`` gives the training task the accelerator the gate matched, on the
   gate's node, through ``with_overrides(**pinned(spec, gate_result))``: the task has no
   accelerator of its own, the override places it.

Locally no accelerator is there: the gate checks the CPU's health and records that the
planned device was absent (docs/flyte.md, "Running locally"), and training runs on the CPU.
Set FINETUNE_MODEL_CONFIG to your model's config.json (default: the Qwen2.5-0.5B config that
the tests ship).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from flytekit import Deck, current_context, dynamic, task, workflow
from flytekitplugins.accelerators import GateResult, gate, pinned

from accelerators.sizing import plan

#: The model to fine-tune: a Hugging Face config.json, read when the workflow is registered.
MODEL_CONFIG_PATH = Path(
    os.environ.get(
        "FINETUNE_MODEL_CONFIG",
        Path(__file__).resolve().parents[1] / "tests" / "data" / "qwen2.5-0.5b-config.json",
    )
)
MODEL_CONFIG: dict = json.loads(MODEL_CONFIG_PATH.read_text(encoding="utf-8"))


@dataclass
class FinetunePlan:
    """What ``plan_job`` chose, what it costs, and the whole plan as JSON."""

    spec: str
    best: str
    where: str
    hours: float
    usd: float
    summary: str
    plan_json: str


@dataclass
class FinetuneResult:
    """The plan, the gate's verdict and measured figures, and what training did."""

    spec: str
    planned_usd: float
    planned_hours: float
    gate_verdict: str
    gate_device: str
    gate_matched: str
    gate_note: str
    gate_tflops: dict[str, float]
    device: str
    steps: int
    first_loss: float
    final_loss: float


@task(enable_deck=True, cache=False)
def plan_job(
    model_config: dict,
    method: str,
    tokens: float,
    epochs: float,
    budget_usd: float,
    deadline_h: float,
    clouds: list[str],
) -> FinetunePlan:
    """Rank where to fine-tune by total cost; the best choice and its fallbacks."""
    job = plan(
        model_config,
        method,
        tokens=tokens,
        epochs=epochs,
        budget_usd=budget_usd or None,
        deadline_h=deadline_h or None,
        clouds=clouds or None,
    )
    Deck("Plan", job.to_html(top=10))
    best = job.best
    if best is None or best.usd is None:
        raise ValueError(f"No priced choice holds this fine-tune: {job.summary()}")
    return FinetunePlan(
        spec=str(job.fallbacks(3)),
        best=str(best.spec),
        where=best.where,
        hours=best.hours,
        usd=best.usd,
        summary=job.summary(),
        plan_json=json.dumps(job.to_dict()),
    )


@task(cache=False)
def train(steps: int, job: FinetunePlan, gate_result: GateResult) -> FinetuneResult:
    """Stand-in for your trainer: a few steps of a small model, on CUDA when there is one."""
    import torch

    if not gate_result.passed:  # unreachable with policy "fail"; here for copy-paste safety
        raise RuntimeError(f"refusing to train after a failed gate: {gate_result.summary()}")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    x = torch.randn(256, 32, device=device)
    y = x @ torch.randn(32, 1, device=device)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 1))
    model = model.to(device)
    losses = []
    for _ in range(steps):  # plain gradient descent: torch.optim imports torch._dynamo
        model.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        with torch.no_grad():
            for parameter in model.parameters():
                parameter.sub_(0.05 * parameter.grad)
        losses.append(float(loss.detach()))
    report = gate_result.report()
    measured = {g.dtype: round(g.tflops, 3) for g in report.gemm}
    current_context().logging.info(f"{job.summary}; {gate_result.summary()}")
    return FinetuneResult(
        spec=job.spec,
        planned_usd=job.usd,
        planned_hours=job.hours,
        gate_verdict=gate_result.verdict,
        gate_device=gate_result.device,
        gate_matched=gate_result.matched,
        gate_note=gate_result.note,
        gate_tflops=measured,
        device=device,
        steps=steps,
        first_loss=losses[0],
        final_loss=losses[-1],
    )


@dynamic
def train_on_gated_node(gate_result: GateResult, job: FinetunePlan, steps: int) -> FinetuneResult:
    """The plan's accelerator (the alternative the gate matched), on the gate's node."""
    return train(steps=steps, job=job, gate_result=gate_result).with_overrides(
        **pinned(job.spec, gate_result)
    )


@dynamic
def gate_then_train(job: FinetunePlan, steps: int) -> FinetuneResult:
    """The gate on the planned spec, then training where it passed."""
    checked = gate(job.spec)
    return train_on_gated_node(gate_result=checked, job=job, steps=steps)


@workflow
def finetune(
    model_config: dict = MODEL_CONFIG,
    method: str = "full",
    tokens: float = 2e7,
    epochs: float = 1.0,
    budget_usd: float = 5.0,
    deadline_h: float = 0.0,
    clouds: list[str] = ["hf"],  # noqa: B006 - flytekit workflow defaults are literals
    steps: int = 30,
) -> FinetuneResult:
    """Plan, gate, train. ``deadline_h`` 0 means none; ``clouds`` empty means every cloud."""
    job = plan_job(
        model_config=model_config,
        method=method,
        tokens=tokens,
        epochs=epochs,
        budget_usd=budget_usd,
        deadline_h=deadline_h,
        clouds=clouds,
    )
    return gate_then_train(job=job, steps=steps)


if __name__ == "__main__":
    started = time.perf_counter()
    result = finetune()
    print(f"plan: {result.spec}, ${result.planned_usd:.2f} in {result.planned_hours:.2f} h")
    print(f"gate: {result.gate_verdict.upper()} on {result.gate_device}; {result.gate_note}")
    print(f"gate TFLOPS: {result.gate_tflops}")
    print(
        f"train: {result.steps} steps on {result.device}, loss "
        f"{result.first_loss:.4f} -> {result.final_loss:.4f}"
    )
    print(f"total: {time.perf_counter() - started:.1f} s")
