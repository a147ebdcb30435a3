"""Registering workflows needs no torch (issue 30, item 2).

``pyflyte package`` serialises the Flyte templates of ``dags/`` as a registration image or a CI
job runs it, in a subprocess where torch, matplotlib and NVML (``pynvml``) cannot be imported:
a ``sitecustomize`` puts a finder first on ``sys.meta_path`` that refuses them. The plugin's
package without its ``[bench]`` extra is enough to write, check and register a gated workflow;
only the gate's own pod runs the benchmark.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = ("flyte_training", "flyte_mig_inference", "flyte_fallback", "flyte_finetune")
BLOCKED = ("torch", "matplotlib", "pynvml")

_SITECUSTOMIZE = f'''
import sys


class _Blocked:
    """Refuses {BLOCKED}: they are not installed in a registration image."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname.partition(".")[0] in {BLOCKED!r}:
            raise ModuleNotFoundError(f"{{fullname}} is blocked by this test", name=fullname)
        return None


sys.meta_path.insert(0, _Blocked)
'''


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    site = tmp_path_factory.mktemp("no-torch")
    (site / "sitecustomize.py").write_text(_SITECUSTOMIZE, encoding="utf-8")
    return {**os.environ, "PYTHONPATH": str(site)}


def test_the_blocker_blocks(env: dict[str, str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "import torch"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode != 0
    assert "torch is blocked by this test" in proc.stderr


def test_pyflyte_package_serialises_the_templates_without_torch(
    env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "flyte-package.tgz"
    pkgs = [arg for name in TEMPLATES for arg in ("--pkgs", name)]
    pyflyte = Path(sys.executable).with_name("pyflyte")
    proc = subprocess.run(
        [
            str(pyflyte),
            *pkgs,
            "package",
            "--image",
            "registry.example.com/gpu-train:1.0",
            "--output",
            str(out),
        ],
        cwd=ROOT / "dags",
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    with tarfile.open(out) as archive:
        names = archive.getnames()
    # <n>_<module>.<name>_<kind>.pb, kind 1 a task, 2 a workflow, 3 a launch plan
    workflows = {n.split("_", 1)[1].rsplit(".", 2)[0] for n in names if n.endswith("_2.pb")}
    assert workflows >= set(TEMPLATES), names
    assert any(".benchmark_gate_1.pb" in n for n in names), names  # the gate task itself
