"""Shared by every test folder (tests/, plugins/*/tests/): tests marked ``serial`` run alone,
the CLI's consoles read each test's terminal width, and ``spec_parses`` lists the spec texts
the grammar parsed during a test (a spec is converted once, where it is given: issue 34).

The suite runs in parallel with pytest-xdist (``-n auto``, the README's test command). A test
marked ``@pytest.mark.serial`` must not share the machine with other tests: it bounds a wall
time, installs into a venv, or runs a whole pytest of its own. Each xdist worker holds a shared
lock while it runs a test (its setup, call and teardown: module and session fixtures included)
and a ``serial`` test an exclusive one, so a ``serial`` test starts once the tests running on
the other workers have finished, and none starts until it is done. Both first take a gate lock,
which a waiting ``serial`` test keeps, so that a stream of other tests cannot starve it. The
controller makes the lock folder and hands it to its workers (``pytest_configure_node``); a run
without ``-n``, or a pytest started by a test, takes no lock: its tests run one at a time.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

try:
    import fcntl
except ImportError:  # not POSIX: no locks, the serial tests share the machine
    fcntl = None  # type: ignore[assignment]

SERIAL = "serial"
_LOCK_DIR = pytest.StashKey[Path]()
_WORKER_KEY = "accelerators_serial_lock_dir"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller, once per worker: the folder of the run's two lock files."""
    config = node.config
    if _LOCK_DIR not in config.stash:
        config.stash[_LOCK_DIR] = Path(tempfile.mkdtemp(prefix="pytest-serial-"))
    node.workerinput[_WORKER_KEY] = str(config.stash[_LOCK_DIR])


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_LOCK_DIR, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def _locked(folder: Path, exclusive: bool) -> Iterator[None]:
    with (folder / "gate.lock").open("a") as gate, (folder / "tests.lock").open("a") as tests:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(tests, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        finally:
            if not exclusive:  # a serial test keeps the gate: no test starts while it waits
                fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(tests, fcntl.LOCK_UN)
            if exclusive:
                fcntl.flock(gate, fcntl.LOCK_UN)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    folder = getattr(item.config, "workerinput", {}).get(_WORKER_KEY)
    if folder is None or fcntl is None:
        return (yield)
    with _locked(Path(folder), exclusive=item.get_closest_marker(SERIAL) is not None):
        return (yield)


@pytest.fixture(autouse=True)
def _consoles_read_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """rich fixes a console's width from ``COLUMNS`` when the console is made: once per process
    for the CLI (``accelerators.cli._common``), at the first test that prints through it. Tests
    run the CLI at widths of their own (``CliRunner(env={"COLUMNS": ...})``), in an order that
    xdist changes: each test's console reads ``COLUMNS`` anew, as a new process would."""
    common = sys.modules.get("accelerators.cli._common")
    for console in getattr(common, "_CONSOLES", {}).values():
        monkeypatch.setattr(console, "_width", None)


@pytest.fixture
def spec_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The source of every spec text parsed while the test runs (the grammar's one entry)."""
    from accelerators import _parser

    seen: list[str] = []
    real = _parser._Parser.parse

    def counting(self: Any) -> Any:
        seen.append(self.source)
        return real(self)

    monkeypatch.setattr(_parser._Parser, "parse", counting)
    return seen
