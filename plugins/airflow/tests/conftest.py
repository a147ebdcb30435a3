"""Fixtures of the provider's tests; the Airflow environment is set up by ``airflow_testenv``
when this file is imported, before any test module imports Airflow."""

from __future__ import annotations

from pathlib import Path

import pytest
from airflow_testenv import COUNTS, K8S_VERSIONS, cleanup, migrate


@pytest.fixture(scope="session")
def airflow_db() -> Path:
    """The migrated SQLite metadata DB (``airflow db migrate``, once per session)."""
    return migrate()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    cleanup()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if COUNTS["pods"] or COUNTS["dag_runs"]:
        terminalreporter.write_line(
            f"airflow provider: {COUNTS['pods']} pods validated (strict, Kubernetes "
            f"{' and '.join(K8S_VERSIONS)}), {COUNTS['dag_runs']} DAG runs with dag.test()"
        )
