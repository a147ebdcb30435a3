"""Tests marked ``serial`` run alone under pytest-xdist (issue 30, item 9; the root conftest.py).

A scratch suite, run with ``-n 3`` and the repository's conftest.py: ordinary tests that each
stay busy for a moment, and two ``serial`` ones. Every test writes when it started and ended;
no ordinary test's span may overlap a serial test's, while the ordinary ones do overlap each
other (the workers really ran in parallel).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_SUITE = """
import json
import os
import time
from pathlib import Path

import pytest

SPANS = Path(os.environ["SPANS"])


def _span(name, seconds):
    start = time.monotonic()
    time.sleep(seconds)
    with SPANS.open("a") as out:
        out.write(json.dumps([name, start, time.monotonic()]) + "\\n")


@pytest.mark.parametrize("n", range(12))
def test_ordinary(n):
    _span(f"ordinary-{n}", 0.3)


@pytest.mark.serial
@pytest.mark.parametrize("n", range(2))
def test_serial(n):
    _span(f"serial-{n}", 0.6)
"""


@pytest.mark.serial  # a pytest run of its own, with three workers
def test_serial_tests_never_overlap_another_test(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(ROOT / "conftest.py", suite / "conftest.py")
    (suite / "test_spans.py").write_text(textwrap.dedent(_SUITE), encoding="utf-8")
    (suite / "pytest.ini").write_text(
        "[pytest]\nmarkers =\n    serial: runs alone\n", encoding="utf-8"
    )
    spans_file = tmp_path / "spans.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "3", str(suite)],
        cwd=suite,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))},
            "SPANS": str(spans_file),
        },
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "14 passed" in proc.stdout
    spans = [json.loads(line) for line in spans_file.read_text().splitlines()]
    serial = [(s, e) for name, s, e in spans if name.startswith("serial")]
    ordinary = [(s, e) for name, s, e in spans if name.startswith("ordinary")]
    assert len(serial) == 2
    assert len(ordinary) == 12

    def overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
        return a[0] < b[1] and b[0] < a[1]

    assert [(s, o) for s in serial for o in ordinary if overlap(s, o)] == []
    assert not overlap(serial[0], serial[1])
    assert any(overlap(a, b) for i, a in enumerate(ordinary) for b in ordinary[i + 1 :])
