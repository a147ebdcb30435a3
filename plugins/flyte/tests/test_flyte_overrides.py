"""Issue 28 item 4: a node override that moves a task to another accelerator keeps the task's cpu,
memory and the user's own pod template (sidecars, volumes, env, nodeSelector, tolerations,
labels) with ``task_args(spec, task=...)``, refuses what cannot work when written, and the linter
reports an override that drops them (``override-drops``).

propeller v1.16.8 builds the pod from the node's pod template override alone
(``ApplyPodTemplateOverride``): ``placement_oracle`` reproduces that, and the pods are scheduled
on the inventory with the team's node label added (their ``nodeSelector``).
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import composition_cases as cases
import job_oracle
import placement_oracle as oracle
import pytest
from flyte_helpers import SETTINGS
from flytekit import Resources
from flytekitplugins.accelerators import check, task_args

from accelerators import PlacementError

warnings.simplefilter("ignore", UserWarning)
#: the inventory, each node in the team's pool (the template's nodeSelector team=ml)
TEAM_NODES = tuple(
    dataclasses.replace(n, labels={**n.labels, "team": "ml"}) for n in oracle.INVENTORY
)
SPOT = {"key": "spot", "operator": "Equal", "value": "true", "effect": "NoSchedule"}


def _pods(workflow: Any) -> list[dict[str, Any]]:
    return [pod for _, pod in oracle.registered(workflow, SETTINGS).pods()]


def _lands(pod: dict[str, Any]) -> set[str]:
    return set(oracle.lands_on(pod, TEAM_NODES))


def _keeps_the_users_settings(pod: dict[str, Any]) -> None:
    names = [c["name"] for c in pod["containers"]]
    assert "log-shipper" in names
    assert pod["volumes"] == [{"name": "scratch", "emptyDir": {}}]
    assert pod["nodeSelector"] == {"team": "ml"}
    assert SPOT in pod["tolerations"]
    primary = pod["containers"][names.index("primary")]
    assert primary["volumeMounts"] == [{"name": "scratch", "mountPath": "/scratch"}]
    assert oracle.env(pod, "primary")["WANDB_PROJECT"] == "llm"
    assert primary["resources"]["requests"]["cpu"] == "16"
    assert primary["resources"]["requests"]["memory"] == "128Gi"


def test_item4_an_override_without_the_task_drops_its_settings_and_the_linter_says_which() -> None:
    [pod] = _pods(cases.moved_without_task)
    assert _lands(pod) == {"h200-whole"}
    assert [c["name"] for c in pod["containers"]] == ["primary"]  # the sidecar is gone
    assert "volumes" not in pod
    assert pod["containers"][0]["resources"]["requests"]["cpu"] == "1000m"  # propeller's default
    [finding] = check(cases.moved_without_task, require_gate=False)
    assert finding.code == "override-drops"
    for lost in (
        "cpu request '16'",
        "memory request '128Gi'",
        "container 'log-shipper'",
        "volume 'scratch'",
        "volume mount '/scratch'",
        "env WANDB_PROJECT",
        "nodeSelector team=ml",
        "toleration spot=true:NoSchedule",
        "pod label team=ml",
    ):
        assert lost in finding.message
    assert "task_args(spec, task=h100x8_own)" in finding.message


def test_item4_task_args_with_the_task_carries_them_to_any_device() -> None:
    amd, h200 = _pods(cases.moved_with_task)
    assert _lands(amd) == {"mi300x"}
    assert oracle.device_request(amd) == {"amd.com/gpu": "8"}
    assert _lands(h200) == {"h200-whole"}
    assert oracle.device_request(h200) == {"nvidia.com/gpu": "8"}
    for pod in (amd, h200):
        _keeps_the_users_settings(pod)
    registered = oracle.registered(cases.moved_with_task, SETTINGS)
    for node in registered.nodes():
        assert dict(node.task_node.overrides.pod_template.metadata.labels) == {"team": "ml"}
    assert check(cases.moved_with_task, require_gate=False) == []


def test_item4_a_gated_task_moved_with_the_task_keeps_them_and_gates_the_new_device() -> None:
    [pod] = _pods(cases.gated_moved_with_task)
    assert _lands(pod) == {"h200-whole"}
    _keeps_the_users_settings(pod)
    assert oracle.env(pod, "primary")["ACCELERATORS_PLACED_SPEC"] == "H200-SXM:8"
    assert check(cases.gated_moved_with_task) == []


def test_item4_a_multi_node_job_moved_with_the_task_keeps_the_plugins_volume() -> None:
    registered = oracle.registered(cases.elastic_moved_with_task, SETTINGS)
    [node] = registered.nodes()
    template = registered.tasks[node.task_node.reference_id.name]
    [worker] = job_oracle.job_pods(template, node.task_node.overrides)
    assert {v["name"] for v in worker.pod["volumes"]} == {"shm"}  # kfpytorch's /dev/shm
    placed = job_oracle.place_job([worker], job_oracle.pool("h200-whole", 2))
    assert [n for _, n in placed] == ["h200-whole-0", "h200-whole-1"]
    assert check(cases.elastic_moved_with_task) == []


def test_item4_what_you_pass_wins_key_by_key() -> None:
    args = task_args("H200-SXM:8", task=cases.h100x8_own, requests=Resources(cpu="32"))
    primary = next(c for c in args["pod_template"].pod_spec.containers if c.name == "primary")
    assert primary.resources.requests == {"gpu": "8", "cpu": "32", "memory": "128Gi"}


def test_item4_a_task_whose_own_resources_would_replace_the_device_is_refused_when_written() -> (
    None
):
    with pytest.raises(PlacementError) as caught:
        task_args("MI300X:8", task=cases.declared_on_its_own)
    message = str(caught.value)
    assert "declares its own resources" in message
    assert "8 x amd.com/gpu would never reach the pod" in message
    # the same NVIDIA count is what flytekit's copy of its resources says: allowed
    args = task_args("H200-SXM:8", task=cases.declared_on_its_own)
    assert args["accelerator"].name == "H200.unpartitioned"
