"""Provider registration: discovered by Airflow's own machinery, schema-valid, import-light."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
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

    try:  # Airflow >= 3.2: the task SDK's own providers manager
        from airflow.sdk.providers_manager_runtime import ProvidersManagerTaskRuntime as Manager
    except ImportError:  # Airflow 3.0 (the floor): core's
        from airflow.providers_manager import ProvidersManager as Manager

    manager = Manager()
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


PLUGIN = Path(__file__).resolve().parents[1]


def _project() -> dict[str, object]:
    import tomllib

    project: dict[str, object] = tomllib.loads((PLUGIN / "pyproject.toml").read_text())["project"]
    return project


def test_airflow_shows_the_documentation_url(airflow_db: Path) -> None:
    """``airflow providers get`` reads ``documentation-url`` from the Project-URL
    "Documentation" of the installed distribution (it was null)."""
    shown = airflow_cli("providers", "get", DIST, "--full", "--output", "json")
    assert shown.returncode == 0, shown.stderr
    [info] = json.loads(shown.stdout)
    urls = _project()["urls"]
    assert isinstance(urls, dict)
    assert set(urls) >= {"Homepage", "Documentation", "Source", "Changelog", "Issues"}
    declared = metadata.metadata(DIST).get_all("Project-URL") or []
    assert f"Documentation, {urls['Documentation']}" in declared
    if "documentation-url" in info or airflow_version() >= (3, 1):
        assert info["documentation-url"] == urls["Documentation"]


def airflow_version() -> tuple[int, int]:
    major, minor = metadata.version("apache-airflow").split(".")[:2]
    return int(major), int(minor)


def test_the_pypi_readme_links_are_absolute_and_the_changelog_has_this_version() -> None:
    import re

    readme = (PLUGIN / "README.md").read_text()
    links = re.findall(r"\]\(([^)]+)\)", readme)
    assert links
    urls = _project()["urls"]
    assert isinstance(urls, dict)
    home = str(urls["Homepage"])
    assert all(link.startswith(home) for link in links), links
    assert f"({urls['Documentation']})" in readme
    assert f"({urls['Changelog']})" in readme
    changelog = (PLUGIN / "CHANGELOG.md").read_text()
    assert f"## {metadata.version(DIST)}" in changelog
    assert accelerators_provider.__version__ == metadata.version(DIST)


def test_the_floors_are_declared(airflow_db: Path) -> None:
    requires = metadata.requires(DIST) or []
    assert "apache-airflow>=3.0.0" in requires
    assert "apache-airflow-providers-cncf-kubernetes>=10.21.0" in requires


def test_without_a_task_state_store_the_log_says_retries_cannot_avoid_the_node(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Airflow < 3.3 has no task state store: the gate says so instead of failing silently."""
    from accelerators_provider import _gate

    _gate._warned_no_store.clear()
    # caplog's handler on the module's own logger: Airflow's logging set-up may stop it from
    # propagating to the root logger (it did when this test ran alone)
    _gate.log.addHandler(caplog.handler)
    try:
        with caplog.at_level("INFO", logger=_gate.log.name):
            assert _gate.failed_nodes({"params": {}}) == []
            _gate.record_failed_node({"params": {}}, "gpu-node-3")
    finally:
        _gate.log.removeHandler(caplog.handler)
    assert "Retry avoidance is unavailable: this Airflow has no task state store" in caplog.text
    assert "Node gpu-node-3 failed the gate, but this Airflow has no task state store" in (
        caplog.text
    )
