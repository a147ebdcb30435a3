"""Why a plan has no option: the binding constraint and the nearest option, said once.

A 70B full fine-tune for $50 in one hour fits on many instances; what rules them all out is
the budget and the deadline. :func:`infeasible` says so with the figures of the nearest
options ("the cheapest option that fits costs $122 > $50; the fastest takes 1.11 h > 1 h"),
and what would make the job fit (a budget, a deadline). When nothing holds the job's memory
it names the nearest misfit (what one device would have to hold and what it has); when there
were no candidates at all, the filters that removed them, counted. When the plan was made for
a platform (``plan(platform=...)``) and options it cannot place would have met the budget and
the deadline, the platform binds, and the sentence says so first, with the cheapest of them
and why the platform cannot place it.

:func:`~accelerators.sizing.plan` keeps the sentence in :attr:`Plan.infeasible
<accelerators.sizing.Plan.infeasible>`, which :exc:`~accelerators.sizing.InfeasibleJobError`,
the summary, the JSON and the HTML say.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from accelerators.sizing._plan_rank import outside

if TYPE_CHECKING:
    from accelerators.sizing._plan_types import Plan, PlanOption

__all__ = ["infeasible"]


def infeasible(plan: Plan) -> str:
    """One sentence: what rules every option out, with the nearest ones' figures."""
    if plan.unplaceable:
        return _platform(plan)
    if plan.rejected:
        return _constraints(plan)
    misfits = [e for e in plan.excluded if e.need_gb is not None and e.have_gb]
    if misfits:
        near = min(misfits, key=lambda e: (e.need_gb or 0) / (e.have_gb or 1))
        how = near.reason.split(", ", 1)[-1]  # "even sharded over 64 devices 181.5 GB ..."
        return (
            f"nothing holds the job's {plan.memory.total_gb:.1f} GB: the nearest is {near.spec} "
            f"on {near.where}, {how}"
        )
    if not plan.excluded:
        return "no candidates: nothing matches the clouds, vendors and instances asked for"
    counts = Counter(e.reason.split(":")[0] for e in plan.excluded)
    left = ", ".join(f"{n} {why}" for why, n in sorted(counts.items()))
    return f"no candidate is left: {left}"


def _constraints(plan: Plan, *, on_platform: bool = True) -> str:
    budget, deadline = plan.budget_usd, plan.deadline_h
    near = plan.rejected
    on = f" on {plan.platform}" if plan.platform and on_platform else ""
    head = f"{len(near)} option{'s hold' if len(near) != 1 else ' holds'} the job{on}, but "
    cheapest = min(near, key=lambda o: (o.usd is None, o.usd or 0.0, o.hours))
    fastest = min(near, key=lambda o: (o.hours, o.usd or 0.0))
    over_budget = budget is not None and cheapest.usd is not None and cheapest.usd > budget
    too_slow = deadline is not None and fastest.hours > deadline
    parts = []
    if over_budget:
        parts.append(
            f"the cheapest option that fits costs ${cheapest.usd:,.2f} > ${budget:,.2f} "
            f"({_who(cheapest)}, {cheapest.hours:.3g} h)"
        )
    if too_slow:
        cost = f"${fastest.usd:,.2f}" if fastest.usd is not None else "cost unknown"
        parts.append(
            f"the fastest takes {fastest.hours:.3g} h > {deadline:g} h ({_who(fastest)}, {cost})"
        )
    if not parts:  # each constraint alone leaves options; together they leave none
        in_budget = [o for o in near if o.usd is None or budget is None or o.usd <= budget]
        in_time = [o for o in near if deadline is None or o.hours <= deadline]
        quick = min(in_budget, key=lambda o: o.hours)
        cheap = min(in_time, key=lambda o: o.usd or 0.0)
        return head + (
            f"none meets both: within ${budget:,.2f} the fastest takes {quick.hours:.3g} h > "
            f"{deadline:g} h ({_who(quick)}); within {deadline:g} h the cheapest costs "
            f"${cheap.usd or 0:,.2f} > ${budget:,.2f} ({_who(cheap)})"
        )
    return head + "; ".join(parts) + _relief(plan, over_budget, too_slow)


def _platform(plan: Plan) -> str:
    """Options that hold the job were left out as not placeable on the plan's platform: it
    binds when one of them meets the budget and the deadline (said first, with the cheapest
    and why); else the budget or the deadline binds among those it can place."""
    platform, left = plan.platform, plan.unplaceable
    within = [o for o in left if outside(o, plan.budget_usd, plan.deadline_h) is None]
    if not within and plan.rejected:
        return _constraints(plan)
    cheapest = (within or list(left))[0]  # cheapest first
    reason = next(
        (
            e.reason
            for e in plan.excluded
            if (e.where, e.spec) == (cheapest.where, str(cheapest.spec))
        ),
        f"not placeable on {platform}",
    ).split("; ")[0]
    cost = f"${cheapest.usd:,.2f}" if cheapest.usd is not None else "cost unknown"
    who = f"{_who(cheapest)} ({cost}, {cheapest.hours:.3g} h)"
    limits = " and the ".join(
        w for w, v in (("budget", plan.budget_usd), ("deadline", plan.deadline_h)) if v
    )
    if within:
        n = len(within)
        what = f"hold{'s' if n == 1 else ''} the job"
        if limits:
            what = f"{'is' if n == 1 else 'are'} within the {limits}"
        them, named = ("it", who) if n == 1 else ("them", f"the cheapest, {who},")
        text = (
            f"{n} option{'' if n == 1 else 's'} {what}, but {platform} cannot place {them}: "
            f"{named} is {reason}"
        )
    else:
        text = (
            f"the {len(left)} option{'s' if len(left) != 1 else ''} that hold the job are not "
            f"placeable on {platform}, and miss the {limits.replace(' and ', ' or ')} too: the "
            f"cheapest, {who}"
        )
    if plan.rejected:
        return f"{text}; of what {platform} can place, {_constraints(plan, on_platform=False)}"
    return f"{text}; {platform} can place no option that holds the job"


def _relief(plan: Plan, over_budget: bool, too_slow: bool) -> str:
    """What would let one option through: the budget it needs within the deadline, or the
    deadline it needs within the budget."""
    budget, deadline, near = plan.budget_usd, plan.deadline_h, plan.rejected
    if over_budget and not too_slow:
        in_time = [
            o for o in near if o.usd is not None and (deadline is None or o.hours <= deadline)
        ]
        if in_time and deadline is not None:
            least = min(o.usd or 0.0 for o in in_time)
            return f". It needs a budget of ${least:,.2f} (the cheapest within {deadline:g} h)"
        return ""
    if too_slow and not over_budget:
        in_budget = [o for o in near if budget is None or o.usd is None or o.usd <= budget]
        if in_budget and budget is not None:
            least = min(o.hours for o in in_budget)
            return f". It needs a deadline of {least:.3g} h (the fastest within ${budget:,.2f})"
    return ""


def _who(option: PlanOption) -> str:
    return f"{option.spec} on {option.where}"
