"""An editable install exposes the package ``accelerators`` alone (issue 30, item 8).

The editable wheel is built through hatchling's PEP 660 hook (what ``pip install -e .`` calls),
unpacked into a folder, and that folder added as a site directory (``site.addsitedir``, which
runs its ``.pth`` files as start-up does) of a fresh interpreter started outside the checkout
with ``-S`` (no other site-packages: the venv's own editable install cannot answer for it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FINDER_DIR = ROOT / "scripts" / "editable"
_BUILD = "import sys, hatchling.build as b; print(b.build_editable(sys.argv[1]))"
#: The repository root's other folders, importable from anywhere when the root was on sys.path.
NOT_PACKAGES = ("dags", "scripts", "docs", "benchmarks", "plugins", "tests")


@pytest.fixture(scope="module")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("editable")
    proc = subprocess.run(
        [sys.executable, "-c", _BUILD, str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    wheel = out / proc.stdout.strip().splitlines()[-1]
    site = out / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def _run(site: Path, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    prelude = f"import site; site.addsitedir({str(site)!r})\n"
    return subprocess.run(
        [sys.executable, "-S", "-c", prelude + code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_editable_wheel_puts_only_the_finder_on_sys_path(site_dir: Path) -> None:
    pth = {p.name: p.read_text(encoding="utf-8").strip() for p in site_dir.glob("*.pth")}
    assert pth == {
        "_accelerators.pth": str(FINDER_DIR),
        "_accelerators_finder.pth": "import _accelerators_finder",
    }
    # The folder on sys.path holds the finder alone: nothing else becomes importable.
    listed = {p.name for p in FINDER_DIR.iterdir() if p.name != "__pycache__"}
    assert listed == {"_accelerators_finder.py", "_accelerators_finder.pth"}


def test_accelerators_imports_from_the_checkout_and_nothing_else_does(
    site_dir: Path, tmp_path: Path
) -> None:
    code = (
        "import importlib.util, sys\n"
        "import accelerators, accelerators.catalog\n"
        "print(accelerators.__file__)\n"
        "print(accelerators.catalog.__file__)\n"
        f"print(sorted(n for n in {NOT_PACKAGES!r} if importlib.util.find_spec(n)))\n"
    )
    proc = _run(site_dir, code, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    where, catalog, importable = proc.stdout.splitlines()
    assert Path(where) == ROOT / "accelerators" / "__init__.py"
    assert Path(catalog) == ROOT / "accelerators" / "catalog" / "__init__.py"
    assert importable == "[]"


def test_the_finder_imports_nothing_at_start_up(site_dir: Path, tmp_path: Path) -> None:
    """Every process in the venv runs the finder: it must not load importlib or typing."""
    proc = _run(site_dir, "import sys; print(' '.join(sys.modules))", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    loaded = set(proc.stdout.split())
    assert "_accelerators_finder" in loaded
    assert not {"typing", "importlib.util", "importlib.abc", "importlib.resources"} & loaded
