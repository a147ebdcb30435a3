"""The generated catalog docs are committed; they must match the data file."""

from __future__ import annotations

from pathlib import Path

import pytest

from accelerators import catalog
from accelerators.catalog import _docs

DOCS = Path(__file__).resolve().parents[1] / "docs"
REGENERATE = (
    "run `python -m accelerators.catalog._docs` to regenerate docs/catalog.md and docs/names.md"
)


@pytest.mark.parametrize(
    ("filename", "render"),
    [("catalog.md", _docs.render_catalog_markdown), ("names.md", _docs.render_names_markdown)],
)
def test_committed_docs_match_the_data(filename, render):
    path = DOCS / filename
    assert path.exists(), f"docs/{filename} is missing; {REGENERATE}"
    assert path.read_text(encoding="utf-8") == render(), f"docs/{filename} is stale; {REGENERATE}"


def test_rendering_is_deterministic():
    assert _docs.render_catalog_markdown() == _docs.render_catalog_markdown()
    assert _docs.render_names_markdown() == _docs.render_names_markdown()


def test_catalog_doc_covers_every_entry_and_source():
    text = _docs.render_catalog_markdown()
    for acc in catalog.all():
        assert f"\n## {acc.name}\n" in text
        for m in acc.mig:
            assert f"`{m.profile}`" in text
    for key in catalog.sources():
        assert f"`{key}`" in text


def test_catalog_doc_marks_unconfirmed_and_derived_values():
    text = _docs.render_catalog_markdown()
    summary = text.split("\n## ", 2)[1]
    h100_row = next(line for line in summary.splitlines() if line.startswith("| [H100-SXM]"))
    assert "989.5~" in h100_row  # derived from the sparse datasheet value
    nvl_row = next(line for line in summary.splitlines() if line.startswith("| [H100-NVL]"))
    assert "| 30? |" in nvl_row  # unconfirmed (the NVL's FP64: no readable page)
    assert "| 835 |" in nvl_row  # read on a page: no mark


def test_names_doc_has_one_row_per_entry():
    text = _docs.render_names_markdown()
    main_table = text.split("\n## ", 1)[0]
    rows = [line for line in main_table.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == len(catalog.all()) + 1  # plus the header
    assert "`nvidia-tesla-a100`" in main_table


def test_write_docs_writes_both_files(tmp_path):
    written = _docs.write_docs(tmp_path)
    assert sorted(p.name for p in written) == ["catalog.md", "names.md"]
    assert (tmp_path / "names.md").read_text(encoding="utf-8") == _docs.render_names_markdown()
