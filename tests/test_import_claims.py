"""What a module's docstring says it imports is what it imports.

Issue 34 found docstrings that claimed "standard library and :mod:`accelerators.errors` only"
over modules that imported more. Every module of the core and the plugins whose docstring
makes such a claim is read here: each import it has (at the top, inside functions, under
``if TYPE_CHECKING:``) must be of the standard library or of a module the claim names.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = (
    ROOT / "accelerators",
    ROOT / "plugins" / "flyte" / "flytekitplugins",
    ROOT / "plugins" / "airflow" / "accelerators_provider",
)
#: The claims read, each with the modules it allows besides the standard library.
CLAIMS = (
    re.compile(r"standard library only", re.IGNORECASE),
    re.compile(r"imports nothing (?:beyond|but) the standard library", re.IGNORECASE),
    re.compile(r"imports only the standard library and :mod:`(?P<also>[\w.]+)`"),
    re.compile(r"standard library and :mod:`(?P<also>[\w.]+)` only", re.IGNORECASE),
    re.compile(r"imports only :mod:`(?P<also>[\w.]+)`"),
)


#: Modules whose docstring claim is known to be untrue, each with the reason (strict xfail: the
#: fix must remove its line). None left.
UNTRUE: dict[str, str] = {}


def _claims() -> list[tuple[str, Path, set[str]]]:
    found = []
    for folder in FOLDERS:
        for path in sorted(folder.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            doc = " ".join((ast.get_docstring(tree) or "").split())
            for claim in CLAIMS:
                for match in claim.finditer(doc):
                    also = match.groupdict().get("also")
                    name = str(path.relative_to(ROOT))
                    found.append((name, path, {also} if also else set()))
    return found


def _imports(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
    return modules - {"__future__"}


CASES = _claims()


def test_the_claims_are_found() -> None:
    names = {name for name, _, _ in CASES}
    assert "accelerators/errors.py" in names
    assert "accelerators/kubernetes/_options.py" not in names  # it imports _text too


@pytest.mark.parametrize(
    ("name", "path", "also"),
    [
        pytest.param(*case, marks=pytest.mark.xfail(reason=UNTRUE[case[0]], strict=True))
        if case[0] in UNTRUE
        else case
        for case in CASES
    ],
    ids=[c[0] for c in CASES],
)
def test_a_module_imports_what_its_docstring_says(name: str, path: Path, also: set[str]) -> None:
    allowed = set(sys.stdlib_module_names)
    other = sorted(m for m in _imports(path) if m.split(".")[0] not in allowed and m not in also)
    assert other == [], f"{name} says it imports only the standard library and {also or '-'}"
