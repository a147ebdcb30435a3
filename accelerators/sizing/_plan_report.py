"""A plan as a self-contained HTML fragment: the job, the ranking, the sources, what was left out.

Shown in a Flyte Deck by ``dags/flyte_finetune.py`` and pushed to XCom by
``dags/airflow_finetune.py``; plain HTML with inline styles, no script, no external file.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from accelerators.sizing._plan_explain import infeasible, legend

if TYPE_CHECKING:
    from accelerators.sizing._plan import Plan

__all__ = ["clouds_note", "plan_dict", "plan_html", "platform_note", "startup_note"]

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


def plan_dict(plan: Plan) -> dict[str, Any]:
    """A JSON-ready dict of the whole plan: :meth:`Plan.to_dict`."""
    return {
        "model": {"name": plan.model.name, "params": plan.model.params},
        "method": plan.method,
        "dtype": plan.dtype,
        "rank_by": plan.rank_by,
        "budget_usd": plan.budget_usd,
        "deadline_h": plan.deadline_h,
        "tokens": plan.flops.tokens,
        "model_flops": plan.flops.model_flops,
        "hardware_flops": plan.flops.hardware_flops,
        "time_factor": plan.flops.time_factor,
        "flops_notes": list(plan.flops.notes),
        "memory_gb": plan.memory.total_gb,
        "memory": dict(plan.memory.components()),
        "memory_notes": list(plan.memory.notes),
        "efficiency": plan.efficiency,
        "fleet": plan.fleet,
        "clouds": list(plan.clouds),
        "platform": plan.platform,
        "startup_min": plan.startup_min,
        "infeasible": None if plan.options else infeasible(plan),
        "legend": legend(o.spec for o in plan.options),
        "best": plan.best.to_dict() if plan.best else None,
        "options": [o.to_dict() for o in plan.options],
        "excluded": [{"where": e.where, "spec": e.spec, "reason": e.reason} for e in plan.excluded],
        "summary": plan.summary(),
    }


def startup_note(plan: Plan) -> str:
    """How start-up is counted in ``plan``: given, or each offer's sourced default."""
    if plan.startup_min is not None:
        return f"{plan.startup_min:g} min per option, as given; in the hours and the cost"
    return "provisioning, image pull, model load, first checkpoint: each offer's sourced default"


def platform_note(plan: Plan) -> str:
    """The platform the plan was made for, its nodes' cloud, and what it could not place."""
    if plan.platform is None:
        return "any: options not judged by where their pods run"
    from accelerators.sizing._plan_platform import platform_cloud

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
