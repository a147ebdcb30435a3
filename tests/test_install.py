"""A user's install: the wheel, then ``pip install accelerators`` and ``accelerators[cli]``.

The wheel is built offline through hatchling's PEP 517 hook (hatchling is in the lock). The slow
test installs it into a fresh venv as a user would: first the core alone (``import accelerators``
works; ``accelerators list`` names the extra to install), then ``[cli]`` (the commands work).
pip fetches pydantic, typer and rich from the configured indexes; without a reachable index the
test skips and says which one. The fast tests read the extras from the wheel's metadata.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

CLI_HINT = 'pip install "accelerators[cli]"'


@pytest.fixture(scope="module")
def wheel(built_wheel: Path) -> Path:
    return built_wheel


def _requires(wheel: Path) -> dict[str, set[str]]:
    """extra ('' for the core) -> the distribution names it requires, from METADATA."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = Parser().parsestr(archive.read(name).decode("utf-8"))
    by_extra: dict[str, set[str]] = {}
    for requirement in metadata.get_all("Requires-Dist", []):
        spec, _, marker = requirement.partition(";")
        extra = marker.split("extra ==")[1].strip().strip("'\"") if "extra ==" in marker else ""
        dist = spec.split("[")[0]
        for sep in "<>=!~ ":
            dist = dist.split(sep)[0]
        extras = spec.split("[")[1].split("]")[0] if "[" in spec else ""
        by_extra.setdefault(extra, set()).add(f"{dist}[{extras}]" if extras else dist)
    return by_extra


# ---------------------------------------------------------------------------- the extras


def test_bench_extra_is_enough_for_the_bench_command(wheel: Path) -> None:
    # hatchling writes the self-reference accelerators[cli] out as the [cli] requirements.
    requires = _requires(wheel)
    assert requires["cli"] == {"typer", "rich", "pyyaml"}
    assert requires["bench"] == requires["cli"] | {"torch", "matplotlib", "nvidia-ml-py"}


def test_plugin_extras_install_the_plugins(wheel: Path) -> None:
    requires = _requires(wheel)
    assert requires["flyte"] == {"flytekitplugins-accelerators"}
    assert requires["airflow"] == {"airflow-provider-accelerators"}


def test_all_extra_covers_every_user_extra(wheel: Path) -> None:
    requires = _requires(wheel)
    users = set(requires) - {"", "all"}
    assert users == {"cli", "bench", "flyte", "airflow", "k8s", "aws", "postgres"}
    assert requires["all"] == set().union(*(requires[extra] for extra in users))


def test_postgres_extra_brings_psycopg(wheel: Path) -> None:
    assert _requires(wheel)["postgres"] == {"psycopg[binary]"}


def test_core_install_stays_pydantic_only(wheel: Path) -> None:
    assert _requires(wheel)[""] == {"pydantic"}


# ---------------------------------------------------------------------------- the install


def _index_problem() -> str | None:
    """Why pip cannot reach its index, or None when it can."""
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
    try:
        with urllib.request.urlopen(f"{index}/pydantic/", timeout=15) as response:
            response.read(1)
    except OSError as exc:
        return f"{index} is unreachable ({exc}); the install test needs it for pydantic/typer"
    return None


def _run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=600, check=False, **kwargs)  # type: ignore[call-overload, no-any-return]


def _pip_install(venv: Path, *requirements: str) -> float:
    start = time.perf_counter()
    proc = _run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-input",
            "--disable-pip-version-check",
            *requirements,
        ],
    )
    assert proc.returncode == 0, f"pip install {requirements} failed:\n{proc.stderr}"
    return time.perf_counter() - start


def _distributions(venv: Path) -> list[str]:
    proc = _run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze"])
    return sorted(line.split("==")[0].lower() for line in proc.stdout.split())


@pytest.mark.slow
@pytest.mark.xdist_group("installs")  # a fresh venv, pip-installed
def test_fresh_venv_core_then_cli(wheel: Path, tmp_path: Path) -> None:
    problem = _index_problem()
    if problem is not None:
        pytest.skip(problem)
    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)]).returncode == 0
    python, cli = str(venv / "bin" / "python"), str(venv / "bin" / "accelerators")
    outside = {"cwd": tmp_path, "env": {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}}

    # 1. The core alone: the package imports and parses; the CLI says which extra it needs.
    seconds = _pip_install(venv, str(wheel))
    print(f"\ncore: pip install {wheel.name} in {seconds:.1f} s -> {_distributions(venv)}")
    code = (
        "import accelerators, sys\n"
        "print(accelerators.__file__)\n"
        "print(accelerators.AcceleratorSpec.parse('H100-SXM:8').accelerator.name)\n"
    )
    proc = _run([python, "-c", code], **outside)
    assert proc.returncode == 0, proc.stderr
    where, name = proc.stdout.split()
    assert where.startswith(str(venv)), f"imported {where}, not the installed wheel"
    assert name == "H100-SXM"
    proc = _run([cli, "list"], **outside)
    print(f"core: accelerators list -> exit {proc.returncode}: {proc.stderr.strip()}")
    assert proc.returncode == 2
    assert CLI_HINT in proc.stderr

    # 2. With [cli]: the commands work; bench names the extra it needs on top.
    seconds = _pip_install(venv, f"{wheel}[cli]")
    print(f"cli: pip install {wheel.name}[cli] in {seconds:.1f} s")
    proc = _run([cli, "list"], **outside)
    assert proc.returncode == 0, proc.stderr
    assert "H100-SXM" in proc.stdout
    assert "MI300X" in proc.stdout
    print(f"cli: accelerators list -> exit 0, {len(proc.stdout.splitlines())} lines")
    proc = _run([cli, "parse", "H100-SXM:8"], **outside)
    assert proc.returncode == 0, proc.stderr
    assert "H100-SXM" in proc.stdout
    proc = _run([cli, "parse", "H10O:8"], **outside)
    assert proc.returncode == 2
    print(f"cli: accelerators parse H10O:8 -> exit 2: {proc.stderr.strip().splitlines()[0]}")
    proc = _run([cli, "bench", "--profile", "quick"], **outside)
    print(f"cli: accelerators bench -> exit {proc.returncode}: {proc.stderr.strip()}")
    assert proc.returncode == 2
    assert "accelerators[bench]" in proc.stderr
