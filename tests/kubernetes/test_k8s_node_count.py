"""Counts no node has: refused with the largest node we know, from the sourced instance table
(the platform's cloud's, or every cloud's where the platform is not bound to one); never
refused where the table knows nothing."""

from __future__ import annotations

import pytest

from accelerators import PlacementError
from accelerators.catalog import largest_node
from accelerators.kubernetes import (
    check_node_count,
    get_platform,
    node_count_problems,
    placement_problems,
)


def test_h100_16_on_gke_names_the_largest_machine_type() -> None:
    largest = largest_node("H100-SXM", cloud="gcp")
    assert largest is not None
    with pytest.raises(PlacementError) as raised:
        check_node_count("H100-SXM:16", platform="gke")
    message = str(raised.value)
    assert "'H100-SXM:16' on gke: no node has 16" in message
    assert f"{largest.instance} (gcp), has {largest.devices} H100-SXM devices" in message
    assert "at most 8 per pod" in message


def test_counts_that_fit_pass() -> None:
    for spec in ("H100-SXM:8", "H100-SXM", "L4:8", "A100-40GB:16"):
        check_node_count(spec, platform="gke")
    check_node_count("Trainium2:16", platform="neuron")
    check_node_count("H100-SXM:8", platform=get_platform("karpenter"))


def test_platforms_not_bound_to_a_cloud_are_judged_against_every_clouds_largest() -> None:
    for platform in ("nvidia", "amd", "generic", "flyte"):
        [problem] = node_count_problems("H100-SXM:16", platform=platform)
        assert "largest machine type of any cloud with H100-SXM that we know" in problem
        assert node_count_problems("H100-SXM:8", platform=platform) == ()


def test_each_dead_alternative_of_a_fallback_is_named() -> None:
    problems = node_count_problems("H100-SXM:16 | A100-40GB:16 | L4:12", platform="gke")
    assert len(problems) == 2
    assert problems[0].startswith("'H100-SXM:16' on gke")
    assert problems[1].startswith("'L4:12' on gke")


def test_mig_slices_count_per_node() -> None:
    # 8 GPUs of 7 slices each: 56 fit, 57 do not.
    check_node_count("A100-80GB@1g.10gb:56", platform="karpenter")
    [problem] = node_count_problems("A100-80GB@1g.10gb:57", platform="karpenter")
    assert "has 56 1g.10gb slices (8 x 7 per GPU)" in problem


def test_shares_memory_requests_and_unknown_accelerators_are_not_refused() -> None:
    assert node_count_problems("T4:0.5", platform="gke") == ()
    assert node_count_problems("80GB+:64", platform="gke") == ()


def test_the_linter_reports_it() -> None:
    problems = placement_problems("H100-SXM:16", platform="gke")
    assert any("no node has 16" in p for p in problems)
    assert placement_problems("H100-SXM:8", platform="gke") == ()
