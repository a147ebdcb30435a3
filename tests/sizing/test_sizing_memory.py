"""Memory estimates against figures published in the guides, papers and model cards."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accelerators.errors import AcceleratorError
from accelerators.sizing import (
    ModelShape,
    SizingError,
    activation_bytes,
    estimate_memory,
    kv_cache_bytes_per_token,
    lora_params,
)

#: meta-llama/Llama-2-7b-hf config.json (the fields sizing reads).
LLAMA2_7B = {
    "model_type": "llama",
    "vocab_size": 32000,
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "hidden_act": "silu",
    "tie_word_embeddings": False,
}
#: mistralai/Mistral-7B-v0.1 config.json: grouped-query attention with 8 KV heads.
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
#: facebook/opt-13b config.json: the model of the PagedAttention paper's KV-cache example.
OPT_13B = {
    "model_type": "opt",
    "vocab_size": 50272,
    "hidden_size": 5120,
    "ffn_dim": 20480,
    "num_hidden_layers": 40,
    "num_attention_heads": 40,
    "hidden_act": "relu",
}


def test_7b_weights_in_bf16_are_14_gb() -> None:
    # Transformer Math 101 / HF "model memory": 2 bytes per parameter in bf16.
    need = estimate_memory(ModelShape.from_params(7e9), dtype="bf16")
    assert need.weights_gb == pytest.approx(14.0)
    by_dtype = {
        d: estimate_memory(ModelShape.from_params(7e9), dtype=d).weights_gb
        for d in ("fp32", "bf16", "fp8", "int8", "int4")
    }
    assert by_dtype == pytest.approx(
        {"fp32": 28.0, "bf16": 14.0, "fp8": 7.0, "int8": 7.0, "int4": 3.5}
    )


def test_inference_overhead_is_the_transformer_math_twenty_percent() -> None:
    need = estimate_memory(ModelShape.from_params(7e9), dtype="bf16")
    # EleutherAI's rule: 1.2 x the weights, plus the KV cache of the sequences.
    assert need.overhead_gb == pytest.approx(0.2 * 14.0)
    assert need.total_gb == pytest.approx(1.2 * 14.0 + need.kv_cache_gb)


def test_a_bare_parameter_count_gives_the_clis_answer_kv_cache_included() -> None:
    # Issue 33: estimate_memory(ModelShape.from_params(7e9), ...) gave 16.8 GB (no KV cache)
    # where `accelerators recommend --params 7e9` gives 25.4 GB for the same inputs.
    from typer.testing import CliRunner

    import accelerators.cli

    need = estimate_memory(ModelShape.from_params(7e9), method="inference", seq_len=2048, batch=8)
    args = "recommend --params 7e9 --method inference --seq-len 2048 --batch 8 --json"
    result = CliRunner().invoke(accelerators.cli.build_app(), args.split())
    assert result.exit_code == 0, result.output
    cli = json.loads(result.output)["estimate"]
    assert need.total_gb == pytest.approx(cli["total_gb"])
    # Llama 2 7B's shape: 2 x 32 layers x 32 KV heads x 128 dims x 2 bytes x 8 x 2,048 tokens.
    assert need.kv_cache_gb == pytest.approx(2 * 32 * 32 * 128 * 2 * 8 * 2048 / 1e9)
    assert need.total_gb == pytest.approx(25.39, abs=0.01)
    assert any("Llama-2-7B shape" in note for note in need.notes)
    # Training counts the activations of that shape, as plan(7e9, ...) does.
    full = estimate_memory(ModelShape.from_params(7e9), method="full")
    assert (
        full.activations_gb == estimate_memory(ModelShape.like(7e9), method="full").activations_gb
    )
    assert full.activations_gb > 0


def test_a_partial_shape_is_refused_rather_than_half_counted() -> None:
    partial = ModelShape.from_params(7e9, layers=32)
    with pytest.raises(SizingError, match=r"has layers but not hidden, heads"):
        estimate_memory(partial, method="inference")


def test_llama2_7b_config_counts_its_published_parameters(tmp_path: Path) -> None:
    # The Hugging Face model page lists 6.74B parameters.
    from_dict = ModelShape.from_hf_config(LLAMA2_7B)
    assert from_dict.params == 6_738_415_616
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA2_7B), encoding="utf-8")
    from_file = ModelShape.from_hf_config(path)
    assert from_file == ModelShape.from_hf_config(str(path)) == from_dict
    assert (from_file.layers, from_file.kv_heads, from_file.head_dim) == (32, 32, 128)


def test_mistral_7b_config_counts_7_24b_and_its_gqa_kv_cache() -> None:
    shape = ModelShape.from_hf_config(MISTRAL_7B)
    assert shape.params == 7_241_732_096  # "7.3B" in Mistral's announcement, 7.24B on HF
    # 2 (K, V) x 32 layers x 8 KV heads x 128 dims x 2 bytes = 128 KiB per token.
    assert kv_cache_bytes_per_token(shape, "bf16") == 131_072
    need = estimate_memory(shape, dtype="bf16", seq_len=8192, batch=8)
    assert need.kv_cache_gb == pytest.approx(131_072 * 8192 * 8 / 1e9)


def test_opt_13b_kv_cache_is_800_kb_per_token_as_in_the_pagedattention_paper() -> None:
    # Kwon et al. 2023, §3: "2 (key and value vectors) x 5120 (hidden state size) x 40
    # (number of layers) x 2 (bytes per FP16) = 800 KB" per token (KiB: 819,200 bytes).
    shape = ModelShape.from_hf_config(OPT_13B)
    assert kv_cache_bytes_per_token(shape, "fp16") == 2 * 5120 * 40 * 2 == 800 * 1024
    assert shape.params == pytest.approx(13e9, rel=0.03)


def test_full_fine_tuning_with_adamw_is_16_bytes_per_parameter() -> None:
    # Transformer Math 101: 2 (bf16 weights) + 2 (bf16 gradients) + 12 (fp32 copy, momentum,
    # variance); 8-bit AdamW keeps 6 bytes of optimizer state instead of 12.
    shape = ModelShape.from_params(7e9)
    full = estimate_memory(shape, method="full", dtype="bf16")
    assert full.weights_gb + full.gradients_gb + full.optimizer_gb == pytest.approx(7e9 * 16 / 1e9)
    eight_bit = estimate_memory(shape, method="full", dtype="bf16", optimizer="adamw-8bit")
    assert eight_bit.optimizer_gb == pytest.approx(7e9 * 6 / 1e9)
    fp32 = estimate_memory(shape, method="full", dtype="fp32")
    assert fp32.weights_gb + fp32.gradients_gb + fp32.optimizer_gb == pytest.approx(7e9 * 16 / 1e9)
    assert fp32.optimizer_gb == pytest.approx(7e9 * 8 / 1e9)  # no master copy needed in fp32


def test_lora_trainable_parameters_match_the_lora_paper_for_gpt3() -> None:
    # Hu et al. 2021, Table 4: GPT-3 175B (96 layers, d_model 12288) with LoRA on W_q and W_v
    # trains 4.7M parameters at r=1 and 37.7M at r=8.
    gpt3 = ModelShape.from_params(175e9, layers=96, hidden=12288, heads=96)
    assert lora_params(gpt3, rank=1, targets="qv") == 4_718_592
    assert lora_params(gpt3, rank=8, targets="qv") == 37_748_736


def test_qlora_double_quantisation_saves_about_3_gb_on_a_65b_model() -> None:
    # Dettmers et al. 2023, §3: double quantisation cuts the constants from 0.5 to 0.127 bits
    # per parameter, "approximately 3 GB for a 65B model".
    shape = ModelShape.like(65e9)
    single = estimate_memory(shape, method="qlora", double_quant=False)
    double = estimate_memory(shape, method="qlora", double_quant=True)
    saved = single.weights_gb - double.weights_gb
    assert saved == pytest.approx(65e9 * 0.373 / 8 / 1e9, rel=0.01)
    assert 2.9 < saved < 3.1


def test_qlora_fits_65b_fine_tuning_under_48_gb_as_the_paper_reports() -> None:
    # QLoRA abstract: a 65B model fine-tunes on a single 48 GB GPU. The paper's setting:
    # LoRA r=64 on every linear layer, 32-bit (paged) AdamW, checkpointing, batch 1.
    shape = ModelShape.like(65e9)
    need = estimate_memory(
        shape, method="qlora", dtype="bf16", lora_rank=64, seq_len=512, batch=1, optimizer="adamw"
    )
    print(f"QLoRA 65B: {need.total_gb:.1f} GB ({need.components()})")
    assert need.total_gb < 48
    full = estimate_memory(shape, method="full", dtype="bf16", seq_len=512)
    assert full.total_gb > 780  # "from >780GB of GPU memory" for 16-bit fine-tuning


def test_activation_rules_follow_korthikanti() -> None:
    shape = ModelShape.like(7e9)
    s, b, h, a, layers = 2048, 2, 4096, 32, 32
    plain = activation_bytes(shape, seq_len=s, batch=b, checkpointing=False, flash_attention=False)
    assert plain == layers * s * b * h * (34 + 5 * a * s / h)
    flash = activation_bytes(shape, seq_len=s, batch=b, checkpointing=False, flash_attention=True)
    assert flash == layers * s * b * h * 34
    ckpt = activation_bytes(shape, seq_len=s, batch=b, checkpointing=True, flash_attention=True)
    assert ckpt == layers * 2 * s * b * h + s * b * h * 34
    assert ckpt < flash < plain
    fp32 = activation_bytes(
        shape, seq_len=s, batch=b, checkpointing=True, flash_attention=True, dtype="fp32"
    )
    assert fp32 == 2 * ckpt


def test_like_picks_the_nearest_published_llama2_shape() -> None:
    assert ModelShape.like(7e9).name == "Llama-2-7B shape (assumed)"
    assert ModelShape.like(13e9).hidden == 5120
    assert ModelShape.like(70e9).kv_heads == 8


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"dtype": "bf17"}, "Unknown dtype 'bf17'"),
        ({"method": "lorra"}, "did you mean 'lora'"),
        ({"method": "full", "optimizer": "adam9"}, "Unknown optimizer"),
        ({"method": "full", "dtype": "int8"}, "not modelled"),
        ({"seq_len": -1, "method": "full"}, "seq_len"),
        ({"batch": 0}, "batch"),
    ],
)
def test_bad_options_raise_sizing_errors(kwargs: dict[str, object], fragment: str) -> None:
    shape = ModelShape.from_hf_config(LLAMA2_7B)
    with pytest.raises(SizingError, match=fragment):
        estimate_memory(shape, **kwargs)  # type: ignore[arg-type]


def test_bad_models_raise_sizing_errors(tmp_path: Path) -> None:
    with pytest.raises(SizingError, match="lacks hidden_size"):
        ModelShape.from_hf_config({"num_hidden_layers": 2})
    with pytest.raises(SizingError, match="Cannot read"):
        ModelShape.from_hf_config(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(SizingError, match="Cannot read"):
        ModelShape.from_hf_config(tmp_path / "bad.json")
    with pytest.raises(SizingError, match="positive parameter count"):
        ModelShape(params=-5)
    with pytest.raises(SizingError, match="parameter count"):
        ModelShape.from_params(float("nan"))
    with pytest.raises(SizingError, match="give layers, hidden and heads"):
        estimate_memory(ModelShape.from_params(7e9, hidden=4096), method="lora")
    assert issubclass(SizingError, AcceleratorError)


@given(
    params=st.floats(min_value=1e6, max_value=2e12),
    dtype=st.sampled_from(["fp32", "bf16", "fp16", "fp8", "int8", "int4"]),
    method=st.sampled_from(["inference", "full", "lora", "qlora"]),
    seq_len=st.integers(min_value=1, max_value=131072),
    batch=st.integers(min_value=1, max_value=64),
)
def test_estimates_are_finite_and_positive_or_a_sizing_error(
    params: float, dtype: str, method: str, seq_len: int, batch: int
) -> None:
    shape = ModelShape.like(params)
    try:
        need = estimate_memory(shape, method=method, dtype=dtype, seq_len=seq_len, batch=batch)
    except SizingError:
        assert method in ("full", "lora")
        assert dtype in ("int8", "int4", "fp8")
        return
    assert math.isfinite(need.total_gb)
    assert need.total_gb > 0
    assert all(gb >= 0 for _, gb in need.components())
    assert need.total_gb == pytest.approx(sum(gb for _, gb in need.components()))
