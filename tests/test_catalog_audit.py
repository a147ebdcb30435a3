"""The catalog audit (``accelerators.catalog._audit``) and the derived-figure rules it checks.

A small synthetic catalog is built for each rule, broken in exactly one way, and the audit (or
the loader, for rules it enforces) must name that problem. The shipped data file is audited
at the end: every figure there must pass.
"""

from __future__ import annotations

import copy
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accelerators.catalog import _audit, _formula, _store
from accelerators.catalog._file import CatalogFile
from accelerators.cli import build_app
from accelerators.errors import CatalogDataError

ROOT = Path(__file__).resolve().parents[1]


# -- formulas ------------------------------------------------------------------------------------
def test_formula_evaluates_numbers_and_figure_names():
    values = {"tflops.fp16": 989.5, "sparse": 3958.0, "memory_gb": 24.0, "devices": 2}
    assert _formula.evaluate("sparse / 2", values) == 1979
    assert _formula.evaluate("tflops.fp16 / 2", values) == 494.75
    assert _formula.evaluate("memory_gb / devices", values) == 12
    assert _formula.evaluate("(1536 - 0) / 16", values) == 96
    assert _formula.evaluate("-2 * -3", values) == 6


def test_formula_names_and_inputs():
    assert _formula.names("tflops.fp32 * 2 + sparse / 4") == ("tflops.fp32", "sparse")
    assert _formula.inputs("3958 / 2") == (3958.0,)
    assert _formula.inputs("19.5 * 4 / 64") == (19.5,)  # 4 and 64 are rule constants
    assert _formula.inputs("1536 / 16") == (1536.0,)
    assert _formula.inputs("820 * 1.073741824 / 1000") == (820.0,)  # GiB/s in TB/s


@pytest.mark.parametrize(
    ("formula", "problem"),
    [
        ("__import__('os')", "not allowed"),
        ("2 ** 10", "only \\+ - \\* /"),
        ("os.path", "only tflops.<dtype> may use a dot"),
        ("memory", "unknown name 'memory'"),
        ("'12' * 2", "is not a number"),
        ("1 +", "not an arithmetic expression"),
        ("True * 2", "is not a number"),
    ],
)
def test_formula_rejects_anything_but_arithmetic(formula, problem):
    with pytest.raises(ValueError, match=problem):
        _formula.names(formula)


def test_formula_errors_name_the_missing_figure_and_zero_division():
    with pytest.raises(ValueError, match=r"uses tflops\.fp8, which this entry does not have"):
        _formula.evaluate("tflops.fp8 / 2", {})
    with pytest.raises(ValueError, match="divides by zero"):
        _formula.evaluate("1 / (2 - 2)", {})


@pytest.mark.parametrize(
    ("value", "computed", "ok"),
    [
        (989, 989.5, True),  # "1979 / 2" written without the half
        (989.4, 989.45, True),
        (0.17, 5.5 / 32, True),  # two written digits
        (1979, 989.5, False),  # the sparse figure stored as dense
        (312, 19.5 * 8, False),
        (4.37, 8.73 / 2, True),
        (4.3, 8.73 / 2, False),
    ],
)
def test_agrees_allows_only_the_rounding_a_figure_is_written_with(value, computed, ok):
    assert _formula.agrees(value, computed) is ok


# -- a synthetic catalog -------------------------------------------------------------------------
def _source(**extra):
    return {
        "title": "Vendor datasheet",
        "url": "https://example.com/ds.pdf",
        "kind": "vendor-datasheet",
        "retrieved": "2026-11-26",
        **extra,
    }


def _entry(name, **extra):
    acc = {
        "name": name,
        "model": name,
        "vendor": "nvidia",
        "family": "Test",
        "device_class": "gpu",
        "architecture": "Test",
        "form_factor": "PCIe",
        "memory_type": "HBM3",
        "interconnect": "PCIe",
        "memory_gb": {"value": 80, "source": "ds"},
        "bandwidth_tbps": {"value": 3.35, "source": "ds"},
        "tflops": {
            "fp16": {
                "value": 989.5,
                "source": "ds",
                "confidence": "derived",
                "sparse": 1979,
                "formula": "sparse / 2",
                "note": "datasheet prints sparse 1979 only; halved",
            },
            "fp8": {"value": 1979, "source": "ds", "sparse": 3958},
            "tf32": {"value": 494.7, "source": "ds"},
        },
    }
    acc.update(extra)
    return acc


def _raw(*entries, **sources):
    return {
        "schema_version": 1,
        "catalog_version": "2026.11.9",
        "sources": {"ds": _source(), **sources},
        "accelerators": list(entries) or [_entry("X100")],
    }


def _load(raw) -> CatalogFile:
    return _store._validate(raw)


def _checks(raw) -> list[tuple[str, str, str]]:
    return [(f.check, f.entry, f.key) for f in _audit.audit(_load(raw)).findings]


