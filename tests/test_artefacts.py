"""The six release artefacts (three sdists, three wheels), as ``scripts/release-check`` builds them.

The artefacts are built once per session by the script's own ``build`` (``python -m build
--no-isolation``: the sdist, then the wheel from it; hatchling from the lock, offline). The
tests open each file: the licence and NOTICE in every one (issue 30, item 1), the build floor
and metadata version (item 6), one version per distribution and the plugins' ranges of the core
(item 3), the Flyte plugin without torch (item 2), ``py.typed``, no ``[dev]`` extra and an sdist
that runs its own tests (item 8). The slow test runs the whole script, install and smoke test
included (item 4).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from importlib import metadata as importlib_metadata
from pathlib import Path
from types import ModuleType

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PYPROJECTS = {
    "accelerators": ROOT / "pyproject.toml",
    "flytekitplugins-accelerators": ROOT / "plugins" / "flyte" / "pyproject.toml",
    "airflow-provider-accelerators": ROOT / "plugins" / "airflow" / "pyproject.toml",
}
#: sha256 of https://www.apache.org/licenses/LICENSE-2.0.txt, the licence's text as published.
APACHE_2_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"

pytestmark = pytest.mark.xdist_group("artefacts")  # one build per session, on one worker


def _load_script() -> ModuleType:
    path = ROOT / "scripts" / "release-check"
    loader = importlib.machinery.SourceFileLoader("release_check", str(path))
    spec = importlib.util.spec_from_loader("release_check", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


release_check = _load_script()


@pytest.fixture(scope="session")
def dist_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("release-dist")
    release_check.build(out)
    return out


@pytest.fixture(scope="session")
def built(dist_dir: Path) -> dict[str, tuple[Path, Path]]:
    found: dict[str, tuple[Path, Path]] = release_check.artefacts(dist_dir)
    return found


def _six(built: dict[str, tuple[Path, Path]]) -> list[Path]:
    return [path for pair in built.values() for path in pair]


def _pyproject(dist: str) -> dict[str, object]:
    with PYPROJECTS[dist].open("rb") as handle:
        return tomllib.load(handle)


def _project(dist: str) -> dict[str, object]:
    project = _pyproject(dist)["project"]
    assert isinstance(project, dict)
    return project


# ---------------------------------------------------------------------------- item 1: licence


def test_the_licence_is_apache_2_as_published() -> None:
    text = (ROOT / "LICENSE").read_bytes()
    assert hashlib.sha256(text).hexdigest() == APACHE_2_SHA256
    notice = (ROOT / "NOTICE").read_text(encoding="utf-8")
    assert notice.startswith("accelerators\nCopyright ")


@pytest.mark.parametrize("plugin", ["flyte", "airflow"])
def test_the_plugins_carry_copies_of_the_repository_files(plugin: str) -> None:
    for name in ("LICENSE", "NOTICE"):
        copy = ROOT / "plugins" / plugin / name
        assert copy.read_bytes() == (ROOT / name).read_bytes(), f"cp {name} {copy.parent}/"


def test_every_artefact_carries_the_licence_and_notice(built: dict[str, tuple[Path, Path]]) -> None:
    assert len(_six(built)) == 6
    for artefact in _six(built):
        names = set(release_check.members(artefact))
        paths = release_check.license_paths(artefact)
        assert set(paths) == {"LICENSE", "NOTICE"}
        for name, path in paths.items():
            assert path in names, f"{artefact.name} lacks {path}"
            assert release_check.read_member(artefact, path) == (ROOT / name).read_bytes()
        meta = release_check.metadata(artefact)
        assert meta["License-Expression"] == "Apache-2.0"
        assert sorted(meta.get_all("License-File", [])) == ["LICENSE", "NOTICE"]


def test_notice_credits_every_repository_the_shipped_data_cites() -> None:
    """A source the data files cite on GitHub is credited by name in NOTICE."""
    notice = (ROOT / "NOTICE").read_text(encoding="utf-8")
    cited = set()
    for path in sorted((ROOT / "accelerators" / "data").glob("*.toml")):
        sources = tomllib.loads(path.read_text(encoding="utf-8")).get("sources", {})
        for source in sources.values():
            text = f"{source.get('url', '')} {source.get('note', '')}"
            cited |= {m.group(1) for m in re.finditer(r"github\.com/([\w.-]+/[\w.-]+)", text)}
    assert len(cited) > 10
    missing = sorted(repo for repo in cited if f"https://github.com/{repo}" not in notice)
    assert missing == [], "credit these data sources in NOTICE (and in the plugins' copies)"


# ---------------------------------------------------------------------------- item 6: the floor


@pytest.mark.parametrize("dist", sorted(PYPROJECTS))
def test_build_floor_is_hatchling_1_27(dist: str) -> None:
    build_system = _pyproject(dist)["build-system"]
    assert isinstance(build_system, dict)
    (requirement,) = [Requirement(r) for r in build_system["requires"]]
    assert requirement.name == "hatchling"
    # 1.27 is the first to write Metadata-Version 2.4, which License-Expression needs.
    assert "1.26.3" not in requirement.specifier
    assert "1.27.0" in requirement.specifier


def test_every_artefact_declares_metadata_2_4(built: dict[str, tuple[Path, Path]]) -> None:
    for artefact in _six(built):
        version = release_check.metadata(artefact)["Metadata-Version"]
        assert Version(version) >= Version("2.4"), f"{artefact.name}: {version}"


# ---------------------------------------------------------------------------- item 3: versions


@pytest.mark.parametrize("dist", sorted(PYPROJECTS))
def test_one_version_source_per_distribution(
    dist: str, built: dict[str, tuple[Path, Path]]
) -> None:
    project = _project(dist)
    assert "version" not in project, "the version lives in __version__ alone"
    assert project["dynamic"] == ["version"]
    hatch = _pyproject(dist)["tool"]
    assert isinstance(hatch, dict)
    source = PYPROJECTS[dist].parent / hatch["hatch"]["version"]["path"]
    assert source == release_check.PROJECTS[dist][1]
    (version,) = re.findall(r'^__version__ = "([^"]+)"$', source.read_text(), re.MULTILINE)
    for artefact in built[dist]:
        assert release_check.metadata(artefact)["Version"] == version


def _core_requirements(dist: str) -> list[Requirement]:
    project = _project(dist)
    extras = project.get("optional-dependencies", {})
    assert isinstance(extras, dict)
    listed = [*project["dependencies"], *(r for reqs in extras.values() for r in reqs)]  # type: ignore[misc]
    return [r for r in map(Requirement, listed) if r.name == "accelerators"]


@pytest.mark.parametrize("dist", ["flytekitplugins-accelerators", "airflow-provider-accelerators"])
def test_each_plugin_requires_a_range_of_the_core_that_includes_it(dist: str) -> None:
    core = Version(release_check.version_of("accelerators"))
    requirements = _core_requirements(dist)
    assert requirements
    for requirement in requirements:
        operators = {spec.operator for spec in requirement.specifier}
        assert operators == {">=", "<"}, f"{dist}: {requirement} has no >=X,<Y range"
        assert core in requirement.specifier, f"{dist}: {requirement} excludes the core {core}"
        # The cap is the next minor release: a 0.x minor may break the API (CONTRIBUTING.md).
        (cap,) = [Version(s.version) for s in requirement.specifier if s.operator == "<"]
        assert cap == Version(f"{core.major}.{core.minor + 1}")


def test_the_range_check_refuses_a_core_outside_it(built: dict[str, tuple[Path, Path]]) -> None:
    meta = release_check.metadata(built["airflow-provider-accelerators"][1])
    core = release_check.version_of("accelerators")
    assert release_check.core_range_problems("p", meta, core) == []
    problems = release_check.core_range_problems("p", meta, "0.2.0")
    assert problems
    assert all("excludes 0.2.0" in problem for problem in problems)


@pytest.mark.parametrize(
    ("dist", "changelog"),
    [
        ("flytekitplugins-accelerators", ROOT / "plugins" / "flyte" / "CHANGELOG.md"),
        ("airflow-provider-accelerators", ROOT / "plugins" / "airflow" / "CHANGELOG.md"),
    ],
)
def test_each_plugin_changelog_opens_with_its_version(dist: str, changelog: Path) -> None:
    headings = re.findall(r"^## (\S+)", changelog.read_text(encoding="utf-8"), re.MULTILINE)
    assert headings, f"{changelog} has no version heading"
    assert headings[0] == release_check.version_of(dist)


# ---------------------------------------------------------------------------- item 2: no torch


def _closure(requirements: list[Requirement], extras: frozenset[str]) -> set[str]:
    """Every distribution ``requirements`` pull when installed with ``extras``, read from this
    environment's metadata (the lock installs a superset of any of them), markers evaluated for
    this interpreter."""
    seen: set[tuple[str, frozenset[str]]] = set()
    names: set[str] = set()
    todo = [(r, extras | {""}) for r in requirements]
    while todo:
        requirement, parent_extras = todo.pop()
        if requirement.marker is not None and not any(
            requirement.marker.evaluate({"extra": extra}) for extra in parent_extras
        ):
            continue
        name = canonicalize_name(requirement.name)
        key = (name, frozenset(requirement.extras))
        if key in seen:
            continue
        seen.add(key)
        names.add(name)
        wanted = frozenset({"", *requirement.extras})
        for line in importlib_metadata.distribution(name).requires or []:
            todo.append((Requirement(line), wanted))
    return names


def _heavy(names: set[str]) -> list[str]:
    return sorted(n for n in names if release_check.HEAVY.match(n) or n == "matplotlib")


def test_flyte_plugin_pulls_no_torch_without_bench(built: dict[str, tuple[Path, Path]]) -> None:
    meta = release_check.metadata(built["flytekitplugins-accelerators"][1])
    listed = [Requirement(r) for r in meta.get_all("Requires-Dist", [])]
    names = _closure(listed, frozenset())
    assert {"accelerators", "flytekit", "kubernetes", "pydantic"} <= names
    assert _heavy(names) == []
    # The [bench] extra is what the gate's image installs: torch comes with it.
    assert {"torch", "matplotlib", "nvidia-ml-py"} <= _closure(listed, frozenset({"bench"}))


# ---------------------------------------------------------------------------- item 8


def test_airflow_provider_ships_py_typed(built: dict[str, tuple[Path, Path]]) -> None:
    sdist, wheel = built["airflow-provider-accelerators"]
    assert "accelerators_provider/py.typed" in release_check.members(wheel)
    top = release_check.members(sdist)[0].split("/", 1)[0]
    assert f"{top}/accelerators_provider/py.typed" in release_check.members(sdist)


def test_no_artefact_publishes_a_dev_extra(built: dict[str, tuple[Path, Path]]) -> None:
    for artefact in _six(built):
        assert "dev" not in release_check.metadata(artefact).get_all("Provides-Extra", [])
    group = _pyproject("accelerators")["dependency-groups"]
    assert isinstance(group, dict)
    assert any(r.startswith("pytest") for r in group["dev"])


def test_the_checks_pass_on_these_artefacts(dist_dir: Path) -> None:
    """twine check --strict, check-wheel-contents and the script's own rules."""
    assert release_check.check(dist_dir) == []


