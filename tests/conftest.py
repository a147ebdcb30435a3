"""Shared pytest configuration for the accelerators test suite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# ---------------------------------------------------------------------------- hypothesis profiles
# "dev" keeps local runs quick; "ci" searches harder and drops the deadline (CI machines are
# noisy). CI=true (set by CI) selects "ci"; HYPOTHESIS_PROFILE names a profile explicitly, and
# pytest's --hypothesis-profile option overrides both.
settings.register_profile("dev", max_examples=200)
settings.register_profile("ci", max_examples=2000, deadline=None)
_in_ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if _in_ci else "dev"))


_BUILD_WHEEL = "import sys, hatchling.build as b; print(b.build_wheel(sys.argv[1]))"


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout's wheel, built once per session through hatchling's PEP 517 hook (what
    pip calls), in a subprocess from the repository root; hatchling comes from the lock."""
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-c", _BUILD_WHEEL, str(out)],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, f"wheel build failed:\n{proc.stdout}\n{proc.stderr}"
    return out / proc.stdout.strip().splitlines()[-1]