def test_a_clean_catalog_has_no_findings():
    report = _audit.audit(_load(_raw()))
    assert report.findings == ()
    assert report.ok
    assert report.by_confidence == {"source": 4, "derived": 1, "unconfirmed": 0}
    assert report.by_kind == {"vendor-datasheet": 5}
    assert report.without_url == ()
    assert report.third_party == ()


def test_loader_rejects_a_derived_figure_its_formula_does_not_give():
    raw = _raw()
    raw["accelerators"][0]["tflops"]["fp16"]["value"] = 1979  # the sparse rate stored as dense
    with pytest.raises(
        CatalogDataError, match=r"X100 tflops.fp16: value 1979 but formula 'sparse / 2' gives 989.5"
    ):
        _load(raw)


def test_loader_rejects_a_formula_naming_a_missing_figure():
    raw = _raw()
    raw["accelerators"][0]["tflops"]["fp16"]["formula"] = "tflops.int8 / 2"
    with pytest.raises(CatalogDataError, match=r"uses tflops\.int8, which this entry"):
        _load(raw)


def test_loader_rejects_a_formula_on_a_figure_read_on_its_page():
    raw = _raw()
    raw["accelerators"][0]["tflops"]["fp8"]["formula"] = "sparse / 2"
    with pytest.raises(
        CatalogDataError, match="formula 'sparse / 2' on a figure that is not derived"
    ):
        _load(raw)


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("retrieved", "26.11.2026", "is not a date YYYY-MM-DD"),
        ("retrieved", "2026-13-01", "is not a date YYYY-MM-DD"),
        ("url", "example.com/ds.pdf", "is not an http\\(s\\) address"),
        ("kind", "blog", "kind"),
    ],
)
def test_loader_rejects_malformed_sources(field, value, problem):
    raw = _raw()
    raw["sources"]["ds"][field] = value
    with pytest.raises(CatalogDataError, match=problem):
        _load(raw)


def test_audit_finds_sources_without_url_or_date():
    raw = _raw(
        bare={"title": "Recalled", "kind": "vendor-datasheet"}, undated=_source(retrieved=None)
    )
    del raw["sources"]["undated"]["retrieved"]
    acc = raw["accelerators"][0]
    acc["memory_gb"]["source"] = "bare"
    acc["bandwidth_tbps"]["source"] = "undated"
    report = _audit.audit(_load(raw))
    assert [(f.check, f.key) for f in report.findings] == [
        ("url", "memory_gb"),
        ("url", "bandwidth_tbps"),
    ]
    assert "no URL" in report.findings[0].message
    assert "no date it was read" in report.findings[1].message
    assert [r.key for r in report.without_url] == ["memory_gb"]


def test_audit_finds_unexplained_and_unruled_figures():
    raw = _raw(blog=_source(kind="third-party"))
    tflops = raw["accelerators"][0]["tflops"]
    tflops["tf32"].update(confidence="derived")  # derived, no formula, no note
    tflops["fp8"].update(source="blog")  # third party, no note
    tflops["fp16"]["note"] = "datasheet prints the sparse rate only; halved"  # 1979 not named
    tflops["fp16"].update(formula="1979 / 2")
    del tflops["fp16"]["sparse"]
    found = _checks(raw)
    assert ("explained", "X100", "tflops.tf32") in found
    assert ("derived", "X100", "tflops.tf32") in found
    assert ("explained", "X100", "tflops.fp8") in found
    messages = {f.key: f.message for f in _audit.audit(_load(raw)).findings if f.check == "derived"}
    assert "does not name the input(s) [1979.0]" in messages["tflops.fp16"]


def test_audit_accepts_inputs_written_with_commas_or_in_other_units():
    raw = _raw()
    fig = raw["accelerators"][0]["tflops"]["fp16"]
    fig.update(formula="1979 / 2", note="1,979 TFLOPS with sparsity on the sheet, halved")
    del fig["sparse"]
    assert _checks(raw) == []
    fig.update(note="1.979 PFLOPS with sparsity on the sheet, halved")
    assert _checks(raw) == []


def test_audit_checks_board_figures_against_per_device_ones():
    raw = _raw(
        _entry(
            "K8",
            devices_per_board=2,
            memory_gb={"value": 24, "source": "ds", "per_device": 12},
            bandwidth_tbps={"value": 0.48, "source": "ds", "per_device": 0.25},
        )
    )
    assert _checks(raw) == [("board", "K8", "bandwidth_tbps")]


def test_audit_checks_mig_memory_against_the_gpu():
    mig = {
        "profile": "1g.90gb",
        "max_instances": 1,
        "compute_slices": 1,
        "memory_slices": 8,
        "memory_gb": 90,
        "sm_fraction": 0.143,
        "source": "ds",
    }
    assert _checks(_raw(_entry("X100", mig=[mig]))) == [("mig", "X100", "1g.90gb")]


def test_audit_checks_dense_below_sparse():
    raw = _raw()
    raw["accelerators"][0]["tflops"]["fp8"]["value"] = 3958
    assert ("sparse", "X100", "tflops.fp8") in _checks(raw)


