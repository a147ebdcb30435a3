"""The provider at its declared floors: install them into a side venv and run its tests there.

``plugins/airflow/pyproject.toml`` declares the lowest Airflow and cncf-kubernetes provider
it supports. This test installs exactly those (``uv pip install --resolution lowest-direct``
on the declared requirements, so the direct dependencies take their lowest allowed version
and everything else what they resolve to), with the test tools pinned as in
``requirements/dev-cpu.lock``, into a venv kept in a cache directory keyed by what it holds,
and runs this directory's tests with it (tests that need torch skip there: it is not
installed). Bounded: the install has a timeout and the test run too; a cached venv is
reused, so a second run only runs the tests.

It skips, saying why, only when the package index cannot be reached and no cached venv
exists. ``ACCELERATORS_AIRFLOW_FLOOR_CACHE`` moves the cache (default
``~/.cache/accelerators/airflow-floor``, one venv per checkout and set of pins); inside the
floor run this test skips itself.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path

import pytest
from airflow_testenv import REPO

PLUGIN = REPO / "plugins" / "airflow"
LOCK = REPO / "requirements" / "dev-cpu.lock"
#: Set in the floor run's environment (the test does not recurse).
INSIDE = "ACCELERATORS_AIRFLOW_FLOOR_RUN"
#: The test tools and build backend, at the lock's versions (not at their lowest).
TOOLS = ("pytest", "kubernetes-validate", "pyyaml", "hatchling", "editables")
INSTALL_TIMEOUT_S = 600
TEST_TIMEOUT_S = 1200


def _declared() -> tuple[list[str], list[str]]:
    """The plugin's own requirements, and the core's with its ``k8s`` extra, as declared."""
    plugin = tomllib.loads((PLUGIN / "pyproject.toml").read_text())["project"]
    core = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    own = [r for r in plugin["dependencies"] if not r.startswith("accelerators")]
    return own, [*core["dependencies"], *core["optional-dependencies"]["k8s"]]


def _pins() -> list[str]:
    lines = LOCK.read_text().splitlines()
    pins = []
    for tool in TOOLS:
        found = [
            line.split(";")[0].strip() for line in lines if line.lower().startswith(f"{tool}==")
        ]
        pins += found
    return pins


def _floor(requirement: str) -> tuple[str, str] | None:
    match = re.match(r"^([A-Za-z0-9_.-]+)(?:\[[^]]*\])?>=([0-9][^,;]*)", requirement)
    return (match.group(1).lower(), match.group(2)) if match else None


def _uv() -> str:
    found = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if found is None:
        pytest.skip("uv is not installed (it is in requirements/dev-*.lock)")
    return found


def _index_error() -> str | None:
    """Why the package index cannot be reached, or None if it can."""
    index = os.environ.get("UV_INDEX_URL") or os.environ.get("PIP_INDEX_URL")
    url = (index or "https://pypi.org/simple").rstrip("/") + "/apache-airflow/"
    try:
        with urllib.request.urlopen(url, timeout=15) as response:
            response.read(1)
    except OSError as exc:
        return f"{url}: {exc}"
    return None


def _venv(requirements: list[str], pins: list[str]) -> Path:
    # The checkout is part of the key: the test installs it editable into the venv, so two
    # checkouts sharing one venv would each run the other's code (seen with git worktrees).
    parts = [sys.version, str(REPO), *requirements, *pins]
    key = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    base = os.environ.get("ACCELERATORS_AIRFLOW_FLOOR_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "accelerators" / "airflow-floor"
    venv = root / key
    if (venv / ".complete").exists():
        return venv
    error = _index_error()
    if error is not None:
        pytest.skip(f"the package index is unreachable and no floor venv is cached: {error}")
    shutil.rmtree(venv, ignore_errors=True)
    uv = _uv()
    subprocess.run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
    python = str(venv / "bin" / "python")
    done = subprocess.run(
        [
            uv,
            "pip",
            "install",
            "--quiet",
            "--python",
            python,
            "--resolution",
            "lowest-direct",
            *requirements,
            *pins,
        ],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    (venv / ".complete").write_text("\n".join([*requirements, *pins]) + "\n")
    return venv


@pytest.mark.slow
@pytest.mark.xdist_group("installs")  # uv installs Airflow at its floors, then a pytest run
def test_the_provider_passes_its_tests_at_its_declared_floors() -> None:
    if os.environ.get(INSIDE):
        pytest.skip("this is the floor run")
    own, core = _declared()
    requirements, pins = [*own, *core], _pins()
    floors = dict(f for f in map(_floor, own) if f is not None)
    assert floors["apache-airflow"] == "3.0.0"
    assert floors["apache-airflow-providers-cncf-kubernetes"] == "10.21.0"
    venv = _venv(requirements, pins)
    python = str(venv / "bin" / "python")
    uv = _uv()
    # This checkout's core and provider, editable (as scripts/bootstrap installs them).
    done = subprocess.run(
        [
            uv,
            "pip",
            "install",
            "--quiet",
            "--python",
            python,
            "--no-deps",
            "--no-build-isolation",
            "-e",
            str(REPO),
            "-e",
            str(PLUGIN),
        ],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    versions = subprocess.run(
        [
            python,
            "-c",
            "from importlib import metadata as m; import sys; "
            "print(*[f'{d}=={m.version(d)}' for d in sys.argv[1:]])",
            *floors,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert versions == [f"{name}=={version}" for name, version in floors.items()]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "VIRTUAL_ENV"))}
    env[INSIDE] = "1"
    env.pop("PYTHONPATH", None)
    run = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(PLUGIN / "tests")],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=TEST_TIMEOUT_S,
        check=False,
    )
    tail = (run.stdout + run.stderr)[-6000:]
    assert run.returncode == 0, tail
    summary = run.stdout.strip().splitlines()[-1]
    passed = int(re.search(r"(\d+) passed", summary).group(1))  # type: ignore[union-attr]
    assert passed >= 40, summary
    print(f"floor ({', '.join(versions)}): {summary}")
