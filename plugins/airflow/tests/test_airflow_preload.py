"""``accelerators_provider.preload``: what it loads, and that forked parses then load nothing.

Each check runs in a fresh interpreter (``sys.modules`` of this test process is not clean).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from airflow_testenv import REPO

#: Loads of a spec, kubernetes adapters, the catalog and its index, as the child sees them.
_STATE = """
import json, sys, threading
from accelerators.catalog import _spellings, _store
def state():
    return {
        "modules": sorted(m for m in sys.modules if m.startswith("accelerators")),
        "kpo": "airflow.providers.cncf.kubernetes.operators.pod" in sys.modules,
        "catalog_loads": _store.LOADED.loads,
        "index_built": bool(_spellings._state),
        "threads": threading.active_count(),
    }
"""


def _run(
    code: str, *, env: dict[str, str] | None = None, preload: str = "always"
) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter; ``preload`` is ``ACCELERATORS_PRELOAD`` there
    (``always`` where a test checks what the preload does, not where it runs)."""
    paths = [str(REPO), str(REPO / "plugins" / "airflow"), os.environ.get("PYTHONPATH", "")]
    run_env = dict(os.environ if env is None else env)
    run_env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    run_env["ACCELERATORS_PRELOAD"] = preload
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=run_env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_preload_imports_loads_and_builds_what_it_promises() -> None:
    out = _run(
        _STATE
        + """
before = state()
from accelerators_provider.preload import MODULES, preload
seconds = preload()
again = preload()
after = state()
from accelerators.kubernetes import _BUILTIN
print(json.dumps({"before": before, "after": after, "modules": list(MODULES),
                  "adapters": [module for module, _ in _BUILTIN.values()],
                  "seconds": seconds, "again": again}))
"""
    )
    before, after = out["before"], out["after"]
    assert isinstance(before, dict)
    assert isinstance(after, dict)
    assert before["catalog_loads"] == 0
    assert not before["index_built"]
    assert not before["kpo"]
    loaded = set(after["modules"])  # type: ignore[arg-type]
    promised = {m for m in out["modules"] if m.startswith("accelerators")}  # type: ignore[union-attr]
    assert promised <= loaded | {"accelerators_provider.operators"}
    assert set(out["adapters"]) <= loaded  # type: ignore[arg-type]
    assert {
        "accelerators_provider.operators",
        "accelerators_provider.decorators",
        "accelerators_provider.executors",
    } <= loaded
    assert after["kpo"], "KubernetesPodOperator (and the kubernetes client) not imported"
    assert after["catalog_loads"] == 1
    assert after["index_built"]
    assert after["threads"] == 1, "preload must start no thread: the manager forks after it"
    assert float(out["again"]) < float(out["seconds"])  # type: ignore[arg-type]


_FORKED_PARSE = """
import gc, importlib, json, os, sys
try:
    from airflow.dag_processing.dagbag import DagBag
except ImportError:  # Airflow 3.0
    from airflow.models.dagbag import DagBag
from accelerators_provider.preload import preload
preload()
gc.freeze()
results = {}
for path in sys.argv[1:]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        before = set(sys.modules)
        bag = DagBag(dag_folder=path, safe_mode=False)
        new = sorted(m for m in set(sys.modules) - before if m.startswith("accelerators"))
        os.write(write, json.dumps({"dags": sorted(bag.dag_ids), "new": new,
                                    "errors": list(bag.import_errors.values())}).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        results[os.path.basename(path)] = json.loads(pipe.read())
    os.waitpid(pid, 0)
print(json.dumps(results))
"""

_BAD_SPEC = """
import pendulum
from accelerators_provider import AcceleratorPodOperator
from airflow.sdk import DAG

with DAG(dag_id="bad_spec", schedule=None, start_date=pendulum.datetime(2026, 1, 1)):
    AcceleratorPodOperator(task_id="train", image="trainer:1", accelerator="H100-SXM:eight",
                           platform="gke")
"""


def test_children_of_a_preloaded_parent_import_nothing_and_still_refuse_bad_specs(
    tmp_path: Path,
) -> None:
    bad = tmp_path / "bad_spec.py"
    bad.write_text(_BAD_SPEC)
    template = REPO / "dags" / "airflow_training.py"
    code = f"import sys; sys.argv[1:] = [{str(template)!r}, {str(bad)!r}]\n" + _FORKED_PARSE
    out = _run(code)
    good, refused = out["airflow_training.py"], out["bad_spec.py"]
    assert isinstance(good, dict)
    assert isinstance(refused, dict)
    assert good == {"dags": ["airflow_training"], "new": [], "errors": []}
    assert refused["dags"] == []
    assert refused["new"] == []
    [error] = refused["errors"]  # type: ignore[misc]
    assert "H100-SXM:eight" in error
    assert "got 'eight'" in error  # the grammar's message, with its caret


