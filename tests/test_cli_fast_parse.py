"""``accelerators parse`` answers before typer is imported (``accelerators.cli._parse``), and
says exactly what the typer command says.

Each command line below runs through the fast path and through the typer application; the
fast path must either print what typer prints (stdout, to a terminal and elsewhere, exit 0,
nothing on stderr) or print nothing and leave the command line to typer. Real processes check
the console entry end to end, and that ``parse`` imports neither typer, click nor rich.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

typer_testing = pytest.importorskip("typer.testing", reason="typer (the [cli] extra) is missing")

from accelerators import catalog  # noqa: E402
from accelerators.cli import build_app  # noqa: E402
from accelerators.cli._parse import run_fast  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

SPECS = (
    "H100-SXM:8",
    "h100:8",
    "H100-SXM",
    "A100",
    "A100-40GB-PCIE",
    "A100-80GB!:2",
    "A100@whole",
    "A100@1g.5gb:2",
    "A100@2g.10gb:2 | H100-SXM:8",
    "H100-SXM:8 | A100-80GB:4 | 80GB+:8",
    "T4:0.5",
    "T4@shared",
    "T4@shared:3",
    "T4 shared",
    "80GB+",
    "nvidia:24GB:2",
    "amd:192GB+",
    "24GB..80GB",
    "B200+",
    "B200+:8",
    "MI300X:4..",
    "H100-SXM:1..2",
    "tpu-v5litepod-8",
    "TPU-v5e@2x2:4",
    "A100:80GB",
    "nvidia-tesla-a100",
    "NVIDIA A100-SXM4-80GB",
    "intel",
    "google:16GB",
    "A100@1g.5gb+me",
    # refused by the grammar or the spec: typer prints the error
    "",
    " ",
    "H10O",
    "H100-SXM:x",
    "H100-SXM:0",
    "H100-SXM:-1",
    "0GB",
    "A100@9g.99gb",
    "T4@whole",
    "H100-SXM@shared:0.5",
    "A100-40GB-PCIE:80GB",
    "H100-SXM:8GB",
    "H100-SXM |",
    "| H100-SXM",
    "ü100",
    "H100-SXM:8 | H100-SXM:8 | " * 40,
    "x" * 2000,
    "-H100",
    "-",
    "--json",
    "--help",
)

#: Command lines the fast path leaves to typer, and plain ones it takes.
ARGS = [["parse", spec] for spec in SPECS] + [
    ["parse", "--json", "H100-SXM:8"],
    ["parse", "H100-SXM:8", "--json"],
    ["parse", "--json", "80GB+"],
    ["parse", "--json", "A100@1g.5gb:2 | T4:0.5"],
    ["parse", "--json", "H10O"],
    ["parse"],
    ["parse", "--json"],
    ["parse", "--json", "--json"],
    ["parse", "H100-SXM", "A100"],
    ["parse", "--help"],
    ["parse", "H100-SXM:8", "--help"],
    ["parse", "--", "H100-SXM:8"],
    ["parse", "--jso", "H100-SXM:8"],
    ["parse", "--json=1", "H100-SXM:8"],
    ["parse", "H100-SXM:8", "-j"],
    ["Parse", "H100-SXM:8"],
    ["list", "--json"],
    ["--version"],
    [],
    ["--help"],
    ["parse", "--json", "H100-SXM:8", "--json"],
]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _fast(args: list[str], stream: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> bool:
    with monkeypatch.context() as patch:
        patch.setattr(sys, "stdout", stream)
        return run_fast(args)


@pytest.mark.parametrize("terminal", [False, True], ids=["pipe", "terminal"])
@pytest.mark.parametrize("args", ARGS, ids=[repr(a)[:60] for a in ARGS])
def test_fast_path_prints_what_typer_prints(
    args: list[str], terminal: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = _Terminal() if terminal else io.StringIO()
    took = _fast(args, stream, monkeypatch)
    typer = typer_testing.CliRunner().invoke(build_app(), args, color=terminal)
    if not took:
        assert stream.getvalue() == "", "the fast path printed, then left it to typer"
        return
    assert typer.exit_code == 0, typer.output
    assert typer.stderr == ""
    assert stream.getvalue() == typer.stdout
    assert ("\x1b[1m" in stream.getvalue()) == (terminal and "--json" not in args)


def test_fast_path_takes_every_good_plain_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every model name (with a count) goes through the fast path, and prints what typer
    prints: the comparison above is not made vacuous by a fast path that declines."""
    for model in catalog.models():
        args = ["parse", f"{model}:2"]
        stream = io.StringIO()
        assert _fast(args, stream, monkeypatch), args
        assert stream.getvalue() == typer_testing.CliRunner().invoke(build_app(), args).stdout


def test_fast_path_declines_errors_and_options(monkeypatch: pytest.MonkeyPatch) -> None:
    for args in (["parse", "H10O"], ["parse", "--help"], ["parse"], ["list"], ["parse", "-"]):
        assert not _fast(args, io.StringIO(), monkeypatch), args
    monkeypatch.setenv("_ACCELERATORS_COMPLETE", "bash_complete")
    assert not _fast(["parse", "H100-SXM:8"], io.StringIO(), monkeypatch)


_TYPER_ONLY = (
    "import sys; sys.argv[0] = 'accelerators'; from accelerators.cli import build_app; "
    "build_app()(prog_name='accelerators')"
)
_ENTRY = "import sys; sys.argv[0] = 'accelerators'; from accelerators.cli import main; main()"


@pytest.mark.parametrize(
    "args",
    [
        ["parse", "H100-SXM:8"],
        ["parse", "--json", "A100@1g.5gb:2 | 80GB+"],
        ["parse", "H10O"],
        ["parse", "H100-SXM:x"],
        ["parse", ""],
        ["parse", "--help"],
        ["parse", "T4@shared:2"],
    ],
    ids=repr,
)
def test_console_entry_matches_the_typer_application_byte_for_byte(args: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    runs = [
        subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, env=env, cwd=ROOT, check=False
        )
        for code in (_ENTRY, _TYPER_ONLY)
    ]
    entry, typer = ((r.returncode, r.stdout, r.stderr) for r in runs)
    assert entry == typer


def test_parse_imports_no_typer_click_or_rich() -> None:
    probe = (
        "import sys\n"
        "from accelerators.cli import main\n"
        "try:\n"
        "    main(['parse', 'H100-SXM:8 | A100@1g.5gb:2'])\n"
        "except SystemExit as exit:\n"
        "    code = exit.code\n"
        "print(code, sorted(m for m in ('typer', 'click', 'rich') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.splitlines()[-1] == "0 []"
    assert done.stdout.startswith("Canonical")


def test_the_program_freezes_its_heap_and_a_caller_keeps_its_collector() -> None:
    """As the program (``main()`` reading sys.argv) the fast path freezes the heap before the
    process ends; called with arguments (from Python) it leaves the collector as it was."""
    probe = (
        "import gc, sys\n"
        "from accelerators.cli import main\n"
        "for argv in (['parse', 'H100-SXM:8'], None):\n"
        "    sys.argv[1:] = ['parse', 'H100-SXM:8']\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit as exit:\n"
        "        print(exit.code, gc.isenabled(), gc.get_freeze_count() > 0, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stderr.splitlines() == ["0 True False", "0 True True"]
