"""Misbehaving HTTP endpoints on 127.0.0.1, for the bench history's fault tests.

:class:`FaultServer` listens on the loopback interface only and answers every request the
same wrong way: ``hang`` accepts the connection and never answers, ``500`` answers
``500 InternalError``, ``503`` answers ``SlowDown`` (S3's throttling), ``403`` answers
``InvalidAccessKeyId`` (bad credentials), ``slow`` answers ``500`` after ``delay_s``,
``drip`` sends a ``200`` answer one byte every ``delay_s`` (never finished within any
per-read timeout). :func:`refused_url` is a loopback port where nothing
listens. Each server stops by itself: after ``lifetime_s``, after ``max_connections``
connections, or when its ``with`` block ends; every connection thread waits at most until
then. Standard library only (tests and ``benchmarks/reliability.py`` use it).
"""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType

__all__ = ["FaultServer", "refused_url"]

_MODES = ("hang", "500", "503", "403", "slow", "drip")
_ERRORS = {
    "500": ("500 Internal Server Error", "InternalError", "We encountered an internal error."),
    "slow": ("500 Internal Server Error", "InternalError", "Slow, then an internal error."),
    "503": ("503 Slow Down", "SlowDown", "Please reduce your request rate."),
    "403": (
        "403 Forbidden",
        "InvalidAccessKeyId",
        "The AWS Access Key Id you provided does not exist in our records.",
    ),
}
_MAX_HEADER = 64 * 1024
_MAX_BODY = 16 * 1024 * 1024


class FaultServer:
    """An endpoint on ``127.0.0.1`` that answers every request in one wrong way.

    :param mode: ``hang``, ``500``, ``503``, ``403``, ``slow`` or ``drip``.
    :param lifetime_s: the server stops by itself after this long.
    :param max_connections: ... or after this many connections.
    :param delay_s: how long ``slow`` waits before it answers; ``drip``, between bytes.
    """

    def __init__(
        self,
        mode: str,
        *,
        lifetime_s: float = 120.0,
        max_connections: int = 2000,
        delay_s: float = 1.0,
    ) -> None:
        if mode not in _MODES:
            raise ValueError(f"Expected a fault mode in {_MODES}, got {mode!r}")
        self.mode = mode
        self.lifetime_s = lifetime_s
        self.max_connections = max_connections
        self.delay_s = delay_s
        self.connections = 0
        self._stop = threading.Event()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self._listener.settimeout(0.2)
        self.port = self._listener.getsockname()[1]
        self._threads: list[threading.Thread] = []
        self._accepter = threading.Thread(target=self._accept, daemon=True, name="fault-accept")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FaultServer:
        self._accepter.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._accepter.join(timeout=5)
        for thread in self._threads:
            thread.join(timeout=5)
        self._listener.close()

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def _accept(self) -> None:
        end = time.monotonic() + self.lifetime_s
        while not self._stop.is_set() and time.monotonic() < end:
            if self.connections >= self.max_connections:
                break
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            self.connections += 1
            thread = threading.Thread(
                target=self._serve, args=(connection, end), daemon=True, name="fault-conn"
            )
            self._threads.append(thread)
            thread.start()
        self._stop.set()

    def _serve(self, connection: socket.socket, end: float) -> None:
        with connection:
            if self.mode == "hang":  # hold the connection open, say nothing
                self._stop.wait(max(0.0, end - time.monotonic()))
                return
            connection.settimeout(5.0)
            try:
                _read_request(connection)
            except OSError:
                return
            if self.mode == "slow" and self._stop.wait(self.delay_s):
                return
            if self.mode == "drip":
                self._drip(connection)
                return
            status, code, message = _ERRORS[self.mode]
            body = (
                '<?xml version="1.0" encoding="UTF-8"?>\n'
                f"<Error><Code>{code}</Code><Message>{message}</Message>"
                "<RequestId>fault</RequestId></Error>"
            ).encode()
            head = (
                f"HTTP/1.1 {status}\r\nContent-Type: application/xml\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            ).encode()
            try:
                connection.sendall(head + body)
            except OSError:
                return

    def _drip(self, connection: socket.socket) -> None:
        """A ``200`` that never ends: one byte of an endless header every ``delay_s``."""
        answer = b"HTTP/1.1 200 OK\r\nx-amz-request-id: " + b"d" * 100_000
        for byte in answer:
            if self._stop.wait(self.delay_s):
                return
            try:
                connection.sendall(bytes([byte]))
            except OSError:
                return


def _read_request(connection: socket.socket) -> None:
    """Read one request's headers and body (bounded), so the client sees a whole answer."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(4096)
        if not chunk or len(data) > _MAX_HEADER:
            return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            length = min(int(value.strip()), _MAX_BODY)
    while len(body) < length:
        chunk = connection.recv(min(65536, length - len(body)))
        if not chunk:
            return
        body += chunk


def refused_url() -> str:
    """``http://127.0.0.1:<port>`` where nothing listens (connections are refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"
