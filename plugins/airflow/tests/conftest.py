"""Fixtures of the provider's tests; the Airflow environment is set up by ``airflow_testenv``
when this file is imported, before any test module imports Airflow."""

from __future__ import annotations

from pathlib import Path

import pytest
from airflow_testenv import cleanup, migrate


@pytest.fixture(scope="session")
def airflow_db() -> Path:
    """The migrated SQLite metadata DB (``airflow db migrate``, once per session)."""
    return migrate()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    cleanup()
