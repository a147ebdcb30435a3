"""The core's import layers and the thread-safe catalog load."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from accelerators import catalog
from accelerators.catalog import _names, _store

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold() -> None:
    pytest.importorskip("importlinter")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = "from importlinter.cli import lint_imports_command as c; c()"
    run = subprocess.run(
        [sys.executable, "-c", script, "--no-cache", "--no-logo"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 kept, 0 broken" in run.stdout


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
