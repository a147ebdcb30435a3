"""A real PostgreSQL server for tests and benchmarks: ``initdb`` and ``pg_ctl`` in a temporary
directory, on a free port of 127.0.0.1, as the ``postgres`` user when run as root.

Debian's ``postgresql`` package provides the binaries (on ``PATH``, or under
``/usr/lib/postgresql/<version>/bin``); :func:`binaries` says whether they are there.
The server itself needs only the standard library; :meth:`PostgresServer.database` imports
psycopg (the ``[postgres]`` extra) to create a database. The server trusts local connections
(a throw-away cluster):

    with PostgresServer() as server:
        url = server.database("case1")  # postgresql://postgres@127.0.0.1:PORT/case1
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

__all__ = ["PostgresServer", "binaries"]


def binaries() -> tuple[str, str] | None:
    """``(initdb, pg_ctl)``, or ``None`` when PostgreSQL's server is not installed."""
    found = [shutil.which(name) for name in ("initdb", "pg_ctl")]
    if all(found):
        return found[0], found[1]  # type: ignore[return-value]
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        initdb, pg_ctl = Path(folder, "initdb"), Path(folder, "pg_ctl")
        if initdb.exists() and pg_ctl.exists():
            return str(initdb), str(pg_ctl)
    return None


class PostgresServer:
    """One throw-away cluster; stopped and deleted when the ``with`` block ends.

    :param settings: extra ``-c name=value`` server settings.
    :raises RuntimeError: the binaries are missing, or the server did not start (its log's
        last lines say why).
    """

    def __init__(self, settings: dict[str, str] | None = None) -> None:
        found = binaries()
        if found is None:
            raise RuntimeError("PostgreSQL's initdb and pg_ctl are not installed")
        self._initdb, self._pg_ctl = found
        self.settings = {"fsync": "off", "max_connections": "300", **(settings or {})}
        self.root = Path(tempfile.mkdtemp(prefix="accelerators-pg-"))
        self.port = _free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        command = list(args)
        if os.geteuid() == 0:  # the server refuses to run as root
            command = ["runuser", "-u", "postgres", "--", *command]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        if proc.returncode != 0:
            log = self.root / "log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{' '.join(args[:2])} failed: {proc.stderr[-2000:]}{tail}")

    def start(self) -> PostgresServer:
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
        data = self.root / "data"
        init = ["-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C"]
        self._run(self._initdb, *init, "--no-sync")
        options = " ".join(
            [
                "-c listen_addresses=127.0.0.1",
                f"-c port={self.port}",
                f"-c unix_socket_directories={self.root}",
                *(f"-c {k}={v}" for k, v in self.settings.items()),
            ]
        )
        log = str(self.root / "log")
        self._run(
            self._pg_ctl, "-D", str(data), "-o", options, "-l", log, "-w", "-t", "60", "start"
        )
        return self

    def stop(self) -> None:
        with contextlib.suppress(RuntimeError, OSError, subprocess.SubprocessError):
            self._run(self._pg_ctl, "-D", str(self.root / "data"), "-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def database(self, name: str) -> str:
        """A new, empty database; its URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url.rsplit("/", 1)[0] + f"/{name}"

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
