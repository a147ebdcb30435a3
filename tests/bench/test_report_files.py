"""Report files go where the user points: through symlinks, into FIFOs and character devices
(never replacing them), never onto a directory, socket or block device; device and node names
are drawn as text, never as matplotlib math."""

from __future__ import annotations

import os
import socket
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from accelerators.bench import BenchReport, html_report, plot_report, run, write_json
from accelerators.bench.report._models import atomic_write
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected
from accelerators.errors import AcceleratorError


@pytest.fixture(scope="module")
def report() -> BenchReport:
    return run("H100-SXM", backend=FakeBackend([FakeDevice()]), detected=fake_detected())


def _writers(report: BenchReport) -> dict[str, Callable[[Path], object]]:
    return {
        "json": lambda p: write_json(report, p),
        "html": lambda p: atomic_write(p, html_report(report).encode()),
        "png": lambda p: plot_report(report, p),
    }


@pytest.mark.parametrize("kind", ["json", "html", "png"])
def test_a_symlink_is_written_through(kind: str, report: BenchReport, tmp_path: Path) -> None:
    real = tmp_path / "elsewhere" / f"report.{kind}"
    real.parent.mkdir()
    real.write_text("old")
    os.chmod(real, 0o600)
    link = tmp_path / f"link.{kind}"
    link.symlink_to(real)
    _writers(report)[kind](link)
    assert link.is_symlink()
    assert real.read_bytes() != b"old"
    assert stat.S_IMODE(real.stat().st_mode) == 0o600  # the file's own mode kept
    assert sorted(p.name for p in real.parent.iterdir()) == [f"report.{kind}"]  # no temp left


def test_a_dangling_symlink_creates_its_target(report: BenchReport, tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "new.json")
    write_json(report, link)
    assert link.is_symlink()
    assert BenchReport.model_validate_json((tmp_path / "new.json").read_text()) == report


@pytest.mark.parametrize("kind", ["json", "html", "png"])
def test_a_fifo_is_written_not_replaced(kind: str, report: BenchReport, tmp_path: Path) -> None:
    fifo = tmp_path / f"pipe.{kind}"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    _writers(report)[kind](fifo)
    reader.join(timeout=30)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert received
    assert received[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="making a character device needs root")
@pytest.mark.parametrize("kind", ["json", "html", "png"])
def test_a_character_device_is_written_not_replaced(
    kind: str, report: BenchReport, tmp_path: Path
) -> None:
    device = tmp_path / "null"  # a private /dev/null (1, 3): the real one is never touched
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    _writers(report)[kind](device)
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_a_directory_or_socket_is_refused_by_name(report: BenchReport, tmp_path: Path) -> None:
    with pytest.raises(AcceleratorError, match="it is a directory, not a regular file"):
        write_json(report, tmp_path)
    with socket.socket(socket.AF_UNIX) as server:
        path = tmp_path / "s.sock"
        server.bind(str(path))
        with pytest.raises(AcceleratorError, match="it is a socket"):
            write_json(report, path)


def _cli(*args: str, report: BenchReport, monkeypatch: pytest.MonkeyPatch) -> Any:
    typer_testing = pytest.importorskip("typer.testing")
    from accelerators.cli import _bench, build_app

    monkeypatch.setattr(_bench, "_run_benchmark", lambda **_: report)
    return typer_testing.CliRunner().invoke(build_app(), ["bench", "-q", *args])


def test_the_cli_writes_through_links_and_into_fifos(
    report: BenchReport, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "real.json"
    real.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    result = _cli("--json", str(link), report=report, monkeypatch=monkeypatch)
    assert result.exit_code == 0, result.output
    assert link.is_symlink()
    assert BenchReport.model_validate_json(real.read_text()) == report
    with socket.socket(socket.AF_UNIX) as server:
        path = tmp_path / "s.sock"
        server.bind(str(path))
        refused = _cli("--html", str(path), report=report, monkeypatch=monkeypatch)
    assert refused.exit_code == 2
    assert "is a socket, not a regular file" in refused.output


@pytest.mark.skipif(os.geteuid() != 0, reason="making a character device needs root")
def test_the_cli_accepts_a_character_device(
    report: BenchReport, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    device = tmp_path / "null"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    result = _cli(
        "--json", str(device), "--html", str(device), report=report, monkeypatch=monkeypatch
    )
    assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(os.lstat(device).st_mode)


@pytest.mark.parametrize("name", ["$\\undefinedmacro$", "GPU $x^{$", "$$", "a\\b_c^d $\\frac$"])
def test_math_text_in_names_is_drawn_as_text(
    name: str, report: BenchReport, tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    from accelerators.bench.history._fleet import trends
    from accelerators.bench.history._store import Figure
    from accelerators.bench.render._history_plot import history_png

    data = report.model_dump(mode="json")
    data["device"].update(name=name, accelerator=None)
    for device in data["devices"]:
        device.update(name=name, accelerator=None)
    hostile = BenchReport.model_validate(data)
    assert "<html" in html_report(hostile).lower()
    assert plot_report(hostile, tmp_path / "roofline.png").read_bytes()[:4] == b"\x89PNG"
    figures = [
        Figure(report.started_at, f"node {name}", 0, name, "gemm.bf16", v, "tflops", "pass")
        for v in (700.0, 710.0, 720.0, 730.0)
    ]
    assert history_png(trends(figures))[:4] == b"\x89PNG"
