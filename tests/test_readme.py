"""The README is a user's way in: it links every doc and its chart exists.

The core's README and the plugins' READMEs are also their packages' descriptions on PyPI, where a
relative link leads nowhere: every link on them is absolute, and a link into the repository
(``<project URL>/blob/main/PATH``, ``/tree/main/`` for a folder, ``/raw/main/`` for an image) is
mapped back to ``PATH`` here and checked to exist.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_SPEC = importlib.util.spec_from_file_location("make_outputs", ROOT / "docs" / "make_outputs.py")
assert _SPEC is not None
assert _SPEC.loader is not None
make_outputs = importlib.util.module_from_spec(_SPEC)
sys.modules.setdefault("make_outputs", make_outputs)
_SPEC.loader.exec_module(make_outputs)

PROJECT = make_outputs.project_url()
#: ``[text](target)`` and ``![alt](target)``: (is an image, target).
_LINK = re.compile(r"(!?)\[[^\]\n]*\]\(([^)\s]+)\)")
_IN_REPO = re.compile(rf"^{re.escape(PROJECT)}/(blob|tree|raw)/main/([^#?]+)(#.*)?$")


def _links(text: str) -> list[tuple[bool, str]]:
    return [(bang == "!", target) for bang, target in _LINK.findall(text)]


def _repo_path(url: str) -> str | None:
    """``docs/grammar.md`` for ``<project>/blob/main/docs/grammar.md``; None for other URLs."""
    found = _IN_REPO.match(url)
    return found[2].rstrip("/") if found else None


README = (ROOT / "README.md").read_text(encoding="utf-8")
#: The README's links into the repository, as repository paths.
LINKS = {path for _image, url in _links(README) if (path := _repo_path(url))}


def test_every_doc_is_linked() -> None:
    docs = {f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md")}
    assert docs, "no docs found"
    assert sorted(docs - LINKS) == []


def test_the_chart_and_its_script_exist() -> None:
    assert "docs/img/bench-quick.png" in LINKS
    assert "docs/make_figures.py" in LINKS
    png = (ROOT / "docs" / "img" / "bench-quick.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert (ROOT / "docs" / "make_figures.py").is_file()


def test_the_two_commands_are_marked_for_ci() -> None:
    for name in ("run-command", "test-command"):
        block = README.split(f"<!-- {name} -->\n", 1)[1].split(f"<!-- /{name} -->", 1)[0]
        commands = [line for line in block.splitlines() if line and not line.startswith("```")]
        assert len(commands) == 1, block
        assert commands[0].startswith("bash scripts/bootstrap && .venv/bin/")


def test_contributing_and_changelog_are_linked() -> None:
    for name in ("CONTRIBUTING.md", "CHANGELOG.md"):
        assert name in LINKS
        assert (ROOT / name).is_file()


def _problems(text: str) -> list[str]:
    """What is wrong with the links of a PyPI description: a relative link or bare anchor, a
    repository link to nothing, an image not by its raw URL or from elsewhere."""
    problems = []
    for image, url in _links(text):
        if not url.startswith("https://"):
            problems.append(f"not absolute: {url}")
            continue
        path = _repo_path(url)
        if path is None:
            named = url.startswith(f"{PROJECT}/") and not url.startswith(f"{PROJECT}/issues")
            if named:
                problems.append(f"a project link that names no file: {url}")
            if image:
                problems.append(f"an image outside the repository: {url}")
            continue
        kind = url[len(PROJECT) + 1 :].split("/", 1)[0]
        target = ROOT / path
        if image and kind != "raw":
            problems.append(f"an image not by its raw URL: {url}")
        elif kind == "tree" and not target.is_dir():
            problems.append(f"no such folder: {path}")
        elif kind != "tree" and not target.is_file():
            problems.append(f"no such file: {path}")
    return problems


@pytest.mark.parametrize("page", make_outputs.PYPI_PAGES)
def test_pypi_descriptions_link_absolutely_to_files_that_exist(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    assert _links(text), f"{page} has no links"
    problems = _problems(text)
    assert not problems, f"{page}:\n" + "\n".join(problems)


def test_a_relative_or_broken_link_is_reported() -> None:
    """The check above can fail: each kind of bad link is reported, good ones are not."""
    bad = (
        f"[a](docs/grammar.md) [b]({PROJECT}/blob/main/docs/nothing.md) "
        f"![c]({PROJECT}/blob/main/docs/img/bench-quick.png) [d](#install) "
        f"[e]({PROJECT}/tree/main/README.md) ![f](https://example.com/x.png) "
        f"[g]({PROJECT}/pulls)"
    )
    assert _problems(bad) == [
        "not absolute: docs/grammar.md",
        "no such file: docs/nothing.md",
        f"an image not by its raw URL: {PROJECT}/blob/main/docs/img/bench-quick.png",
        "not absolute: #install",
        "no such folder: README.md",
        "an image outside the repository: https://example.com/x.png",
        f"a project link that names no file: {PROJECT}/pulls",
    ]
    good = (
        f"[a]({PROJECT}) [b]({PROJECT}#install) [c]({PROJECT}/blob/main/docs/grammar.md#counts) "
        f"[d]({PROJECT}/tree/main/dags) ![e]({PROJECT}/raw/main/docs/img/bench-quick.png) "
        f"[f]({PROJECT}/issues) [g](https://pypi.org/project/accelerators/)"
    )
    assert _problems(good) == []


def test_one_project_url_everywhere() -> None:
    """The URL the READMEs link to is the one every pyproject and the docs site name."""
    assert PROJECT.startswith("https://github.com/")
    for pyproject in (
        "pyproject.toml",
        "plugins/flyte/pyproject.toml",
        "plugins/airflow/pyproject.toml",
    ):
        with open(ROOT / pyproject, "rb") as f:
            urls = tomllib.load(f)["project"]["urls"]
        assert urls["Homepage"] == PROJECT, pyproject
        assert all(url.startswith(PROJECT) for url in urls.values()), (pyproject, urls)
    mkdocs = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert f"\nrepo_url: {PROJECT}\n" in mkdocs
    for page in make_outputs.PYPI_PAGES:
        text = (ROOT / page).read_text(encoding="utf-8")
        others = {
            url for _i, url in _links(text) if "github.com/" in url and not url.startswith(PROJECT)
        }
        assert not others, f"{page} links to another repository: {others}"


def test_the_changelogs_name_the_current_catalog_version() -> None:
    """A catalog bump comes with its changelog lines (the figures in docs/catalog-changelog.md)."""
    from accelerators import catalog

    version = catalog.catalog_version()
    assert version in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    figures = (ROOT / "docs" / "catalog-changelog.md").read_text(encoding="utf-8")
    assert f"\n## {version} " in figures
