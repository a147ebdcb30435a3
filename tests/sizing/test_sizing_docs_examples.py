"""The three worked examples of docs/sizing.md: computed, printed and checked against the page.

Run ``pytest -q -s tests/sizing/test_sizing_docs_examples.py`` to see the figures; every
printed line must appear verbatim in docs/sizing.md, so the page cannot drift from the code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from accelerators.sizing import (
    ModelShape,
    cost_of_throughput,
    estimate_cost,
    estimate_memory,
    kv_cache_bytes_per_token,
    recommend,
    unit_price,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "sizing.md"

MISTRAL_7B = {
    "model_type": "mistral",
    "vocab_size": 32000,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "hidden_act": "silu",
    "tie_word_embeddings": False,
}
LLAMA2_70B = {
    "model_type": "llama",
    "vocab_size": 32000,
    "hidden_size": 8192,
    "intermediate_size": 28672,
    "num_hidden_layers": 80,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "hidden_act": "silu",
    "tie_word_embeddings": False,
}


def _estimate_lines(need: object) -> list[str]:
    lines = [f"    {name:<12}{gb:8.2f} GB" for name, gb in need.components()]  # type: ignore[attr-defined]
    lines.append(f"    {'total':<12}{need.total_gb:8.2f} GB")  # type: ignore[attr-defined]
    return lines


def example_serving() -> list[str]:
    shape = ModelShape.from_hf_config(MISTRAL_7B)
    need = estimate_memory(shape, method="inference", dtype="bf16", seq_len=8192, batch=8)
    assert kv_cache_bytes_per_token(shape, "bf16") == 131_072
    assert need.kv_cache_gb == pytest.approx(131_072 * 8192 * 8 / 1e9)
    lines = [f"    params      {shape.params:,}", *_estimate_lines(need)]
    for rank, rec in enumerate(recommend(need, top=3), 1):
        lines.append(f"    {rank}. {rec.reason}")
    return lines


def example_qlora() -> list[str]:
    shape = ModelShape.from_hf_config(LLAMA2_70B)
    need = estimate_memory(shape, method="qlora", dtype="bf16", lora_rank=64, seq_len=2048, batch=1)
    assert need.total_gb < 80  # one 80 GB GPU holds a 70B QLoRA fine-tune, as the paper found
    lines = [
        f"    params      {shape.params:,}",
        f"    trainable   {need.trainable_params:,}",
        *_estimate_lines(need),
    ]
    for rank, rec in enumerate(recommend(need, clouds=["hf", "aws"], top=3), 1):
        lines.append(f"    {rank}. {rec.reason}")
    return lines


def example_cost() -> list[str]:
    day = estimate_cost("H100-SXM:8", 24, cloud="aws")
    unit = unit_price("H100-SXM", "bf16", cloud="aws")
    measured = cost_of_throughput(700.0, "p5.48xlarge", dtype="bf16")
    assert day.usd == pytest.approx(24 * day.price.usd_per_hour)
    return [
        f"    24 h of H100-SXM:8 on aws {day.instance}: ${day.usd:,.2f} "
        f"(${day.usd_per_hour:.2f}/h, {day.price.region}, {day.price.kind}, {day.price.date})",
        f"    H100 device-hour ${unit.usd_per_device_hour:.2f}: "
        f"${unit.usd_per_tflop_hour:.5f} per bf16 TFLOP-hour, "
        f"${unit.usd_per_gbps_hour:.5f} per GB/s-hour",
        f"    measured 700 bf16 TFLOPS: ${measured.usd_per_tflop_hour:.5f} per TFLOP-hour, "
        f"${measured.usd_per_pflop:.5f} per PFLOP",
    ]


@pytest.mark.parametrize("example", [example_serving, example_qlora, example_cost])
def test_worked_example_figures_are_in_the_docs(example: object) -> None:
    lines = example()  # type: ignore[operator]
    print(f"\n{example.__name__}:")  # type: ignore[attr-defined]
    print("\n".join(lines))
    doc = DOC.read_text(encoding="utf-8")
    missing = [line for line in lines if line not in doc]
    assert not missing, (
        "docs/sizing.md lacks these lines (update the worked example):\n" + "\n".join(missing)
    )
