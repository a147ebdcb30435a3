"""The examples in docstrings (``>>>``) run, one test per module, and print what they show.

Modules are found by their source (any ``>>>`` line), so a new example is collected without
a list to update. Each module is imported by its dotted name (``flytekitplugins`` is a
namespace package, which pytest's ``--doctest-modules`` would import under the wrong name).
An example that cannot run here (it needs a GPU, a cloud or a live scheduler) is marked
``# doctest: +SKIP`` and its module is listed in :data:`SKIPPED` with the reason.
"""

from __future__ import annotations

import doctest
import importlib
import io
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: (dotted package name, its folder) of everything shipped.
PACKAGES = (
    ("accelerators", ROOT / "accelerators"),
    (
        "flytekitplugins.accelerators",
        ROOT / "plugins" / "flyte" / "flytekitplugins" / "accelerators",
    ),
    ("accelerators_provider", ROOT / "plugins" / "airflow" / "accelerators_provider"),
)
#: Modules whose examples are skipped (``# doctest: +SKIP``), and why.
SKIPPED = {
    "accelerators.bench": "gate('H100-SXM:8') needs an H100-SXM",
    "accelerators.kubernetes._models": (
        "the example hands the models to Airflow's KubernetesPodOperator inside a DAG"
    ),
    "accelerators.sizing.aws": "refresh() calls AWS's pricing API (network and credentials)",
    "accelerators.sizing.azure": "refresh() calls Azure's Retail Prices API (network)",
    "accelerators.sizing.gcp": "refresh() calls GCP's Cloud Billing Catalog API (network, key)",
}
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules() -> list[str]:
    found = []
    for package, folder in PACKAGES:
        for path in sorted(folder.rglob("*.py")):
            if path.name == "__main__.py" or ">>>" not in path.read_text(encoding="utf-8"):
                continue
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found.append(".".join((package, *parts)))
    return found


MODULES = _modules()


def _examples(module_name: str) -> list[doctest.DocTest]:
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    return [t for t in finder.find(module, module_name) if t.examples]


def test_examples_are_found() -> None:
    """Every package has examples, and every skip reason names a module that has some."""
    assert {m.split(".")[0] for m in MODULES} >= {"accelerators", "flytekitplugins"}
    assert len(MODULES) >= 40
    assert set(SKIPPED) <= set(MODULES)


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples(module_name: str) -> None:
    tests = _examples(module_name)
    assert tests, f"{module_name} has '>>>' in its source but no docstring example"
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    ran = skipped = 0
    for test in tests:
        skipped += sum(1 for e in test.examples if e.options.get(doctest.SKIP))
        ran += runner.run(test, out=out.write).attempted  # skipped examples are not attempted
    assert runner.failures == 0, f"{module_name}:\n{out.getvalue()}"
    if skipped:
        assert module_name in SKIPPED, f"{module_name} skips {skipped} examples: say why in SKIPPED"
    else:
        assert module_name not in SKIPPED, f"{module_name} skips nothing: remove it from SKIPPED"
    if not ran:
        pytest.skip(f"{module_name}: {SKIPPED[module_name]}")
