"""Importing the core stays cheap: no heavy third-party module, and a small time budget.

Airflow's DAG parser and Flyte's serializer import ``accelerators`` in every parse, so the core
loads pydantic, the catalog data and every integration lazily. Each check runs in a fresh
interpreter (``python -X importtime``), because this test process has long since imported
everything.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Top-level modules that ``import accelerators`` must not load (pydantic alone costs ~120 ms).
HEAVY = (
    "torch",
    "flytekit",
    "airflow",
    "kubernetes",
    "kubernetes_validate",
    "boto3",
    "botocore",
    "psycopg",
    "psycopg_pool",
    "numpy",
    "matplotlib",
    "pydantic",
    "pydantic_core",
    "typer",
    "rich",
)
#: Cumulative import time of the ``accelerators`` package, best of RUNS fresh interpreters.
BUDGET_US = 30_000
RUNS = 5

_IMPORTTIME = re.compile(r"^import time:\s*(\d+)\s*\|\s*(\d+)\s*\|\s?(\s*)(\S+)\s*$")


def _import_in_fresh_interpreter(module: str) -> tuple[set[str], dict[str, int]]:
    """Import ``module`` in a new interpreter; return its sys.modules and cumulative times (us)."""
    code = f"import sys\nimport {module}\nprint('\\n'.join(sys.modules))"
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, f"import {module} failed:\n{proc.stderr}"
    cumulative: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        match = _IMPORTTIME.match(line)
        if match is not None and not match.group(3):  # top level only: no nesting indent
            cumulative[match.group(4)] = int(match.group(2))
    return set(proc.stdout.split()), cumulative


def _heavy_loaded(modules: set[str]) -> list[str]:
    return sorted(
        name for name in modules if any(name == h or name.startswith(h + ".") for h in HEAVY)
    )


@pytest.mark.parametrize(
    "module",
    [
        "accelerators",
        "accelerators.errors",
        "accelerators.catalog",
        # the fine-tune DAG's params, imported on every Airflow DAG parse
        "accelerators.templates",
        # Opening a bench history: psycopg and boto3 only when a store of theirs is used.
        "accelerators.bench.history._open",
    ],
)
def test_import_loads_no_heavy_module(module: str) -> None:
    modules, _ = _import_in_fresh_interpreter(module)
    assert module in modules
    assert _heavy_loaded(modules) == []


@pytest.mark.serial  # a 30 ms budget: another test's load would blow it
def test_import_accelerators_within_time_budget() -> None:
    timings = []
    for _ in range(RUNS):
        _, cumulative = _import_in_fresh_interpreter("accelerators")
        assert "accelerators" in cumulative, "no importtime line for the accelerators package"
        timings.append(cumulative["accelerators"])
    best = min(timings)
    assert best < BUDGET_US, (
        f"import accelerators took {best / 1000:.1f} ms at best of {RUNS} "
        f"(budget {BUDGET_US / 1000:.0f} ms); all runs (ms): {[t / 1000 for t in timings]}"
    )


def test_importing_a_private_submodule_loads_no_constants() -> None:
    """``from accelerators import _datafiles`` probes ``accelerators._datafiles`` before it
    imports the submodule; the probe must not scan the constants for a suggestion (which
    imported accelerators.constants and importlib.resources into every catalog lookup)."""
    modules, _ = _import_in_fresh_interpreter("accelerators.catalog")
    assert "accelerators.constants" not in modules
    assert "importlib.resources" not in modules


def test_importing_from_constants_scans_no_data_file() -> None:
    """``from accelerators import constants`` probes ``accelerators.constants`` and ``from
    accelerators.constants import constant_for`` the module's ``__path__`` before importing;
    neither probe may scan the data file for constant names (~3 ms), nor may building the
    constant for a spec."""
    code = (
        "from accelerators import constants\n"  # probes accelerators.constants first
        "from accelerators.constants import constant_for\n"
        "from accelerators.spec import AcceleratorSpec\n"
        "print(constant_for(AcceleratorSpec.parse('H100-SXM:8')).name,"
        " constants._constant_names.cache_info().misses)\n"
    )
    assert _run_in_fresh_interpreter(code).split() == ["H100", "0"]


def test_a_spec_of_catalog_names_loads_no_token_reader() -> None:
    """A spec the catalog's spellings read (``H100:8``) never loads the token reader
    (``catalog._narrow`` and what it imports): only a name they cannot place, or a comma's
    qualifiers, need it."""
    code = (
        "import sys\n"
        "from accelerators import AcceleratorSpec\n"
        "AcceleratorSpec.parse('H100:8 | A100-80GB:4')\n"
        "print('accelerators.catalog._narrow' in sys.modules)\n"
    )
    assert _run_in_fresh_interpreter(code).strip() == "False"


def _run_in_fresh_interpreter(code: str) -> str:
    """What ``code`` prints, run by a fresh interpreter in the checkout (it must succeed)."""
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
