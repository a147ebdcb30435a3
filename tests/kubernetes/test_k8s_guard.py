"""``guard_problems``: a task pinned to a gate's node must fit that node and its devices."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorError
from accelerators.kubernetes import guard_problems


@pytest.mark.parametrize(
    ("gate", "task"),
    [
        ("H100-SXM:8", "H100-SXM:8"),
        ("H100-SXM:8", "H100-SXM:1"),
        ("H100-SXM:8 | A100-80GB:8", "H100-SXM:8 | A100-80GB:8"),
        ("A100-80GB@1g.10gb", "A100-80GB@1g.10gb"),
        ("H100-SXM!:8", "H100-SXM:8"),  # the task accepts every SKU the gate passes
        ("T4@shared:2", "T4@shared"),
    ],
)
def test_tasks_that_fit_their_gate(gate: str, task: str) -> None:
    assert guard_problems(gate, task) == ()


def test_another_accelerator_is_refused() -> None:
    [problem] = guard_problems("A100-80GB:4", "H100-SXM:8")
    assert problem == "the gate's node has A100-80GB:4, the task needs H100-SXM:8"


def test_more_devices_than_the_gate_checked_is_refused() -> None:
    [problem] = guard_problems("H100-SXM:1", "H100-SXM:8")
    assert "uses 8 devices, the gate (H100-SXM) checks 1: 7 would run unchecked" in problem


def test_a_partition_behind_a_whole_gpu_gate_is_refused() -> None:
    [problem] = guard_problems("H100-SXM:1", "H100-SXM@1g.10gb")
    assert "the gate checks whole devices (H100-SXM), the task needs 1g.10gb partitions" in problem
    for shared in ("T4@shared", "T4:0.5"):  # a share needs a node that shares its GPUs
        [problem] = guard_problems("T4:1", shared)
        assert "shared GPU slots" in problem


def test_a_gate_sku_the_task_refuses_is_named() -> None:
    [problem] = guard_problems("H100-SXM:8", "H100-SXM!:8")
    assert "also passes H100-MEGA" in problem


def test_every_gate_alternative_must_be_hosted() -> None:
    problems = guard_problems("H100-SXM:8 | A100-80GB:8 | L4:8", "H100-SXM:8 | A100-80GB:8")
    assert problems == ("the gate's node has L4:8, the task needs H100-SXM:8",)


def test_bad_specs_raise_our_error() -> None:
    with pytest.raises(AcceleratorError):
        guard_problems("H1000", "H100-SXM")
