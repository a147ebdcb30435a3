"""A fine-tune that sizes itself: plan by the job, gate the chosen accelerator, train there.

    pyflyte run flyte_finetune.py finetune --tokens 2e7 --budget_usd 50
    python flyte_finetune.py            # the same with the defaults, prints a summary

Copy this file anywhere: with no ``model_config`` it plans for the Qwen2.5-0.5B config.json
shipped with ``accelerators``; give yours as ``--model_config`` (its parsed JSON) or set
``FINETUNE_MODEL_CONFIG`` to its path before registering. The parameters, their defaults and
the plan are ``accelerators.sizing.FINETUNE_PARAMS`` and ``plan_finetune``, the same as the
Airflow template's (``airflow_finetune.py``) and as ``accelerators plan --platform karpenter``:
the pods run on ``PLATFORM`` (EKS with Karpenter), and the plan keeps only what it can place.

1. ``plan_job`` ranks the rentable choices of every cloud with prices (or ``clouds``) that
   ``PLATFORM`` can place, for the method, the tokens and the budget, by total cost (or by
   time, or cost within a deadline), each timed with what the accelerator really delivers
   (the bench history's fleet median where ``$ACCELERATORS_BENCH_HISTORY`` has records, else
   a sourced default) plus its start-up (provisioning, image pull, model load, first
   checkpoint). Its Deck shows the ranking with tokens/s; it returns the best choice with two
   fallbacks one pod can ask for (``L4 | T4 | L40S``), its device count, hours, start-up,
   cost and tokens/s, the clouds considered and the platform. A job no option holds fails
   here, naming the binding constraint.
2. ``gate_then_train`` (``@dynamic``: the spec is known only now) runs the benchmark gate on
   that spec, as a node of its own (``gate(spec, platform=PLATFORM)``).
3. ``train_on_gated_node`` gives the training task the accelerator the gate matched, on the
   gate's node, through ``with_overrides(**pinned(spec, gate_result, platform=PLATFORM))``:
   the task has no accelerator of its own, the override places it.

Locally no accelerator is there: the gate checks the CPU's health and its headline says the
planned device was not checked (``not checked: this machine has no T4``); the gate's Deck
file is logged and printed; training runs on the CPU.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass

from flytekit import Deck, current_context, dynamic, task, workflow
from flytekitplugins.accelerators import GateResult, gate, last_gate_deck, pinned

from accelerators.sizing import (
    finetune_choice,
    finetune_defaults,
    model_config_of,
    plan_finetune,
    plan_html,
)

#: Where the pods run: EKS with Karpenter. The plan keeps what this platform can place, and
#: the gate and the training task are placed on it (accelerators.kubernetes.platforms()).
#: The one line to change: "gke" on GKE, "nvidia" on a cluster with the NVIDIA GPU Operator,
#: "flyte" where nodes carry propeller's default labels (k8s.amazonaws.com/accelerator).
PLATFORM = "karpenter"
#: The shared parameters' defaults (accelerators.sizing.FINETUNE_PARAMS).
DEFAULTS = finetune_defaults()
#: The model to fine-tune: a Hugging Face config.json, read when the workflow is registered
#: (the example model's when FINETUNE_MODEL_CONFIG is not set).
MODEL_CONFIG: dict = model_config_of(os.environ.get("FINETUNE_MODEL_CONFIG", ""))


@dataclass
class FinetunePlan:
    """What ``plan_job`` chose (``accelerators.sizing.finetune_choice``) and the whole plan."""

    spec: str
    best: str
    where: str
    devices: int
    instances: int
    hours: float
    train_hours: float
    startup_min: float
    usd: float
    tokens_per_s: float
    tokens_per_s_per_device: float
    clouds: str
    platform: str
    legend: str
    summary: str
    plan_json: str


@dataclass
class FinetuneResult:
    """The plan, the gate's verdict and measured figures, and what training did."""

    plan: FinetunePlan
    gate_headline: str
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
    budget_usd: float | None,
    deadline_h: float | None,
    clouds: list[str],
    rank_by: str,
    startup_min: float | None,
) -> FinetunePlan:
    """Rank where to fine-tune; fails fast, naming the binding constraint, when nothing fits."""
    job = plan_finetune(
        model_config,
        method,
        tokens,
        epochs,
        budget_usd,
        deadline_h,
        clouds,
        rank_by,
        startup_min,
        platform=PLATFORM,
    )
    Deck("Plan", plan_html(job, top=10))
    return FinetunePlan(**finetune_choice(job), plan_json=json.dumps(job.to_dict()))


@task(cache=False)
def train(steps: int, job: FinetunePlan, gate_result: GateResult) -> FinetuneResult:
    """Stand-in for your trainer: a few steps of a small model, on CUDA when there is one.

    Start yours with ``torchrun --nproc-per-node=<job.devices>``, as the Airflow template does.
    """
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
        plan=job,
        gate_headline=gate_result.headline,
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
        **pinned(job.spec, gate_result, platform=PLATFORM)
    )


@dynamic
def gate_then_train(job: FinetunePlan, steps: int) -> FinetuneResult:
    """The gate on the planned spec, then training where it passed."""
    checked = gate(job.spec, platform=PLATFORM)
    return train_on_gated_node(gate_result=checked, job=job, steps=steps)


@workflow
def finetune(
    model_config: dict = MODEL_CONFIG,
    method: str = DEFAULTS["method"],
    tokens: float = DEFAULTS["tokens"],
    epochs: float = DEFAULTS["epochs"],
    budget_usd: float | None = DEFAULTS["budget_usd"],
    deadline_h: float | None = DEFAULTS["deadline_h"],
    clouds: list[str] = DEFAULTS["clouds"],
    rank_by: str = DEFAULTS["rank_by"],
    startup_min: float | None = DEFAULTS["startup_min"],
    steps: int = 30,
) -> FinetuneResult:
    """Plan, gate, train. ``clouds`` empty: every cloud with prices; ``None``: no limit."""
    job = plan_job(
        model_config=model_config,
        method=method,
        tokens=tokens,
        epochs=epochs,
        budget_usd=budget_usd,
        deadline_h=deadline_h,
        clouds=clouds,
        rank_by=rank_by,
        startup_min=startup_min,
    )
    return gate_then_train(job=job, steps=steps)


if __name__ == "__main__":
    started = time.perf_counter()
    result = finetune()
    chosen = result.plan
    print(
        f"plan:  {chosen.spec} (best {chosen.best} on {chosen.where}, {chosen.devices} "
        f"device(s)): {chosen.hours:.2f} h with {chosen.startup_min:.0f} min start-up, "
        f"${chosen.usd:.2f}, {chosen.tokens_per_s:,.0f} tokens/s "
        f"({chosen.tokens_per_s_per_device:,.0f} per device)"
    )
    print(f"       clouds considered: {chosen.clouds}")
    print(f"       platform: {chosen.platform}")
    if chosen.legend:
        print(f"       {chosen.legend}")
    print(f"gate:  {result.gate_headline}")
    if result.gate_note:
        print(f"       {result.gate_note}")
    print(f"       TFLOPS measured: {result.gate_tflops}")
    deck = last_gate_deck()
    if deck:
        print(f"       Deck: file://{deck}")
    print(
        f"train: {result.steps} steps on {result.device}, loss "
        f"{result.first_loss:.4f} -> {result.final_loss:.4f}"
    )
    print(f"total: {time.perf_counter() - started:.1f} s")
