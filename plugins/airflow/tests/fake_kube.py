"""A Kubernetes API server on 127.0.0.1 for tests: the client libraries talk HTTP to it.

``KubernetesPodOperator`` (sync: the ``kubernetes`` client over urllib3; deferrable: its
trigger, ``kubernetes_asyncio`` over aiohttp) runs unchanged against it: creating, listing,
reading, patching and deleting pods, reading logs and events, and ``exec`` into the XCom
sidecar over a WebSocket (``v4.channel.k8s.io``: channel-prefixed binary frames). Nothing of
the provider or of Airflow is patched.

Each pod created is run by :attr:`FakeKube.outcome`: it is scheduled on a node, its base
container exits with a code, and its sidecar serves a report as ``return.json``. The pods
sent are kept (camelCase, as the client serialised them) in :attr:`FakeKube.created`.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import yaml

_WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_SIDECAR = "airflow-xcom-sidecar"
_TIME = "2026-01-01T00:00:00Z"


@dataclass
class Outcome:
    """How a created pod runs: its node, its base container's exit code, its XCom."""

    node: str
    exit_code: int = 0
    xcom: Any = None
    logs: str = "fake pod ran\n"


class FakeKube:
    """The fake API server; ``outcome(pod, index)`` decides how the ``index``-th pod runs."""

    def __init__(self, outcome: Callable[[dict[str, Any], int], Outcome]) -> None:
        self.outcome = outcome
        self.created: list[dict[str, Any]] = []
        self.requests: list[tuple[float, str, str]] = []
        self._pods: dict[tuple[str, str], dict[str, Any]] = {}
        self._runs: dict[tuple[str, str], Outcome] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeKube:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def kubeconfig(self, path: Path) -> Path:
        """Write a kubeconfig that points the clients at this server."""
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
            "users": [{"name": "fake", "user": {"token": "fake-token"}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake"}}],
            "current-context": "fake",
        }
        path.write_text(yaml.safe_dump(config))
        return path

    # -- pods ------------------------------------------------------------------------------
    def create(self, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            name = body["metadata"]["name"]
            self.created.append(copy.deepcopy(body))
            run = self.outcome(body, len(self.created) - 1)
            pod = copy.deepcopy(body)
            pod["metadata"].setdefault("namespace", namespace)
            pod["metadata"]["uid"] = f"uid-{len(self.created)}"
            pod["metadata"]["creationTimestamp"] = _TIME
            pod["spec"]["nodeName"] = run.node
            self._pods[(namespace, name)] = pod
            self._runs[(namespace, name)] = run
            self._set_status(pod, run, sidecar_running=True)
            return copy.deepcopy(pod)

    def _set_status(self, pod: dict[str, Any], run: Outcome, *, sidecar_running: bool) -> None:
        done = {
            "terminated": {
                "exitCode": run.exit_code,
                "reason": "Completed" if run.exit_code == 0 else "Error",
                "startedAt": _TIME,
                "finishedAt": _TIME,
            }
        }
        statuses = []
        for container in pod["spec"]["containers"]:
            state: dict[str, Any] = done
            if container["name"] == _SIDECAR and sidecar_running:
                state = {"running": {"startedAt": _TIME}}
            elif container["name"] == _SIDECAR:
                state = {
                    "terminated": {
                        "exitCode": 0,
                        "reason": "Completed",
                        "startedAt": _TIME,
                        "finishedAt": _TIME,
                    }
                }
            statuses.append(
                {
                    "name": container["name"],
                    "image": container.get("image", "i"),
                    "imageID": "",
                    "ready": "running" in state,
                    "restartCount": 0,
                    "state": state,
                }
            )
        if sidecar_running and any(c["name"] == _SIDECAR for c in pod["spec"]["containers"]):
            phase = "Running"
        else:
            phase = "Succeeded" if run.exit_code == 0 else "Failed"
        pod["status"] = {"phase": phase, "containerStatuses": statuses, "startTime": _TIME}

    def get(self, namespace: str, name: str) -> dict[str, Any] | None:
        with self._lock:
            pod = self._pods.get((namespace, name))
            return copy.deepcopy(pod) if pod else None

    def listed(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        with self._lock:
            pods = [p for (ns, _), p in self._pods.items() if ns == namespace]
            return [copy.deepcopy(p) for p in pods if _selects(selector, p)]

    def patch(self, namespace: str, name: str, body: dict[str, Any]) -> dict[str, Any] | None:
        with self._lock:
            pod = self._pods.get((namespace, name))
            if pod is None:
                return None
            labels = (body.get("metadata") or {}).get("labels") or {}
            pod["metadata"].setdefault("labels", {}).update(labels)
            return copy.deepcopy(pod)

    def delete(self, namespace: str, name: str) -> dict[str, Any] | None:
        with self._lock:
            return self._pods.pop((namespace, name), None)

    def stop_sidecar(self, namespace: str, name: str) -> None:
        with self._lock:
            pod = self._pods.get((namespace, name))
            if pod is not None:
                self._set_status(pod, self._runs[(namespace, name)], sidecar_running=False)

    def xcom(self, namespace: str, name: str) -> Any:
        with self._lock:
            return self._runs[(namespace, name)].xcom

    def logs(self, namespace: str, name: str) -> str:
        with self._lock:
            return self._runs[(namespace, name)].logs


def _selects(selector: str, pod: dict[str, Any]) -> bool:
    labels = pod["metadata"].get("labels") or {}
    for part in filter(None, (p.strip() for p in selector.split(","))):
        if "!=" in part:
            key, value = part.split("!=", 1)
            if labels.get(key) == value:
                return False
        elif "=" in part:
            key, value = part.split("==", 1) if "==" in part else part.split("=", 1)
            if labels.get(key) != value:
                return False
        elif part.startswith("!"):
            if part[1:] in labels:
                return False
        elif part not in labels:
            return False
    return True


def _status(code: int, reason: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "reason": reason,
        "code": code,
    }


def _handler(kube: FakeKube) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet
            return

        def _send(self, code: int, body: Any, content_type: str = "application/json") -> None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            return json.loads(self.rfile.read(length) or b"{}") if length else {}

        def _route(self) -> tuple[str, str | None, str | None, dict[str, list[str]]]:
            url = urlparse(self.path)
            parts = url.path.strip("/").split("/")
            # api/v1/namespaces/<ns>/<kind>[/<name>[/<sub>]]
            namespace = parts[3] if len(parts) > 3 else ""
            name = parts[5] if len(parts) > 5 else None
            sub = parts[6] if len(parts) > 6 else None
            kind = parts[4] if len(parts) > 4 else ""
            return f"{kind}/{sub or ''}", namespace, name, parse_qs(url.query)

        def do_POST(self) -> None:
            route, namespace, _, _ = self._route()
            kube.requests.append((time.monotonic(), "POST", self.path))
            if route == "pods/":
                self._send(201, kube.create(namespace or "default", self._body()))
                return
            self._send(404, _status(404, "NotFound"))

        def do_PATCH(self) -> None:
            _, namespace, name, _ = self._route()
            kube.requests.append((time.monotonic(), "PATCH", self.path))
            pod = kube.patch(namespace or "", name or "", self._body())
            self._send(200 if pod else 404, pod or _status(404, "NotFound"))

        def do_DELETE(self) -> None:
            _, namespace, name, _ = self._route()
            kube.requests.append((time.monotonic(), "DELETE", self.path))
            self._body()
            pod = kube.delete(namespace or "", name or "")
            self._send(200 if pod else 404, pod or _status(404, "NotFound"))

        def do_GET(self) -> None:
            route, namespace, name, query = self._route()
            kube.requests.append((time.monotonic(), "GET", self.path))
            ns = namespace or "default"
            if route == "pods/exec" and self.headers.get("Upgrade", "").lower() == "websocket":
                self._exec(ns, name or "", query)
                return
            if route == "pods/" and name is None:
                selector = (query.get("labelSelector") or [""])[0]
                self._send(
                    200,
                    {
                        "kind": "PodList",
                        "apiVersion": "v1",
                        "metadata": {},
                        "items": kube.listed(ns, selector),
                    },
                )
            elif route == "pods/" and name:
                pod = kube.get(ns, name)
                self._send(200 if pod else 404, pod or _status(404, "NotFound"))
            elif route == "pods/log" and name:
                self._send(200, kube.logs(ns, name).encode(), "text/plain")
            elif route.startswith("events/"):
                self._send(
                    200, {"kind": "EventList", "apiVersion": "v1", "metadata": {}, "items": []}
                )
            else:
                self._send(404, _status(404, "NotFound"))

        # -- exec over a WebSocket -----------------------------------------------------------
        def _exec(self, namespace: str, name: str, query: dict[str, list[str]]) -> None:
            key = self.headers["Sec-WebSocket-Key"]
            accept = base64.b64encode(hashlib.sha1((key + _WS_GUID).encode()).digest()).decode()
            self.send_response(101, "Switching Protocols")
            self.send_header("Upgrade", "websocket")
            self.send_header("Connection", "Upgrade")
            self.send_header("Sec-WebSocket-Accept", accept)
            self.send_header("Sec-WebSocket-Protocol", "v4.channel.k8s.io")
            self.end_headers()
            self.wfile.flush()
            sock = self.connection
            command = " ".join(query.get("command") or [])
            if (query.get("stdin") or ["False"])[0].lower() == "true":
                _read_frame(sock)  # the kill command on stdin
                kube.stop_sidecar(namespace, name)
            elif "return.json" in command:
                value = kube.xcom(namespace, name)
                text = "__airflow_xcom_result_empty__" if value is None else json.dumps(value)
                _send_frame(sock, b"\x01" + text.encode())
            _send_frame(sock, b"\x03" + json.dumps({"metadata": {}, "status": "Success"}).encode())
            _send_frame(sock, struct.pack("!H", 1000), opcode=0x8)
            self.close_connection = True

    return Handler


def _send_frame(sock: socket.socket, payload: bytes, opcode: int = 0x2) -> None:
    header = bytes([0x80 | opcode])
    size = len(payload)
    if size < 126:
        header += bytes([size])
    elif size < 1 << 16:
        header += bytes([126]) + struct.pack("!H", size)
    else:
        header += bytes([127]) + struct.pack("!Q", size)
    sock.sendall(header + payload)


def _read_exact(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _read_frame(sock: socket.socket) -> bytes:
    sock.settimeout(10)
    head = _read_exact(sock, 2)
    if len(head) < 2:
        return b""
    size = head[1] & 0x7F
    if size == 126:
        size = struct.unpack("!H", _read_exact(sock, 2))[0]
    elif size == 127:
        size = struct.unpack("!Q", _read_exact(sock, 8))[0]
    mask = _read_exact(sock, 4) if head[1] & 0x80 else b"\0\0\0\0"
    data = _read_exact(sock, size)
    return bytes(b ^ mask[i % 4] for i, b in enumerate(data))
