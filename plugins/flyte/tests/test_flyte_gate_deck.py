"""The gate's result is easy to find and read: its headline, its Deck tab first, its file logged.

Issue 33: nothing logged where a local run's Deck went (a new ``deck.html`` under a temporary
folder each run), the Deck opened on flytekit's Timeline tab, and a local run showed a green
PASS for the CPU under a plan that asked for an L40S. The bench runs on a fake device here
(``accelerators.bench.testing``): the real code, in milliseconds.
"""

from __future__ import annotations

import functools
import html
import logging
from pathlib import Path
from typing import Any

import pytest
from flytekit import workflow
from flytekitplugins.accelerators import _tasks as gated_tasks
from flytekitplugins.accelerators import (
    accelerator_task,
    last_gate_deck,
    last_gate_result,
    run_gate,
)

import accelerators.bench
from accelerators.bench import run
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

TAB = '<li onclick="handleLinkClick(this)">'


def _on(sku: str) -> Any:
    return functools.partial(run, backend=FakeBackend([FakeDevice()]), detected=fake_detected(sku))


def test_the_headline_says_what_was_checked() -> None:
    checked = run_gate("H100-SXM | A100-80GB", local=False, run=_on("H100-SXM"))
    assert checked.headline == f"{checked.verdict.upper()}: 1 x H100-SXM is H100-SXM"
    assert checked.summary().startswith(f"gate {checked.headline} on ")
    # ACCELERATORS_GATE_EXPECT=none locally: the device there is not compared with the spec
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ACCELERATORS_GATE_EXPECT", "none")
        health = run_gate("L40S", local=True, run=_on("H100-SXM"))
    assert health.checked == "anything"
    assert health.headline.startswith("not checked: 1 x H100-SXM was not compared with L40S")
    assert health.summary().startswith("gate not checked: ")


def test_a_local_run_opens_on_the_gates_tab_and_logs_its_deck_file(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(accelerators.bench, "run", _on("H100-SXM"))
    monkeypatch.setattr(gated_tasks, "_GATE_PROCESS_CACHE", {})

    @accelerator_task("H100-SXM:1")
    def train(steps: int) -> int:
        return steps * 2

    @workflow
    def pipeline(steps: int = 3) -> int:
        return train(steps=steps)

    with caplog.at_level(logging.INFO, logger="user_space"):
        assert pipeline(steps=3) == 6
    deck = last_gate_deck("H100-SXM:1")
    assert deck is not None
    assert deck == last_gate_deck()
    logged = [r.getMessage() for r in caplog.records if r.name == "user_space"]
    assert f"Accelerator gate Deck (H100-SXM): file://{deck}" in logged
    page = Path(deck).read_text(encoding="utf-8")
    tabs = [t.split("</li>")[0] for t in page.split(TAB)[1:]]
    assert tabs[0] == "Accelerator gate"  # the tab the Deck opens on
    assert "Timeline" in tabs[1:]
    result = last_gate_result("H100-SXM")
    assert result is not None
    # this machine shows no accelerator to flytekit's local rule: health only, and said first
    assert result.headline.startswith("not checked: 1 x H100-SXM was not compared with H100-SXM")
    assert html.escape(result.headline) in page
