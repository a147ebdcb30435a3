"""A plan as a self-contained HTML fragment: the job, the ranking, the sources, what was left out.

Shown in a Flyte Deck by ``dags/flyte_finetune.py`` and pushed to XCom by
``dags/airflow_finetune.py``; plain HTML with inline styles, no script, no external file.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accelerators.sizing._plan import Plan

__all__ = ["plan_html"]

_STYLE = "font-family:sans-serif;font-size:13px;border-collapse:collapse"
_CELL = "padding:2px 8px;border-bottom:1px solid #ddd"


def plan_html(plan: Plan, *, top: int = 10) -> str:
    """The plan: summary, work and memory, the first ``top`` choices, sources and exclusions."""
    e = html.escape
    shape, work, memory = plan.model, plan.flops, plan.memory
    limits = []
    if plan.budget_usd is not None:
        limits.append(f"budget ${plan.budget_usd:,.2f}")
    if plan.deadline_h is not None:
        limits.append(f"deadline {plan.deadline_h:g} h")
    parts = [
        f"<h3>Plan: {e(plan.summary())}</h3>",
        "<ul>",
        f"<li>model: {e(shape.name or 'unnamed')}, {shape.params:,} parameters; "
        f"{e(plan.method)} in {e(plan.dtype)}</li>",
        f"<li>work: {work.hardware_flops:.3g} FLOPs on {work.tokens:.3g} tokens "
        f"({work.factor:.2f} x params x tokens; {e('; '.join(work.notes))})</li>",
        f"<li>memory: {memory.total_gb:.1f} GB ("
        + e(", ".join(f"{n} {gb:.2f}" for n, gb in memory.components()))
        + ")</li>",
        f"<li>speed: achievable TFLOPS per device x {plan.efficiency:.2f} training efficiency; "
        + e(f"fleet baseline: {plan.fleet}" if plan.fleet else "no bench history read")
        + "</li>",
        f"<li>ranked by {e(plan.rank_by)}"
        + (f" ({e(', '.join(limits))})" if limits else "")
        + "</li>",
        "</ul>",
        f'<table style="{_STYLE}"><tr>',
    ]
    headers = ("#", "Spec", "Where", "Layout", "GB/dev", "TFLOPS", "From", "Hours", "USD", "USD/h")
    parts += [f'<th style="{_CELL}">{h}</th>' for h in headers]
    parts.append("</tr>")
    for option in plan.options[:top]:
        t = option.throughput
        cells = (
            str(option.rank),
            str(option.spec),
            option.where,
            option.layout,
            f"{option.memory_per_device_gb:.1f}/{option.capacity_gb:g}",
            f"{t.achievable_tflops:.0f}",
            t.source,
            f"{option.hours:.3g}",
            "-" if option.usd is None else f"{option.usd:,.2f}",
            "-" if option.usd_per_hour is None else f"{option.usd_per_hour:.2f}",
        )
        parts.append("<tr>" + "".join(f'<td style="{_CELL}">{e(c)}</td>' for c in cells) + "</tr>")
    parts.append("</table><ul>")
    sources = {o.throughput.accelerator: o.throughput.detail for o in plan.options[:top]}
    parts += [f"<li>{e(acc)}: {e(detail)}</li>" for acc, detail in sources.items()]
    for option in plan.options[:top]:
        parts += [f"<li>#{option.rank}: {e(note)}</li>" for note in option.notes]
    if plan.excluded:
        parts.append(f"<li>{len(plan.excluded)} choices left out, for example: ")
        parts.append(e("; ".join(f"{x.where}: {x.reason}" for x in plan.excluded[:5])))
        parts.append("</li>")
    parts.append("</ul>")
    return "\n".join(parts)
