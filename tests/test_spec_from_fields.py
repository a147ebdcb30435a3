"""``AcceleratorSpec.parse`` builds each alternative without pydantic's validation
(``AcceleratorSpec._from_fields``); it must give exactly what validation gives.

For every spec text below, each alternative the parser reads is built both ways, through
``_from_fields`` and through ``AcceleratorSpec(**fields)`` (validation), and the outcomes are
compared: the same field values of the same types and the same fields set, or the same error
type and message. The texts: every spelling the catalog knows with counts, partitions,
memory and the other suffixes, good and bad, and random texts from the grammar's pieces.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accelerators import catalog
from accelerators._parser import parse_spec
from accelerators.catalog._names import known_spellings
from accelerators.errors import AcceleratorError
from accelerators.spec import AcceleratorSpec, MemoryRequest

ROOT = Path(__file__).resolve().parent.parent

SUFFIXES = (
    "",
    ":8",
    ":1",
    ":0.5",
    ":2.0",
    ":1..4",
    ":2..",
    ":4..2",
    ":0",
    "!",
    "!:2",
    "@whole",
    "@unpartitioned",
    "@shared",
    "@shared:2",
    "@shared:0.5",
    "@1g.5gb",
    "@1g.10gb:7",
    "@3g.40gb",
    "@2x2",
    "@2x4:2",
    "@9g.99gb",
    ":80GB",
    ":24GB:2",
    ":40GB+",
    "@whole:0.5",
)
EXTRA = (
    "80GB+",
    "nvidia:24GB:2",
    "amd:192GB+",
    "80GB..141GB",
    "24GB..16GB",
    "intel:96GB",
    "google",
    "nvidia",
    "huawei:64GB",
    "0.5GB:2",
    "H100-SXM:8 | A100-80GB:4 | 80GB+:8",
    "B200+",
    "B200+:8",
    "A100-40GB-PCIE:80GB",
    "H100-SXM:8GB",
    "T4 shared",
    "tpu-v5litepod-8",
    "TPU-v5e@2x2:4",
    "A100@1g.5gb+me",
    "H100-SXM@1g.10gb+gfx",
)


def _outcome(build: Any, fields: dict[str, Any]) -> tuple[Any, ...]:
    try:
        spec = build(fields)
    except Exception as exc:  # the outcome compared is the error itself
        return ("error", type(exc), str(exc))
    values = {name: (type(value), value) for name, value in spec.__dict__.items()}
    return ("spec", values, spec.model_fields_set, spec.__pydantic_extra__)


def _validated(fields: dict[str, Any]) -> AcceleratorSpec:
    return AcceleratorSpec(**fields)


def _check(text: str) -> int:
    """Compare both routes for each alternative of ``text``; the number compared."""
    try:
        parsed = parse_spec(text)
    except AcceleratorError:
        return 0  # the grammar refused it: no fields reach either route
    for alternative in parsed.alternatives:
        fast = _outcome(AcceleratorSpec._from_fields, alternative.fields)
        assert fast == _outcome(_validated, alternative.fields), (text, alternative.fields)
    return len(parsed.alternatives)


def _corpus() -> list[str]:
    """Each SKU and model name with every suffix; every other spelling with a few."""
    own = dict.fromkeys(n for acc in catalog.all() for n in (acc.name, acc.model))
    others = [n for n in known_spellings() if n not in own]
    return [
        *(name + suffix for name in own for suffix in SUFFIXES),
        *(name + suffix for name in others for suffix in ("", ":8", "@whole", "!", ":0.5")),
        *EXTRA,
    ]


def test_both_routes_agree_on_every_known_spelling_and_suffix() -> None:
    corpus = _corpus()
    compared = sum(_check(text) for text in corpus)
    # Most of the corpus parses; the comparison must have covered good and bad alternatives.
    assert compared > len(corpus) // 3


def test_the_corpus_reaches_the_validators_errors() -> None:
    """The corpus has alternatives the grammar accepts and the spec's validators refuse, so the
    test above compares errors too (each route's error comes from the same validator)."""
    refused = 0
    for text in _corpus():
        try:
            parsed = parse_spec(text)
        except AcceleratorError:
            continue
        for alternative in parsed.alternatives:
            try:
                AcceleratorSpec(**alternative.fields)
            except AcceleratorError:
                refused += 1
    assert refused > 0


PIECES = st.sampled_from(
    [
        "H100-SXM",
        "A100",
        "a100-80gb",
        "T4",
        "TPU-v5e",
        "MI300X",
        "nvidia",
        "amd",
        "80GB",
        "24GB",
        "+",
        ":",
        "!",
        "@",
        "|",
        " ",
        "..",
        "2",
        "8",
        "0.5",
        "1g.5gb",
        "2x2",
        "whole",
        "shared",
        "x",
        "-",
        "GB",
        "0",
    ]
)


@given(st.lists(PIECES, min_size=1, max_size=8).map("".join))
def test_both_routes_agree_on_random_texts(text: str) -> None:
    _check(text)


def test_fields_of_other_types_take_validation() -> None:
    """A field the parser would never give (a string count, an unknown key) is validated."""
    h100 = catalog.get("H100-SXM")
    with pytest.raises(AcceleratorError, match="Expected a positive number for count"):
        AcceleratorSpec._from_fields({"accelerator": h100, "count": "8"})
    with pytest.raises(AcceleratorError, match="Extra inputs are not permitted"):
        AcceleratorSpec._from_fields({"accelerator": h100, "colour": "red"})
    spec = AcceleratorSpec._from_fields(
        {"accelerator": "H100-SXM", "count": 2}
    )  # a name: validated
    assert spec == AcceleratorSpec.parse("H100-SXM:2")
    spec = AcceleratorSpec._from_fields({"memory": MemoryRequest(gb=80), "vendor": " NVIDIA "})
    assert spec.vendor == "nvidia"


def test_parsing_builds_no_pydantic_validator() -> None:
    """In a fresh interpreter, parsing a spec and printing its parts builds no validator for
    AcceleratorSpec: pydantic's plugin loader (importlib.metadata) stays unimported."""
    code = (
        "import sys\n"
        "from accelerators.spec import AcceleratorSpec\n"
        "spec = AcceleratorSpec.parse('H100-SXM:8 | A100@1g.5gb:2')\n"
        "print(spec, [a.name for a in spec.candidates], spec.alternatives[1].mig_profile)\n"
        "print(sorted(m for m in ('importlib.metadata', 'pydantic.plugin._loader',"
        " 'importlib.resources', 'accelerators.constants') if m in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    first, loaded = proc.stdout.splitlines()
    assert first.startswith("H100-SXM:8 | A100-40GB@1g.5gb:2 ['H100-SXM'")
    assert loaded == "[]"
