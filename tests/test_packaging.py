"""The wheel ships the data files, the typing marker and the console script.

The wheel is built through hatchling's PEP 517 hook (what pip calls), in a subprocess, from the
repository root; hatchling comes from the lock (requirements/dev-cpu.lock or dev-cuda.lock), so
no network is needed.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from email.parser import Parser
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def wheel(built_wheel: Path) -> Iterator[zipfile.ZipFile]:
    with zipfile.ZipFile(built_wheel) as archive:
        yield archive


def _dist_info(wheel: zipfile.ZipFile, filename: str) -> str:
    (path,) = [n for n in wheel.namelist() if n.endswith(f".dist-info/{filename}")]
    return wheel.read(path).decode("utf-8")


def test_wheel_ships_data_and_typing_marker(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    assert "accelerators/__init__.py" in names
    assert "accelerators/data/catalog.toml" in names
    # the example model the templates plan for when given none (a copied template runs anywhere)
    assert "accelerators/data/qwen2.5-0.5b-config.json" in names
    assert "accelerators/py.typed" in names


def test_wheel_ships_only_the_package(wheel: zipfile.ZipFile) -> None:
    top_level = {name.split("/", 1)[0] for name in wheel.namelist()}
    assert {t for t in top_level if not t.endswith(".dist-info")} == {"accelerators"}
    assert not [n for n in wheel.namelist() if "__pycache__" in n or n.endswith(".pyc")]


def test_wheel_declares_console_script(wheel: zipfile.ZipFile) -> None:
    entry_points = _dist_info(wheel, "entry_points.txt")
    section = entry_points.split("[console_scripts]", 1)[1].split("[", 1)[0]
    scripts = {}
    for line in section.splitlines():
        if "=" in line:
            name, target = line.split("=", 1)
            scripts[name.strip()] = target.strip()
    assert scripts == {"accelerators": "accelerators.cli:main"}


def test_core_requires_only_pydantic(wheel: zipfile.ZipFile) -> None:
    metadata = Parser().parsestr(_dist_info(wheel, "METADATA"))
    core = [r for r in metadata.get_all("Requires-Dist", []) if "extra ==" not in r]
    assert [r.split(">", 1)[0].split("<", 1)[0].strip() for r in core] == ["pydantic"]
    assert metadata["Requires-Python"] == ">=3.11"
    extras = set(metadata.get_all("Provides-Extra", []))
    assert {"cli", "bench", "flyte", "airflow", "k8s", "aws", "postgres"} <= extras
    assert "dev" not in extras  # the test tools are a dependency group, not a published extra
