"""``accelerators recommend`` and ``accelerators instances`` through typer's runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelerators import AcceleratorSpec

typer_testing = pytest.importorskip("typer.testing", reason="typer (the [cli] extra) is missing")

import accelerators.cli  # noqa: E402
from accelerators.sizing import ModelShape, estimate_memory, recommend  # noqa: E402

RUNNER = typer_testing.CliRunner()


def _run(*args: str) -> typer_testing.Result:
    return RUNNER.invoke(accelerators.cli.build_app(), list(args), env={"COLUMNS": "160"})


def test_recommend_prints_the_estimate_and_ranked_specs() -> None:
    result = _run("recommend", "--params", "7e9", "--method", "lora", "--dtype", "bf16")
    assert result.exit_code == 0, result.output
    need = estimate_memory(ModelShape.like(7e9), method="lora", dtype="bf16")
    assert f"lora memory, bf16: {need.total_gb:.1f} GB" in result.output
    assert "Llama-2-7B shape (assumed)" in result.output
    best = recommend(need, dtype="bf16")[0]
    assert str(best.spec) in result.output


def test_recommend_json_matches_the_api(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "model_type": "llama",
                "vocab_size": 32000,
                "hidden_size": 4096,
                "intermediate_size": 11008,
                "num_hidden_layers": 32,
                "num_attention_heads": 32,
            }
        ),
        encoding="utf-8",
    )
    result = _run("recommend", "--config", str(config), "--cloud", "hf", "--top", "3", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    need = estimate_memory(ModelShape.from_hf_config(config), dtype="bf16")
    assert data["estimate"]["total_gb"] == pytest.approx(need.total_gb)
    expected = [str(r.spec) for r in recommend(need, clouds=["hf"], top=3)]
    assert [r["spec"] for r in data["recommendations"]] == expected


def test_recommend_by_memory_and_bad_input_exit_2() -> None:
    ok = _run("recommend", "--memory-gb", "30", "--vendor", "amd", "--json")
    assert ok.exit_code == 0
    specs = [AcceleratorSpec.parse(r["spec"]) for r in json.loads(ok.output)["recommendations"]]
    assert specs
    assert all(spec.accelerator.vendor == "amd" for spec in specs)
    for args, fragment in [
        (("recommend", "--params", "7e9", "--method", "lorra"), "did you mean 'lora'"),
        (("recommend",), "--params 7e9"),
        (("recommend", "--memory-gb", "10", "--params", "7e9"), "not both"),
        (("instances", "H100-SXM:8", "--cloud", "awz"), "did you mean 'aws'"),
        (("instances", "H1000"), "Unknown accelerator"),
    ]:
        result = _run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert fragment in result.output


def test_instances_lists_hosts_with_prices() -> None:
    result = _run("instances", "H100-SXM:8", "--cloud", "aws")
    assert result.exit_code == 0, result.output
    assert "p5.48xlarge" in result.output
    assert "55.04" in result.output
    data = json.loads(_run("instances", "TPU-V5E@2x2:4", "--json").output)
    assert [row["instance"] for row in data] == ["ct5lp-hightpu-4t"]
    assert data[0]["provides"] == "TPU-V5E@2x2:4"
