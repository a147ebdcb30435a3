"""A plan as a self-contained HTML fragment: the job, the ranking, the sources, what was left out.

:func:`plan_html` (public as :func:`accelerators.sizing.plan_html`) is to a
:class:`~accelerators.sizing.Plan` what :func:`~accelerators.bench.html_report` is to a bench
report: a view above the data, which never imports it back. Shown in a Flyte Deck by
``dags/flyte_finetune.py`` and pushed to XCom by ``dags/airflow_finetune.py``; plain HTML with
inline styles, no script, no external file. The notes (:func:`clouds_note`,
:func:`platform_note`, :func:`startup_note`) are the lines the CLI and the templates print too.
"""

from __future__ import annotations

import html

from accelerators.sizing._plan_platform import platform_cloud
from accelerators.sizing._plan_types import Plan, legend

__all__ = ["clouds_note", "plan_html", "platform_note", "startup_note"]

_STYLE = "font-family:sans-serif;font-size:13px;border-collapse:collapse"
_CELL = "padding:2px 8px;border-bottom:1px solid #ddd"


def plan_html(plan: Plan, *, top: int = 10) -> str:
    """``plan`` as a self-contained HTML fragment (Flyte Decks, Airflow XCom): its summary,
    work and memory, the first ``top`` options with their sources, and what was left out.

    >>> from accelerators.sizing import plan, plan_html
    >>> page = plan_html(plan(7e9, "lora", tokens=1e8, clouds=["hf"], history=False), top=3)
    >>> page.startswith("<h3>Plan: lora of 7B params"), "<script" in page
    (True, False)
    """
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
        f"<li>clouds considered: {e(clouds_note(plan))}</li>",
        f"<li>platform: {e(platform_note(plan))}</li>",
        f"<li>start-up: {e(startup_note(plan))}</li>",
        "</ul>",
    ]
    parts.append(f'<table style="{_STYLE}"><tr>')
    headers = (
        "#",
        "Spec",
        "Where",
        "Layout",
        "GB/dev",
        "TFLOPS",
        "From",
        "Tokens/s",
        "per device",
        "Start-up min",
        "Hours",
        "USD",
        "USD/h",
    )
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
            f"{option.tokens_per_s:,.0f}",
            f"{option.tokens_per_s_per_device:,.0f}",
            f"{option.startup.minutes:.1f}",
            f"{option.hours:.3g}",
            "-" if option.usd is None else f"{option.usd:,.2f}",
            "-" if option.usd_per_hour is None else f"{option.usd_per_hour:.2f}",
        )
        parts.append("<tr>" + "".join(f'<td style="{_CELL}">{e(c)}</td>' for c in cells) + "</tr>")
    parts.append("</table><ul>")
    exact = legend(o.spec for o in plan.options[:top])
    if exact:
        parts.append(f"<li>{e(exact)}</li>")
    sources = {o.throughput.accelerator: o.throughput.detail for o in plan.options[:top]}
    parts += [f"<li>{e(acc)}: {e(detail)}</li>" for acc, detail in sources.items()]
    offers = {o.startup.offer: o.startup for o in plan.options[:top]}
    parts += [
        f"<li>start-up, {e(k)}: {e(s.source)} ({e(s.confidence)})</li>" for k, s in offers.items()
    ]
    for option in plan.options[:top]:
        parts += [f"<li>#{option.rank}: {e(note)}</li>" for note in option.notes]
    if plan.excluded:
        parts.append(f"<li>{len(plan.excluded)} choices left out, for example: ")
        parts.append(e("; ".join(f"{x.where}: {x.reason}" for x in plan.excluded[:5])))
        parts.append("</li>")
    parts.append("</ul>")
    return "\n".join(parts)


def startup_note(plan: Plan) -> str:
    """How start-up is counted in ``plan``: given, or each offer's sourced default."""
    if plan.startup_min is not None:
        return f"{plan.startup_min:g} min per option, as given; in the hours and the cost"
    return "provisioning, image pull, model load, first checkpoint: each offer's sourced default"


def platform_note(plan: Plan) -> str:
    """The platform the plan was made for, its nodes' cloud, and what it could not place."""
    if plan.platform is None:
        return "any: options not judged by where their pods run"
    cloud = platform_cloud(plan.platform)
    nodes = f" (its nodes are {cloud} instances)" if cloud else ""
    left = len(plan.unplaceable)
    if not left:
        return f"{plan.platform}{nodes}: it can place every option"
    return (
        f"{plan.platform}{nodes}: {left} option{'s' if left != 1 else ''} it cannot place left out"
    )


def clouds_note(plan: Plan) -> str:
    """The clouds the plan searched: those with a priced instance, and those without."""
    if not plan.clouds:
        return "none (your inventory only)"
    unpriced = ("a fraction of one device", "no on-demand price known", "no spot price known")
    priced = {o.cloud for o in (*plan.options, *plan.rejected)}
    priced |= {e.where.split()[0] for e in plan.excluded if e.reason not in unpriced}
    have = [c for c in plan.clouds if c in priced]
    lack = [c for c in plan.clouds if c not in priced]
    return ", ".join(have or ["none"]) + (
        f"; no priced instance on {', '.join(lack)}" if lack else ""
    )
