"""How long the history may take: one deadline per operation, one budget per gate.

A gate's history step is its baseline read and its append, on either side of the
benchmark. :class:`Budget` gives the whole step one number of seconds
(``ACCELERATORS_BENCH_HISTORY_DEADLINE``): the read may spend at most :data:`READ_SHARE` of
it, so that the append always has the rest, and what the read spent is not given to the
append again. Each operation runs under a :class:`Deadline`, in the caller's thread:

* SQLite checks it from a progress handler and waits for locks at most until it;
* PostgreSQL and S3 requests run under a :func:`watchdog` that, at the deadline, shuts down
  the sockets the operation is blocked on, so the operation ends with an error instead of
  waiting for an endpoint that never answers or answers a byte at a time.

Nothing is left running after an operation returns: the watchdog's timer is joined, and no
store starts a thread that outlives the call (the S3 store's fetchers are joined too).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from accelerators.errors import AcceleratorError

__all__ = ["READ_SHARE", "Budget", "Deadline", "HistoryTimeout", "watchdog"]

#: The share of a gate's history budget its baseline read may use; the append has the rest.
READ_SHARE = 0.6


class HistoryTimeout(AcceleratorError):
    """A history operation that did not end within its deadline."""


class Deadline:
    """A moment on the monotonic clock that an operation must end by.

    :param seconds: from now.
    :param budget_s: the deadline's name in messages (the gate's whole budget), when it is a
        share of one.
    """

    def __init__(self, seconds: float, *, budget_s: float | None = None) -> None:
        self.seconds = max(0.0, seconds)
        self.budget_s = self.seconds if budget_s is None else budget_s
        self.end = time.monotonic() + self.seconds

    def left(self) -> float:
        """Seconds left, never below 0."""
        return max(0.0, self.end - time.monotonic())

    @property
    def expired(self) -> bool:
        return time.monotonic() >= self.end

    def error(self, location: str, last: str = "") -> HistoryTimeout:
        """:param last: what the store last answered, when it answered something other than
        our own stop at the deadline (SQLite's "database is locked" tried until then)."""
        said = f"; its last answer: {last}" if last else ""
        return HistoryTimeout(
            f"{location} did not answer within {self.budget_s:g} s (the history's deadline, "
            f"ACCELERATORS_BENCH_HISTORY_DEADLINE){said}"
        )

    def check(self, location: str) -> float:
        """Seconds left; past the deadline, :class:`HistoryTimeout`."""
        left = self.end - time.monotonic()
        if left <= 0:
            raise self.error(location)
        return left


class Budget:
    """One gate's history step: ``seconds`` for its read and its append together."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.spent = 0.0

    def left(self) -> float:
        return max(0.0, self.seconds - self.spent)

    @contextmanager
    def read(self) -> Iterator[Deadline]:
        """The baseline read's deadline: at most :data:`READ_SHARE` of the budget."""
        share = max(0.0, READ_SHARE * self.seconds - self.spent)
        with self._spending(min(share, self.left())) as deadline:
            yield deadline

    @contextmanager
    def append(self) -> Iterator[Deadline]:
        """The append's deadline: whatever the budget has left."""
        with self._spending(self.left()) as deadline:
            yield deadline

    @contextmanager
    def _spending(self, seconds: float) -> Iterator[Deadline]:
        start = time.monotonic()
        try:
            yield Deadline(seconds, budget_s=self.seconds)
        finally:
            self.spent += time.monotonic() - start


@contextmanager
def watchdog(deadline: Deadline, on_expiry: Callable[[], None]) -> Iterator[None]:
    """Call ``on_expiry`` (from a timer thread) if the block is still running at the
    deadline; the timer is cancelled and joined when the block ends, whichever comes first."""
    timer = threading.Timer(deadline.left(), on_expiry)
    timer.daemon = True
    timer.name = "accelerators-history-watchdog"
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()