def test_airflow_imports_local_settings_that_preload(tmp_path: Path) -> None:
    """``import airflow`` (every Airflow process: the DAG-processor manager too) runs
    ``$AIRFLOW_HOME/config/airflow_local_settings.py`` before it forks anything; with
    ``ACCELERATORS_PRELOAD=always`` the preload runs there whatever the process."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "airflow_local_settings.py").write_text(
        "from accelerators_provider.preload import preload\npreload()\n"
    )
    env = dict(os.environ, AIRFLOW_HOME=str(tmp_path))
    out = _run(
        _STATE + "import airflow\nprint(json.dumps(state()))",
        env=env,
    )
    assert "accelerators_provider.operators" in out["modules"]  # type: ignore[operator]
    assert out["kpo"]
    assert out["catalog_loads"] == 1
    assert out["index_built"]


def _local_settings(home: Path, marker: Path) -> dict[str, str]:
    config = home / "config"
    config.mkdir(exist_ok=True)
    (config / "airflow_local_settings.py").write_text(
        "import json, sys\n"
        "from accelerators_provider.preload import preload\n"
        "seconds = preload()\n"
        f"open({str(marker)!r}, 'a').write(json.dumps({{'argv': sys.argv[:2], "
        "'seconds': seconds}) + '\\n')\n"
    )
    env = dict(os.environ, AIRFLOW_HOME=str(home))
    env.pop("ACCELERATORS_PRELOAD", None)
    return env


@pytest.mark.slow
def test_the_preload_runs_only_in_the_dag_processor(tmp_path: Path) -> None:
    """The same airflow_local_settings, through the real ``airflow`` command: the DAG
    processor preloads; ``airflow version`` (like the scheduler, the API server and the
    workers) skips it, and with it seconds of start-up."""
    marker = tmp_path / "marker.jsonl"
    env = _local_settings(tmp_path, marker)
    script = Path(sys.executable).parent / "airflow"  # the console script
    for command in (["version"], ["dag-processor", "--help"]):
        for program in ([str(script)], [sys.executable, "-m", "airflow"]):
            done = subprocess.run(
                [*program, *command], env=env, capture_output=True, text=True, timeout=300
            )
            assert done.returncode == 0, done.stderr[-2000:]
    lines = [json.loads(line) for line in marker.read_text().splitlines()]
    assert len(lines) == 4
    for line in lines:
        if "version" in line["argv"][1]:
            assert line["seconds"] is None, line
        else:
            assert line["seconds"] is not None, line
            assert line["seconds"] > 0


def test_in_dag_processor_reads_the_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from accelerators_provider.preload import in_dag_processor

    assert in_dag_processor(["/venv/bin/airflow", "dag-processor"])
    assert in_dag_processor(["/venv/bin/airflow", "dag-processor", "--num-runs", "3"])
    assert in_dag_processor(["/x/site-packages/airflow/__main__.py", "dag-processor"])
    assert not in_dag_processor(["/venv/bin/airflow", "scheduler"])
    assert not in_dag_processor(["/venv/bin/airflow", "tasks", "run", "dag-processor"])
    assert not in_dag_processor(["/venv/bin/python", "dag-processor"])
    assert not in_dag_processor([])
    monkeypatch.setattr(sys, "orig_argv", ["/venv/bin/python", "-m", "airflow", "dag-processor"])
    assert in_dag_processor(["-m", "dag-processor"])  # sys.argv while airflow is imported
    monkeypatch.setattr(sys, "orig_argv", ["/venv/bin/python", "-m", "other", "dag-processor"])
    assert not in_dag_processor(["-m", "dag-processor"])


def test_the_environment_overrides_the_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    from accelerators_provider import preload as module

    monkeypatch.setattr(module.sys, "argv", ["/venv/bin/airflow", "scheduler"])
    monkeypatch.setenv("ACCELERATORS_PRELOAD", "never")
    assert module.preload() is None
    monkeypatch.setenv("ACCELERATORS_PRELOAD", "auto")
    assert module.preload() is None
    monkeypatch.setenv("ACCELERATORS_PRELOAD", "sometimes")  # warned about, read as auto
    assert module.preload() is None
    monkeypatch.setenv("ACCELERATORS_PRELOAD", "always")
    assert module.preload() is not None


_RECORDING_DAG = """
import json, os, sys
inherited = sorted(m for m in sys.modules if m.startswith("accelerators"))
import pendulum
import airflow.providers.cncf.kubernetes.operators.pod
from airflow.sdk import DAG
from accelerators_provider import AcceleratorPodOperator

with DAG(dag_id="recording", schedule=None, start_date=pendulum.datetime(2026, 1, 1)) as dag:
    AcceleratorPodOperator(task_id="train", image="i", accelerator="H100-SXM:8", platform="gke")
with open({marker!r}, "a") as out:
    out.write(json.dumps({{"pid": os.getpid(), "inherited": inherited}}) + "\\n")
"""


@pytest.mark.slow
@pytest.mark.parametrize("setting", ["auto", "never"])
def test_the_real_dag_processor_preloads_with_nothing_configured(
    tmp_path: Path, setting: str
) -> None:
    """No ``airflow_local_settings``: the provider's ``airflow.policy`` entry point makes the
    real ``airflow dag-processor`` preload before it forks its first parse, so every parse
    finds the provider and the core loaded; ``ACCELERATORS_PRELOAD=never`` turns it off."""
    marker = tmp_path / "parses.jsonl"
    dags = tmp_path / "dags"
    dags.mkdir()
    (dags / "recording.py").write_text(_RECORDING_DAG.format(marker=str(marker)))
    env = dict(os.environ)
    env.update(
        AIRFLOW_HOME=str(tmp_path),
        AIRFLOW__CORE__DAGS_FOLDER=str(dags),
        AIRFLOW__CORE__LOAD_EXAMPLES="False",
        AIRFLOW__DAG_PROCESSOR__PARSING_PROCESSES="1",
        AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL="0",
        ACCELERATORS_PRELOAD=setting,
    )
    airflow = str(Path(sys.executable).with_name("airflow"))
    for command in (["db", "migrate"], ["dag-processor", "--num-runs", "3"]):
        done = subprocess.run(
            [airflow, *command], env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr[-3000:]
    parses = [json.loads(line) for line in marker.read_text().splitlines()]
    assert len(parses) >= 2
    assert len({p["pid"] for p in parses}) == len(parses)  # each parse in its own child
    for parse in parses:
        preloaded = "accelerators_provider.operators" in parse["inherited"]
        assert preloaded == (setting == "auto"), parse
