"""Smaller reliability items, each as a user meets it on the command line: control characters
in a spec, counts a float cannot hold, huge input, ``--top`` below 1, ``--chart`` without
matplotlib, and a Python file that exits while ``flyte check`` imports it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from accelerators import AcceleratorSpec
from accelerators.errors import AcceleratorError, InvalidSpecError, SpecSyntaxError

typer_testing = pytest.importorskip("typer.testing")


def _invoke(*args: str) -> Any:
    from accelerators.cli import build_app

    return typer_testing.CliRunner().invoke(build_app(), list(args))


@pytest.mark.parametrize("text", ["H100\x1b[2J", "H100:\x1b]0;owned\x07", "A100@\u202egb01.g1"])
def test_control_characters_are_shown_escaped(text: str) -> None:
    result = _invoke("parse", text)
    assert result.exit_code == 2
    assert not any(ch in result.output for ch in "\x1b\x07\u202e")
    assert "\\x1b" in result.output or "\\u202e" in result.output


def test_the_caret_counts_escaped_characters() -> None:
    with pytest.raises(SpecSyntaxError) as raised:
        AcceleratorSpec.parse("H100\t:8!x")
    _, shown, marker = str(raised.value).splitlines()
    assert shown.strip() == "H100\\t:8!x"
    assert shown.index("!") == marker.index("^")


@pytest.mark.parametrize(
    "count", ["9007199254740992.5", "4503599627370496.5", "1.00000000000000001"]
)
def test_a_count_a_float_cannot_hold_is_refused(count: str) -> None:
    with pytest.raises(InvalidSpecError, match="a count a float holds exactly"):
        AcceleratorSpec.parse(f"H100:{count}")
    assert AcceleratorSpec.parse("H100:9007199254740992").count == 2**53
    assert AcceleratorSpec.parse("H100:0.5").count == 0.5


MAX_LENGTH = 1000  # accelerators._parser.MAX_LENGTH, as docs/grammar.md states it


def test_spec_text_has_a_length_cap() -> None:
    from accelerators import _parser

    assert getattr(_parser, "MAX_LENGTH", None) == MAX_LENGTH
    longest = "H100:8 | " * ((MAX_LENGTH - 6) // 9) + "A100:8"
    assert len(longest) <= MAX_LENGTH
    assert len(AcceleratorSpec.parse(longest).alternatives) > 50
    with pytest.raises(AcceleratorError, match=r"at most 1,000 characters .*got 2,000,000"):
        AcceleratorSpec.parse("H100 " * 400_000)
    result = _invoke("parse", "H100 " * 1000)
    assert result.exit_code == 2
    assert "at most 1,000 characters" in result.output


@pytest.mark.parametrize("top", ["-1", "0"])
def test_recommend_top_below_one_is_bad_input(top: str) -> None:
    result = _invoke("recommend", "--memory-gb", "40", "--top", top, "--json")
    assert result.exit_code == 2
    assert "--top" in result.output
    from accelerators.sizing import SizingError, recommend

    with pytest.raises(SizingError, match="positive number of specs"):
        recommend(memory_gb=40, top=int(top))
    assert len(recommend(memory_gb=40, top=1)) == 1


def test_history_chart_without_matplotlib_is_bad_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    result = _invoke(
        "bench",
        "history",
        "--store",
        str(tmp_path / "h.sqlite"),
        "--chart",
        str(tmp_path / "c.png"),
    )
    assert result.exit_code == 2, result.output
    assert "--chart needs matplotlib" in result.output
    assert 'pip install "accelerators[bench]"' in result.output
    assert not (tmp_path / "c.png").exists()


def test_flyte_check_on_a_file_that_exits_checked_nothing(tmp_path: Path) -> None:
    pytest.importorskip("flytekitplugins.accelerators")
    exiting = tmp_path / "exits.py"
    exiting.write_text("raise SystemExit(0)\n", encoding="utf-8")
    result = _invoke("flyte", "check", str(exiting))
    assert result.exit_code == 2
    assert "SystemExit(0)" in result.output
    assert "no workflow was checked" in result.output


def test_recommend_json_still_lists_the_top_specs() -> None:
    result = _invoke("recommend", "--memory-gb", "40", "--top", "2", "--json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["recommendations"]) == 2
