"""``plan(platform=...)``: a plan keeps only what the cluster its pods run on can place.

Issue 31 priced the whole market, and a fine-tune's best option became an RTX A5000 on RunPod:
the Airflow template, whose pods run on EKS through Karpenter, then failed at run time with a
``PlacementError`` (no EC2 instance has that card). With a platform, every option it cannot
place (a device it has no label for, another cloud than its nodes', a count no node has) is
left out with its reason, counted, and named where it binds. Expected figures are never
written down: they are read from the plan without a platform, on today's prices.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import accelerators.cli
import accelerators.kubernetes
from accelerators import AcceleratorSpec
from accelerators.kubernetes import placement_problems, to_pod_fragment
from accelerators.sizing import InfeasibleJobError, SizingError, _plan_platform, plan, plan_html

JOB = {"model": 5e8, "method": "full", "tokens": 2e7, "history": False}
MIG = ["A100-40GB@1g.5gb:7", "A100-80GB@1g.10gb:7", "H100-SXM@1g.10gb:7"]


def _keys(options: object) -> list[tuple[str, str]]:
    return [(str(o.spec), o.where) for o in options]  # type: ignore[attr-defined]


def test_no_platform_keeps_every_option_and_says_nothing_about_placement() -> None:
    default = plan(**JOB)
    explicit = plan(**JOB, platform=None)
    assert _keys(default.options) == _keys(explicit.options)
    assert default.platform is None
    assert default.unplaceable == ()
    assert not any(e.reason.startswith("not placeable") for e in default.excluded)
    assert default.to_dict()["platform"] is None
    assert ", on " not in default.summary()


@pytest.mark.parametrize("platform", ["karpenter", "gke", "nvidia", "flyte"])
def test_a_platform_only_moves_options_it_cannot_place_out_of_the_ranking(platform: str) -> None:
    anywhere = plan(**JOB)
    placed = plan(**JOB, platform=platform)
    assert placed.platform == platform
    # the same options, split in two: kept in the same order, or left out with a reason
    kept = set(_keys(placed.options))
    assert [k for k in _keys(anywhere.options) if k in kept] == _keys(placed.options)
    assert kept | set(_keys(placed.unplaceable)) == set(_keys(anywhere.options))
    assert not kept & set(_keys(placed.unplaceable))
    reasons = {
        (e.spec, e.where): e.reason
        for e in placed.excluded
        if e.reason.startswith(f"not placeable on {platform}: ")
    }
    assert set(reasons) == set(_keys(placed.unplaceable))
    cloud = accelerators.kubernetes.get_platform(platform).cloud
    for option in placed.options:  # what is kept, the platform places, on its own cloud
        assert cloud is None or option.cloud == cloud
        assert placement_problems(option.spec, platform=platform) == ()
    for option in placed.unplaceable:  # what is left out, it cannot
        if cloud is not None and option.cloud != cloud:
            assert reasons[(str(option.spec), option.where)].endswith(
                f"its nodes are {cloud} instances, this offer is on {option.cloud}"
            )
        else:
            assert placement_problems(option.spec, platform=platform)


def test_karpenter_leaves_out_runpods_cards_and_what_ec2_does_not_label() -> None:
    placed = plan(**JOB, clouds=["runpod", "aws"], platform="karpenter")
    reasons = {(e.spec, e.where): e.reason for e in placed.excluded}
    a5000 = [o for o in placed.unplaceable if str(o.spec) == "RTX-A5000"]
    assert a5000  # the card of issue 31's plans
    assert reasons[("RTX-A5000", a5000[0].where)] == (
        "not placeable on karpenter: its nodes are aws instances, this offer is on runpod"
    )
    # an EC2 instance whose device Karpenter has no label for: the platform's own reason
    gaudi = [e for e in placed.excluded if e.spec.startswith("GAUDI1")]
    assert gaudi
    assert gaudi[0].reason.startswith(
        "not placeable on karpenter: GAUDI1 is not offered by any EC2 instance type Karpenter knows"
    )
    with pytest.raises(accelerators.PlacementError, match="GAUDI1 is not offered"):
        to_pod_fragment(gaudi[0].spec, platform="karpenter")
    assert placed.best is not None
    assert placed.best.cloud == "aws"


def test_an_option_of_several_nodes_is_judged_by_each_nodes_pod() -> None:
    job = plan(70e9, "full", tokens=2e7, history=False, platform="karpenter")
    spread = [o for o in job.options if o.instances > 1]
    assert spread  # e.g. H100:32 on 4 x p5.48xlarge: four pods of H100:8
    for option in spread:
        per_pod = option.spec.model_copy(update={"count": option.spec.count // option.instances})
        assert placement_problems(per_pod, platform="karpenter") == ()
        assert placement_problems(option.spec, platform="karpenter")  # not as one pod


def test_fallbacks_join_only_alternatives_the_platform_places_in_one_pod() -> None:
    anywhere = plan(**JOB)
    placed = plan(**JOB, platform="karpenter")
    chain = placed.fallbacks(3)
    assert len(chain.alternatives) == 3
    assert to_pod_fragment(chain, platform="karpenter")  # one pod asks for all three
    assert any(
        placement_problems(a, platform="karpenter") for a in anywhere.fallbacks(3).alternatives
    )
    # MIG slices of different profiles are each placeable on the GPU Operator (mixed
    # strategy), but not as one pod: each profile is its own resource
    free = plan(1.5e8, "lora", tokens=1e6, inventory=MIG, scope="cluster", history=False)
    operator = plan(
        1.5e8, "lora", tokens=1e6, inventory=MIG, scope="cluster", history=False, platform="nvidia"
    )
    assert _keys(free.options) == _keys(operator.options)
    assert len(free.fallbacks(3).alternatives) == 3
    joined = operator.fallbacks(3)
    assert [str(a) for a in joined.alternatives] == ["H100-SXM@1g.10gb", "A100-80GB@1g.10gb"]
    assert to_pod_fragment(joined, platform="nvidia")
    with pytest.raises(accelerators.PlacementError, match="as one pod"):
        to_pod_fragment(free.fallbacks(3), platform="nvidia")


def test_placement_is_judged_once_per_spec_and_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str]] = []
    real = accelerators.kubernetes.placement_problems

    def counting(spec: AcceleratorSpec, *, platform: str) -> tuple[str, ...]:
        calls.append((str(spec), platform))
        return real(spec, platform=platform)

    monkeypatch.setattr(accelerators.kubernetes, "placement_problems", counting)
    monkeypatch.setattr(_plan_platform, "_PROBLEMS", {})
    first = plan(**JOB, platform="gke")
    assert calls
    assert len(calls) == len(set(calls))  # each (spec, platform) once
    asked = len(calls)
    again = plan(**JOB, platform="gke")
    assert len(calls) == asked  # the next plan asks nothing new
    assert _keys(again.options) == _keys(first.options)
    plan(**JOB, platform="nvidia")
    assert {p for _, p in calls[asked:]} == {"nvidia"}


def test_the_platform_is_said_in_the_summary_json_and_html() -> None:
    job = plan(**JOB, platform="karpenter")
    left = len(job.unplaceable)
    assert left
    note = f"karpenter (its nodes are aws instances): {left} options it cannot place left out"
    assert ", on karpenter; best: " in job.summary()
    data = job.to_dict()
    assert data["platform"] == "karpenter"
    excluded = [e for e in data["excluded"] if e["reason"].startswith("not placeable on karpenter")]
    assert len(excluded) == left
    page = plan_html(job)
    assert f"<li>platform: {note}</li>" in page
    free = plan_html(plan(**JOB))
    assert "<li>platform: any: options not judged by where their pods run</li>" in free


def test_an_unknown_platform_is_named_with_the_close_match() -> None:
    with pytest.raises(SizingError, match=r"Unknown platform 'karpentr'.*did you mean 'karpenter'"):
        plan(**JOB, platform="karpentr")
    with pytest.raises(SizingError, match="Unknown platform 3"):
        plan(**JOB, platform=3)  # type: ignore[arg-type]


def test_the_platform_binds_when_what_it_cannot_place_meets_the_budget() -> None:
    anywhere = plan(**JOB)
    placed = plan(**JOB, platform="karpenter")
    assert anywhere.best is not None
    assert placed.best is not None
    assert anywhere.best.usd is not None
    assert placed.best.usd is not None
    assert anywhere.best.usd < placed.best.usd  # on today's prices: RunPod's cards are cheaper
    budget = round((anywhere.best.usd + placed.best.usd) / 2, 2)
    job = plan(**JOB, budget_usd=budget, platform="karpenter")
    assert not job.options
    text = str(job.infeasible)
    within = [o for o in job.unplaceable if o.usd is not None and o.usd <= budget]
    cheapest = job.unplaceable[0]
    assert text.startswith(
        f"{len(within)} options are within the budget, but karpenter cannot place them: the "
        f"cheapest, {cheapest.spec} on {cheapest.where} (${cheapest.usd:,.2f}, "
        f"{cheapest.hours:.3g} h), is not placeable on karpenter: "
    )
    assert (
        f"; of what karpenter can place, {len(job.rejected)} options hold the job, but the "
        f"cheapest option that fits costs ${placed.best.usd:,.2f} > ${budget:,.2f}" in text
    )
    with pytest.raises(InfeasibleJobError, match="karpenter cannot place them"):
        job.fallbacks()


def test_the_platform_does_not_bind_when_nothing_meets_the_budget_anyway() -> None:
    anywhere = plan(**JOB)
    assert anywhere.best is not None
    assert anywhere.best.usd is not None
    budget = round(anywhere.best.usd / 2, 2)
    job = plan(**JOB, budget_usd=budget, platform="karpenter")
    text = str(job.infeasible)
    assert "cannot place" not in text
    assert text.startswith(f"{len(job.rejected)} options hold the job on karpenter, but the ")


def test_a_platform_that_places_nothing_of_the_job_says_so() -> None:
    job = plan(**JOB, clouds=["runpod"], platform="karpenter")
    assert not job.options
    assert not job.rejected
    text = str(job.infeasible)
    assert "but karpenter cannot place them" in text
    assert text.endswith("; karpenter can place no option that holds the job")
    # ... and when what it cannot place misses the budget too, it says both
    cheapest = job.unplaceable[0]
    assert cheapest.usd is not None
    poor = plan(**JOB, clouds=["runpod"], budget_usd=cheapest.usd / 2, platform="karpenter")
    assert str(poor.infeasible) == (
        f"the {len(poor.unplaceable)} options that hold the job are not placeable on "
        f"karpenter, and miss the budget too: the cheapest, {cheapest.spec} on "
        f"{cheapest.where} (${cheapest.usd:,.2f}, {cheapest.hours:.3g} h); karpenter can "
        "place no option that holds the job"
    )
    # MIG slices you own: Karpenter has no partition label
    owned = plan(
        1.5e8,
        "lora",
        tokens=1e6,
        inventory=MIG,
        scope="cluster",
        history=False,
        platform="karpenter",
    )
    assert "Karpenter has no label for MIG partitions" in str(owned.infeasible)


def test_the_cli_plans_for_a_platform_and_says_so() -> None:
    runner = CliRunner()
    app = accelerators.cli.build_app()
    args = ["plan", "--params", "5e8", "--method", "full", "--tokens", "2e7", "--no-history"]
    result = runner.invoke(app, [*args, "--platform", "karpenter", "--top", "0"])
    assert result.exit_code == 0, result.output
    job = plan(**JOB, platform="karpenter")
    left = len(job.unplaceable)
    text = " ".join(result.stdout.split())  # the console wraps long lines
    assert f"platform karpenter (its nodes are aws instances): {left} options it cannot" in text
    assert f"{left} not placeable on karpenter" in text
    data = json.loads(runner.invoke(app, [*args, "--platform", "karpenter", "--json"]).stdout)
    assert data["platform"] == "karpenter"
    assert job.best is not None
    assert (data["best"]["spec"], data["best"]["where"]) == (str(job.best.spec), job.best.where)
    plain = runner.invoke(app, args)
    assert "platform" not in plain.stdout.split("Ranked by")[0]  # no platform, no line
    typo = runner.invoke(app, [*args, "--platform", "karpentr"])
    assert typo.exit_code == 2
    assert "did you mean 'karpenter'?" in typo.output


def test_an_infeasible_plan_for_a_platform_exits_1_naming_it() -> None:
    result = CliRunner().invoke(
        accelerators.cli.build_app(),
        [
            "plan",
            "--params",
            "5e8",
            "--method",
            "full",
            "--tokens",
            "2e7",
            "--no-history",
            "--cloud",
            "runpod",
            "--platform",
            "karpenter",
        ],
    )
    assert result.exit_code == 1
    assert "karpenter can place no option that holds the job" in " ".join(result.output.split())
