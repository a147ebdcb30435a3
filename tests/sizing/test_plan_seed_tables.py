"""The seeds' own tables: for their model sizes, the plan's choice is among the accelerators they
recommend, or the test says (and checks) why ours differs.

Sources, read for these tests (facts carried over, not text):

* **Hugging Face**, ``skills/hugging-face-model-trainer/references/hardware_guide.md`` of
  huggingface/skills, read in the copy at milamanzarek/baza-skills@2cc6f1fae805 ("By Model
  Size", "By Budget", the flavor table's use-case column, "Memory Considerations": full
  ~20 GB and LoRA ~4 GB per billion parameters, "Qwen2.5-7B LoRA: ~28GB ✅ fits a10g-large").
  Its choices are judged on its own flavor list (``GUIDE_FLAVORS``) and on every HF flavor.
* **Skyward**, ``docs/accelerators.md`` of gabfssilva/skyward@0f02081eabd9, "Selection guide":
  by model size (minimum, recommended) and by workload (LoRA: A100-40GB; full: A100-80GB,
  H100). Judged as nodes you own (``scope="cluster"``): Skyward rents on many clouds whose
  prices our table does not hold, so each device is priced at its cheapest known rented rate.
* **Modal**, "How much VRAM do I need for LLM model fine-tuning?" (modal.com/blog,
  2024-09-01): full fine-tuning in half precision needs ~16 GB per billion parameters; a 7B
  with 8-bit optimizers ~70 GB (weights 14 + optimizer 42 + gradients 14). Modal's GPU guide
  (modal.com/docs/guide/gpu) offers T4, L4, A10, L40S, A100-40GB, A100-80GB, H100, H200 and
  B200, up to 8 per container.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from accelerators.sizing import ModelShape, Plan, estimate_memory, plan

QWEN = Path(__file__).resolve().parents[1] / "data" / "qwen2.5-0.5b-config.json"
GUIDE_FLAVORS = (
    "t4-small",
    "t4-medium",
    "l4x1",
    "l4x4",
    "a10g-small",
    "a10g-large",
    "a10g-largex2",
    "a10g-largex4",
    "a100-large",
)


def _model(best: Plan) -> str:
    assert best.best is not None, best.summary()
    return best.best.spec.accelerator.model if best.best.spec.accelerator else ""


def _hf(model: object, method: str, tokens: float, **kwargs: object) -> Plan:
    return plan(model, method, tokens=tokens, clouds=["hf"], history=False, **kwargs)


# -- Hugging Face: on the guide's own flavors, its recommendation is our choice ---------------
@pytest.mark.parametrize(
    ("row", "model", "method", "budget", "recommended"),
    [
        # "Tiny Models (<1B): t4-small, e.g. Qwen2.5-0.5B"; "Minimal Budget (<$5 total): t4-small"
        ("<1B, minimal budget", QWEN, "full", 5, {"T4"}),
        # "Small Models (1-3B): t4-medium or a10g-small"; "Qwen2.5-1.5B LoRA: ~6GB fits t4-small"
        ("1-3B LoRA", 1.5e9, "lora", 20, {"T4", "A10G"}),
        ("1-3B LoRA, 3B", 3e9, "lora", 20, {"T4", "A10G"}),
        # "Medium (3-7B): a10g-small or a10g-large"; flavor table: "l4x1 | 3-7B models,
        # efficient training"
        ("3-7B LoRA, medium budget", 7e9, "lora", 50, {"A10G", "L4"}),
        # "Large Models (7-13B): a10g-large or a100-large"
        ("7-13B LoRA", 13e9, "lora", 200, {"A10G", "A100-40GB", "A100-80GB"}),
        # "Very Large Models (13B+): a100-large with LoRA", here QLoRA (see the LoRA case below)
        ("13B+ QLoRA, 70B", 70e9, "qlora", None, {"A100-40GB", "A100-80GB"}),
    ],
)
def test_hugging_face_on_its_own_flavors(
    row: str, model: object, method: str, budget: float | None, recommended: set[str]
) -> None:
    job = _hf(model, method, 3e7, budget_usd=budget, instances=GUIDE_FLAVORS)
    assert _model(job) in recommended, (row, job.summary())


def test_hugging_face_memory_rules_and_where_ours_differs() -> None:
    # "Qwen2.5-0.5B full: ~10GB ✅ fits t4-small": ours is 8.2 GB, the 20 GB/B rule 9.9 GB
    small = estimate_memory(ModelShape.from_hf_config(QWEN), method="full")
    assert small.total_gb == pytest.approx(20 * small.params / 1e9, rel=0.25)
    assert small.total_gb < 16 * 0.9
    # "Qwen2.5-7B LoRA: ~28GB ✅ fits a10g-large": the table puts 28 GB on a 24 GB GPU. Its
    # 4 GB/B rule contradicts its flavor; our estimate (bf16 weights 14 GB, adapters, and
    # recomputed activations at 4096 tokens) is 15.8 GB, which does fit: so we agree with the
    # flavor, not with the figure.
    lora = estimate_memory(ModelShape.like(7e9), method="lora")
    assert 4 * 7 > 24
    assert lora.total_gb < 24 * 0.9
    # The flavor holds it; what leaves it out is the A10G's compute rate, which the catalog no
    # longer carries (catalog 2026.11.6: the figures were the A10's, and no page gives the
    # A10G's), so no time or cost can be estimated for it.
    job = _hf(7e9, "lora", 3e7, instances=["a10g-large"])
    assert job.best is None
    assert [(e.spec, e.reason) for e in job.excluded] == [("A10G", "no dense bf16 rate")]
    # "Qwen2.5-7B full: ~140GB ❌ not feasible" on its flavors: nothing holds it, even sharded
    assert not _hf(7e9, "full", 3e7, instances=GUIDE_FLAVORS).options
    # "Qwen2.5-1.5B full: ~30GB ❌ exceeds most GPUs": 25.6 GB leaves out every 16-24 GB card
    mid = _hf(1.5e9, "full", 3e7, instances=GUIDE_FLAVORS)
    assert all(o.capacity_gb > 24 or o.sharded for o in mid.options)


def test_hugging_face_70b_lora_is_not_one_a100() -> None:
    # "Very Large Models (13B+): a100-large with LoRA, e.g. Llama-3-70B (LoRA only)". Ours
    # differs: a 70B's bf16 weights alone are 140 GB, more than the a100-large's 80 GB (the
    # guide even lists that flavor as a 40 GB A100), so LoRA needs several GPUs; QLoRA's NF4
    # weights (36.5 GB) are what fits one A100 (the QLoRA case above).
    job = _hf(70e9, "lora", 3e7, instances=GUIDE_FLAVORS)
    assert not job.options
    assert job.memory.weights_gb > 80
    everywhere = _hf(70e9, "lora", 3e7)
    assert everywhere.best is not None
    assert everywhere.best.devices > 1


@pytest.mark.parametrize(
    ("model", "method", "recommended"),
    [
        (QWEN, "full", {"T4"}),
        (7e9, "lora", {"A10G", "L4"}),
        (13e9, "lora", {"A10G", "A100-40GB", "A100-80GB"}),
    ],
)
def test_hugging_face_on_every_flavor_ours_is_cheaper_per_flop(
    model: object, method: str, recommended: set[str]
) -> None:
    # On every HF flavor ours picks what costs least for the job's FLOPs: the L40S (362 bf16
    # TFLOPS at $1.80/h) or an H200, flavors the guide's tables do not rank. When the
    # choice is not the guide's, it must be strictly cheaper than the guide's best.
    job = _hf(model, method, 3e7)
    assert job.best is not None
    guide = [o for o in job.options if o.spec.accelerator.model in recommended]
    assert guide, "the guide's accelerators hold the job too"
    if _model(job) not in recommended:
        assert job.best.usd < guide[0].usd
        assert job.best.throughput.achievable_tflops / job.best.usd_per_hour * job.best.devices > (
            guide[0].throughput.achievable_tflops / guide[0].usd_per_hour * guide[0].devices
        )


# -- Skyward: by model size, as nodes you own ---------------------------------------------------
OWNED = ["T4", "A10G", "A100-40GB", "A100-80GB", "H100-SXM:8"]


def _owned(model: object, method: str, rank_by: str = "cost") -> Plan:
    return plan(
        model,
        method,
        tokens=3e7,
        scope="cluster",
        inventory=OWNED,
        rank_by=rank_by,
        history=False,
    )


@pytest.mark.parametrize(
    ("row", "model", "method", "minimum", "recommended"),
    [
        ("70B+: 4x H100-SXM, 8x H100-SXM", 180e9, "lora", "H100-SXM", "H100-SXM"),
    ],
)
def test_skyward_rows_we_agree_with(
    row: str, model: object, method: str, minimum: str, recommended: str
) -> None:
    assert _model(_owned(model, method)) in {minimum, recommended}, row


@pytest.mark.parametrize(
    ("row", "model", "method", "minimum", "recommended"),
    [
        ("< 1B: T4, T4", QWEN, "full", "T4", "T4"),
        ("< 1B: T4, T4", QWEN, "lora", "T4", "T4"),
        ("1-7B: A10G, A100-40GB", 7e9, "lora", "A10G", "A100-40GB"),
        ("7-13B: A100-40GB, A100-80GB", 13e9, "lora", "A100-40GB", "A100-80GB"),
    ],
)
def test_skyward_rows_where_an_h100_costs_less(
    row: str, model: object, method: str, minimum: str, recommended: str
) -> None:
    # Skyward's rows say what holds the model. Ours agrees that its minimum holds it, but
    # ranks by the job's cost: at the cheapest rented rates we know (an H100 device-hour,
    # $2.99 on RunPod, at 794 achievable TFLOPS) the H100 costs less per FLOP than a T4,
    # the A10G ($1.00, HF) or an A100, so it is first; the table's choices follow.
    job = _owned(model, method)
    assert _model(job) == "H100-SXM", row
    models = [o.spec.accelerator.model for o in job.options]
    if minimum == "A10G":  # no dense bf16 rate in the catalog (2026.11.6): left out, saying so
        assert ("A10G", "no dense bf16 rate") in {(e.spec, e.reason) for e in job.excluded}
    else:
        assert minimum in models
    assert recommended in models
    assert job.options[0].usd < min(o.usd for o in job.options[1:])


def test_skyward_13_to_70b_and_the_workload_table() -> None:
    # "13-70B: A100-80GB minimum, 2x H100 recommended". QLoRA: one H100 holds it (45.9 GB).
    qlora = _owned(70e9, "qlora")
    assert _model(qlora) == "H100-SXM"
    assert any(o.spec.accelerator.model == "A100-80GB" for o in qlora.options)
    # LoRA differs: 140 GB of bf16 weights plus activations do not fit 2 x 80 GB with 10 %
    # headroom, so ours shards over 4 H100s.
    lora = _owned(70e9, "lora")
    assert lora.best is not None
    assert str(lora.best.spec) == "H100-SXM:4"
    assert lora.best.sharded
    assert lora.memory.weights_gb / 2 + lora.memory.activations_gb > 80 * 0.9
    # "By workload: Full fine-tuning: A100-80GB, H100-SXM": a 7B full fine-tune (114 GB) shards
    # over two H100s, the table's recommended accelerator.
    full = _owned(7e9, "full")
    assert full.best is not None
    assert str(full.best.spec) == "H100-SXM:2"


# -- Modal: 16 GB per billion parameters, 70 GB with 8-bit optimizers ---------------------------
def test_modal_memory_rules_are_ours() -> None:
    shape = ModelShape.from_params(7e9)
    adamw = estimate_memory(shape, method="full", optimizer="adamw")
    assert adamw.weights_gb + adamw.gradients_gb + adamw.optimizer_gb == pytest.approx(16 * 7)
    eight_bit = estimate_memory(shape, method="full", optimizer="adamw-8bit")
    assert eight_bit.weights_gb == pytest.approx(14)
    assert eight_bit.gradients_gb == pytest.approx(14)
    assert eight_bit.optimizer_gb == pytest.approx(42)


MODAL = [
    "T4:8",
    "L4:8",
    "A10:4",
    "L40S:8",
    "A100-40GB:8",
    "A100-80GB:8",
    "H100-SXM:8",
    "H200-SXM:8",
]


def test_modal_7b_full_needs_more_than_one_80gb_gpu_unless_8bit() -> None:
    full = plan(7e9, "full", tokens=3e7, scope="cluster", inventory=MODAL, history=False)
    assert full.best is not None
    assert all(o.devices > 1 or o.capacity_gb > 112 for o in full.options)
    eight_bit = plan(
        7e9,
        "full",
        tokens=3e7,
        scope="cluster",
        inventory=MODAL,
        optimizer="adamw-8bit",
        history=False,
    )
    single = {str(o.spec) for o in eight_bit.options if o.devices == 1}
    assert {"A100-80GB", "H100-SXM"} <= single  # ~70 GB (+ activations) fits one 80 GB GPU
