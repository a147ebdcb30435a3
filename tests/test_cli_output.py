"""Every command prints on any terminal, and its exit code means only its outcome (issue 29,
item 4 and 5): an ASCII or latin-1 stdout, a ``C`` locale, a closed stdout, a reader that has
gone; names from the environment (``NODE_NAME``, ``ACCELERATORS_BENCH_HISTORY``) with bytes
that are not UTF-8, control characters or 300 characters.

Each case runs the real console entry point (``accelerators.cli.main``) in a subprocess, with
the terminal's settings in its environment; ``accelerators bench`` runs on the fake backend.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("typer")

ROOT = Path(__file__).resolve().parent.parent

#: ``accelerators ...`` with ``accelerators bench`` measuring the fake backend's H100.
_FAKE_BENCH = """
import sys
from accelerators.bench import run
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected
from accelerators.cli import _bench, main
_bench._run_benchmark = lambda **kw: run(
    backend=FakeBackend([FakeDevice()]), detected=fake_detected(),
    **{k: v for k, v in kw.items() if k != "progress"})
main(sys.argv[1:])
"""

TERMINALS = {
    "ascii": {"PYTHONIOENCODING": "ascii"},
    "latin-1": {"PYTHONIOENCODING": "latin-1"},
    "C locale": {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"},
}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONIO", "LC_", "LANG"))}
    env.pop("ACCELERATORS_BENCH_HISTORY", None)
    env.pop("NODE_NAME", None)
    return {**env, "COLUMNS": "120", **extra}


def _cli(*args: str, env: dict[str, str], stdout: int | None = subprocess.PIPE, fake: bool = False):
    program = ["-c", _FAKE_BENCH] if fake else ["-m", "accelerators.cli"]
    return subprocess.run(
        [sys.executable, *program, *args],
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("terminal", list(TERMINALS))
def test_list_prints_on_any_terminal(terminal: str) -> None:
    done = _cli("list", env=_env(**TERMINALS[terminal]))
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    assert b"H100-SXM" in done.stdout
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize("terminal", list(TERMINALS))
def test_a_passing_gate_exits_0_on_any_terminal(terminal: str, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    done = _cli(
        "bench",
        "--expect",
        "H100-SXM",
        "--json",
        str(out),
        env=_env(**TERMINALS[terminal]),
        fake=True,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    assert json.loads(out.read_text())["verdict"] == "pass"
    assert b"GEMM" in done.stdout  # the tables were printed, characters replaced


def test_json_to_an_ascii_stdout_is_the_same_data(tmp_path: Path) -> None:
    done = _cli(
        "bench",
        "--expect",
        "H100-SXM",
        "--json",
        "-",
        env=_env(PYTHONIOENCODING="ascii"),
        fake=True,
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["verdict"] == "pass"


def test_a_node_name_of_bytes_that_are_not_utf8_is_escaped(tmp_path: Path) -> None:
    out, history, html = tmp_path / "o.json", tmp_path / "h.sqlite", tmp_path / "r.html"
    node = os.fsdecode(b"gpu-\xff\xfe\x1b[2J")
    args = ("bench", "--expect", "H100-SXM", "--json", str(out), "--history", str(history), "-q")
    done = _cli(*args, "--html", str(html), env=_env(NODE_NAME=node), fake=True)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    assert json.loads(out.read_text())["node"] == "gpu-\\xff\\xfe\\x1b[2J"
    page = html.read_text(encoding="utf-8")
    assert "gpu-\\xff\\xfe\\x1b[2J" in page
    assert "\x1b" not in page
    connection = sqlite3.connect(history)
    nodes = [n for (n,) in connection.execute("SELECT node FROM bench_history_summaries")]
    connection.close()
    assert nodes == ["gpu-\\xff\\xfe\\x1b[2J"]


def test_a_node_name_over_256_characters_is_still_appended(tmp_path: Path) -> None:
    history = tmp_path / "h.sqlite"
    done = _cli(
        "bench",
        "--expect",
        "H100-SXM",
        "--history",
        str(history),
        "-q",
        env=_env(NODE_NAME="n" * 300),
        fake=True,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    connection = sqlite3.connect(history)
    (node,) = connection.execute("SELECT node FROM bench_history_summaries").fetchone()
    connection.close()
    assert len(node) == 253
    assert node.startswith("n" * 200)


def test_an_escape_sequence_in_the_history_location_is_printed_escaped(tmp_path: Path) -> None:
    location = str(tmp_path / "h\x1b[31m.sqlite")
    done = _cli(
        "bench", "--expect", "H100-SXM", env=_env(ACCELERATORS_BENCH_HISTORY=location), fake=True
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    assert b"\x1b[31m" not in done.stdout
    assert b"h\\x1b[31m.sqlite" in done.stdout
    bad = _cli("bench", env=_env(ACCELERATORS_BENCH_HISTORY="ftp://\x1b]0;owned\x07"), fake=True)
    assert bad.returncode == 2
    assert b"\x1b" not in bad.stderr
    assert b"\\x1b]0;owned\\x07" in bad.stderr


@pytest.mark.parametrize("args", [("parse", "H100-SXM"), ("list",)])
def test_a_closed_stdout_is_not_a_success(args: tuple[str, ...]) -> None:
    command = " ".join([sys.executable, "-m", "accelerators.cli", *args])
    done = subprocess.run(
        ["sh", "-c", f"{command} >&-"], env=_env(), capture_output=True, cwd=ROOT, check=False
    )
    assert done.returncode == 74, done.stderr
    assert b"the output could not be written" in done.stderr
    assert b"Traceback" not in done.stderr


def test_a_reader_that_has_gone_is_not_a_failed_gate(tmp_path: Path) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader has gone before anything is written: EPIPE, every time
    try:
        done = _cli("bench", "--expect", "H100-SXM", env=_env(), stdout=write, fake=True)
    finally:
        os.close(write)
    assert done.returncode == 74  # not 1: the gate passed; its output had nowhere to go
    assert b"Traceback" not in done.stderr


def test_a_quiet_gate_with_a_closed_stdout_exits_0(tmp_path: Path) -> None:
    out = tmp_path / "o.json"
    command = f"{sys.executable} -c '{_FAKE_BENCH}' bench --expect H100 -q --json {out} >&-"
    done = subprocess.run(
        ["sh", "-c", command], env=_env(), capture_output=True, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["verdict"] == "pass"
