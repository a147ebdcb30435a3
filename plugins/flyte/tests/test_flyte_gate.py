"""The gate as a flytekit task: local-run rule, strictness in a cluster, policies, typed
output through flytekit's type engine, the Deck, and pinning to the gate's node.

Cluster runs use ``accelerators.bench.testing`` (the real bench code on a fake device, in
milliseconds); the real CPU gate runs only in the template tests.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from flytekit.core.context_manager import FlyteContextManager
from flytekit.core.type_engine import TypeEngine
from flytekit.exceptions.user import FlyteRecoverableException
from flytekitplugins.accelerators import (
    LOCAL_EXPECT_ENV,
    PLACED_SPEC_ENV,
    GateResult,
    is_local_execution,
    pinned,
    run_gate,
)
from flytekitplugins.accelerators._deck import report_html

from accelerators import AcceleratorError, AcceleratorGateError
from accelerators.bench import run
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected


def _on(sku: str) -> Any:
    """``accelerators.bench.run`` on a fake device that identifies as ``sku``."""
    return functools.partial(run, backend=FakeBackend([FakeDevice()]), detected=fake_detected(sku))


def test_in_a_cluster_the_right_device_passes() -> None:
    result = run_gate("H100-SXM", local=False, run=_on("H100-SXM"))
    assert result.passed
    assert result.verdict == "pass"
    assert (result.expected, result.checked, result.local) == ("H100-SXM", "H100-SXM", False)
    assert result.expected_present
    assert result.report().expect == "H100-SXM"
    assert result.note == ""


def test_in_a_cluster_a_wrong_device_fails_even_with_the_local_override(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # GIVEN the local override set in a cluster pod (it must not apply there)
    monkeypatch.setenv(LOCAL_EXPECT_ENV, "any")
    # WHEN the gate for an H100 finds an A100
    with pytest.raises(AcceleratorGateError, match="wrong_accelerator") as caught:
        run_gate("H100-SXM", local=False, run=_on("A100-80GB-SXM"))
    # THEN it fails with the report attached
    assert caught.value.report.expect == "H100-SXM"


def test_retry_policy_raises_flytekits_recoverable_error() -> None:
    with pytest.raises(FlyteRecoverableException, match="retrying on a new pod") as caught:
        run_gate("H100-SXM", local=False, policy="retry", run=_on("A100-80GB-SXM"))
    assert isinstance(caught.value.__cause__, AcceleratorGateError)


def test_unknown_policy_or_profile_is_refused_with_the_valid_ones() -> None:
    with pytest.raises(
        AcceleratorError, match="unknown gate policy 'ignore': expected one of fail"
    ):
        run_gate("H100-SXM", policy="ignore", run=_on("H100-SXM"))
    with pytest.raises(AcceleratorError, match=r"unknown gate profile 'ful'.*did you mean 'full'"):
        run_gate("H100-SXM", profile="ful", run=_on("H100-SXM"))


def test_fallback_records_the_alternative_it_matched() -> None:
    result = run_gate("H100-SXM | A100-80GB", local=False, run=_on("A100-80GB-SXM"))
    assert result.passed
    assert result.matched == "A100-80GB"


def test_locally_without_an_accelerator_only_health_is_checked() -> None:
    # This machine has no accelerator: the local rule checks anything, and says so.
    calls: list[Any] = []

    def recording(expect: Any, profile: str, **kwargs: Any) -> Any:
        calls.append(expect)
        return _on("H100-SXM")(expect, profile, **kwargs)

    result = run_gate("H100-SXM:8", local=True, run=recording)
    assert calls == [None]
    assert (result.checked, result.local, result.expected_present) == ("anything", True, False)
    assert "H100-SXM:8 is not on this machine" in result.note


def test_local_override_sets_the_expectation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LOCAL_EXPECT_ENV, "A100-80GB")
    with pytest.raises(AcceleratorGateError, match="wrong_accelerator"):
        run_gate("H100-SXM", local=True, run=_on("H100-SXM"))
    monkeypatch.setenv(LOCAL_EXPECT_ENV, "H100-SXM")
    assert run_gate("H100-SXM", local=True, run=_on("H100-SXM")).checked == "H100-SXM"


def test_flytekit_local_runs_are_local() -> None:
    assert is_local_execution()


def test_gate_result_round_trips_through_flytekits_type_engine() -> None:
    result = run_gate("A100", local=False, run=_on("A100-40GB-SXM"))
    ctx = FlyteContextManager.current_context()
    literal_type = TypeEngine.to_literal_type(GateResult)
    literal = TypeEngine.to_literal(ctx, result, GateResult, literal_type)
    back = TypeEngine.to_python_value(ctx, literal, GateResult)
    assert back == result
    assert back.report().model_dump() == result.report().model_dump()


def test_deck_html_has_the_verdict_the_tables_and_the_chart() -> None:
    result = run_gate("H100-SXM", local=False, run=_on("H100-SXM"))
    page = report_html(result.report(), note="a note")
    assert "<b>a note</b>" in page
    assert '<span class="verdict" style="background:#2e7d32">PASS</span> 1 x H100-SXM' in page
    for header in ("GEMM", "Memory bandwidth", "TFLOPS", "GB/s", "triad"):
        assert header in page
    assert "data:image/png;base64," in page


def test_pinned_uses_the_gates_node_and_matched_alternative() -> None:
    result = run_gate("H100-SXM | A100-80GB", local=False, run=_on("A100-80GB-SXM"))
    result.node = "gpu-node-7"
    args = pinned("H100-SXM | A100-80GB", result)
    assert args["accelerator"].name == "A100_80GB.unpartitioned"  # whole GPUs, off MIG nodes
    terms = args["pod_template"].pod_spec.affinity.node_affinity
    [term] = terms.required_during_scheduling_ignored_during_execution.node_selector_terms
    assert [(e.key, e.values) for e in term.match_expressions] == [
        ("kubernetes.io/hostname", ["gpu-node-7"])
    ]


def test_pinned_refuses_a_cluster_gate_without_a_node() -> None:
    result = run_gate("H100-SXM", local=False, run=_on("H100-SXM"))
    assert result.node == ""
    with pytest.raises(AcceleratorError, match=r"reported no node name \(\$NODE_NAME"):
        pinned("H100-SXM", result)
    result.local = True  # locally there is no node to pin to: plain task arguments
    assert pinned("H100-SXM", result).keys() == {
        "accelerator",
        "requests",
        "limits",
        "pod_template",
    }
    assert pinned("H100-SXM", result)["pod_template"].pod_spec.affinity is None


# -- in-pod gating: the gate runs before the function, and a failed gate stops it ------------------
def _cluster_gate_on(monkeypatch: pytest.MonkeyPatch, sku: str) -> None:
    """Make accelerator_task's gate see a fake ``sku`` as if in a cluster pod."""
    from flytekitplugins.accelerators import _tasks

    def on_fake(expect: Any, **kwargs: Any) -> GateResult:
        kwargs.update(local=False, run=_on(sku))
        return run_gate(expect, **kwargs)

    monkeypatch.setattr(_tasks, "run_gate", on_fake)
    monkeypatch.setattr(_tasks, "is_local_execution", lambda: False)


