"""The core's import layers and the thread-safe catalog load."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import tomllib
from pathlib import Path
from typing import Any

import pytest

from accelerators import catalog
from accelerators.catalog import _names, _store

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports(root: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the tree at ``root`` (its ``accelerators`` and ``pyproject.toml``)."""
    pytest.importorskip("importlinter")
    env = {**os.environ, "PYTHONPATH": str(root)}
    script = "from importlinter.cli import lint_imports_command as c; c()"
    return subprocess.run(
        [sys.executable, "-c", script, "--no-cache", "--no-logo", *arguments],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _tree_with(tmp_path: Path, module: str, added: str) -> Path:
    """A copy of the core in ``tmp_path`` (with ``pyproject.toml``), ``added`` appended to
    ``module``."""
    shutil.copytree(
        ROOT / "accelerators",
        tmp_path / "accelerators",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "accelerators" / module
    target.write_text(target.read_text() + added)
    return tmp_path


def _broken(run: subprocess.CompletedProcess[str], contract: str) -> bool:
    """Whether ``run`` reports the contract named ``contract...`` broken."""
    contracts = run.stdout.split("Broken contracts")[0]
    return any(c.startswith(contract) and " BROKEN" in c for c in contracts.splitlines())


def test_import_contracts_hold() -> None:
    run = _lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    names = [c["name"] for c in _contracts()]
    assert names, "pyproject.toml declares no import-linter contract"
    kept = {line.rsplit(" KEPT", 1)[0] for line in run.stdout.splitlines() if " KEPT" in line}
    assert [n for n in names if n not in kept] == [], run.stdout
    assert re.search(rf"Contracts: {len(names)} kept, 0 broken\.", run.stdout), run.stdout


def _contracts() -> list[dict[str, object]]:
    """The contracts ``pyproject.toml`` declares, each of which lint-imports must report."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return found


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        # sizing may read bench's history, never run a benchmark
        (
            "sizing/_plan.py",
            "from accelerators.bench.runner._run import run",
            "sizing reads the bench",
        ),
        # and, like everything but the CLI, may not import the CLI
        ("sizing/_plan.py", "from accelerators.cli import main", "core layers are one-way"),
        # nothing below sizing may import it
        (
            "kubernetes/_checks.py",
            "from accelerators.sizing import _cost",
            "core layers are one-way",
        ),
    ],
)
def test_a_forbidden_import_of_or_from_sizing_breaks_a_contract(
    tmp_path: Path, module: str, line: str, broken: str
) -> None:
    tree = _tree_with(tmp_path, module, f"\n\ndef _forbidden() -> None:\n    {line}\n")
    run = _lint_imports(tree)
    assert run.returncode == 1, run.stdout + run.stderr
    assert _broken(run, broken)


#: The contracts that must also hold when imports under ``if TYPE_CHECKING:`` count: a
#: type-only import against the layers, or closing a cycle, is still a cycle for a reader
#: (and for the next change that makes it a runtime import).
TYPE_ONLY_CONTRACTS = ("layers", "acyclic")

#: Type-only imports that still close a cycle, each with who removes it. The check refuses
#: an entry here that matches no import any more (import-linter's unmatched-ignore error),
#: so a cut cycle cannot leave a stale exception behind.
TYPE_ONLY_CYCLES_LEFT: tuple[str, ...] = ()  # none left (sizing's went with plan_html(plan))


def _type_only_config(root: Path, into: Path) -> Path:
    """``root``'s import-linter contracts as a config (written in ``into``) that counts
    ``TYPE_CHECKING`` imports."""
    config: dict[str, Any] = tomllib.loads((root / "pyproject.toml").read_text())["tool"][
        "importlinter"
    ]
    lines = ["[tool.importlinter]"]
    for key, value in config.items():
        if key != "contracts":
            lines.append(f"{key} = {json.dumps(value)}")
    lines[1:] = [line for line in lines[1:] if not line.startswith("exclude_type_checking")]
    lines.append("exclude_type_checking_imports = false")
    for contract in config["contracts"]:
        if contract["id"] not in TYPE_ONLY_CONTRACTS:
            continue
        contract = dict(contract)
        if contract["id"] == "acyclic":
            ignored = [*contract.get("ignore_imports", ()), *TYPE_ONLY_CYCLES_LEFT]
            contract["ignore_imports"] = ignored
        lines.append("[[tool.importlinter.contracts]]")
        lines.extend(f"{key} = {json.dumps(value)}" for key, value in contract.items())
    path = into / "type-only-imports.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _lint_type_only_imports(root: Path, into: Path) -> subprocess.CompletedProcess[str]:
    config = _type_only_config(root, into)
    contracts = [arg for id_ in TYPE_ONLY_CONTRACTS for arg in ("--contract", id_)]
    return _lint_imports(root, "--config", str(config), *contracts)


def test_no_import_cycle_among_the_core_modules_counting_type_only_imports(
    tmp_path: Path,
) -> None:
    run = _lint_type_only_imports(ROOT, tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "BROKEN" not in run.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        # the factories return fields and never name the spec, not even for a type
        ("_factories.py", "from accelerators.spec import AcceleratorSpec", "core layers"),
        # a type-only import that closes a cycle between two siblings (_partitions reads
        # the store at run time)
        (
            "catalog/_store.py",
            "from accelerators.catalog._partitions import check_partition",
            "no import cycles",
        ),
    ],
)
def test_a_type_only_import_that_closes_a_cycle_is_refused(
    tmp_path: Path, module: str, line: str, broken: str
) -> None:
    tree = _tree_with(tmp_path, module, f"\n\nif TYPE_CHECKING:\n    {line}\n")
    run = _lint_type_only_imports(tree, tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert _broken(run, broken)
    # pyproject's own run leaves type-only imports out: only this check sees the cycle
    assert _lint_imports(tree).returncode == 0


def test_concurrent_first_lookups_load_the_catalog_once(monkeypatch: pytest.MonkeyPatch) -> None:
    original = _store.LOADED.file()
    reads: list[int] = []
    real_read = _store._read_data

    def counting_read() -> dict[str, object]:
        reads.append(1)
        return real_read()

    monkeypatch.setattr(_store, "_read_data", counting_read)
    _store.LOADED.cache_clear()
    _names.cache_clear()
    barrier = threading.Barrier(16)
    found: list[str] = []

    def worker() -> None:
        barrier.wait()
        found.append(catalog.get("nvidia-tesla-t4").name)

    try:
        threads = [threading.Thread(target=worker) for _ in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(reads) == 1
        assert found == ["T4"] * 16
    finally:
        _store.LOADED.install(original)
        _names.cache_clear()
