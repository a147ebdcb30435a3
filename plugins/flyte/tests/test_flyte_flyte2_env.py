"""The Flyte 2 tests, run in the environment they need.

Flyte 2's SDK cannot share flytekit's environment (it pins rich-click at another version), so
``scripts/bootstrap`` builds ``.venv-flyte2`` from ``requirements/flyte2-cpu.lock`` beside
``.venv``. In ``.venv`` itself ``test_flyte2.py`` skips at import; this test runs that file in
``.venv-flyte2`` so that the README's test command covers Flyte 2 too. In CI a missing
``.venv-flyte2`` is a failure, not a skip.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
FLYTE2_PYTHON = ROOT / ".venv-flyte2" / "bin" / "python"
FLYTE2_TESTS = Path(__file__).with_name("test_flyte2.py")


def test_flyte2_suite_passes_in_its_own_environment() -> None:
    if not FLYTE2_PYTHON.exists():
        message = (
            f"{FLYTE2_PYTHON} is missing: run `bash scripts/bootstrap` "
            "(ACCELERATORS_FLYTE2=0 skips it)"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    if Path(sys.prefix).resolve() == FLYTE2_PYTHON.parents[1].resolve():
        pytest.skip("already running in .venv-flyte2")
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    proc = subprocess.run(
        [str(FLYTE2_PYTHON), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(FLYTE2_TESTS)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    tail = (proc.stdout + proc.stderr)[-4000:]
    assert proc.returncode == 0, tail
    summary = re.search(r"(\d+) passed", proc.stdout)
    assert summary is not None, tail
    assert int(summary.group(1)) > 50, tail
    assert "skipped" not in proc.stdout.splitlines()[-1], tail
