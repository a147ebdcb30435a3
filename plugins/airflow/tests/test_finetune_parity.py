"""The two fine-tune templates are one: the same parameters, defaults and plan in Flyte and Airflow.

Issue 33: the same job got 8 x H100 on AWS from the Airflow template and one L40S on HF from
the Flyte template, only because their default clouds differed. Both now take
``accelerators.templates.FINETUNE_PARAMS`` and plan with ``plan_finetune``. Here the Flyte
template's planning task runs in flytekit (local execution) and the Airflow template's in a
real DAG run (``dag.test()``, its other tasks marked success), for the same inputs; their
results must be equal, and equal to ``accelerators plan``'s best for the same flags. No
expected accelerator is written down: prices change, the equality must not.

Both templates place their pods on the same platform (``PLATFORM``: EKS with Karpenter) and
plan for it, so the CLI's flags include ``--platform``: issue 31 priced RunPod's and Lambda's
cards, which a plan over every cloud then chose and Karpenter could not place.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from airflow_testenv import REPO, run_dag
from test_airflow_dags import load_dag
from typer.testing import CliRunner

import accelerators.cli
from accelerators import AcceleratorSpec
from accelerators.kubernetes import placement_problems
from accelerators.sizing import finetune_choice, model_config_of, plan_finetune
from accelerators.templates import FINETUNE_PARAMS, finetune_defaults

pytest.importorskip("flytekit")

#: meta-llama/Meta-Llama-3-8B and -70B config.json (the fields sizing reads).
LLAMA3_8B = {
    "model_type": "llama",
    "vocab_size": 128256,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "_name_or_path": "meta-llama/Meta-Llama-3-8B",
}
LLAMA3_70B = {
    "model_type": "llama",
    "vocab_size": 128256,
    "hidden_size": 8192,
    "intermediate_size": 28672,
    "num_hidden_layers": 80,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "_name_or_path": "meta-llama/Meta-Llama-3-70B",
}
#: The issue's three jobs (the 0.5B LoRA with the templates' other defaults).
JOBS = {
    "qwen-0.5b-lora": {"method": "lora"},
    "llama3-8b-lora-200usd-12h": {
        "model_config": LLAMA3_8B,
        "method": "lora",
        "tokens": 5e7,
        "budget_usd": 200.0,
        "deadline_h": 12.0,
    },
    "aws-only-by-time": {"clouds": ["aws"], "rank_by": "time", "budget_usd": None},
}
#: A 70B full fine-tune for $5 within 30 minutes: nothing holds it (today's nearest costs $60).
INFEASIBLE = {
    "model_config": LLAMA3_70B,
    "method": "full",
    "budget_usd": 5.0,
    "deadline_h": 0.5,
}


@functools.cache
def _flyte_template() -> ModuleType:
    """``dags/flyte_finetune.py``, imported as flytekit imports a workflow file."""
    name = "flyte_finetune_parity"
    spec = importlib.util.spec_from_file_location(name, REPO / "dags" / "flyte_finetune.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _inputs(job: dict[str, Any]) -> dict[str, Any]:
    return {**finetune_defaults(), **job}


def _platform() -> str:
    """The platform both templates place on (and plan for): they must agree."""
    dag = load_dag("airflow_finetune.py")
    placed = {dag.get_task(t).platform for t in ("gate", "train")}
    assert placed == {_flyte_template().PLATFORM}
    return str(_flyte_template().PLATFORM)


def _flyte_plan(module: ModuleType, job: dict[str, Any]) -> dict[str, Any]:
    inputs = _inputs(job)
    inputs["model_config"] = model_config_of(inputs["model_config"])  # a dict input in Flyte
    result = module.plan_job(**inputs)
    return {k: v for k, v in vars(result).items() if k != "plan_json"}


def _airflow_plan(job: dict[str, Any]) -> tuple[Any, Any]:
    from airflow.utils.session import create_session

    dag = load_dag("airflow_finetune.py")
    run = run_dag(
        dag,
        run_conf={"local_run": True, **job},
        mark_success_pattern="^(gate|train|summary)$",
    )
    with create_session() as session:
        ti = run.get_task_instance("plan_job", session=session)
        assert ti is not None
        session.expunge(ti)
    return run, ti


def test_both_templates_have_the_shared_parameters_and_defaults(airflow_db: Path) -> None:
    flyte = _flyte_template()
    defaults = finetune_defaults()
    names = [p.name for p in FINETUNE_PARAMS]
    workflow = flyte.finetune.python_interface
    flyte_defaults = {
        name: value for name, (_, value) in workflow.inputs_with_defaults.items() if name in names
    }
    assert sorted(flyte_defaults) == sorted(names)
    dag = load_dag("airflow_finetune.py")
    airflow_defaults = {k: v for k, v in dag.params.dump().items() if k in names}
    assert sorted(airflow_defaults) == sorted(names)
    for name in names:
        if name == "model_config":  # Flyte's is the parsed dict, Airflow's a path ("": example)
            assert model_config_of(flyte_defaults[name]) == model_config_of(airflow_defaults[name])
            continue
        assert flyte_defaults[name] == airflow_defaults[name] == defaults[name], name
    assert defaults["clouds"] == []  # every cloud with prices, as `accelerators plan` does
    assert _platform() == "karpenter"  # both on EKS through Karpenter, by default


@pytest.mark.parametrize("name", sorted(JOBS))
def test_both_templates_give_the_same_plan_as_the_cli(
    name: str, airflow_db: Path, tmp_path: Path
) -> None:
    job = JOBS[name]
    platform = _platform()
    flyte = _flyte_plan(_flyte_template(), job)
    _, ti = _airflow_plan(job)
    assert ti.state == "success"
    airflow = ti.xcom_pull(task_ids="plan_job")
    assert airflow == pytest.approx(flyte)
    expected = finetune_choice(plan_finetune(**_inputs(job), platform=platform))
    assert flyte == pytest.approx(expected)
    assert flyte["platform"].startswith(f"{platform} ")  # said next to the clouds
    for alternative in AcceleratorSpec.parse(flyte["spec"]).alternatives:
        assert placement_problems(alternative, platform=platform) == ()
    # `accelerators plan` with the same flags has the same best option
    inputs = _inputs(job)
    config = tmp_path / "config.json"
    config.write_text(json.dumps(model_config_of(inputs["model_config"])), encoding="utf-8")
    args = ["plan", "--config", str(config), "--json", "--platform", platform]
    args += ["--method", inputs["method"], "--tokens", str(inputs["tokens"])]
    args += ["--epochs", str(inputs["epochs"]), "--rank", inputs["rank_by"]]
    if inputs["budget_usd"] is not None:
        args += ["--budget", str(inputs["budget_usd"])]
    if inputs["deadline_h"] is not None:
        args += ["--deadline", str(inputs["deadline_h"])]
    for cloud in inputs["clouds"]:
        args += ["--cloud", cloud]
    result = CliRunner().invoke(accelerators.cli.build_app(), args)
    assert result.exit_code == 0, result.output
    planned = json.loads(result.stdout)
    assert planned["platform"] == platform
    best = planned["best"]
    assert (best["spec"], best["where"], best["devices"]) == (
        flyte["best"],
        flyte["where"],
        flyte["devices"],
    )
    assert best["usd"] == pytest.approx(flyte["usd"])
    assert best["hours"] == pytest.approx(flyte["hours"])
    # without --platform the CLI keeps every option: its best is the templates', or one the
    # platform left out (with its reason)
    args.remove("--platform")
    args.remove(platform)
    anywhere = json.loads(CliRunner().invoke(accelerators.cli.build_app(), args).stdout)["best"]
    if (anywhere["spec"], anywhere["where"]) != (best["spec"], best["where"]):
        left = {(e["spec"], e["where"]): e["reason"] for e in planned["excluded"]}
        assert left[(anywhere["spec"], anywhere["where"])].startswith(
            f"not placeable on {platform}: "
        )


def test_a_job_nothing_holds_fails_both_planning_tasks_at_once(
    airflow_db: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from accelerators.sizing import InfeasibleJobError

    with pytest.raises(InfeasibleJobError) as caught:
        _flyte_plan(_flyte_template(), INFEASIBLE)
    # flytekit prefixes the task's name when it runs locally
    message = "No option for this job:" + str(caught.value).split("No option for this job:")[1]
    assert "the cheapest option that fits costs $" in message
    _, ti = _airflow_plan(INFEASIBLE)
    assert ti.state == "failed"
    assert ti.try_number == 1  # failed fast: no retry
    assert ti.max_tries == 0
    captured = capfd.readouterr()
    printed = captured.out + captured.err  # dag.test() prints the task's log
    assert f"InfeasibleJobError: {message}" in printed
