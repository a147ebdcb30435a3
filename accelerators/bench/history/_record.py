"""A run's bench history step: the baseline it reads, the report it appends, one budget.

:class:`HistoryStep` is all a run does with the history. Its read asks the store for the
newest :data:`FLEET_REPORTS` summaries of each accelerator the run is about to measure and
the newest :data:`OWN_REPORTS` of its own node (indexed queries: the cost does not grow with
the history), and after the benchmark it appends the report. Both share one budget,
:attr:`Limits.deadline_s <accelerators.bench.history._store.Limits>`
(``ACCELERATORS_BENCH_HISTORY_DEADLINE``): the read may use
:data:`~._deadline.READ_SHARE` of it, the append the rest (:class:`~._deadline.Budget`).

Nothing the history holds or does changes a verdict or stops a gate: a store that cannot be
read or written, or not within the budget, and records that are malformed or physically
impossible each become an ``info`` reason. A report is said to be "not appended" only when
it is known not to be (the transaction was rolled back, the store refused it); when the
store stopped answering after it was sent, the reason says it may be stored.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from accelerators._text import printable, redact
from accelerators.bench.history._baseline import Medians, OwnMedians, own_medians
from accelerators.bench.history._deadline import Budget
from accelerators.bench.history._fleet import newest_medians
from accelerators.bench.history._open import history_store, open_store
from accelerators.bench.history._store import (
    HistoryRead,
    HistoryStore,
    Limits,
    Query,
    Unconfirmed,
)
from accelerators.bench.report._models import BenchReport, Reason, ReasonCode, Severity
from accelerators.errors import AcceleratorError

__all__ = ["FLEET_REPORTS", "OWN_REPORTS", "HistoryStep", "open_history", "record"]

Location = str | os.PathLike[str] | HistoryStore
#: Summaries a gate's fleet baseline reads per accelerator: the newest (a 1,000-node fleet
#: gating a few times a day makes ~2,000 a day; 512 of them cover ~400 nodes, enough for a
#: median, and cost the same at a thousand reports or a million).
FLEET_REPORTS = 512
#: Summaries of its own node a gate reads (its own medians, a CPU's thread choices).
OWN_REPORTS = 64
#: Records a ``history_skipped`` reason names (the count covers them all).
_NAMED = 3


def open_history(
    history: Location | bool | None, baseline: Location | None
) -> tuple[HistoryStore | None, Location | None]:
    """The store to append to (:func:`~accelerators.bench.history._open.history_store`) and the
    baseline: ``baseline`` when given, else that store.

    :raises AcceleratorError: ``history`` is not a path, ``postgresql://`` or ``s3://`` URL,
        or a history limit in the environment is not a number.
    """
    store = history_store(history)
    return store, baseline if baseline is not None else store


class HistoryStep:
    """One run's baseline read and append, within one budget (module docstring)."""

    def __init__(self, store: HistoryStore | None, baseline: Location | None) -> None:
        self.store = store
        self.baseline = baseline
        self.reasons: list[Reason] = []
        self.own: list[dict[str, Any]] = []
        limits = (store.limits if store is not None else None) or _limits_of(baseline)
        self.budget = Budget(limits.deadline_s)

    def read(self, node: str, accelerators: Iterable[str]) -> tuple[Medians, OwnMedians]:
        """The fleet's medians (:func:`~._fleet.newest_medians`) and this node's
        (:func:`~._baseline.own_medians`); an ``info`` reason for records skipped, or for a
        history that could not be read.
        This node's summaries are kept in :attr:`own` (a CPU's thread priors read them)."""
        if self.baseline is None and self.store is None:
            return {}, {}
        where: Location = self.baseline if self.baseline is not None else self.store  # type: ignore[assignment]
        queries = [Query(accelerators=(a,), limit=FLEET_REPORTS) for a in sorted(set(accelerators))]
        queries.append(Query(nodes=(node,), limit=OWN_REPORTS))
        mine = Query(nodes=(node,), limit=OWN_REPORTS)
        try:
            store = where if isinstance(where, HistoryStore) else open_store(where)
            store.warm()  # its driver's import is this process's work, not the store's
            with self.budget.read() as deadline:
                reads = store.queries(queries, deadline=deadline)
                if self.store is not None and self.store is not store:
                    # The thread priors come from the store this run appends to.
                    (priors,) = self.store.queries([mine], deadline=deadline)
                else:
                    priors = reads[-1]
        except AcceleratorError as exc:
            self.reasons.append(_unavailable(f"not read, no baseline from it: {_said(exc)}"))
            return {}, {}
        fleet, own = HistoryRead(), reads[-1]
        for read in reads[:-1]:
            fleet = fleet.merged(read, len(fleet.summaries) + len(read.summaries))
        skipped = list(dict.fromkeys(fleet.skipped + own.skipped))
        if skipped:
            used = {s.where for s in (*fleet.summaries, *own.summaries)}
            self.reasons.append(
                _skipped(HistoryRead(records=len(used) + len(skipped), skipped=skipped))
            )
        self.own = [s.as_report() for s in reversed(priors.summaries)]
        return newest_medians(fleet.summaries), own_medians(own.figures, node)

    def record(self, report: BenchReport) -> BenchReport:
        """Append ``report`` (when there is a store); ``report`` with this step's reasons
        added, and one more when the store did not take it."""
        reasons = list(self.reasons)
        if self.store is not None:
            try:
                self.store.warm()
                with self.budget.append() as deadline:
                    self.store.append(report, deadline=deadline)
            except Unconfirmed as exc:
                reasons.append(
                    _unavailable(f"this report may not have been appended: {_said(exc)}")
                )
            except AcceleratorError as exc:
                reasons.append(_unavailable(f"this report was not appended: {_said(exc)}"))
        if not reasons:
            return report
        return report.model_copy(update={"reasons": (*report.reasons, *reasons)})


def record(store: HistoryStore, report: BenchReport) -> BenchReport:
    """Append ``report`` to ``store`` within the store's deadline (:class:`HistoryStep`)."""
    return HistoryStep(store, None).record(report)


def _limits_of(baseline: Location | None) -> Limits:
    if isinstance(baseline, HistoryStore):
        return baseline.limits
    return Limits.from_env()


def _said(exc: BaseException) -> str:
    return printable(redact(str(exc)), 600)


def _unavailable(what: str) -> Reason:
    return Reason(
        code=ReasonCode.HISTORY_UNAVAILABLE,
        severity=Severity.INFO,
        message=f"bench history: {what}",
    )


def _skipped(read: HistoryRead) -> Reason:
    count = len(read.skipped)
    named = "; ".join(printable(redact(line), 200) for line in read.skipped[:_NAMED])
    more = f"; and {count - _NAMED} more" if count > _NAMED else ""
    return Reason(
        code=ReasonCode.HISTORY_SKIPPED,
        severity=Severity.INFO,
        value=float(count),
        unit="count",
        message=f"bench history: skipped {count} record{'s' if count != 1 else ''} of "
        f"{read.records}, malformed or physically impossible, never used: {named}{more}",
    )
