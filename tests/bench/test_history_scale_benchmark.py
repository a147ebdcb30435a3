"""``benchmarks/history_scale.py --quick`` runs end to end: every measured gate got its
fleet baseline, and its writers lost nothing and said nothing false (no timing is checked:
the figures are the benchmark's to print)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_quick_run_stores_every_report_and_says_nothing_false(tmp_path: Path) -> None:
    pytest.importorskip("boto3")
    out = tmp_path / "scale.json"
    done = subprocess.run(
        # a deadline no loaded CI host reaches: this test checks what is stored, not how fast
        # (a project CI run on a busy 2-core host once read a 1000-report S3 history past the
        # default 5 s, and the gate rightly went on without it)
        [
            sys.executable,
            "benchmarks/history_scale.py",
            "--quick",
            "--deadline",
            "120",
            "--json",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(out.read_text())
    assert {r["backend"] for r in data["steps"]} >= {"sqlite"}
    for step in data["steps"]:
        assert step["fleet_medians"] > 0, step  # the gate read its baseline from the history
    for row in data["writers"]:
        assert row["lost"] == 0, row
        assert row["false"] == 0, row
        assert row["integrity"] in ("ok", "n/a (server)"), row
        if not row["kill"]:
            assert row["stored"] == row["gates"], row
    assert "lost 0, false messages 0" in done.stdout
