"""One table of public names per package (``accelerators._lazy``), and what type checkers see.

Every package with lazily imported public names builds ``__getattr__``, ``__dir__`` and
``__all__`` from one table. Type checkers cannot run ``__getattr__``, so the package also
imports the same names under ``if TYPE_CHECKING:``; these tests read each package's source
and fail when that block and the table disagree, or when the docstring leaves a name out.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from accelerators._lazy import LazyExports, lazy_exports
from accelerators.errors import AcceleratorError

ROOT = Path(__file__).resolve().parent.parent

#: Every package whose public names come from a table; a test below finds any it misses.
PACKAGES = {
    "accelerators": ROOT / "accelerators/__init__.py",
    "accelerators.bench": ROOT / "accelerators/bench/__init__.py",
    "accelerators.catalog": ROOT / "accelerators/catalog/__init__.py",
    "accelerators.kubernetes": ROOT / "accelerators/kubernetes/__init__.py",
    "accelerators_provider": ROOT / "plugins/airflow/accelerators_provider/__init__.py",
    "flytekitplugins.accelerators": ROOT / "plugins/flyte/flytekitplugins/accelerators/__init__.py",
}


def _table_call(tree: ast.Module) -> ast.Call:
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("lazy_exports", "LazyExports")
    ]
    assert len(calls) == 1, "expected one lazy_exports() or LazyExports() call"
    return calls[0]


def _table(package: str, tree: ast.Module) -> tuple[dict[str, str], set[str]]:
    """name -> module of the table, and the package's own names, read from the source."""
    call = _table_call(tree)
    table = ast.literal_eval(call.args[1])
    own = [kw.value for kw in call.keywords if kw.arg == "own"]
    where: dict[str, str] = {}
    for module, names in table.items():
        for name in names.split():
            if module == ".":
                where[name] = f"{package}.{name}"
            else:
                where[name] = package + module if module.startswith(".") else module
    return where, set(ast.literal_eval(own[0]).split()) if own else set()


def _type_checking_exports(tree: ast.Module) -> dict[str, str]:
    """name -> module of the ``from M import X as X`` imports under ``if TYPE_CHECKING:``."""
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module:
                    for alias in statement.names:
                        if alias.asname == alias.name:
                            found[alias.name] = statement.module
                            # `from accelerators import catalog as catalog`: the submodule
                            if _is_module(f"{statement.module}.{alias.name}"):
                                found[alias.name] = f"{statement.module}.{alias.name}"
    return found


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # the parent is a module, not a package
        return False


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_type_checkers_see_the_table(package: str) -> None:
    # GIVEN the package's source
    tree = ast.parse(PACKAGES[package].read_text(encoding="utf-8"))
    importlib.import_module(package)
    # WHEN its table and its TYPE_CHECKING re-exports are read
    where, _ = _table(package, tree)
    seen = _type_checking_exports(tree)
    # THEN they name the same names, from the same modules
    assert seen == where


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_all_dir_and_loading_come_from_the_table(package: str) -> None:
    module = importlib.import_module(package)
    where, own = _table(package, ast.parse(PACKAGES[package].read_text(encoding="utf-8")))
    names = list(module.__all__)
    assert len(names) == len(set(names))
    assert set(where) | own <= set(names)
    assert set(where) <= set(dir(module))
    for name, home in where.items():
        value = getattr(module, name)
        loaded = sys.modules[home]
        assert value is (loaded if home.endswith("." + name) else getattr(loaded, name)), name
        assert vars(module)[name] is value, f"{package}.{name} is not kept after the first read"
    for name in own:
        assert name in vars(module), f"{package} lists {name!r} as its own but has no such name"


@pytest.mark.parametrize("package", sorted(set(PACKAGES) - {"accelerators"}))
def test_docstring_names_every_public_name(package: str) -> None:
    module = importlib.import_module(package)
    doc = module.__doc__ or ""
    missing = [name for name in module.__all__ if f"`{name}`" not in doc]
    assert missing == []


def test_no_package_keeps_a_hand_written_loader() -> None:
    # GIVEN every package __init__ of the core and the plugins
    inits = [
        *ROOT.glob("accelerators/**/__init__.py"),
        *ROOT.glob("plugins/*/accelerators_provider/**/__init__.py"),
        *ROOT.glob("plugins/*/flytekitplugins/**/__init__.py"),
    ]
    # THEN each that defines a PEP 562 loader builds it from a table, and is listed above
    for path in inits:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defines = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        text = path.read_text(encoding="utf-8")
        if "__getattr__" in defines or "lazy_exports(" in text or "LazyExports(" in text:
            assert path in PACKAGES.values(), f"{path} has a lazy loader but no test here"
        if "__getattr__" in defines:
            assert path == PACKAGES["accelerators"], f"{path} writes its own __getattr__"


def test_unknown_name_says_what_is_close() -> None:
    import accelerators.bench as bench

    with pytest.raises(AttributeError, match=r"no attribute 'gat'; did you mean 'gate'\?"):
        bench.gat  # noqa: B018
    with pytest.raises(AttributeError, match=r"no attribute '__wrapped__'$"):
        bench.__wrapped__  # noqa: B018


def test_a_name_listed_twice_is_refused() -> None:
    with pytest.raises(AcceleratorError, match="'x' is listed twice"):
        LazyExports("accelerators", {".a": "x", ".b": "x"})


def test_the_table_forms() -> None:
    # GIVEN a table with a submodule, a relative module and an absolute one
    getattr_, dir_, all_ = lazy_exports(
        "accelerators",
        {".": "kinds", ".errors": "PlacementError", "accelerators.spec": "AcceleratorSpec"},
        own="here",
    )
    # THEN __all__ and dir() list them all, sorted as dir() shows them
    assert all_ == dir_() == ["AcceleratorSpec", "PlacementError", "here", "kinds"]
    from accelerators import errors, kinds, spec

    assert getattr_("kinds") is kinds
    assert getattr_("PlacementError") is errors.PlacementError
    assert getattr_("AcceleratorSpec") is spec.AcceleratorSpec


def test_importing_a_lazy_package_imports_none_of_its_names() -> None:
    code = (
        "import sys, accelerators.bench, accelerators.kubernetes, accelerators_provider\n"
        "print(sorted(m for m in sys.modules if m.startswith(('accelerators.bench.',"
        " 'accelerators_provider.', 'pydantic', 'airflow'))))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert proc.stdout.strip() == "[]"


def test_plugins_and_templates_reach_only_the_cores_public_modules() -> None:
    """The Flyte plugin, the Airflow provider and the templates import the core through its
    public modules (``accelerators.extend`` holds what packages built on it need)."""
    import accelerators.extend

    assert accelerators.extend.lazy_exports is lazy_exports
    root = Path(__file__).resolve().parents[1]
    sources = [
        *(root / "plugins" / "flyte" / "flytekitplugins").rglob("*.py"),
        *(root / "plugins" / "airflow" / "accelerators_provider").rglob("*.py"),
        *(root / "dags").glob("*.py"),
    ]
    assert len(sources) > 20
    private = []
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom) and node.level == 0
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in names:
                parts = name.split(".")
                if parts[0] == "accelerators" and any(p.startswith("_") for p in parts[1:]):
                    private.append(f"{path.relative_to(root)}:{node.lineno}: {name}")
    assert not private, private