def test_the_checks_catch_an_artefact_without_notice(dist_dir: Path, tmp_path: Path) -> None:
    broken = tmp_path / "dist"
    shutil.copytree(dist_dir, broken)
    (wheel,) = broken.glob("airflow_provider_accelerators-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        entries = [(info, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(wheel, "w") as archive:
        for info, data in entries:
            if not info.filename.endswith("licenses/NOTICE"):
                archive.writestr(info, data)
    problems = release_check.check(broken)
    assert any(f"{wheel.name}: no " in p and p.endswith("licenses/NOTICE") for p in problems)


def _unpacked_sdist(sdist: Path, into: Path) -> Path:
    with tarfile.open(sdist) as archive:
        archive.extractall(into, filter="data")
    (top,) = into.iterdir()
    return top


def test_core_sdist_has_what_its_tests_read(built: dict[str, tuple[Path, Path]]) -> None:
    names = {n.split("/", 1)[1] for n in release_check.members(built["accelerators"][0])}
    for needed in (
        "CONTRIBUTING.md",
        "CHANGELOG.md",
        "README.md",
        "tests/conftest.py",
        "docs/make_outputs.py",
        "benchmarks/peer_names.py",
        "dags/flyte_training.py",
        "plugins/flyte/pyproject.toml",
        "requirements/dev-cpu.lock",
        "scripts/lock",
        "scripts/release-check",
        "mkdocs.yml",  # tests/test_readme.py and tests/test_docs_site.py read it
    ):
        assert needed in names, f"the core's sdist lacks {needed}"


@pytest.mark.slow
@pytest.mark.xdist_group("installs")  # a pytest run of its own, beside the installs
def test_core_sdist_runs_its_own_tests(built: dict[str, tuple[Path, Path]], tmp_path: Path) -> None:
    """The tests that read the tree (docs, README, lock, layers, packaging) pass in the sdist,
    importing the sdist's own ``accelerators`` (its folder is first on sys.path)."""
    tree = _unpacked_sdist(built["accelerators"][0], tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "import accelerators; print(accelerators.__file__)"
    where = subprocess.run(
        [sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert Path(where).is_relative_to(tree), where
    tests = [
        "tests/test_readme.py",
        "tests/test_docs_names.py",
        "tests/test_catalog_docs.py",
        "tests/test_bootstrap_lock.py",
        "tests/test_habits.py",
        "tests/test_packaging.py",
        "tests/test_layers.py",
        "tests/test_peer_names.py",
        "tests/test_artefacts.py::test_the_licence_is_apache_2_as_published",
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow", *tests],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout


# ---------------------------------------------------------------------------- item 4


def test_release_workflow_builds_checks_then_publishes() -> None:
    import yaml

    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as True
    assert triggers["push"]["tags"]
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    steps = "\n".join(str(step.get("run", "")) for step in build["steps"])
    assert "scripts/release-check" in steps
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}
    uses = [step.get("uses", "") for step in publish["steps"]]
    assert any(u.startswith("pypa/gh-action-pypi-publish@") for u in uses)
    assert not any("password" in str(step.get("with", {})) for step in publish["steps"])


def test_ci_runs_the_release_check() -> None:
    assert "scripts/release-check" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.xdist_group("installs")  # builds, pip-installs ~200 distributions
def test_release_check_installs_and_smoke_tests_outside_the_checkout(tmp_path: Path) -> None:
    """The whole script: build, checks, a venv outside the checkout, the smoke test."""
    if os.environ.get("ACCELERATORS_RELEASE_CHECKED") == "1":
        pytest.skip(".ci/run ran scripts/release-check itself before the tests")
    out = tmp_path / "dist"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "release-check"), "--out", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    print(proc.stdout)
    if proc.returncode != 0 and "Could not find a version" in proc.stderr:
        pytest.skip(f"a package index is unreachable:\n{proc.stderr[-1500:]}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no torch or nvidia-*" in proc.stdout
    assert "loaded the plugin" in proc.stdout
    assert len(list(out.iterdir())) == 6
