"""With the ``accelerators`` core missing or older than the provider, Airflow still starts
(issue 28, item 7).

Airflow imports every ``airflow.policy`` entry point while ``import airflow`` runs; ours,
``accelerators_provider.policy``, imported ``accelerators_provider/__init__``, which imported
``accelerators.lazy``: without the core, ``import airflow`` itself failed and with it every
``airflow`` command. Each test runs the real ``airflow version`` in a fresh interpreter whose
``sys.path`` has the virtualenv's site-packages (Airflow, the provider's installed metadata and
entry points) and the provider's sources, without the checkout's core (``python -S``: no
``.pth`` file adds it), and in its place either nothing or an older core taken from this
repository's history. The same interpreter then calls the registered ``pod_mutation_hook``
twice on the worker pod of a KubernetesExecutor retry, the one kind of pod the policy touches.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
from io import BytesIO
from pathlib import Path

import pytest
from airflow_testenv import REPO

PROVIDER = REPO / "plugins" / "airflow"

#: The last commit before ``accelerators/lazy.py`` existed, and the commit this branch started
#: from (a core with ``accelerators.lazy``, today ``accelerators.extend.lazy_exports``, but
#: without ``placement_conflicts``).
BEFORE_LAZY = "e9bad5f^"
BEFORE_CONFLICTS = "dfbacad"

SCRIPT = """
import sys
sys.path[:] = {paths!r}
import airflow  # loads the airflow.policy entry points
import airflow.settings
from kubernetes.client import models as k8s

annotations = {{"try_number": "2", "run_id": "r", "dag_id": "d", "task_id": "t"}}
pod = k8s.V1Pod(
    metadata=k8s.V1ObjectMeta(labels={{"kubernetes_executor": "True"}}, annotations=annotations),
    spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="base")]),
)
if hasattr(airflow.settings, "get_policy_plugin_manager"):  # Airflow >= 3.1
    hook = airflow.settings.get_policy_plugin_manager().hook
else:  # Airflow 3.0: built while airflow is imported
    hook = airflow.settings.POLICY_PLUGIN_MANAGER.hook
hook.pod_mutation_hook(pod=pod)
hook.pod_mutation_hook(pod=pod)
assert pod.spec.affinity is None
names = [impl.plugin_name for impl in hook.pod_mutation_hook.get_hookimpls()]
print("policy-ok", "accelerators" in names)
import accelerators_provider
try:
    accelerators_provider.AcceleratorPodOperator
except ImportError as exc:
    print("import-error", exc)
print("info", accelerators_provider.get_provider_info()["package-name"])
sys.argv = ["airflow", "version"]
from airflow.__main__ import main
main()
"""


def _run(tmp_path: Path, core: Path | None) -> subprocess.CompletedProcess[str]:
    stdlib = subprocess.run(
        [sys.executable, "-S", "-c", "import sys; print('\\n'.join(sys.path[1:]))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    site = sysconfig.get_paths()
    paths = [*([str(core)] if core else []), *stdlib, site["purelib"], site["platlib"]]
    paths.append(str(PROVIDER))
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "AIRFLOW"))}
    env.update(AIRFLOW_HOME=str(home), AIRFLOW__CORE__LOAD_EXAMPLES="False")
    return subprocess.run(
        [sys.executable, "-S", "-c", SCRIPT.format(paths=list(dict.fromkeys(paths)))],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # not the checkout: its accelerators/ would be found first
        env=env,
        timeout=300,
        check=False,
    )


def _core_from_history(commit: str, tmp_path: Path) -> Path:
    """The ``accelerators`` package as it was at ``commit`` (skips without the history)."""
    done = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", commit, "accelerators"],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"commit {commit} is not in this clone's history")
    target = tmp_path / "old-core"
    with tarfile.open(fileobj=BytesIO(done.stdout)) as archive:
        archive.extractall(target, filter="data")
    return target


def _check(done: subprocess.CompletedProcess[str], warning: str) -> None:
    import airflow

    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == airflow.__version__  # `airflow version`
    assert "policy-ok True" in done.stdout  # registered, ran twice, left the pod as built
    # One warning, not one per pod. Before Airflow configures its logging (the entry point is
    # imported while `import airflow` runs) it goes to stderr, after it to Airflow's log.
    logged = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if not line.startswith(("import-error", "info"))  # the script's own lines
    ]
    assert sum(warning in line for line in logged) == 1, "\n".join(logged[-30:])


def test_without_the_core_airflow_starts_and_says_why_once(tmp_path: Path) -> None:
    done = _run(tmp_path, core=None)
    _check(done, "cannot use the accelerators core installed here")
    assert "ModuleNotFoundError: No module named 'accelerators'" in done.stderr
    assert "import-error airflow-provider-accelerators cannot use the accelerators core" in (
        done.stdout
    )
    assert "info airflow-provider-accelerators" in done.stdout  # discovery never fails


def test_with_a_core_older_than_its_lazy_module(tmp_path: Path) -> None:
    core = _core_from_history(BEFORE_LAZY, tmp_path)
    assert not (core / "accelerators" / "lazy.py").exists()
    done = _run(tmp_path, core=core)
    _check(done, "cannot use the accelerators core installed here")
    assert "No module named 'accelerators.extend'" in done.stderr


def test_with_a_core_older_than_what_the_policy_needs(tmp_path: Path) -> None:
    """The package imports (the core has ``accelerators._lazy``), but the provider's pod
    plumbing needs ``place`` (issue 34; ``placement_conflicts`` before it), which that core
    lacks: the policy says so once and leaves pods as built."""
    core = _core_from_history(BEFORE_CONFLICTS, tmp_path)
    assert not (core / "accelerators" / "kubernetes" / "_conflicts.py").exists()
    assert not (core / "accelerators" / "kubernetes" / "_place.py").exists()
    # Plugins read the lazy table as ``accelerators.extend.lazy_exports`` since issue 34 made
    # ``accelerators.lazy`` private: that old core gets the public name too, so that the
    # package imports and only the policy's need is missing.
    public = core / "accelerators" / "extend.py"
    if not public.exists():
        public.write_text("from accelerators.lazy import lazy_exports\n", encoding="utf-8")
    done = _run(tmp_path, core=core)
    _check(done, "the cluster policy leaves pods as built: the accelerators core installed")
    assert "cannot import name 'place'" in done.stdout + done.stderr


def test_the_checkouts_core_is_really_out_of_reach(tmp_path: Path) -> None:
    """The isolation the tests above rely on: with the checkout's core on the path, no
    warning (a control, so that a pass above is not the path's doing)."""
    core = tmp_path / "current"
    shutil.copytree(REPO / "accelerators", core / "accelerators")
    done = _run(tmp_path, core=core)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "cannot use the accelerators core" not in done.stderr
    assert "policy-ok True" in done.stdout
    assert "import-error" not in done.stdout
