"""scripts/bootstrap picks the lock the machine needs and never leaves a half-installed venv.

The choice is checked through ``--dry-run`` with a fake ``nvidia-smi`` first on PATH (a CPU
machine, a machine whose driver fails, a GPU node) and with the overrides. The failure paths run
the real script against an index that cannot be reached (a closed local port), so they need no
network; the CPU-path smoke test needs PyTorch's CPU index and skips, saying why, without it.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOTSTRAP = ROOT / "scripts" / "bootstrap"
CPU_LOCK = "requirements/dev-cpu.lock"
CUDA_LOCK = "requirements/dev-cuda.lock"
UNREACHABLE = "http://127.0.0.1:9/whl/cpu"  # the discard port: refused at once
H100_LINE = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5e3b4a1c-0000-1111-2222-333344445555)"


def _fake_nvidia_smi(bin_dir: Path, stdout: str, code: int) -> None:
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / "nvidia-smi"
    script.write_text(f"#!/bin/sh\ncat <<'EOF'\n{stdout}\nEOF\nexit {code}\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The test's environment: no bootstrap settings, pip's config and find-links hidden."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACCELERATORS_", "PIP_"))}
    env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PIP_CONFIG_FILE"] = os.devnull  # no pip.conf: no find-links, no local index
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["ACCELERATORS_VENV"] = str(tmp_path / "venv")
    env["PYTHON"] = sys.executable  # a Python 3.11 wherever the tests run
    env.update(extra)
    return env


def _bootstrap(
    env: dict[str, str], *args: str, timeout: int = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(BOOTSTRAP), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _dry_run(env: dict[str, str]) -> dict[str, str]:
    proc = _bootstrap(env, "--dry-run")
    assert proc.returncode == 0, proc.stderr
    fields = dict(line.split(": ", 1) for line in proc.stdout.splitlines())
    assert set(fields) == {"lock", "why", "torch", "venv"}, proc.stdout
    return fields


# ------------------------------------------------------------------ the choice


def test_cpu_machine_whose_nvidia_smi_lists_no_gpu(tmp_path: Path) -> None:
    _fake_nvidia_smi(tmp_path / "bin", "No devices were found", 6)
    out = _dry_run(_env(tmp_path))
    assert out["lock"] == CPU_LOCK
    assert out["why"].startswith("nvidia-smi -L failed: No devices were found")


def test_cpu_machine_whose_nvidia_smi_prints_nothing(tmp_path: Path) -> None:
    _fake_nvidia_smi(tmp_path / "bin", "", 0)
    out = _dry_run(_env(tmp_path))
    assert (out["lock"], out["why"]) == (CPU_LOCK, "nvidia-smi -L lists no GPU")


def test_cpu_machine_without_a_driver(tmp_path: Path) -> None:
    message = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    _fake_nvidia_smi(tmp_path / "bin", message, 9)
    out = _dry_run(_env(tmp_path))
    assert (out["lock"], out["why"]) == (CPU_LOCK, f"nvidia-smi -L failed: {message}")


def test_gpu_node_gets_the_cuda_lock(tmp_path: Path) -> None:
    _fake_nvidia_smi(tmp_path / "bin", f"{H100_LINE}\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: x)", 0)
    out = _dry_run(_env(tmp_path))
    assert out["lock"] == CUDA_LOCK
    assert out["why"] == f"nvidia-smi -L lists {H100_LINE}"
    assert out["torch"].startswith("torch===2.13.0 from the package index")


def test_a_mig_enabled_gpu_counts_as_a_gpu(tmp_path: Path) -> None:
    mig = "  MIG 1g.10gb     Device  0: (UUID: MIG-aaaa)"
    _fake_nvidia_smi(tmp_path / "bin", f"{H100_LINE}\n{mig}", 0)
    assert _dry_run(_env(tmp_path))["lock"] == CUDA_LOCK


def test_forced_cpu_on_a_gpu_node(tmp_path: Path) -> None:
    _fake_nvidia_smi(tmp_path / "bin", H100_LINE, 0)
    out = _dry_run(_env(tmp_path, ACCELERATORS_TORCH="cpu"))
    assert (out["lock"], out["why"]) == (CPU_LOCK, "forced by ACCELERATORS_TORCH=cpu")


def test_forced_cuda_on_a_cpu_machine(tmp_path: Path) -> None:
    _fake_nvidia_smi(tmp_path / "bin", "No devices were found", 6)
    out = _dry_run(_env(tmp_path, ACCELERATORS_TORCH="cuda"))
    assert (out["lock"], out["why"]) == (CUDA_LOCK, "forced by ACCELERATORS_TORCH=cuda")


def test_an_explicit_lock_wins_and_its_torch_pin_sets_the_variant(tmp_path: Path) -> None:
    _fake_nvidia_smi(tmp_path / "bin", H100_LINE, 0)
    lock = tmp_path / "mini.lock"
    lock.write_text("torch==2.13.0+cpu\n", encoding="utf-8")
    out = _dry_run(_env(tmp_path, ACCELERATORS_LOCK=str(lock), ACCELERATORS_TORCH="cuda"))
    assert (out["lock"], out["why"]) == (str(lock), f"ACCELERATORS_LOCK={lock}")
    assert out["torch"].startswith("torch==2.13.0+cpu from ")


@pytest.mark.parametrize(
    ("extra", "args", "message"),
    [
        ({"ACCELERATORS_TORCH": "gpu"}, (), "ACCELERATORS_TORCH=gpu: expected auto, cpu or cuda"),
        ({"ACCELERATORS_LOCK": "no/such.lock"}, (), "lock file no/such.lock not found"),
        ({}, ("--fast",), "unknown argument '--fast'"),
    ],
)
def test_bad_settings_exit_2_and_say_what_is_wrong(
    tmp_path: Path, extra: dict[str, str], args: tuple[str, ...], message: str
) -> None:
    _fake_nvidia_smi(tmp_path / "bin", "", 0)
    proc = _bootstrap(_env(tmp_path, **extra), *args, "--dry-run")
    assert proc.returncode == 2
    assert message in proc.stderr


# ------------------------------------------------------------------ where torch comes from


def _fake_torch_wheel(folder: Path) -> None:
    """A minimal wheel named like the CPU build, enough for pip to resolve it by name."""
    folder.mkdir(parents=True)
    dist = "torch-2.13.0+cpu.dist-info"
    with zipfile.ZipFile(folder / "torch-2.13.0+cpu-py3-none-any.whl", "w") as wheel:
        wheel.writestr(
            f"{dist}/METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.13.0+cpu\n"
        )
        wheel.writestr(
            f"{dist}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        wheel.writestr(f"{dist}/RECORD", "")


def test_cpu_torch_comes_from_a_local_wheel_when_find_links_has_one(tmp_path: Path) -> None:
    _fake_nvidia_smi(tmp_path / "bin", "", 0)
    _fake_torch_wheel(tmp_path / "wheels")
    out = _dry_run(_env(tmp_path, PIP_FIND_LINKS=str(tmp_path / "wheels")))
    assert out["torch"] == "torch==2.13.0+cpu from a local wheel (pip's find-links)"


def test_cpu_torch_comes_from_the_cpu_index_without_a_local_wheel(tmp_path: Path) -> None:
    _fake_nvidia_smi(tmp_path / "bin", "", 0)
    out = _dry_run(_env(tmp_path, ACCELERATORS_TORCH_CPU_INDEX="https://mirror.example/cpu"))
    expected = "torch==2.13.0+cpu from https://mirror.example/cpu (no local wheel found)"
    assert out["torch"] == expected
    assert out["venv"] == f"{tmp_path / 'venv'} would be created"


# ------------------------------------------------------------------ failures leave no half venv


def _cpu_failure_env(tmp_path: Path) -> dict[str, str]:
    _fake_nvidia_smi(tmp_path / "bin", "", 0)
    return _env(tmp_path, ACCELERATORS_TORCH="cpu", ACCELERATORS_TORCH_CPU_INDEX=UNREACHABLE)


def _make_venv(path: str) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", path], check=True)


def test_unreachable_cpu_index_names_it_and_removes_the_partial_venv(tmp_path: Path) -> None:
    proc = _bootstrap(_cpu_failure_env(tmp_path))
    assert proc.returncode == 3, proc.stderr
    assert f"cannot reach PyTorch's CPU index {UNREACHABLE}" in proc.stderr
    assert "PIP_FIND_LINKS" in proc.stderr  # what to do about it
    assert "removed the partial" in proc.stderr
    assert not (tmp_path / "venv").exists()
    assert not (tmp_path / "venv.previous").exists()


def test_a_failed_rebuild_puts_the_previous_venv_back(tmp_path: Path) -> None:
    env = _cpu_failure_env(tmp_path)
    _make_venv(env["ACCELERATORS_VENV"])
    keep = tmp_path / "venv" / "keep-me"
    keep.write_text("the user's working venv", encoding="utf-8")
    proc = _bootstrap(env)
    assert proc.returncode == 3, proc.stderr
    assert "put the previous one back" in proc.stderr
    assert keep.read_text(encoding="utf-8") == "the user's working venv"
    assert not (tmp_path / "venv.previous").exists()


def test_a_leftover_partial_venv_is_removed_first(tmp_path: Path) -> None:
    env = _cpu_failure_env(tmp_path)
    _make_venv(env["ACCELERATORS_VENV"])
    (tmp_path / "venv" / ".accelerators-partial").touch()
    proc = _bootstrap(env)
    assert "removing the partial" in proc.stderr
    assert proc.returncode == 3
    assert not (tmp_path / "venv").exists()


def test_refuses_to_replace_a_folder_that_is_not_a_venv(tmp_path: Path) -> None:
    env = _cpu_failure_env(tmp_path)
    precious = tmp_path / "venv" / "thesis.tex"
    precious.parent.mkdir()
    precious.write_text("do not delete", encoding="utf-8")
    proc = _bootstrap(env)
    assert proc.returncode == 2
    assert "is not a virtual environment" in proc.stderr
    assert precious.read_text(encoding="utf-8") == "do not delete"


# ------------------------------------------------------------------ Chromium, only when asked


def _chromium_step(tmp_path: Path, **settings: str) -> str:
    """stderr of bootstrap's step 0 in a copy of scripts/ whose system-deps only says it ran,
    on a PATH without Chromium; an invalid ACCELERATORS_TORCH stops it right after step 0."""
    scripts = tmp_path / "repo" / "scripts"
    scripts.mkdir(parents=True)
    shutil.copy(BOOTSTRAP, scripts / "bootstrap")
    (scripts / "system-deps").write_text("echo SYSTEM-DEPS-RAN >&2\n", encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "dirname"):
        (bin_dir / tool).symlink_to(shutil.which(tool) or f"/usr/bin/{tool}")
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path), "ACCELERATORS_TORCH": "bogus", **settings}
    proc = subprocess.run(
        [str(bin_dir / "bash"), str(scripts / "bootstrap")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr  # the bogus setting, after step 0
    return proc.stderr


def test_chromium_is_not_installed_unless_the_browser_tests_are_asked_for(tmp_path: Path) -> None:
    stderr = _chromium_step(tmp_path)
    assert "SYSTEM-DEPS-RAN" not in stderr
    assert "no Chromium: the browser tests will skip" in stderr
    assert "ACCELERATORS_BROWSER_TESTS=1" in stderr
    assert "apt-get install chromium, as root" in stderr


def test_chromium_is_installed_when_the_browser_tests_are_asked_for(tmp_path: Path) -> None:
    assert "SYSTEM-DEPS-RAN" in _chromium_step(tmp_path, ACCELERATORS_BROWSER_TESTS="1")


def test_system_deps_0_skips_chromium_even_when_asked(tmp_path: Path) -> None:
    stderr = _chromium_step(tmp_path, ACCELERATORS_BROWSER_TESTS="1", ACCELERATORS_SYSTEM_DEPS="0")
    assert "SYSTEM-DEPS-RAN" not in stderr


# ------------------------------------------------------------------ the CPU path, for real


def _mini_cpu_lock(path: Path) -> None:
    """torch and hatchling with their dependencies, pinned as in the CPU lock (CI-sized)."""
    text = (ROOT / CPU_LOCK).read_text(encoding="utf-8")
    blocks = re.findall(r"^([a-z0-9][^\s]*==\S+)\n((?:    #.*\n)*)", text, re.MULTILINE)
    via = {
        pin.split("==")[0]: set(re.findall(r"#\s+(?:via\s+)?([a-z0-9][a-z0-9._-]*)", comments))
        for pin, comments in blocks
    }
    wanted = {"torch", "hatchling"}
    while True:
        more = {name for name, parents in via.items() if parents & wanted} - wanted
        if not more:
            break
        wanted |= more
    pins = [pin for pin, _ in blocks if pin.split("==")[0] in wanted]
    path.write_text("\n".join(pins) + "\n", encoding="utf-8")


@pytest.mark.slow
@pytest.mark.xdist_group("installs")  # a venv and torch, installed
def test_cpu_path_with_the_local_wheel_folder_hidden(tmp_path: Path) -> None:
    lock = tmp_path / "mini-cpu.lock"
    _mini_cpu_lock(lock)
    assert "torch==2.13.0+cpu" in lock.read_text(encoding="utf-8").split()
    _fake_nvidia_smi(tmp_path / "bin", "", 0)
    proc = _bootstrap(_env(tmp_path, ACCELERATORS_LOCK=str(lock)), timeout=900)
    if proc.returncode == 3:
        assert not (tmp_path / "venv").exists(), "a failed bootstrap left a venv behind"
        reason = next(line for line in proc.stderr.splitlines() if "cannot reach" in line)
        pytest.skip(f"the CPU path needs PyTorch's CPU index, unreachable here: {reason}")
    assert proc.returncode == 0, proc.stderr
    assert "from a local wheel" not in proc.stderr
    assert _torch_version(tmp_path / "venv") == "2.13.0+cpu"


def _local_cpu_torch_wheel() -> Path | None:
    folders = [Path("/opt/wheels")]
    folders += [Path(p) for p in os.environ.get("PIP_FIND_LINKS", "").split() if p]
    for folder in folders:
        wheels = sorted(folder.glob("torch-2.13.0+cpu-cp311-*.whl")) if folder.is_dir() else []
        if wheels:
            return wheels[0]
    return None


@pytest.mark.slow
@pytest.mark.xdist_group("installs")  # a venv and torch, installed
def test_cpu_path_through_an_index_mirror(tmp_path: Path) -> None:
    """The same path through a local PEP 503 mirror of PyTorch's CPU index (PyPI for the rest)."""
    wheel = _local_cpu_torch_wheel()
    if wheel is None:
        pytest.skip("no torch-2.13.0+cpu wheel on this machine to build a local index mirror from")
    project = tmp_path / "index" / "torch"
    project.mkdir(parents=True)
    (project / wheel.name).symlink_to(wheel)
    (project / "index.html").write_text(
        f'<html><body><a href="{wheel.name}">{wheel.name}</a></body></html>\n', encoding="utf-8"
    )
    lock = tmp_path / "mini-cpu.lock"
    _mini_cpu_lock(lock)
    _fake_nvidia_smi(tmp_path / "bin", "", 0)
    index = (tmp_path / "index").as_uri()
    env = _env(tmp_path, ACCELERATORS_LOCK=str(lock), ACCELERATORS_TORCH_CPU_INDEX=index)
    proc = _bootstrap(env, timeout=900)
    if proc.returncode == 3:
        pytest.skip(f"PyPI, needed for torch's dependencies, is unreachable: {proc.stderr[-300:]}")
    assert proc.returncode == 0, proc.stderr
    assert f"fetching it from {index}" in proc.stderr
    assert _torch_version(tmp_path / "venv") == "2.13.0+cpu"
    assert (tmp_path / "venv" / ".accelerators-bootstrap").is_file()
    assert not (tmp_path / "venv" / ".accelerators-partial").exists()


def _torch_version(venv: Path) -> str:
    """``torch.__version__`` as the venv's Python sees it, with ``accelerators`` importable."""
    check = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import torch, accelerators; print(torch.__version__)",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if check.returncode != 0:
        raise AssertionError(f"import torch, accelerators failed in {venv}:\n{check.stderr}")
    return check.stdout.strip()
