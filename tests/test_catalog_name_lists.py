"""A name list of the catalog never repeats a name (issue 30, item 8: docs/names.md listed
SkyPilot's ``RTXA4000`` twice, from ``names.skypilot = ["RTXA4000", "RTXA4000"]``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from accelerators import catalog
from accelerators.catalog._schema import Names

ROOT = Path(__file__).resolve().parent.parent
LIST_FIELDS = [
    name for name, field in Names.model_fields.items() if field.annotation == tuple[str, ...]
]


def test_every_list_of_names_is_checked() -> None:
    assert {"nvml", "gfd", "ray", "skypilot", "modal", "hf", "rocm", "other"} == set(LIST_FIELDS)


@pytest.mark.parametrize("field", LIST_FIELDS)
def test_a_repeated_name_is_refused_naming_it(field: str) -> None:
    with pytest.raises(ValidationError, match=rf"{field}\n.*lists 'RTXA4000' more than once"):
        Names.model_validate({field: ["RTXA4000", "RTX A4000", "RTXA4000"]})


def test_no_entry_repeats_a_name() -> None:
    for acc in catalog.all():
        for field in LIST_FIELDS:
            values = getattr(acc.names, field)
            assert len(values) == len(set(values)), (acc.name, field, values)


def test_names_doc_shows_each_name_once_per_cell() -> None:
    text = (ROOT / "docs" / "names.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        if not line.startswith("| "):
            continue
        for cell in line.split("|"):
            names = re.findall(r"`([^`]+)`", cell)
            assert len(names) == len(set(names)), line
