"""Fixtures for the benchmark tests: fake devices, fake detection, a clean thread cache, a
local S3 (moto) server, a real PostgreSQL server."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator

import pytest

from accelerators.bench.measure import _threads
from accelerators.bench.testing._postgres_server import PostgresServer, binaries


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


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this session (initdb and pg_ctl in a temporary directory, on a
    free port of 127.0.0.1, as the postgres user when the tests run as root)."""
    if binaries() is None:
        pytest.skip(
            "PostgreSQL's initdb and pg_ctl are not installed (Debian's postgresql package; "
            ".ci/run installs it)"
        )
    pytest.importorskip("psycopg")
    with PostgresServer() as server:
        yield server


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A new, empty database on the session's server: its ``postgresql://`` URL."""
    return postgres_server.database(f"t_{uuid.uuid4().hex[:12]}")
