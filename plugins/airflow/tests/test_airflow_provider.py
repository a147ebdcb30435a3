"""Provider registration: discovered by Airflow's own machinery, schema-valid, import-light."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from airflow_testenv import airflow_cli
from packaging.utils import canonicalize_name

import accelerators_provider

DIST = "airflow-provider-accelerators"


def test_provider_info_passes_airflows_schema() -> None:
    import jsonschema
    from airflow.providers_manager import _create_provider_info_schema_validator

    info = accelerators_provider.get_provider_info()
    _create_provider_info_schema_validator().validate(info)
    assert info["package-name"] == canonicalize_name(metadata.metadata(DIST)["Name"])
    names = {d["name"]: d["class-name"] for d in info["task-decorators"]}
    assert names == {
        "accelerator": "accelerators_provider.decorators.accelerator_task",
        "accelerator_gate": "accelerators_provider.decorators.accelerator_gate_task",
    }
    bad = {**info, "operators": [{"integration-name": 1}]}
    assert not jsonschema.Draft7Validator(_schema()).is_valid(bad)


def _schema() -> dict[str, object]:
    import airflow

    return json.loads((Path(airflow.__file__).parent / "provider_info.schema.json").read_text())


def test_entry_point_is_registered() -> None:
    points = [
        ep
        for ep in metadata.entry_points(group="apache_airflow_provider")
        if ep.dist is not None and ep.dist.name == DIST
    ]
    assert [ep.value for ep in points] == ["accelerators_provider:get_provider_info"]
    assert points[0].load() is accelerators_provider.get_provider_info


def test_task_runtime_discovers_the_provider_and_its_decorators() -> None:
    from airflow.sdk import task
    from airflow.sdk.providers_manager_runtime import ProvidersManagerTaskRuntime

    manager = ProvidersManagerTaskRuntime()
    assert DIST in manager.providers
    assert manager.providers[DIST].version == metadata.version(DIST)
    decorators = manager.taskflow_decorators
    from accelerators_provider.decorators import accelerator_gate_task, accelerator_task

    assert decorators["accelerator"] is accelerator_task
    assert decorators["accelerator_gate"] is accelerator_gate_task
    # Our provider must not break anyone else's decorators.
    assert "kubernetes" in decorators
    assert task.accelerator is accelerator_task
    assert task.accelerator_gate is accelerator_gate_task


def test_airflow_providers_list_shows_it_without_import_errors(airflow_db: Path) -> None:
    listed = airflow_cli("providers", "list", "--output", "json")
    assert listed.returncode == 0, listed.stderr
    rows = {row["package_name"]: row for row in json.loads(listed.stdout)}
    assert rows[DIST]["version"] == metadata.version(DIST)
    assert "apache-airflow-providers-cncf-kubernetes" in rows
    assert DIST not in listed.stderr


def test_importing_the_provider_is_light() -> None:
    code = (
        "import sys, accelerators_provider as p; p.get_provider_info();"
        "heavy = [m for m in ('airflow', 'kubernetes', 'torch', 'pydantic') if m in sys.modules];"
        "print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
