"""Shared pytest configuration for the accelerators test suite."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
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


# ---------------------------------------------------------------------------- headless Chromium
class Chromium:
    """Debian's ``chromium``, headless, for the tests that render pages (the bench's HTML report,
    the docs site). Each call gets its own profile folder, so calls never share state."""

    def __init__(self, binary: str, profiles: Path) -> None:
        self.binary = binary
        self._profiles = profiles

    def _run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        profile = tempfile.mkdtemp(dir=self._profiles)
        return subprocess.run(
            [
                self.binary,
                "--headless=new",
                "--no-sandbox",  # CI containers run as root
                "--disable-gpu",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def screenshot(self, url: str, out: Path, *, width: int = 1200, height: int = 1400) -> Path:
        """A PNG of ``url`` in a ``width`` x ``height`` window, written to ``out``."""
        proc = self._run(f"--window-size={width},{height}", f"--screenshot={out}", url)
        assert out.exists(), f"chromium wrote no screenshot (rc {proc.returncode}): {proc.stderr}"
        return out

    def dom(self, url: str) -> str:
        """The DOM of ``url`` once loaded and its scripts ran, as HTML."""
        proc = self._run("--virtual-time-budget=5000", "--dump-dom", url)
        assert proc.returncode == 0, f"chromium --dump-dom failed: {proc.stderr}"
        assert "<html" in proc.stdout, proc.stdout[:500]
        return proc.stdout


def _apt_offers_chromium() -> bool:
    if shutil.which("apt-cache") is None:
        return False
    out = subprocess.run(
        ["apt-cache", "policy", "chromium"], capture_output=True, text=True, check=False
    ).stdout
    return "Candidate:" in out and "Candidate: (none)" not in out


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Chromium:
    """Headless Chromium. Where the browser tests are asked for (``ACCELERATORS_BROWSER_TESTS=1``,
    as ``.ci/run`` does) a missing browser is a failure that says what to run, unless apt offers
    no package for it; not asked for, a missing browser skips and says how to ask."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("ACCELERATORS_BROWSER_TESTS") != "1":
            pytest.skip(
                "Chromium is not installed; ACCELERATORS_BROWSER_TESTS=1 bash scripts/bootstrap "
                "installs it (apt-get install chromium, as root)"
            )
        if _apt_offers_chromium():
            pytest.fail(
                "the browser tests are asked for (ACCELERATORS_BROWSER_TESTS=1) but Chromium is "
                "not installed: run scripts/system-deps (apt-get install chromium, as root)"
            )
        pytest.skip("chromium is not installed and apt offers no chromium package on this machine")
    return Chromium(found, tmp_path_factory.mktemp("chromium-profiles"))