def test_in_pod_gate_runs_before_the_function(monkeypatch: pytest.MonkeyPatch) -> None:
    from flytekitplugins.accelerators import accelerator_task, last_gate_result

    _cluster_gate_on(monkeypatch, "H100-SXM")
    seen: list[Any] = []

    @accelerator_task("H100-SXM:1")
    def train(a: int) -> int:
        seen.append(last_gate_result("H100-SXM"))
        return a + 1

    assert train(a=1) == 2
    [result] = seen
    assert result is not None
    assert (result.expected, result.checked, result.local) == ("H100-SXM", "H100-SXM", False)


def test_in_pod_gate_failure_keeps_the_function_from_running(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from flytekitplugins.accelerators import accelerator_task

    _cluster_gate_on(monkeypatch, "A100-80GB-SXM")
    ran: list[int] = []

    @accelerator_task("H100-SXM:1")
    def train(a: int) -> int:
        ran.append(a)
        return a

    with pytest.raises(Exception, match="wrong_accelerator"):
        train(a=1)
    assert ran == []


def test_the_gate_task_appends_to_the_deployments_bench_history(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from accelerators.bench import open_store

    path = tmp_path / "history.sqlite"
    monkeypatch.setenv("ACCELERATORS_BENCH_HISTORY", str(path))
    run_gate("H100-SXM", local=False, run=_on("H100-SXM"))
    # An A100 at an A100's rates: a report whose figures are impossible for its own SKU is
    # never appended (accelerators/bench/history/_check.py).
    a100 = FakeDevice(
        name="NVIDIA A100-SXM4-80GB",
        gemm_tflops={"fp32": 18.0, "tf32": 140.0, "bf16": 280.0, "fp16": 280.0},
        bandwidth_gbps=dict.fromkeys(("copy", "scale", "add", "triad", "dot"), 1800.0),
    )
    on_a100 = functools.partial(
        run, backend=FakeBackend([a100]), detected=fake_detected("A100-80GB-SXM")
    )
    with pytest.raises(AcceleratorGateError):
        run_gate("H100-SXM", local=False, run=on_a100)
    verdicts = [r["verdict"] for r in open_store(path).reports()]
    assert verdicts == ["pass", "fail"]


# -- one meaning of "any"; the local override named in the failure it causes --------------------
def test_any_is_the_same_spec_in_gate_nodes_and_in_the_local_override(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from flytekitplugins.accelerators._gate_node import gate_task

    from accelerators import AcceleratorSpec

    modal_any = str(AcceleratorSpec.parse("any"))  # Modal's any-of, docs/grammar.md
    assert modal_any.startswith("T4 | L4 | A10 | L40S")
    assert gate_task("any").spec == modal_any
    monkeypatch.setenv(LOCAL_EXPECT_ENV, "any")
    assert run_gate("H100-SXM", local=True, run=_on("L4")).checked == modal_any
    with pytest.raises(AcceleratorGateError, match=r"\$ACCELERATORS_GATE_EXPECT") as caught:
        run_gate("H100-SXM", local=True, run=_on("A10G"))  # not one of Modal's GPU classes
    assert "wrong_accelerator" in str(caught.value)


def test_none_checks_whatever_is_there_and_a_bad_value_names_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(LOCAL_EXPECT_ENV, "none")
    result = run_gate("H100-SXM", local=True, run=_on("A10G"))
    assert (result.checked, result.passed) == ("anything", True)
    assert "health and speed only" in result.note
    monkeypatch.setenv(LOCAL_EXPECT_ENV, "H10O")
    with pytest.raises(AcceleratorError, match=r"\$ACCELERATORS_GATE_EXPECT='H10O'.*'H100'"):
        run_gate("H100-SXM", local=True, run=_on("H100-SXM"))


# -- the spec the pod was placed for ---------------------------------------------------------------
def test_in_a_cluster_the_placed_spec_is_checked_and_the_declared_one_recorded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(PLACED_SPEC_ENV, "H100-MEGA!")
    result = run_gate("H100-SXM", local=False, run=_on("H100-MEGA"))
    assert (result.expected, result.declared, result.passed) == ("H100-MEGA!", "H100-SXM", True)
    assert "placed by a node override; declared H100-SXM" in result.summary()
    with pytest.raises(AcceleratorGateError, match="expected H100-MEGA!"):
        run_gate("H100-SXM", local=False, run=_on("H100-SXM"))  # the placed spec, not the declared
    # locally there is no placement: the declared spec (here through the local rule) stands
    assert run_gate("H100-SXM", local=True, run=_on("H100-SXM")).declared == ""
    monkeypatch.setenv(PLACED_SPEC_ENV, "H10O")
    with pytest.raises(AcceleratorError, match=r"\$ACCELERATORS_PLACED_SPEC='H10O' is not a spec"):
        run_gate("H100-SXM", local=False, run=_on("H100-SXM"))
