"""Fixtures for the sizing tests: an empty, private cache directory for every test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from accelerators.sizing import _price_cache, aws


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point the live-AWS cache at an empty directory so a user's own cache never leaks in."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("ACCELERATORS_CACHE_DIR", str(directory))
    aws._read_cache_at.cache_clear()
    _price_cache.clear()
    yield directory
    aws._read_cache_at.cache_clear()
    _price_cache.clear()
