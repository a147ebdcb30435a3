"""scripts/lock: what goes into the locks, and the two committed locks themselves.

The script is loaded as a module (it has no .py suffix) for its pure functions, and run in a
copy of the repository with a fake plugin for its inputs; nothing here calls uv or the network.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
CPU = ROOT / "requirements" / "dev-cpu.lock"
CUDA = ROOT / "requirements" / "dev-cuda.lock"
CUDA_ONLY = re.compile(r"^(nvidia-(?!ml-py$)[a-z0-9-]+|triton|cuda-[a-z0-9-]+)$")


def _load_lock_script() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("scripts_lock", str(ROOT / "scripts" / "lock"))
    spec = importlib.util.spec_from_loader("scripts_lock", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


lock = _load_lock_script()


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(===?)(\S+)$", line)
        if match:
            pins[lock.normalize(match.group(1))] = match.group(2) + match.group(3)
    return pins


# ---------------------------------------------------------------------------- the committed locks


def test_cpu_lock_has_no_cuda_package_and_the_cpu_torch() -> None:
    pins = _pins(CPU)
    assert pins["torch"] == "==2.13.0+cpu"
    assert [name for name in pins if CUDA_ONLY.match(name)] == []


def test_cuda_lock_has_pypi_torch_and_its_nvidia_libraries() -> None:
    pins = _pins(CUDA)
    assert pins["torch"] == "===2.13.0"  # arbitrary equality: a local 2.13.0+cpu cannot match
    assert {"triton", "nvidia-cudnn-cu13", "nvidia-cublas"} <= set(pins)


def test_the_locks_agree_outside_torch_and_cuda() -> None:
    cpu, cuda = _pins(CPU), _pins(CUDA)
    shared = {k: v for k, v in cuda.items() if not CUDA_ONLY.match(k) and k != "torch"}
    assert {k: v for k, v in cpu.items() if k != "torch"} == shared


@pytest.mark.parametrize("path", [CPU, CUDA], ids=["cpu", "cuda"])
def test_locks_carry_every_input_and_no_local_distribution(path: Path) -> None:
    pins = _pins(path)
    requirements, _ = lock.lock_inputs()
    names = {lock._split(r)[0] for r in requirements}
    assert sorted(names - set(pins)) == [], "the lock is stale: run scripts/lock"
    for package in ("nvidia-ml-py", "boto3", "moto", "import-linter", "platformdirs", "hatchling"):
        assert package in pins
    local = {"accelerators", "flytekitplugins-accelerators", "airflow-provider-accelerators"}
    assert local & set(pins) == set()
    assert path.read_text(encoding="utf-8").startswith(f"# requirements/{path.name}: ")


# ---------------------------------------------------------------------------- the CPU variant

_RAW = """\
filelock==3.20.0
    # via torch
mpmath==1.3.0
    # via sympy
nvidia-cublas==13.1.1.3
    # via
    #   nvidia-cudnn-cu13
    #   torch
nvidia-cudnn-cu13==9.20.0.48
    # via torch
nvidia-ml-py==13.615.71
    # via -r scripts/lock inputs
only-for-triton==1.0
    # via triton
sympy==1.14.0
    # via torch
torch==2.13.0
    # via -r scripts/lock inputs
triton==3.7.1
    # via torch
"""


def test_cpu_variant_drops_cuda_packages_and_what_only_they_need() -> None:
    blocks = lock.cpu_variant(lock._blocks(_RAW))
    names = [lock._name_of(b) for b in blocks]
    assert names == ["filelock", "mpmath", "nvidia-ml-py", "sympy", "torch"]
    assert blocks[-1][0] == "torch==2.13.0+cpu"


def test_cuda_variant_pins_torch_exactly() -> None:
    blocks = lock.cuda_variant(lock._blocks(_RAW))
    assert [b[0] for b in blocks if b[0].startswith("torch")] == ["torch===2.13.0"]
    assert len(blocks) == len(lock._blocks(_RAW))


# ---------------------------------------------------------------------------- the dev group


def test_the_dev_group_is_locked_and_not_a_published_extra() -> None:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        project = tomllib.load(handle)
    assert "dev" not in project["project"]["optional-dependencies"]
    requirements, _ = lock.lock_inputs()
    names = {lock._split(r)[0] for r in requirements}
    group = {lock._split(r)[0] for r in project["dependency-groups"]["dev"]} - {"accelerators"}
    assert {"pytest", "hypothesis", "mypy", "import-linter"} <= group <= names


def test_a_dependency_group_expands_its_includes() -> None:
    groups = {"dev": ["pytest>=8", {"include-group": "lint"}], "lint": ["ruff"]}
    data = {"dependency-groups": groups}
    assert lock.dependency_group(data, "dev") == ["pytest>=8", "ruff"]
    with pytest.raises(SystemExit, match="includes itself"):
        lock.dependency_group({"dependency-groups": {"a": [{"include-group": "a"}]}}, "a")
    with pytest.raises(SystemExit, match="no dependency group 'docs'"):
        lock.dependency_group(data, "docs")


# ---------------------------------------------------------------------------- plugins


def _copy_of_the_repo(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    for name in ("pyproject.toml", "requirements/dev.in", "scripts/lock"):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, copy / name)
    (copy / "plugins").mkdir()
    return copy


def _inputs(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(repo / "scripts" / "lock"), "--print-inputs"],
        capture_output=True,
        text=True,
        check=False,
    )


def test_plugin_dependencies_are_locked_but_not_the_plugin(tmp_path: Path) -> None:
    repo = _copy_of_the_repo(tmp_path)
    plugin = repo / "plugins" / "flyte"
    plugin.mkdir()
    (plugin / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["flit-core>=3.9"]\nbuild-backend = "flit_core.buildapi"\n'
        '[project]\nname = "flytekitplugins-accelerators"\nversion = "0.1.0"\n'
        'dependencies = ["accelerators[k8s]>=0.1", "flytekit>=1.16,<2", "grpcio>=1.60"]\n'
        '[project.optional-dependencies]\ntest = ["pytest-asyncio>=0.23"]\n'
        'docs = ["sphinx"]\n',
        encoding="utf-8",
    )
    proc = _inputs(repo)
    assert proc.returncode == 0, proc.stderr
    requirements = proc.stdout.split("\n")
    for wanted in ("flytekit>=1.16,<2", "grpcio>=1.60", "flit-core>=3.9", "pytest-asyncio>=0.23"):
        assert wanted in requirements
    assert "sphinx" not in requirements  # only a plugin's test extras are locked
    names = {lock._split(r)[0] for r in requirements if r}
    assert "flytekitplugins-accelerators" not in names
    assert "accelerators" not in names


def test_an_absent_plugin_is_left_out_with_a_note(tmp_path: Path) -> None:
    proc = _inputs(_copy_of_the_repo(tmp_path))  # plugins/ is empty in the copy
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "scripts/lock: note: airflow-provider-accelerators is not in plugins/ here: left out "
        "of the lock",
        "scripts/lock: note: flytekitplugins-accelerators is not in plugins/ here: left out "
        "of the lock",
    ]
    names = {lock._split(r)[0] for r in proc.stdout.split()}
    assert {"flytekit", "apache-airflow", "torch", "pytest"} <= names
    assert not {"flytekitplugins-accelerators", "airflow-provider-accelerators"} & names