def test_audit_checks_one_chips_tensor_ratios():
    a = _entry("X100", chip="GX100")
    b = copy.deepcopy(_entry("X100-PCIE", chip="GX100"))
    b["tflops"]["tf32"]["value"] = 900  # tf32 at fp16's rate: not the same die's ratios
    assert _checks(_raw(a, b)) == [("chip", "X100-PCIE", "tflops.tf32")]
    b["chip"] = "GX102"
    assert _checks(_raw(a, b)) == []


def test_audit_caps_the_unconfirmed_share():
    raw = _raw()
    raw["accelerators"][0]["memory_gb"].update(confidence="unconfirmed", note="searched X; none")
    report = _audit.audit(_load(raw))
    assert report.unconfirmed_share == pytest.approx(1 / 5)
    assert [(f.check, f.message) for f in report.findings] == [
        ("unconfirmed", "20.0% of figures unconfirmed (at most 5%)")
    ]


def test_render_lists_counts_and_findings():
    raw = _raw(blog=_source(kind="third-party"))
    raw["accelerators"][0]["tflops"]["fp8"].update(source="blog", note="vendor page not found")
    text = _audit.render(_audit.audit(_load(raw)), list_rows="third-party")
    assert "5 figures" in text
    assert "third-party              1   20.0%      1 /    0" in text
    assert "figures from third-party sources: 1 (1 sources)" in text
    assert "X100 tflops.fp8 = 1979 [source] blog: vendor page not found" in text
    assert text.endswith("OK")


# -- the commands ---------------------------------------------------------------------------------
def test_cli_catalog_audit_prints_the_report_and_exits_by_its_verdict():
    result = CliRunner().invoke(build_app(), ["catalog", "audit", "--json"])
    report = _audit.audit()
    assert result.exit_code == (0 if report.ok else 1), result.output
    assert '"by_confidence"' in result.output
    bad = CliRunner().invoke(build_app(), ["catalog", "audit", "--list", "everything"])
    assert bad.exit_code == 2
    assert "expected one of third-party, unconfirmed, derived, no-url" in bad.output


def test_benchmark_script_runs_the_same_audit():
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "catalog_audit.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    report = _audit.audit()
    assert done.returncode == (0 if report.ok else 1), done.stderr
    assert f"{len(report.figures)} figures" in done.stdout
    assert "by source kind" in done.stdout


def test_an_unconfirmed_figure_may_cite_the_unread_page_it_should_be_read_on():
    raw = _raw(
        page={
            "title": "Vendor product page",
            "url": "https://example.com/p",
            "kind": "vendor-product-page",
        }
    )
    raw["accelerators"][0]["tdp_w"] = {
        "value": 700,
        "source": "page",
        "confidence": "unconfirmed",
        "note": "searched X and Y; not found",
    }
    assert [f.check for f in _audit.audit(_load(raw)).findings] == ["unconfirmed"]
    raw["accelerators"][0]["tdp_w"]["confidence"] = "source"  # a figure read there needs the date
    assert ("url", "X100", "tdp_w") in _checks(raw)


# -- the shipped data file ------------------------------------------------------------------------
#: Issue 22's target is at most 5 % unconfirmed; catalog 2026.11.6 is at 3.0 % (24 of 791). This
#: pins the share reached so far: it may only fall (lower it when figures are confirmed).
SHIPPED_UNCONFIRMED_CEILING = 0.031


def test_every_shipped_figure_has_a_url_and_passes_every_check():
    report = _audit.audit()
    assert report.without_url == ()
    assert report.partitions_without_url == 0
    # every rule but the share of unconfirmed figures (pinned below) holds for the shipped file
    assert [f for f in report.findings if f.check != "unconfirmed"] == []


def test_shipped_unconfirmed_share_does_not_grow():
    report = _audit.audit()
    assert report.unconfirmed_share <= SHIPPED_UNCONFIRMED_CEILING, report.by_confidence
    # issue 22's bar: the audit itself reports no 'unconfirmed' finding for the shipped file
    assert not [f for f in report.findings if f.check == "unconfirmed"]


def test_shipped_derived_figures_carry_their_rule():
    report = _audit.audit()
    derived = [r for r in report.figures if r.confidence == "derived"]
    assert derived  # the file has derived figures; each must have passed the formula checks
    for acc in _store.LOADED.file().accelerators:
        for key, fig in acc.figures():
            if fig.confidence == "derived":
                assert fig.formula, f"{acc.name} {key}"
                assert acc.formula_problem(fig) is None


def test_shipped_file_rejects_a_derived_figure_edited_away_from_its_rule():
    text = (ROOT / "accelerators" / "data" / "catalog.toml").read_text(encoding="utf-8")
    raw = tomllib.loads(text)
    h100 = next(a for a in raw["accelerators"] if a["name"] == "H100-SXM")
    assert h100["tflops"]["bf16"]["formula"] == "sparse / 2"
    h100["tflops"]["bf16"]["value"] = 1979  # the sparse rate stored as dense
    with pytest.raises(CatalogDataError, match=r"H100-SXM tflops\.bf16: value 1979"):
        _load(raw)
