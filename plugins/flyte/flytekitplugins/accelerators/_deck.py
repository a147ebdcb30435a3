"""The gate's Flyte Deck: the verdict, the reasons, the GEMM and stream tables and the chart.

:func:`report_html` uses ``accelerators.bench.html_report`` when the core has it, so the
Deck follows the core's own rendering; until then it renders the report's fields here.
"""

from __future__ import annotations

import base64
import html
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accelerators.bench import BenchReport

__all__ = ["report_html"]


def report_html(report: BenchReport, *, note: str = "") -> str:
    """Self-contained HTML for ``report`` (tables and the roofline-style bar chart).

    :param report: the gate's report.
    :param note: a line shown above the report (the local-run rule, when it applied).
    """
    from accelerators import bench

    core = getattr(bench, "html_report", None)
    body = core(report) if callable(core) else _render(report)
    head = f"<p><b>{html.escape(note)}</b></p>" if note else ""
    return head + str(body)


def _render(report: BenchReport) -> str:
    device = report.device
    parts = [
        f"<h3>Accelerator gate: {html.escape(str(report.verdict))}</h3>",
        _table(
            ["expected", "matched", "device", "node", "host", "profile", "elapsed"],
            [
                [
                    report.expect or "anything",
                    report.matched or "",
                    f"{device.count} x {device.accelerator or device.name}",
                    report.node or "(not in Kubernetes)",
                    report.host,
                    report.profile,
                    f"{report.elapsed_s:.1f} s",
                ]
            ],
        ),
    ]
    if report.reasons:
        parts.append("<h4>Reasons</h4>")
        parts.append(
            _table(
                ["severity", "code", "message"],
                [[str(r.severity), str(r.code), r.message] for r in report.reasons],
            )
        )
    parts.append("<h4>GEMM</h4>")
    parts.append(
        _table(
            ["dtype", "device", "shape", "TFLOPS", "peak", "correct"],
            [
                [
                    g.dtype,
                    g.device_index,
                    f"{g.m}x{g.n}x{g.k}" if g.m else "",
                    _num(g.tflops),
                    _num(g.peak_tflops),
                    g.correct,
                ]
                for g in report.gemm
            ],
        )
    )
    parts.append("<h4>Memory bandwidth</h4>")
    parts.append(
        _table(
            ["kernel", "device", "GB/s", "expected", "peak", "correct"],
            [
                [
                    m.kernel,
                    m.device_index,
                    _num(m.gbps),
                    _num(m.expected_gbps),
                    _num(m.peak_gbps),
                    m.correct,
                ]
                for m in report.memory
            ],
        )
    )
    parts.append(_chart(report))
    return "\n".join(parts)


def _chart(report: BenchReport) -> str:
    from accelerators.bench import plot_report

    try:
        with tempfile.TemporaryDirectory() as folder:
            path = plot_report(report, Path(folder) / "gate.png")
            data = base64.b64encode(path.read_bytes()).decode("ascii")
    except ImportError as exc:  # matplotlib missing: the tables still say everything
        return f"<p>(no chart: {html.escape(str(exc))})</p>"
    return f'<img alt="GEMM and bandwidth against datasheet" src="data:image/png;base64,{data}">'


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:,.2f}"


def _table(header: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table border='1'><tr>{head}</tr>{body}</table>"
