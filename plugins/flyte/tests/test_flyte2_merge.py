"""Issue 28 item 5: ``flyte2_args`` takes the user's own ``env_vars`` and ``pod_template`` and
merges them as ``task_args`` merges a flytekit template (was: ``TypeError: got multiple values for
keyword argument 'env_vars'`` as soon as a TaskEnvironment had its own)."""

from __future__ import annotations

import os

import pytest

try:
    import flyte
except ImportError:
    if os.environ.get("CI"):
        raise
    pytest.skip("the Flyte 2 SDK (flyte) is not installed here", allow_module_level=True)

from flytekitplugins.accelerators import PLACED_SPEC_ENV, flyte2_args
from kubernetes.client import (
    V1Affinity,
    V1Container,
    V1NodeAffinity,
    V1NodeSelector,
    V1NodeSelectorRequirement,
    V1NodeSelectorTerm,
    V1PodSpec,
    V1Toleration,
    V1Volume,
)

from accelerators import PlacementError

PARTITION = "k8s.amazonaws.com/gpu-partition-size"


def _users_template() -> flyte.PodTemplate:
    zone = V1NodeSelectorRequirement(key="zone", operator="In", values=["a", "b"])
    return flyte.PodTemplate(
        pod_spec=V1PodSpec(
            containers=[V1Container(name="main"), V1Container(name="log-shipper")],
            volumes=[V1Volume(name="scratch")],
            node_selector={"team": "ml"},
            tolerations=[V1Toleration(key="spot", operator="Exists")],
            affinity=V1Affinity(
                node_affinity=V1NodeAffinity(
                    required_during_scheduling_ignored_during_execution=V1NodeSelector(
                        node_selector_terms=[V1NodeSelectorTerm(match_expressions=[zone])]
                    )
                )
            ),
        ),
        primary_container_name="main",
        labels={"team": "ml"},
    )


def _terms(spec: V1PodSpec) -> list[V1NodeSelectorTerm]:
    required = spec.affinity.node_affinity.required_during_scheduling_ignored_during_execution
    return list(required.node_selector_terms)


ENV = flyte.TaskEnvironment("plain", **flyte2_args("H100-SXM:8"))


@ENV.task
async def train(epochs: int) -> float:
    return 0.0


def test_item5_env_vars_and_pod_template_merge_into_a_task_environment() -> None:
    user = _users_template()
    args = flyte2_args("H100-SXM:8", cpu=16, env_vars={"WANDB_PROJECT": "llm"}, pod_template=user)
    env = flyte.TaskEnvironment("train", **args)
    assert env.env_vars == {"WANDB_PROJECT": "llm", PLACED_SPEC_ENV: "H100-SXM:8"}
    template = env.pod_template
    assert isinstance(template, flyte.PodTemplate)
    assert template.primary_container_name == "main"
    assert template.labels == {"team": "ml"}
    spec = template.pod_spec
    assert [c.name for c in spec.containers] == ["main", "log-shipper"]
    assert [v.name for v in spec.volumes] == ["scratch"]
    assert spec.node_selector == {"team": "ml"}
    assert [t.key for t in spec.tolerations] == ["spot"]
    [term] = _terms(spec)
    # the whole-GPU requirement is ANDed into the user's own term
    assert [(e.key, e.operator) for e in term.match_expressions] == [
        ("zone", "In"),
        (PARTITION, "DoesNotExist"),
    ]
    main = spec.containers[0]
    assert [e.name for e in main.env] == ["NODE_NAME"]
    # the user's template is left as it was
    assert user.pod_spec.containers[0].env is None
    assert _terms(user.pod_spec)[0].match_expressions == [term.match_expressions[0]]


def test_item5_an_override_takes_them_too() -> None:
    moved = train.override(
        **flyte2_args(
            "H200-SXM:8", env_vars={"WANDB_PROJECT": "llm"}, pod_template=_users_template()
        )
    )
    assert moved.env_vars == {"WANDB_PROJECT": "llm", PLACED_SPEC_ENV: "H200-SXM:8"}
    assert moved.resources.gpu.device == "nvidia-h200"
    assert [c.name for c in moved.pod_template.pod_spec.containers] == ["main", "log-shipper"]


def test_item5_what_cannot_merge_is_refused_when_written() -> None:
    with pytest.raises(PlacementError, match="names a PodTemplate of the cluster"):
        flyte2_args("H100-SXM:8", pod_template="gpu-default")
    with pytest.raises(PlacementError, match="in-pod gate would check the wrong spec"):
        flyte2_args("H100-SXM:8", env_vars={PLACED_SPEC_ENV: "H200-SXM:8"})
    # the same value is no conflict
    assert flyte2_args("H100-SXM:8", env_vars={PLACED_SPEC_ENV: "H100-SXM:8"})["env_vars"] == {
        PLACED_SPEC_ENV: "H100-SXM:8"
    }
