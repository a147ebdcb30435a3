"""A real Airflow for the provider's tests: one temp AIRFLOW_HOME, migrated once per session.

(Not named ``conftest``: the repository has another ``conftest.py``, and test modules import
these helpers by name.)

The environment is set when this file is imported, before anything imports Airflow (which
reads its configuration once). The DAGs folder (Airflow's ``dags-folder`` bundle, which
``dag.test()`` needs the DAG files to be in) is a temp copy of the repository's
``dags/airflow_*.py``, where tests can add DAG files of their own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
TEMPLATES = sorted((REPO / "dags").glob("airflow_*.py"))
_HOME = Path(tempfile.mkdtemp(prefix="accelerators-airflow-"))
DAGS = _HOME / "dags"
DAGS.mkdir()
for _template in TEMPLATES:
    shutil.copy2(_template, DAGS / _template.name)
os.environ.update(
    {
        "AIRFLOW_HOME": str(_HOME),
        "AIRFLOW__CORE__DAGS_FOLDER": str(DAGS),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__CORE__UNIT_TEST_MODE": "False",
        "AIRFLOW__LOGGING__LOGGING_LEVEL": "WARNING",
    }
)
os.environ.pop("KUBERNETES_SERVICE_HOST", None)

#: Kubernetes versions every rendered pod is validated against (strict schema).
K8S_VERSIONS = ("1.30", "1.37")


def airflow_cli(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run the ``airflow`` CLI of this interpreter with the test environment."""
    command = [sys.executable, "-m", "airflow", *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, env=dict(os.environ), check=False
    )


_MIGRATED: list[Path] = []


def migrate() -> Path:
    """``airflow db migrate`` (SQLite), once; returns the DB path."""
    if not _MIGRATED:
        result = airflow_cli("db", "migrate")
        if result.returncode != 0:
            raise RuntimeError(f"airflow db migrate failed:\n{result.stdout}\n{result.stderr}")
        _MIGRATED.append(_HOME / "airflow.db")
    return _MIGRATED[0]


def manifest(pod: Any) -> dict[str, Any]:
    """A ``V1Pod`` as the camelCase manifest ``kubectl`` would send."""
    from kubernetes.client import ApiClient

    data = ApiClient().sanitize_for_serialization(pod)
    assert isinstance(data, dict)
    return data


#: What the session did, for the summary line: pods validated, DAG runs.
COUNTS = {"pods": 0, "dag_runs": 0}


def validate_pod(pod: Any) -> dict[str, Any]:
    """Validate ``pod`` against the strict Kubernetes schema; returns the manifest."""
    return validate_manifest(manifest(pod))


def validate_manifest(data: dict[str, Any]) -> dict[str, Any]:
    """Validate a camelCase pod manifest against the strict schema and our own checks that
    the schema lacks (``requests <= limits``); returns it."""
    import kubernetes_validate

    from accelerators.kubernetes import check_resources

    for version in K8S_VERSIONS:
        kubernetes_validate.validate(data, version, strict=True)
    check_resources(data)
    COUNTS["pods"] += 1
    return data


def dagbag_class() -> Any:
    """Airflow's ``DagBag``: ``airflow.dag_processing.dagbag`` from 3.1, ``airflow.models``
    in 3.0 (the floor)."""
    try:
        from airflow.dag_processing.dagbag import DagBag
    except ImportError:
        from airflow.models.dagbag import DagBag
    return DagBag


def run_dag(dag: Any, **kwargs: Any) -> Any:
    """``dag.test(**kwargs)``, counted. On Airflow 3.0 a task-SDK DAG has no ``test()``: it
    is converted to a core DAG first, as ``airflow dags test`` does there."""
    if not hasattr(dag, "test"):
        from airflow.models.dag import DAG as CoreDAG

        dag = CoreDAG.from_sdk_dag(dag)
    run = dag.test(**kwargs)
    COUNTS["dag_runs"] += 1
    return run


def cleanup() -> None:
    """Remove the temp AIRFLOW_HOME."""
    shutil.rmtree(_HOME, ignore_errors=True)
