"""The core's import layers and the thread-safe catalog load."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import tomllib
from pathlib import Path

import pytest

from accelerators import catalog
from accelerators.catalog import _names, _store

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the tree at ``root`` (its ``accelerators`` and ``pyproject.toml``)."""
    pytest.importorskip("importlinter")
    env = {**os.environ, "PYTHONPATH": str(root)}
    script = "from importlinter.cli import lint_imports_command as c; c()"
    return subprocess.run(
        [sys.executable, "-c", script, "--no-cache", "--no-logo"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_import_contracts_hold() -> None:
    run = _lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    names = [c["name"] for c in _contracts()]
    assert names, "pyproject.toml declares no import-linter contract"
    kept = {line.rsplit(" KEPT", 1)[0] for line in run.stdout.splitlines() if " KEPT" in line}
    assert [n for n in names if n not in kept] == [], run.stdout
    assert re.search(rf"Contracts: {len(names)} kept, 0 broken\.", run.stdout), run.stdout


def _contracts() -> list[dict[str, object]]:
    """The contracts ``pyproject.toml`` declares, each of which lint-imports must report."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return found


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        # sizing may read bench's history, never run a benchmark
        (
            "sizing/_plan.py",
            "from accelerators.bench.runner._run import run",
            "sizing reads the bench",
        ),
        # and, like everything but the CLI, may not import the CLI
        ("sizing/_plan.py", "from accelerators.cli import main", "core layers are one-way"),
        # nothing below sizing may import it
        (
            "kubernetes/_checks.py",
            "from accelerators.sizing import _cost",
            "core layers are one-way",
        ),
    ],
)
def test_a_forbidden_import_of_or_from_sizing_breaks_a_contract(
    tmp_path: Path, module: str, line: str, broken: str
) -> None:
    shutil.copytree(
        ROOT / "accelerators",
        tmp_path / "accelerators",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "accelerators" / module
    target.write_text(target.read_text() + f"\n\ndef _forbidden() -> None:\n    {line}\n")
    run = _lint_imports(tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    contracts = run.stdout.split("Broken contracts")[0]
    assert [c for c in contracts.splitlines() if c.startswith(broken) and " BROKEN" in c]


def test_concurrent_first_lookups_load_the_catalog_once(monkeypatch: pytest.MonkeyPatch) -> None:
    original = _store.LOADED.file()
    reads: list[int] = []
    real_read = _store._read_data

    def counting_read() -> dict[str, object]:
        reads.append(1)
        return real_read()

    monkeypatch.setattr(_store, "_read_data", counting_read)
    _store.LOADED.cache_clear()
    _names.cache_clear()
    barrier = threading.Barrier(16)
    found: list[str] = []

    def worker() -> None:
        barrier.wait()
        found.append(catalog.get("nvidia-tesla-t4").name)

    try:
        threads = [threading.Thread(target=worker) for _ in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(reads) == 1
        assert found == ["T4"] * 16
    finally:
        _store.LOADED.install(original)
        _names.cache_clear()
