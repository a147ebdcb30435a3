"""An S3 client that keeps to a deadline: short timeouts, bounded retries, and an end.

botocore's timeouts are per socket operation: an endpoint that accepts a connection and then
sends a byte every second never trips them. :class:`DeadlineClient` therefore tracks the
connections its client opens and, at an operation's deadline (:func:`~._deadline.watchdog`),
shuts their sockets down, and any socket that connects after that (a request that passed the
``before-send`` check an instant before the deadline and connected an instant after) as soon
as it connects; a ``before-send`` hook refuses any request (a retry included)
once the deadline has passed, and a ``needs-retry`` hook any retry whose backoff would
outlast it. A read blocked on a silent or dripping endpoint then ends with
an error at the deadline, in whatever thread it runs, and nothing is left running.

boto3 is imported here only (extra ``[aws]``); credentials, region and endpoint come from
boto3's usual chain (``AWS_ENDPOINT_URL`` for MinIO, moto and other S3-compatible servers).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import weakref
from collections.abc import Iterator
from typing import Any

from accelerators._text import redact
from accelerators.bench.history._deadline import Deadline, HistoryTimeout, watchdog
from accelerators.bench.history._store import Limits
from accelerators.errors import AcceleratorError

__all__ = ["FETCHERS", "DeadlineClient"]

#: Requests a read runs at once.
FETCHERS = 8
#: The time a retry needs (botocore's backoff before a second try, up to a second).
_RETRY_S = 1.0


class DeadlineClient:
    """A boto3 S3 client made on first use, whose operations end at their deadline."""

    def __init__(self, location: str, limits: Limits, client: Any = None) -> None:
        self.location = location
        self.limits = limits
        self._client = client
        self._lock = threading.Lock()
        self._connections: weakref.WeakSet[Any] = weakref.WeakSet()
        #: Guards ``_connections`` and ``_expired``: a connection that connects either is
        #: seen by the watchdog's :meth:`_shut` or sees that it has run.
        self._guard = threading.Lock()
        #: The current operation's watchdog has fired.
        self._expired = False
        self._deadline: Deadline | None = None
        self._operation = threading.Lock()
        #: Requests started (attempts included) in the current operation.
        self.sent = 0

    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = self._make()
            return self._client

    @contextlib.contextmanager
    def within(self, deadline: Deadline) -> Iterator[Any]:
        """The client, for requests that must end by ``deadline`` (one operation of the store
        at a time: the next waits, within its own deadline)."""
        if not self._operation.acquire(timeout=deadline.left()):
            raise deadline.error(self.location)
        try:
            client = self.client
            self._deadline, self.sent = deadline, 0
            with self._guard:
                self._expired = False
            with watchdog(deadline, self._shut):
                yield client
        finally:
            self._deadline = None
            self._operation.release()

    def error(self, what: str, exc: BaseException, deadline: Deadline) -> AcceleratorError:
        """What to raise for ``exc``: the deadline's error once it has passed."""
        if isinstance(exc, AcceleratorError):
            return exc
        if deadline.expired:
            return deadline.error(self.location)
        return AcceleratorError(
            f"Cannot {what} the bench history {self.location}: {redact(str(exc))[:300]}"
        )

    def _make(self) -> Any:
        try:
            import boto3
            from botocore.config import Config
        except ImportError as exc:
            raise AcceleratorError(
                f'The bench history {self.location} needs boto3: pip install "accelerators[aws]"'
            ) from exc
        limits = self.limits
        config = Config(
            connect_timeout=limits.connect_timeout_s,
            read_timeout=limits.read_timeout_s,
            retries={"total_max_attempts": limits.attempts, "mode": "standard"},
            max_pool_connections=FETCHERS + 2,
        )
        try:  # its own session: boto3's default one is not safe across threads
            client = boto3.Session().client("s3", config=config)
        except Exception as exc:  # a bad region or endpoint in the environment
            raise AcceleratorError(
                f"Cannot open the bench history {self.location}: {redact(str(exc))[:300]}"
            ) from exc
        client.meta.events.register("before-send.s3", self._before_send)
        client.meta.events.register_first("needs-retry.s3", self._retry_in_time)
        self._track(client)
        return client

    def _retry_in_time(self, **_: Any) -> bool | None:
        """No retry when its backoff (botocore sleeps up to a second before the second try)
        would outlast the deadline: ``False`` vetoes it; ``None`` leaves it to botocore."""
        deadline = self._deadline
        if deadline is not None and deadline.left() < _RETRY_S:
            return False
        return None

    def _before_send(self, **_: Any) -> None:
        deadline = self._deadline
        if deadline is not None and deadline.expired:
            raise HistoryTimeout(deadline.error(self.location).args[0])
        self.sent += 1

    def _track(self, client: Any) -> None:
        """Make every connection the client opens known to :meth:`_shut` (botocore keeps its
        connection pool classes in one dict per client; without it, timeouts alone apply)."""
        try:
            classes = client._endpoint.http_session._pool_classes_by_scheme
        except AttributeError:
            return
        for scheme, base in list(classes.items()):
            classes[scheme] = _tracking(base, weakref.WeakMethod(self._connected))

    def _shut(self) -> None:
        """The watchdog's end: every open socket shut, and any that connects later too."""
        with self._guard:
            self._expired = True
            connections = list(self._connections)
        for connection in connections:
            _shut_down(connection)

    def _connected(self, connection: Any) -> None:
        """A connection has its socket: known to :meth:`_shut`, or shut now if it has run."""
        with self._guard:
            self._connections.add(connection)
            expired = self._expired
        if expired:
            _shut_down(connection)


def _shut_down(connection: Any) -> None:
    sock = getattr(connection, "sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _tracking(base: type, connected: weakref.WeakMethod[Any]) -> type:
    """``base`` (a urllib3 connection pool class) whose connections report each connect."""

    class TrackingConnection(base.ConnectionCls):  # type: ignore[name-defined,misc]
        def connect(self) -> None:
            super().connect()
            report = connected()
            if report is not None:
                report(self)

    class Tracking(base):  # type: ignore[misc]
        ConnectionCls = TrackingConnection

    TrackingConnection.__name__ = f"Tracking{TrackingConnection.__base__.__name__}"
    Tracking.__name__ = f"Tracking{base.__name__}"
    return Tracking
