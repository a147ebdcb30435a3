"""A job no option holds: the binding constraint with the nearest option, once, and exit 1.

Issue 33: a 70B full fine-tune for $50 in 1 hour said "no choice fits (1135.4 GB; even sharded
over 1 devices ...)" three times and exited 0, while its JSON showed near misses over budget
and past the deadline.
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

import accelerators.cli
from accelerators.sizing import InfeasibleJobError, SizingError, plan, plan_html

#: The start of the ``!`` legend plans print with a pinned SKU (docs/grammar.md).
PINS = "`!` pins the exact SKU: A100-80GB-PCIE! is the PCIe card only"


def _free() -> tuple[float, float, float]:
    """The unconstrained 70B full fine-tune: its cheapest cost, its fastest hours, and the
    fastest option's cost (the constraints below are set from them, not from today's prices)."""
    free = plan(70e9, "full", tokens=2e7, history=False)
    cheapest = min(o.usd for o in free.options if o.usd is not None)
    fastest = min(free.options, key=lambda o: o.hours)
    assert fastest.usd is not None
    return cheapest, fastest.hours, fastest.usd


def test_both_binding_constraints_are_named_with_the_nearest_options_figures() -> None:
    cheapest, fastest, _ = _free()
    budget, deadline = round(cheapest * 0.8, 2), round(fastest * 0.9, 3)
    job = plan(70e9, "full", tokens=2e7, budget_usd=budget, deadline_h=deadline, history=False)
    assert not job.options
    assert job.rejected  # options that hold 1126 GB, left out by the budget or the deadline
    text = str(job.infeasible)
    assert f"the cheapest option that fits costs ${cheapest:,.2f} > ${budget:,.2f}" in text
    assert f"; the fastest takes {fastest:.3g} h > {deadline:g} h" in text
    assert "GB per device" not in text  # memory is not what binds here
    assert job.summary().endswith(text)
    assert job.summary().count("the cheapest option that fits") == 1  # said once
    clauses = [c.strip() for c in re.split(r"[;.] ", text)]
    assert len(clauses) == len(set(clauses))


def test_a_budget_that_binds_alone_says_what_budget_the_deadline_needs() -> None:
    cheapest, fastest, _ = _free()
    budget, deadline = round(cheapest * 0.8, 2), round(fastest * 1.5, 3)
    job = plan(70e9, "full", tokens=2e7, budget_usd=budget, deadline_h=deadline, history=False)
    assert not job.options
    text = str(job.infeasible)
    assert f"the cheapest option that fits costs ${cheapest:,.2f} > ${budget:,.2f}" in text
    assert "the fastest" not in text  # the deadline leaves options: it does not bind
    within = min(o.usd for o in job.rejected if o.usd is not None and o.hours <= deadline)
    assert text.endswith(
        f"It needs a budget of ${within:,.2f} (the cheapest within {deadline:g} h)"
    )


def test_a_deadline_that_binds_alone_names_the_fastest_and_the_deadline_it_needs() -> None:
    _, fastest, _ = _free()
    deadline = round(fastest * 0.5, 3)
    job = plan(70e9, "full", tokens=2e7, budget_usd=1e6, deadline_h=deadline, history=False)
    assert not job.options
    best = min(job.rejected, key=lambda o: o.hours)
    text = str(job.infeasible)
    assert f"the fastest takes {best.hours:.3g} h > {deadline:g} h ({best.spec} on" in text
    assert "cheapest" not in text
    assert f"It needs a deadline of {best.hours:.3g} h" in text


def test_each_alone_leaves_options_but_not_both() -> None:
    free = plan(70e9, "full", tokens=2e7, history=False)
    ranked = sorted(free.options, key=lambda o: o.usd or 0.0)
    cheapest, fastest = ranked[0], min(free.options, key=lambda o: o.hours)
    assert cheapest.usd is not None
    assert fastest.usd is not None
    assert fastest.hours < cheapest.hours
    assert fastest.usd > cheapest.usd
    # a budget the cheapest meets and a deadline the fastest meets, but no option meets both
    budget = cheapest.usd * 1.001
    deadline = fastest.hours * 1.001
    both = [o for o in free.options if (o.usd or 0) <= budget and o.hours <= deadline]
    if both:
        pytest.skip("an option meets both here")
    job = plan(70e9, "full", tokens=2e7, budget_usd=budget, deadline_h=deadline, history=False)
    text = str(job.infeasible)
    assert "none meets both" in text
    assert f"within ${budget:,.2f} the fastest takes" in text


def test_memory_that_nothing_holds_names_the_nearest_misfit_once() -> None:
    # 3e12 parameters in full fine-tuning need ~48 TB: more than 64 of the largest devices
    # (64 x 288 GB B300 = 18.4 TB), the widest layout plans consider
    job = plan(3e12, "full", tokens=2e7, history=False)
    assert not job.options
    assert not job.rejected
    text = str(job.infeasible)
    assert text.startswith(f"nothing holds the job's {job.memory.total_gb:.1f} GB: the nearest is")
    assert "GB per device" in text
    assert "sharded over 1 devices" not in text
    assert all("sharded over 1 devices" not in e.reason for e in job.excluded)
    with pytest.raises(InfeasibleJobError) as caught:
        job.fallbacks()
    assert isinstance(caught.value, SizingError)
    assert caught.value.plan is job
    assert str(caught.value) == f"No option for this job: {text}"


def test_the_cli_says_it_once_on_stderr_and_exits_1() -> None:
    cheapest, fastest, _ = _free()
    budget, deadline = round(cheapest * 0.8, 2), round(fastest * 0.9, 3)
    args = ["plan", "--params", "70e9", "--method", "full", "--tokens", "2e7", "--no-history"]
    args += ["--budget", f"{budget}", "--deadline", f"{deadline}"]
    runner = CliRunner()
    result = runner.invoke(accelerators.cli.build_app(), args, env={"COLUMNS": "200"})
    assert result.exit_code == 1, result.output
    job = plan(70e9, "full", tokens=2e7, budget_usd=budget, deadline_h=deadline, history=False)
    expected = f"No option for this job: {job.infeasible}"
    flat = re.sub(r"\s+", " ", result.stderr)
    assert flat.strip() == expected
    assert result.stdout.count("cheapest") == 0  # said once, on stderr
    as_json = runner.invoke(accelerators.cli.build_app(), [*args, "--json"])
    assert as_json.exit_code == 1
    data = json.loads(as_json.stdout)
    assert data["infeasible"] == job.infeasible
    assert data["options"] == []
    assert data["best"] is None


def test_the_exact_sku_mark_is_explained_where_plans_print_it() -> None:
    job = plan(7e9, "lora", tokens=1e7, history=False, clouds=["azure"], top=40)
    pinned = [o for o in job.options if "!" in str(o.spec)]
    assert pinned, "Azure's NC A100 v4 instances carry A100-80GB-PCIE!"
    exact = job.to_dict()["legend"]
    assert exact.startswith(PINS)
    assert exact in plan_html(job, top=40).replace("&#x27;", "'")
    result = CliRunner().invoke(
        accelerators.cli.build_app(),
        [
            "plan",
            "--params",
            "7e9",
            "--method",
            "lora",
            "--tokens",
            "1e7",
            "--no-history",
            "--cloud",
            "azure",
            "--top",
            "40",
        ],
        env={"COLUMNS": "400"},
    )
    assert result.exit_code == 0, result.output
    assert "`!` pins the exact SKU" in result.output
    unpinned = plan(7e9, "lora", tokens=1e7, history=False, clouds=["hf"])
    assert not [o for o in unpinned.options if "!" in str(o.spec)]
    assert unpinned.to_dict()["legend"] is None
