"""``from accelerators import *`` gives the public names: the API and every catalog constant."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import accelerators
from accelerators import catalog, constants

ROOT = Path(__file__).resolve().parent.parent


def test_all_lists_the_api_and_every_constant() -> None:
    names = accelerators.__all__
    assert len(names) == len(set(names)), "duplicates in __all__"
    for api in ("AcceleratorSpec", "AcceleratorError", "PlacementError", "current", "catalog"):
        assert api in names
    expected = {e.constant for e in catalog.all() if e.constant}
    assert expected, "the catalog names no constants"
    assert expected <= set(names)
    assert not [n for n in names if n.startswith("_")]


def test_every_name_in_all_resolves() -> None:
    for name in accelerators.__all__:
        assert getattr(accelerators, name) is not None, name


def test_star_import_in_a_fresh_interpreter() -> None:
    code = (
        "from accelerators import *\n"
        "import sys\n"
        "print(AcceleratorSpec.parse('H100-SXM:8').count, A100, H100.name)\n"
        "print(sorted(m for m in ('torch', 'numpy', 'flytekit', 'airflow', 'typer')"
        " if m in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    first, heavy = proc.stdout.splitlines()
    assert first == f"8 {constants.A100!r} {constants.H100.name}"
    assert heavy == "[]", f"the star import pulled in {heavy}"
