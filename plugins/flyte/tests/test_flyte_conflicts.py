"""``task_args`` refuses a pod template whose selector, affinity or device resource no node can
meet with the spec, through the core's one check (issue 28, item 8), on propeller's own labels
(platform ``flyte``) and on every other platform."""

from __future__ import annotations

import pytest
from flyte_helpers import serialize, template_pod_spec, validate_pod_spec
from flytekit import PodTemplate, task
from flytekitplugins.accelerators import task_args
from kubernetes.client import V1Container, V1PodSpec, V1ResourceRequirements

from accelerators import PlacementError

TYPE = "node.kubernetes.io/instance-type"


def _template(**spec: object) -> PodTemplate:
    containers = spec.pop("containers", [V1Container(name="primary")])
    return PodTemplate(pod_spec=V1PodSpec(containers=containers, **spec))


def test_an_a100_instance_type_under_an_h100_spec_on_karpenter() -> None:
    with pytest.raises(PlacementError) as raised:
        task_args(
            "H100-SXM:8",
            platform="karpenter",
            pod_template=_template(node_selector={TYPE: "p4d.24xlarge"}),
        )
    message = str(raised.value)
    assert (
        f"pod_template: no node it selects can host 'H100-SXM:8': nodeSelector {TYPE}=" in message
    )
    assert "p4d.24xlarge is an AWS instance type with 8 x A100-40GB" in message


def test_propellers_own_label_in_the_template() -> None:
    """Propeller adds ``k8s.amazonaws.com/accelerator`` itself; the template's other value
    would make the pod unschedulable, so it is refused when written."""
    with pytest.raises(
        PlacementError, match=r"accelerator=nvidia-tesla-a100 contradicts 'H100-SXM:8'"
    ):
        task_args(
            "H100-SXM:8",
            pod_template=_template(
                node_selector={"k8s.amazonaws.com/accelerator": "nvidia-tesla-a100"}
            ),
        )


def test_an_amd_resource_in_a_sidecar() -> None:
    sidecar = V1Container(
        name="proxy", resources=V1ResourceRequirements(limits={"amd.com/gpu": "1"})
    )
    with pytest.raises(PlacementError, match=r"container 'proxy' limits amd\.com/gpu: 1"):
        task_args(
            "H100-SXM:8",
            platform="gke",
            pod_template=_template(containers=[sidecar, V1Container(name="primary")]),
        )


def test_a_template_that_fits_is_kept_and_serialises() -> None:
    args = task_args(
        "H100-SXM:8", platform="gke", pod_template=_template(node_selector={TYPE: "a3-highgpu-8g"})
    )

    @task(**args)
    def train() -> None:
        return None

    pod_spec = template_pod_spec(serialize(train))
    assert pod_spec is not None
    assert pod_spec["nodeSelector"][TYPE] == "a3-highgpu-8g"
    validate_pod_spec(pod_spec)
