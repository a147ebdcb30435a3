"""``accelerators plan`` through typer's runner: the ranking, its sources, JSON, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

typer_testing = pytest.importorskip("typer.testing", reason="typer (the [cli] extra) is missing")

import accelerators.cli  # noqa: E402
from accelerators.sizing import plan  # noqa: E402

RUNNER = typer_testing.CliRunner()
QWEN = Path(__file__).resolve().parents[1] / "data" / "qwen2.5-0.5b-config.json"


def _run(*args: str) -> typer_testing.Result:
    return RUNNER.invoke(accelerators.cli.build_app(), list(args), env={"COLUMNS": "160"})


def test_plan_prints_the_job_the_ranking_and_the_throughput_source() -> None:
    result = _run(
        "plan",
        "--params",
        "7e9",
        "--method",
        "lora",
        "--tokens",
        "1e8",
        "--budget",
        "50",
        "--no-history",
    )
    assert result.exit_code == 0, result.output
    out = result.output
    job = plan(7e9, "lora", tokens=1e8, budget_usd=50, history=False)
    assert "lora of Llama-2-7B shape (assumed), 7B params on 1e+08 tokens, bf16" in out
    assert f"{job.flops.hardware_flops:.3g} FLOPs" in out
    assert f"memory  {job.memory.total_gb:.1f} GB" in out
    assert "Ranked by total cost (budget $50.00)" in out
    assert "no bench history read" in out
    best = job.best
    assert best is not None
    row = next(line for line in out.splitlines() if line.strip().startswith("1 "))
    assert str(best.spec) in row
    assert best.where in row
    assert f"{best.usd:,.2f}" in row
    assert f"{best.throughput.accelerator}: {best.throughput.detail}"[:60] in out
    assert "left out:" in out


def test_plan_json_matches_the_api_and_ranks_by_time() -> None:
    result = _run(
        "plan",
        "--config",
        str(QWEN),
        "--method",
        "full",
        "--tokens",
        "5e7",
        "--rank",
        "time",
        "--deadline",
        "2",
        "--cloud",
        "hf",
        "--cloud",
        "aws",
        "--no-history",
        "--top",
        "5",
        "--json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    job = plan(
        QWEN,
        "full",
        tokens=5e7,
        rank_by="time",
        deadline_h=2,
        clouds=["hf", "aws"],
        history=False,
    )
    assert [o["spec"] for o in data["options"]] == [str(o.spec) for o in job.options[:5]]
    assert data["rank_by"] == "time"
    assert all(o["hours"] <= 2 for o in data["options"])
    assert data["best"]["throughput"]["detail"] == job.best.throughput.detail


def test_plan_on_named_flavors_only() -> None:
    result = _run(
        "plan",
        "--params",
        "7e9",
        "--tokens",
        "3e7",
        "--instance",
        "a10g-large",
        "--instance",
        "l4x1",
        "--no-history",
        "--json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    # Only the two flavors named are weighed. The A10G has no dense bf16 rate in the catalog
    # (catalog 2026.11.6 removed the A10's figures it carried), so it is left out, saying so.
    assert [o["instance"] for o in data["options"]] == ["l4x1"]
    assert [(e["where"], e["reason"]) for e in data["excluded"]] == [
        ("hf a10g-large", "no dense bf16 rate")
    ]


def test_plan_reads_an_inventory_from_kubectl_json(tmp_path: Path) -> None:
    nodes = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {
                "metadata": {
                    "name": "mig-node",
                    "labels": {
                        "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb",
                        "nvidia.com/gpu.count": "56",
                        "nvidia.com/mig.strategy": "single",
                    },
                }
            },
            {
                "metadata": {
                    "name": "l4-node",
                    "labels": {
                        "cloud.google.com/gke-accelerator": "nvidia-l4",
                        "cloud.google.com/gke-accelerator-count": "4",
                    },
                }
            },
        ],
    }
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(nodes), encoding="utf-8")
    result = _run(
        "plan",
        "--config",
        str(QWEN),
        "--method",
        "lora",
        "--tokens",
        "1e7",
        "--scope",
        "cluster",
        "--inventory-file",
        str(path),
        "--no-history",
        "--json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    found = {(o["ownership"], o["spec"], o["layout"]) for o in data["options"]}
    assert ("own", "A100-80GB@1g.10gb", "MIG slice 1g.10gb") in found
    assert ("own", "L4", "single device") in found
    assert all(o["where"].startswith(("mig-node", "l4-node")) for o in data["options"])


def test_the_old_where_flag_still_works_and_says_it_is_deprecated() -> None:
    args = ["plan", "--params", "7e9", "--tokens", "1e7", "--no-history", "--json"]
    args += ["--inventory", "L4:4"]
    new = _run(*args, "--scope", "cluster")
    old = _run(*args, "--where", "cluster")
    assert new.exit_code == old.exit_code == 0, old.output
    assert old.stdout == new.stdout
    assert "--where is deprecated and will be removed in accelerators 0.2.0: use --scope" in (
        old.stderr
    )
    assert "deprecated" not in new.stderr
    both = _run(*args, "--scope", "cluster", "--where", "cluster")
    assert both.exit_code == 2
    assert "Give --scope only: --where is its old name" in both.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tokens", "1e8"], "Give the model as --params 7e9 or --config config.json"),
        (["--params", "7e9", "--rank", "fastest"], "Unknown rank_by 'fastest'"),
        (["--params", "7e9", "--method", "inference"], "not a training job"),
        (["--params", "7e9", "--scope", "cluster"], "give inventory="),
        (
            ["--params", "7e9", "--inventory-file", "/nonexistent.json"],
            "Cannot read the inventory file",
        ),
        (["--params", "7e9", "--inventory", "H10O:8"], "inventory[0]"),
        (["--params", "7e9", "--instance", "a10g-lrage"], "did you mean 'a10g-large'?"),
    ],
)
def test_bad_input_exits_2_with_one_message(args: list[str], message: str) -> None:
    result = _run("plan", "--no-history", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output
