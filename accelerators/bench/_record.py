"""A run's bench history: the store it appends to, the baseline it reads, and what to say
when either cannot be done (an unreachable S3 prefix must not fail a gate)."""

from __future__ import annotations

import os

from accelerators.bench._baseline import Medians, OwnMedians, history_baselines
from accelerators.bench._history import HistoryStore
from accelerators.bench._report import BenchReport, Reason, ReasonCode, Severity
from accelerators.bench._stores import history_store
from accelerators.errors import AcceleratorError

__all__ = ["open_history", "read_baselines", "record"]

Location = str | os.PathLike[str] | HistoryStore


def open_history(
    history: Location | bool | None, baseline: Location | None
) -> tuple[HistoryStore | None, Location | None]:
    """The store to append to (:func:`~accelerators.bench._stores.history_store`) and the
    baseline: ``baseline`` when given, else that store.

    :raises AcceleratorError: ``history`` is neither a path nor an ``s3://`` URL.
    """
    store = history_store(history)
    return store, baseline if baseline is not None else store


def read_baselines(baseline: Location, node: str) -> tuple[Medians, OwnMedians, list[Reason]]:
    """:func:`~accelerators.bench._baseline.history_baselines`, or none and an ``info``
    ``history_unavailable`` reason when the history cannot be read."""
    try:
        fleet, own = history_baselines(baseline, node)
    except AcceleratorError as exc:
        return {}, {}, [_unavailable(f"not read, no baseline from it: {exc}")]
    return fleet, own, []


def record(store: HistoryStore, report: BenchReport) -> BenchReport:
    """Append ``report`` to ``store``; ``report`` with an ``info`` ``history_unavailable``
    reason added when the store cannot take it (the verdict stays the device's)."""
    try:
        store.append(report)
    except AcceleratorError as exc:
        unsaved = _unavailable(f"this report was not appended: {exc}")
        return report.model_copy(update={"reasons": (*report.reasons, unsaved)})
    return report


def _unavailable(what: str) -> Reason:
    return Reason(
        code=ReasonCode.HISTORY_UNAVAILABLE,
        severity=Severity.INFO,
        message=f"bench history: {what}",
    )
