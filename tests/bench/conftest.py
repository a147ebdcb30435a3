"""Fixtures for the benchmark tests: fake devices, fake detection, a clean thread cache."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from accelerators.bench import _threads


@pytest.fixture(autouse=True)
def _fresh_thread_choice() -> Iterator[None]:
    """Every test measures thread counts anew (the choice is cached per process)."""
    _threads.clear_cache()
    yield
    _threads.clear_cache()
