"""Fixtures for the benchmark tests: fake devices, fake detection, a clean thread cache, a
local S3 (moto) server."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from accelerators.bench.measure import _threads


@pytest.fixture(autouse=True)
def _fresh_thread_choice() -> Iterator[None]:
    """Every test measures thread counts anew (the choice is cached per process)."""
    _threads.clear_cache()
    yield
    _threads.clear_cache()


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """A moto S3 server on 127.0.0.1 (a free port), for the module's tests."""
    server_module = pytest.importorskip("moto.server")
    pytest.importorskip("boto3")
    with socket.socket() as probe:  # a free port on the loopback interface
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()
