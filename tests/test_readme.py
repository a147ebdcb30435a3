"""The README is a user's way in: it links every doc and its chart exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINKS = set(re.findall(r"\]\(([^)#\s]+)\)", README))


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


def test_the_changelogs_name_the_current_catalog_version() -> None:
    """A catalog bump comes with its changelog lines (the figures in docs/catalog-changelog.md)."""
    from accelerators import catalog

    version = catalog.catalog_version()
    assert version in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    figures = (ROOT / "docs" / "catalog-changelog.md").read_text(encoding="utf-8")
    assert f"\n## {version} " in figures
