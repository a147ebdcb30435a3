"""How a plan orders its options and which it leaves out: cost or time, budget and deadline.

Costs or times equal to three significant figures are ties, broken by the other; an option
over the budget or past the deadline is left out with its reason (and kept as a near miss,
:attr:`Plan.rejected`, for :func:`~accelerators.sizing._plan_explain.infeasible`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accelerators.sizing._plan_types import PlanOption

__all__ = ["RANKINGS", "outside", "ranking", "with_rank"]

RANKINGS: tuple[str, ...] = ("cost", "time")


def outside(option: PlanOption, budget: float | None, deadline: float | None) -> str | None:
    """Why ``option`` misses the deadline or the budget (total hours and cost), else ``None``."""
    if deadline is not None and option.hours > deadline:
        return f"past the deadline: {option.hours:.3g} h > {deadline:g} h"
    if budget is not None and option.usd is not None and option.usd > budget:
        return f"over budget: ${option.usd:,.2f} > ${budget:,.2f}"
    return None


def ranking(rank_by: str) -> Callable[[PlanOption], tuple[Any, ...]]:
    """The sort key of ``cost`` (total USD, then hours; unpriced last) or ``time`` (hours, then
    USD)."""

    def by_cost(o: PlanOption) -> tuple[Any, ...]:
        return (o.usd is None, _sig(o.usd or 0.0), o.hours, str(o.spec), o.where)

    def by_time(o: PlanOption) -> tuple[Any, ...]:
        return (_sig(o.hours), o.usd is None, o.usd or 0.0, str(o.spec), o.where)

    return by_cost if rank_by == "cost" else by_time


def with_rank(option: PlanOption, rank: int) -> PlanOption:
    """``option`` with its place in the ranking."""
    return replace(option, rank=rank)


def _sig(value: float) -> float:
    """Three significant figures: costs or times that close are ties, broken by the other."""
    return float(f"{value:.3g}")
