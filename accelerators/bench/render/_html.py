"""A self-contained HTML page of a report: verdict, reasons, tables and the roofline.

One string, no external URL, script or stylesheet: the chart is an inline base64 PNG, so
the page renders the same in a Flyte Deck, an Airflow view, a mail or a file on disk. Every
value that comes from the report is escaped.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from html import escape

from accelerators.bench.report._models import BenchReport

__all__ = ["html_report"]

_COLOURS = {"pass": "#2e7d32", "warn": "#ef6c00", "fail": "#c62828", "info": "#607d8b"}
_STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em;color:#212121}
h1{font-size:1.4em;margin:0 0 .3em} h2{font-size:1.1em;margin:1.2em 0 .4em}
.verdict{display:inline-block;padding:.15em .6em;border-radius:.3em;color:#fff;font-weight:700}
table{border-collapse:collapse;font-size:.9em} td,th{padding:.25em .7em;text-align:right}
th{border-bottom:2px solid #90a4ae} tr:nth-child(even){background:#eceff1}
td.l,th.l{text-align:left} .meta{color:#546e7a;font-size:.9em} img{max-width:100%}
"""


def html_report(report: BenchReport) -> str:
    """The report as one self-contained HTML document (tables plus the roofline chart).

    The chart needs matplotlib (the ``[bench]`` extra); without it the page says so and
    still holds every table.

    :param report: a benchmark report.
    :return: an HTML5 document as a string.
    """
    verdict = report.verdict.value
    device = report.device
    what = device.accelerator or device.name
    if device.is_mig:
        what += f" MIG {device.mig_profile}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>accelerators bench: {escape(verdict.upper())} - {escape(what)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f'<h1><span class="verdict" style="background:{_COLOURS.get(verdict, "#000")}">'
        f"{escape(verdict.upper())}</span> {device.count} x {escape(what)}</h1>",
        '<p class="meta">'
        + escape(
            f"profile {report.profile}, {report.elapsed_s:.1f} s, started "
            f"{report.started_at:%Y-%m-%d %H:%M:%S %Z}, host {report.host}"
            + (f", node {report.node}" if report.node else "")
            + (f", expected {report.expect}" if report.expect else "")
            + (f", matched {report.matched}" if report.matched else "")
        )
        + "</p>",
        _reasons(report),
        _chart(report),
        _gemm_table(report),
        _memory_table(report),
        _devices_table(report),
        '<p class="meta">'
        + escape(", ".join(f"{k} {v}" for k, v in sorted(report.versions.items())))
        + "</p>",
        "</body></html>",
    ]
    return "\n".join(p for p in parts if p)


def _reasons(report: BenchReport) -> str:
    if not report.reasons:
        return "<p>No findings.</p>"
    rows = [
        (
            f'<span style="color:{_COLOURS.get(r.severity.value, "#000")}">'
            f"{escape(r.severity.value)}</span>",
            escape(r.code.value),
            escape(r.message),
        )
        for r in report.reasons
    ]
    return "<h2>Findings</h2>" + _table(("severity", "code", "message"), rows, left=3)


def _chart(report: BenchReport) -> str:
    from accelerators.bench.render._plot import roofline_png

    try:
        png = roofline_png(report, dpi=96)
    except ImportError as exc:
        return f"<p><em>{escape(str(exc))}</em></p>"
    data = base64.b64encode(png).decode("ascii")
    return (
        "<h2>Roofline</h2>"
        f'<img alt="roofline: achieved FLOP/s against arithmetic intensity" '
        f'src="data:image/png;base64,{data}">'
    )


def _num(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else escape(f"{value:,.{digits}g}")


def _pct(value: float | None, of: float | None) -> str:
    return "-" if value is None or not of else f"{value / of:.0%}"


def _check(correct: bool | None) -> str:
    if correct is None:
        return "-"
    return "ok" if correct else f'<b style="color:{_COLOURS["fail"]}">MISCOMPARE</b>'


def _gemm_table(report: BenchReport) -> str:
    rows = []
    for d in report.devices:
        for g in d.gemm:
            rows.append(
                (
                    str(d.index),
                    escape(g.dtype),
                    f"{g.m}x{g.n}x{g.k}" if g.m else escape(g.status),
                    _num(g.tflops),
                    _num(g.median_tflops),
                    _num(g.peak_tflops),
                    _pct(g.median_tflops or g.tflops, g.peak_tflops),
                    _num(g.expected_tflops),
                    _check(g.correct),
                )
            )
    if not rows:
        return ""
    head = ("device", "dtype", "m x n x k", "best TFLOPS", "median", "peak", "% peak", "expected")
    return (
        "<h2>GEMM</h2><p class=meta>% peak is of the median: the figure the gate judges.</p>"
        + _table((*head, "check"), rows, left=3)
    )


def _memory_table(report: BenchReport) -> str:
    rows = []
    for d in report.devices:
        for m in d.memory:
            rows.append(
                (
                    str(d.index),
                    escape(m.kernel),
                    escape(m.operation or "-"),
                    _num(m.gbps),
                    _num(m.median_gbps),
                    _num(m.peak_gbps),
                    _pct(m.median_gbps or m.gbps, m.peak_gbps),
                    _num(m.expected_gbps),
                    _check(m.correct),
                )
            )
    if not rows:
        return ""
    head = ("device", "kernel", "operation", "best GB/s", "median", "peak", "% peak", "expected")
    return "<h2>Memory bandwidth</h2>" + _table((*head, "check"), rows, left=3)


def _devices_table(report: BenchReport) -> str:
    rows = []
    for d in report.devices:
        clocks = ", ".join(f"{k} {v:g}" for k, v in sorted(d.clocks_mhz.items()))
        rows.append(
            (
                str(d.index),
                escape(d.name),
                escape(d.accelerator or "-"),
                escape(d.mig_profile or "-"),
                _num(d.compute_units),
                escape(clocks or "-"),
                _num(d.temperature_c),
                _num(d.power_w),
                escape(", ".join(d.throttle_reasons) or "-"),
                escape(d.verdict.value),
            )
        )
    if not rows:
        return ""
    head = ("device", "name", "catalog", "MIG", "units", "clocks MHz", "°C", "W", "throttle")
    return "<h2>Devices</h2>" + _table((*head, "verdict"), rows, left=4)


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], *, left: int) -> str:
    """An HTML table; the first ``left`` columns are left-aligned. Cells are already escaped."""

    def cells(tag: str, values: Sequence[str]) -> str:
        return "".join(
            f"<{tag}{' class=l' if i < left else ''}>{v}</{tag}>" for i, v in enumerate(values)
        )

    body = "".join(f"<tr>{cells('td', row)}</tr>" for row in rows)
    return f"<table><tr>{cells('th', [escape(h) for h in head])}</tr>{body}</table>"
