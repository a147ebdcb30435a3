"""``gate_headline``: the verdict in one line, and what it covers.

Issue 33: a local run showed a green PASS for "1 x AMD EPYC" under a plan that asked for an
L40S, with no word that the L40S was never checked. The headline says so first.
"""

from __future__ import annotations

import pytest

from accelerators.bench import BenchReport, gate_headline, run
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected


def _on(sku: str, expect: str | None) -> BenchReport:
    return run(expect, backend=FakeBackend([FakeDevice()]), detected=fake_detected(sku))


def _as_cpu(report: BenchReport) -> BenchReport:
    device = report.device.model_copy(
        update={"kind": "cpu", "name": "AMD EPYC 7B13", "accelerator": None, "count": 1}
    )
    return report.model_copy(update={"device": device})


def test_a_local_health_check_says_the_planned_device_was_not_checked() -> None:
    report = _as_cpu(_on("H100-SXM", None))
    verdict = report.verdict.value.upper()
    assert gate_headline(report, asked="L40S") == (
        f"not checked: this machine has no L40S (health of 1 x AMD EPYC 7B13: {verdict})"
    )
    chain = gate_headline(report, asked="L40S | H200-SXM | RTX-PRO-6000")
    assert chain.startswith("not checked: this machine has none of L40S, H200-SXM, RTX-PRO-6000 (")


def test_an_accelerator_that_was_there_but_not_compared_is_named() -> None:
    report = _on("H100-SXM", None)
    headline = gate_headline(report, asked="H100-SXM:8")
    assert headline.startswith("not checked: 1 x H100-SXM was not compared with H100-SXM:8")


def test_a_checked_device_says_what_it_matched() -> None:
    report = _on("H100-SXM", "H100-SXM | A100-80GB")
    assert report.verdict.value in ("pass", "warn")
    assert gate_headline(report) == f"{report.verdict.value.upper()}: 1 x H100-SXM is H100-SXM"


def test_a_failed_check_names_the_expectation_and_the_first_failure() -> None:
    report = _on("A100-80GB-SXM", "H100-SXM")
    assert report.verdict.value == "fail"
    headline = gate_headline(report)
    assert headline.startswith("FAIL: 1 x A100-80GB-SXM, expected H100-SXM: wrong_accelerator: ")


@pytest.mark.parametrize("asked", [None, ""])
def test_nothing_asked_is_a_plain_health_check(asked: str | None) -> None:
    report = _on("H100-SXM", None)
    assert gate_headline(report, asked=asked).endswith(
        "1 x H100-SXM, health only (no accelerator was asked for)"
    )
