"""A run's bench history: the store it appends to, the baseline it reads, and what to say
when either cannot be done. Nothing the history holds or does changes a verdict or stops a
gate: a store that cannot be read or written, or does not answer within its deadline
(:class:`~accelerators.bench.history._store.Limits`), and records that are malformed or
physically impossible each become an ``info`` reason."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TypeVar

from accelerators._text import redact
from accelerators.bench.history._baseline import Medians, OwnMedians, baselines_of
from accelerators.bench.history._open import history_store, open_store
from accelerators.bench.history._store import HistoryRead, HistoryStore
from accelerators.bench.report._models import BenchReport, Reason, ReasonCode, Severity
from accelerators.errors import AcceleratorError

__all__ = ["bounded", "open_history", "read_baselines", "record"]

Location = str | os.PathLike[str] | HistoryStore
T = TypeVar("T")
#: Records a ``history_skipped`` reason names (the count covers them all).
_NAMED = 3


def open_history(
    history: Location | bool | None, baseline: Location | None
) -> tuple[HistoryStore | None, Location | None]:
    """The store to append to (:func:`~accelerators.bench.history._open.history_store`) and the
    baseline: ``baseline`` when given, else that store.

    :raises AcceleratorError: ``history`` is neither a path nor an ``s3://`` URL, or a
        history limit in the environment is not a number.
    """
    store = history_store(history)
    return store, baseline if baseline is not None else store


def bounded(store: HistoryStore, what: str, work: Callable[[], T]) -> T:
    """``work()``, given at most the store's deadline; it runs in a daemon thread, so that a
    store that never answers is left behind instead of holding up the gate.

    :raises AcceleratorError: ``work`` failed in any way, or did not end in time.
    """
    deadline = store.limits.deadline_s
    outcome: list[object] = []
    done = threading.Event()

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # handed over to the caller below
            outcome.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, daemon=True, name="accelerators-history").start()
    if not done.wait(deadline):
        raise AcceleratorError(
            f"{store.location} did not answer within {deadline:g} s (the history's deadline, "
            "ACCELERATORS_BENCH_HISTORY_DEADLINE)"
        )
    (result,) = outcome
    if isinstance(result, AcceleratorError):
        raise result
    if isinstance(result, BaseException):  # a store of any kind fails in its own ways
        raise AcceleratorError(
            f"Cannot {what} the bench history {store.location}: "
            f"{type(result).__name__}: {redact(str(result))}"
        ) from result
    return result  # type: ignore[return-value]


def read_baselines(baseline: Location, node: str) -> tuple[Medians, OwnMedians, list[Reason]]:
    """The fleet's and this node's medians from the history
    (:func:`~accelerators.bench.history._baseline.baselines_of`), with an ``info`` reason for
    records it skipped; none and an ``info`` ``history_unavailable`` reason when it cannot be
    read."""
    try:
        store = baseline if isinstance(baseline, HistoryStore) else open_store(baseline)
        read: HistoryRead = bounded(store, "read", store.read)
    except AcceleratorError as exc:
        return {}, {}, [_unavailable(f"not read, no baseline from it: {redact(str(exc))}")]
    fleet, own = baselines_of(read.figures, node)
    return fleet, own, [_skipped(read)] if read.skipped else []


def record(store: HistoryStore, report: BenchReport) -> BenchReport:
    """Append ``report`` to ``store``; ``report`` with an ``info`` ``history_unavailable``
    reason added when the store cannot take it, in time or at all, or the report's figures
    are physically impossible (the verdict stays the device's)."""
    try:
        bounded(store, "write", lambda: store.append(report))
    except AcceleratorError as exc:
        unsaved = _unavailable(f"this report was not appended: {redact(str(exc))}")
        return report.model_copy(update={"reasons": (*report.reasons, unsaved)})
    return report


def _unavailable(what: str) -> Reason:
    return Reason(
        code=ReasonCode.HISTORY_UNAVAILABLE,
        severity=Severity.INFO,
        message=f"bench history: {what}",
    )


def _skipped(read: HistoryRead) -> Reason:
    count = len(read.skipped)
    named = "; ".join(redact(line)[:200] for line in read.skipped[:_NAMED])
    more = f"; and {count - _NAMED} more" if count > _NAMED else ""
    return Reason(
        code=ReasonCode.HISTORY_SKIPPED,
        severity=Severity.INFO,
        value=float(count),
        unit="count",
        message=f"bench history: skipped {count} record{'s' if count != 1 else ''} of "
        f"{read.records}, malformed or physically impossible, never used: {named}{more}",
    )
