"""A local HTTP server on 127.0.0.1 that answers from a script of recorded-shape responses, for
the live price refresher tests (the real endpoints are never called)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: (status, headers, body) for one request; body may be bytes or JSON-ready data.
Answer = tuple[int, dict[str, str], Any]


class Script:
    """Answers requests in order of arrival; records each request's path and body."""

    def __init__(self, answer: Callable[[str, bytes, dict[str, str]], Answer]) -> None:
        self.answer = answer
        self.requests: list[tuple[str, str, bytes, dict[str, str]]] = []
        self.base = ""


@contextmanager
def serve(answer: Callable[[str, bytes, dict[str, str]], Answer]) -> Iterator[Script]:
    script = Script(answer)

    class Handler(BaseHTTPRequestHandler):
        def _reply(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            script.requests.append((method, self.path, body, headers))
            status, extra, payload = script.answer(self.path, body, headers)
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            for key, value in {"Content-Type": "application/json", **extra}.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._reply("GET")

        def do_POST(self) -> None:
            self._reply("POST")

        def log_message(self, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    script.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield script
    finally:
        server.shutdown()
        server.server_close()
