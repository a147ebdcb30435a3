"""``placement_problems`` refuses more devices in one pod than any node we know has: per the
platform's cloud (GKE's machine types are GCP's), anywhere otherwise."""

from __future__ import annotations

import pytest

from accelerators.kubernetes import get_platform, placement_problems


@pytest.mark.parametrize(
    ("spec", "platform", "needle"),
    [
        ("H100-SXM:99", "flyte", "of any cloud with H100-SXM that we know, p5.48xlarge (aws)"),
        ("H100-SXM:99", "nvidia", "has 8 H100-SXM devices"),
        ("H100-SXM:16", "gke", "GCP machine type with H100-SXM that we know, a3-edgegpu-8g (gcp)"),
        ("H100-SXM:16", "flyte", "of any cloud with H100-SXM that we know"),
        ("H200-SXM:9 | H100-SXM:9", "flyte", "'H200-SXM:9' on flyte: no node has 9"),
        ("TRAINIUM2:32", "neuron", "trn2.48xlarge (aws), has 16"),
        # A cloud's table lists all its machine types: EC2 has no A100 PCIe, so none larger.
        ("A100-40GB:16", "eks", "p4d.24xlarge (aws), has 8"),
    ],
)
def test_more_devices_than_any_node_is_a_problem(spec: str, platform: str, needle: str) -> None:
    problems = placement_problems(spec, platform=platform)
    assert any(needle in p for p in problems), problems


@pytest.mark.parametrize(
    ("spec", "platform"),
    [
        ("H100-SXM:8", "gke"),
        ("A100-40GB-SXM!:16", "gke"),  # a2-megagpu-16g
        ("MAX-1550:32", "flyte"),  # no instance row: unknown, not refused
        ("GH200:2", "flyte"),  # Lambda's one-GH200 type bounds nothing beyond Lambda
        ("RTX-A5000:4", "flyte"),  # RunPod's GPU type id is one device, no node size
        ("A100-40GB:16", "flyte"),  # a2-megagpu-16g: some cloud has 16
        ("A100-40GB@1g.5gb", "flyte"),  # slices are not whole devices
    ],
)
def test_what_some_node_has_or_we_cannot_know_is_not(spec: str, platform: str) -> None:
    assert not [p for p in placement_problems(spec, platform=platform) if "largest" in p]


def test_platforms_name_their_cloud() -> None:
    clouds = {name: get_platform(name).cloud for name in ("gke", "eks", "karpenter", "flyte")}
    assert clouds == {"gke": "gcp", "eks": "aws", "karpenter": "aws", "flyte": None}
