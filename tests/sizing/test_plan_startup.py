"""Start-up overhead and tokens per second in ``plan()``, ``PlanOption``, JSON, HTML and the CLI.

Issue 33: plans ignored provisioning, image pull, model load and the first checkpoint, so an
8-GPU node won a one-minute job; and gave no speed a data scientist reads (tokens/s).
"""

from __future__ import annotations

import html
import json
from collections import defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

import accelerators.cli
from accelerators.sizing import SizingError, plan, plan_html
from accelerators.sizing._startup import CHECKPOINT_GB_PER_S, LOAD_GB_PER_S, OFFERS

QWEN = Path(__file__).resolve().parents[1] / "data" / "qwen2.5-0.5b-config.json"


def test_every_option_counts_its_start_up_in_hours_and_cost() -> None:
    job = plan(QWEN, "full", tokens=2e7, history=False)
    assert job.options
    for option in job.options:
        startup = option.startup
        assert startup.seconds > 0
        assert option.hours == pytest.approx(option.train_hours + startup.hours)
        assert option.usd is not None
        assert option.usd_per_hour is not None
        assert option.usd == pytest.approx(option.hours * option.usd_per_hour)
        parts = dict(startup.parts)
        assert set(parts) == {"provision", "image", "load", "checkpoint"}
        offer = OFFERS["hf job" if option.cloud == "hf" else "cloud node"]
        assert startup.offer == offer.name
        assert parts["provision"] == offer.provision_min * 60
        assert parts["image"] == offer.image_min * 60
        # the base weights (0.494B params in bf16) are loaded; the trainable state (weights
        # and AdamW state of a full fine-tune) is written once, each instance its shard
        assert parts["load"] == pytest.approx(job.model.params * 2 / 1e9 / LOAD_GB_PER_S)
        state = job.memory.gradients_gb + job.memory.optimizer_gb
        expected = state / (CHECKPOINT_GB_PER_S * option.instances)
        assert parts["checkpoint"] == pytest.approx(expected)
        assert startup.source
        assert startup.confidence in ("estimate", "unconfirmed")


def test_more_devices_of_the_same_kind_do_not_win_on_start_up_alone() -> None:
    # Same accelerator, same cloud, the same price per device: the training costs the same
    # device-hours, so before start-up was counted the 8-device option tied with the
    # 1-device one and won on time (a 58-second job went to 8 x H100). Each device now pays
    # for its start-up: the fewest devices come first.
    job = plan(QWEN, "full", tokens=2e7, history=False)
    groups: dict[tuple[str | None, str, float], list[int]] = defaultdict(list)
    for option in job.options:
        assert option.usd_per_hour is not None
        per_device = round(option.usd_per_hour / option.devices, 6)
        groups[(option.cloud, option.throughput.accelerator, per_device)].append(option.devices)
    compared = [counts for counts in groups.values() if len(counts) > 1]
    assert compared  # h200 / h200x2 / h200x4 / h200x8, l40sx1 / l40sx4 ... on hf
    for counts in compared:
        assert counts == sorted(counts)


def test_a_given_start_up_replaces_the_defaults_and_zero_removes_it() -> None:
    none = plan(QWEN, "full", tokens=2e7, history=False, startup_min=0)
    given = plan(QWEN, "full", tokens=2e7, history=False, startup_min=30)
    assert none.startup_min == 0
    assert given.startup_min == 30
    assert none.options
    assert given.options
    for option in none.options:
        assert option.startup.seconds == 0
        assert option.hours == option.train_hours
    for option in given.options:
        assert dict(option.startup.parts) == {"given": 1800.0}
        assert option.hours == pytest.approx(option.train_hours + 0.5)
    default = plan(QWEN, "full", tokens=2e7, history=False)
    assert default.startup_min is None


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf"), "10", True])
def test_a_bad_start_up_is_named(bad: object) -> None:
    with pytest.raises(SizingError, match="startup_min"):
        plan(QWEN, "full", tokens=2e7, history=False, startup_min=bad)  # type: ignore[arg-type]


def test_a_share_of_your_own_node_is_not_provisioned() -> None:
    job = plan(QWEN, "lora", tokens=1e7, scope="cluster", inventory=["L4:4"], history=False)
    assert job.best is not None
    parts = dict(job.best.startup.parts)
    assert job.best.startup.offer == "node share"
    assert parts["provision"] == 0
    assert parts["image"] == OFFERS["node share"].image_min * 60


def test_tokens_per_second_are_the_tokens_over_the_training_time() -> None:
    job = plan(QWEN, "lora", tokens=1e7, epochs=2, history=False)
    for option in job.options:
        assert option.tokens_per_s == pytest.approx(2e7 / (option.train_hours * 3600))
        assert option.tokens_per_s_per_device == pytest.approx(option.tokens_per_s / option.devices)


def test_json_and_html_carry_start_up_and_tokens_per_second() -> None:
    job = plan(QWEN, "full", tokens=2e7, history=False, top=3)
    data = job.to_dict()
    best = data["best"]
    assert best["startup"]["minutes"] == pytest.approx(job.options[0].startup.minutes, abs=1e-3)
    assert set(best["startup"]["parts_min"]) == {"provision", "image", "load", "checkpoint"}
    assert best["train_hours"] + best["startup"]["minutes"] / 60 == pytest.approx(
        best["hours"], abs=1e-3
    )
    assert best["tokens_per_s"] == pytest.approx(job.options[0].tokens_per_s, abs=0.1)
    assert best["tokens_per_s_per_device"] > 0
    assert data["clouds"] == list(job.clouds)
    assert "hf" in data["clouds"]
    json.dumps(data)
    page = plan_html(job)
    for header in ("Tokens/s", "per device", "Start-up min"):
        assert f">{header}</th>" in page
    assert f"{job.options[0].tokens_per_s:,.0f}" in page
    assert "clouds considered: " in page
    assert html.escape(job.options[0].startup.source) in page


def test_the_cli_prints_tokens_per_second_start_up_and_its_sources() -> None:
    args = f"plan --config {QWEN} --method full --tokens 2e7 --no-history --top 3"
    result = CliRunner().invoke(accelerators.cli.build_app(), args.split(), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.output
    for header in ("Tok/s", "/dev", "Start", "Hours", "USD"):
        assert header in out
    job = plan(QWEN, "full", tokens=2e7, history=False, top=3)
    best = job.options[0]
    assert f"{best.startup.minutes:.0f}m" in out
    assert "start   provisioning, image pull, model load, first checkpoint" in out
    assert f"start-up, {best.startup.offer}: " in out
    assert "clouds  " in out
    assert "hf" in out
    with_given = CliRunner().invoke(
        accelerators.cli.build_app(), [*args.split(), "--startup-min", "0", "--json"]
    )
    assert with_given.exit_code == 0, with_given.output
    data = json.loads(with_given.output)
    assert data["startup_min"] == 0
    assert all(o["startup"]["minutes"] == 0 for o in data["options"])
