"""The fine-tune templates' shared parameters and their plan (``accelerators.templates``,
``accelerators.sizing.plan_finetune``): the example model ships in the package."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelerators.sizing import (
    EXAMPLE_MODEL,
    InfeasibleJobError,
    SizingError,
    example_model_config,
    finetune_choice,
    model_config_of,
    plan,
    plan_finetune,
)
from accelerators.templates import FINETUNE_PARAMS, finetune_defaults

QWEN = Path(__file__).resolve().parents[1] / "data" / "qwen2.5-0.5b-config.json"


def test_the_example_model_ships_in_the_package() -> None:
    shipped = example_model_config()
    assert shipped == json.loads(QWEN.read_text(encoding="utf-8"))
    assert shipped["_name_or_path"] == EXAMPLE_MODEL
    assert model_config_of("") == model_config_of(None) == model_config_of({}) == shipped
    assert model_config_of(str(QWEN)) == shipped
    assert model_config_of({"hidden_size": 8}) == {"hidden_size": 8}


def test_a_model_config_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    with pytest.raises(SizingError, match=r"model_config: cannot read a config\.json from"):
        model_config_of(tmp_path / "missing.json")
    (tmp_path / "list.json").write_text("[1]", encoding="utf-8")
    with pytest.raises(SizingError, match="holds no JSON object"):
        model_config_of(tmp_path / "list.json")
    with pytest.raises(SizingError, match=r"expected a config\.json path, its dict or nothing"):
        model_config_of(42)


def test_the_defaults_plan_as_the_cli_does_over_every_priced_cloud() -> None:
    defaults = finetune_defaults()
    assert [p.name for p in FINETUNE_PARAMS] == list(defaults)
    assert defaults["clouds"] == []
    assert defaults["clouds"] is not finetune_defaults()["clouds"]  # fresh copies
    job = plan_finetune()
    same = plan(
        example_model_config(),
        defaults["method"],
        tokens=defaults["tokens"],
        epochs=defaults["epochs"],
        budget_usd=defaults["budget_usd"],
    )
    assert job.best == same.best
    assert job.clouds == same.clouds
    assert len(job.clouds) > 1  # every cloud, not one
    choice = finetune_choice(job)
    assert json.loads(json.dumps(choice)) == choice
    assert choice["devices"] == job.options[0].devices
    assert choice["clouds"].startswith("aws, ")
    assert plan_finetune(clouds="hf").clouds == ("hf",)


def test_a_job_nothing_holds_raises_with_the_binding_constraint() -> None:
    with pytest.raises(InfeasibleJobError, match="the cheapest option that fits costs"):
        plan_finetune(
            {
                "model_type": "llama",
                "vocab_size": 32000,
                "hidden_size": 8192,
                "intermediate_size": 28672,
                "num_hidden_layers": 80,
                "num_attention_heads": 64,
                "num_key_value_heads": 8,
            },
            "full",
            2e7,
            budget_usd=5,
            deadline_h=0.5,
        )


def test_the_choice_explains_the_exact_sku_mark() -> None:
    pinned = plan(
        example_model_config(), "lora", tokens=1e7, instances=["Standard_NC24ads_A100_v4"]
    )
    choice = finetune_choice(pinned)
    assert choice["spec"] == "A100-80GB-PCIE!"
    assert choice["legend"] == pinned.to_dict()["legend"]
    assert choice["legend"].startswith("`!` pins the exact SKU: A100-80GB-PCIE! is the PCIe card")
    assert (
        finetune_choice(plan(example_model_config(), "lora", tokens=1e7, clouds=["hf"]))["legend"]
        == ""
    )
