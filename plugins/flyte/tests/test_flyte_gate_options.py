"""Issue 28 item 6: a gate's literal ``policy``/``profile`` is checked when the workflow is written
(flytekit compiles it on registration, ``pyflyte run``, or first use), whichever way the gate is
called; a workflow input (a Promise) is checked by the gate at run start, before the benchmark."""

from __future__ import annotations

from typing import Any

import pytest
from flytekit import workflow
from flytekitplugins.accelerators import benchmark_gate, gate

import accelerators.bench
from accelerators import AcceleratorError


def test_item6_a_literal_typo_in_benchmark_gate_is_refused_when_the_workflow_compiles() -> None:
    @workflow
    def wf() -> None:
        benchmark_gate(expect="H100-SXM:1", policy="retyr")

    with pytest.raises(
        AcceleratorError, match=r"unknown gate policy 'retyr'.*did you mean 'retry'"
    ):
        wf.compile()

    @workflow
    def wf2() -> None:
        benchmark_gate(expect="H100-SXM:1", profile="quik")

    with pytest.raises(
        AcceleratorError, match=r"unknown gate profile 'quik'.*did you mean 'quick'"
    ):
        wf2.compile()


def test_item6_gate_with_a_literal_typo_is_refused_when_the_workflow_compiles() -> None:
    @workflow
    def wf() -> None:
        gate("H100-SXM:1", policy="retyr")

    with pytest.raises(AcceleratorError, match=r"gate\('H100-SXM'\): unknown gate policy 'retyr'"):
        wf.compile()


def test_item6_a_policy_from_a_workflow_input_compiles_and_is_checked_at_run_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    @workflow
    def wf(policy: str = "retry") -> None:
        gate("H100-SXM:1", policy=policy)

    wf.compile()  # a Promise cannot be checked yet (it was a ValueError from flytekit before)
    [node] = wf.nodes
    assert node.metadata.retries.retries == 0  # the policy is unknown here: no retries added

    def bench_ran(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the benchmark ran before the policy was checked")

    monkeypatch.setattr(accelerators.bench, "run", bench_ran)
    with pytest.raises(AcceleratorError, match=r"unknown gate policy 'retyr'.*did you mean"):
        wf(policy="retyr")
