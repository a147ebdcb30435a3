"""The gate's Flyte Deck: the core's self-contained HTML report (verdict, reasons, GEMM and
bandwidth tables, the roofline) with the local-run note above it."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accelerators.bench import BenchReport

__all__ = ["report_html"]


def report_html(report: BenchReport, *, note: str = "") -> str:
    """Self-contained HTML for ``report``: :func:`accelerators.bench.html_report`.

    :param report: the gate's report.
    :param note: a line shown above the report (the local-run rule, when it applied).
    """
    from accelerators.bench import html_report

    head = f"<p><b>{html.escape(note)}</b></p>" if note else ""
    return head + html_report(report)
