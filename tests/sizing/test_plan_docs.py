"""The worked plans of docs/planning.md are what ``accelerators plan`` prints today.

Run ``pytest -q tests/sizing/test_plan_docs.py`` after a price or catalog change: a failure
lists the lines to update on the page.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

typer_testing = pytest.importorskip("typer.testing", reason="typer (the [cli] extra) is missing")

import accelerators.cli  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "planning.md"
_COMMAND = re.compile(r"^\$ (accelerators plan .*?)(?<!\\)$", re.M | re.S)


def _examples() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    commands = [m.replace("\\\n", " ") for m in _COMMAND.findall(text)]
    return [c for c in commands if "--no-history" in c]


def test_the_page_has_three_worked_plans() -> None:
    assert len(_examples()) == 3


@pytest.mark.parametrize("command", _examples(), ids=["0.5B full", "7B LoRA", "70B QLoRA"])
def test_each_worked_plan_is_what_the_command_prints(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    args = shlex.split(command)[1:]
    result = typer_testing.CliRunner().invoke(
        accelerators.cli.build_app(), args, env={"COLUMNS": "120"}
    )
    assert result.exit_code == 0, result.output
    lines = [line.rstrip() for line in result.output.splitlines()]
    start = next(i for i, line in enumerate(lines) if "Ranked by" in line)
    end = next(
        i
        for i, line in enumerate(lines[start:], start)
        if not line.strip() or (i > start + 1 and not line.lstrip()[:1].isdigit())
    )
    shown = lines[:3] + lines[start:end]
    page = {line.rstrip() for line in DOC.read_text(encoding="utf-8").splitlines()}
    missing = [line for line in shown if line not in page]
    assert not missing, "docs/planning.md lacks (update the worked plan):\n" + "\n".join(missing)
