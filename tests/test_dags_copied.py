"""Each template in ``dags/``, copied alone to an empty folder, runs as its docstring says.

Templates are meant to be copied (issue 33: ``cp dags/flyte_finetune.py /tmp/x/ && python
/tmp/x/flyte_finetune.py`` failed, its default model config being found through
``parents[1]/tests/data``). The fast test reads every template for paths into this
repository; the slow ones copy each template to a fresh folder and run every command of its
docstring there, with the commands' own working directory: ``python``/``pyflyte run`` for the
Flyte workflows, ``airflow dags test`` (a fresh ``AIRFLOW_HOME``, the folder as the DAGs
folder) for the Airflow DAGs.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = sorted((ROOT / "dags").glob("*.py"))
#: What a copied template cannot rely on: the repository around it.
REPO_PATHS = re.compile(r"parents\[\d\]|tests/data|dags/|__file__")
_COMMAND = re.compile(r"^(?:[A-Z_]+=\S+\s+)*(python|pyflyte|airflow)\s")


def docstring_commands(path: Path) -> list[str]:
    """The shell commands in the template's docstring (``\\``-continued lines joined)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    commands: list[str] = []
    pending = ""
    for raw in doc.splitlines():
        line = raw.strip()
        if pending:
            line = pending + " " + line
            pending = ""
        elif not _COMMAND.match(line):
            continue
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        commands.append(line.split("  #")[0].strip())
    return commands


def test_every_template_has_a_run_command_and_names_no_repository_path() -> None:
    assert [p.name for p in TEMPLATES] == [
        "airflow_fallback.py",
        "airflow_finetune.py",
        "airflow_k8s_executor.py",
        "airflow_mig_inference.py",
        "airflow_training.py",
        "flyte_fallback.py",
        "flyte_finetune.py",
        "flyte_mig_inference.py",
        "flyte_training.py",
    ]
    for path in TEMPLATES:
        commands = docstring_commands(path)
        assert commands, f"{path.name}: no run command in its docstring"
        text = path.read_text(encoding="utf-8")
        found = REPO_PATHS.findall(text)
        assert not found, f"{path.name} relies on the repository around it: {found}"


def _environment(**extra: str) -> dict[str, str]:
    # a user's shell, not this test process: other test modules set Airflow's configuration
    # (its DAGs folder, a WARNING log level that hides the run's state) when imported
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("FINETUNE_MODEL_CONFIG", None)
    env.pop("KUBERNETES_SERVICE_HOST", None)
    env.update(extra)
    return env


def _run(command: str, folder: Path, env: dict[str, str], timeout: float) -> str:
    proc = subprocess.run(
        ["bash", "-c", command],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{command!r} in {folder} exited {proc.returncode}:\n{output}"
    return output


def _copy_alone(template: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "copied"
    folder.mkdir()
    shutil.copy2(template, folder / template.name)
    return folder


@pytest.mark.slow
@pytest.mark.parametrize(
    "template", [p for p in TEMPLATES if p.name.startswith("flyte_")], ids=lambda p: p.stem
)
def test_a_copied_flyte_template_runs_as_its_docstring_says(template: Path, tmp_path: Path) -> None:
    pytest.importorskip("flytekit")
    pytest.importorskip("torch", reason="the templates' gate and training run on this CPU")
    folder = _copy_alone(template, tmp_path)
    env = _environment(FLYTE_SDK_RICH_TRACEBACKS="0", HOME=str(tmp_path))
    for command in docstring_commands(template):
        output = _run(command, folder, env, timeout=600)
        if template.name == "flyte_finetune.py" and command.startswith("python"):
            assert "gate:  not checked: this machine has" in output
            assert "Deck: file://" in output
            assert "tokens/s" in output
    assert sorted(p.name for p in folder.iterdir() if p.suffix == ".py") == [template.name]


@pytest.fixture(scope="module")
def airflow_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("airflow")
    home = tmp_path_factory.mktemp("airflow-home")
    env = _environment(AIRFLOW_HOME=str(home), AIRFLOW__CORE__LOAD_EXAMPLES="False")
    _run(f"{sys.executable} -m airflow db migrate", home, env, timeout=300)
    return home


@pytest.mark.slow
@pytest.mark.parametrize(
    "template", [p for p in TEMPLATES if p.name.startswith("airflow_")], ids=lambda p: p.stem
)
def test_a_copied_airflow_template_runs_as_its_docstring_says(
    template: Path, tmp_path: Path, airflow_home: Path
) -> None:
    pytest.importorskip("torch", reason="local_run runs the gate's benchmark in the worker")
    folder = _copy_alone(template, tmp_path)
    env = _environment(
        AIRFLOW_HOME=str(airflow_home),
        AIRFLOW__CORE__DAGS_FOLDER=str(folder),
        AIRFLOW__CORE__LOAD_EXAMPLES="False",
        AIRFLOW__CORE__UNIT_TEST_MODE="False",
    )
    for command in docstring_commands(template):
        output = _run(command, folder, env, timeout=600)
        assert "state=success" in output, output[-3000:]
        if template.name == "airflow_finetune.py":
            assert "'gate': 'not checked: this machine has" in output
