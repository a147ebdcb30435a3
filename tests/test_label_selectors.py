"""A Kubernetes node-label selector read as a spec (accelerators/_labels.py)."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorSpec
from accelerators.errors import SpecSyntaxError


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("cloud.google.com/gke-accelerator=nvidia-l4", "L4"),
        (
            "cloud.google.com/gke-accelerator=nvidia-l4,cloud.google.com/gke-accelerator-count=2",
            "L4:2",
        ),
        ("nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB,nvidia.com/gpu.count=8", "A100-80GB-SXM!:8"),
        ("nvidia.com/gpu.count=4, nvidia.com/gpu.product=Tesla-T4", "T4:4"),  # either order
        ("nvidia.com/gpu.product=NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", "A100-40GB-SXM!@1g.5gb"),
        ("gpu.intel.com/product=Max_1550", "MAX-1550"),
        ("karpenter.k8s.aws/instance-gpu-name=l40s", "L40S"),
        ("cloud.google.com/gke-tpu-accelerator=tpu-v5-lite-podslice", "TPU-V5E"),
    ],
)
def test_a_node_selector_reads_as_the_accelerator_it_selects(text: str, canonical: str) -> None:
    assert str(AcceleratorSpec.parse(text)) == canonical
    # explain shows the label's value read as a name
    explained = AcceleratorSpec.explain(text)
    assert explained.spec == canonical
    assert len(explained.names) == 1


@pytest.mark.parametrize(
    ("text", "why", "caret_under"),
    [
        ("habana.ai/device.name=gaudi2", "'habana.ai/device.name' is no node label", "habana"),
        ("nvidia.com/gpu.count=8", "names no accelerator", "nvidia"),
        (
            "nvidia.com/gpu.product=Tesla-T4,cloud.google.com/gke-accelerator=nvidia-tesla-t4",
            "names the accelerator twice",
            "nvidia",
        ),
        ("nvidia.com/gpu.product=Tesla-T4,nvidia.com/gpu.count=0", "a count of one or more", "0"),
        ("nvidia.com/gpu.product=Tesla-T4,nvidia.com/gpu.count=x", "a count of one or more", "x"),
        ("nvidia.com/gpu.product=Tesla-T4,,", "Expected label=value", ""),
    ],
)
def test_a_selector_that_cannot_be_read_is_refused_by_name(
    text: str, why: str, caret_under: str
) -> None:
    with pytest.raises(SpecSyntaxError, match=why) as info:
        AcceleratorSpec.parse(text)
    start, end = info.value.span or (0, 0)
    assert text[start:end].startswith(caret_under)


def test_an_lsf_request_is_still_an_lsf_request() -> None:
    # LSF's keys have no '/': the selector reader leaves them alone
    assert str(AcceleratorSpec.parse("num=2:mode=exclusive_process:gmodel=NVIDIAH200")) == (
        "H200-SXM!:2"
    )


def test_an_unknown_value_is_refused_with_the_name_pointed_at() -> None:
    from accelerators.errors import UnknownAcceleratorError

    text = "cloud.google.com/gke-accelerator=nvidia-tesla-zz9"
    with pytest.raises(UnknownAcceleratorError) as info:
        AcceleratorSpec.parse(text)
    start, end = info.value.span or (0, 0)
    assert text[start:end] == "nvidia-tesla-zz9"
