"""Regenerate the console blocks of README.md and docs/*.md: ``python docs/make_outputs.py``.

Every block that shows what a command prints sits between two markers::

    <!-- output: NAME -->
    ```console
    $ accelerators list --min-memory 180
    ...
    ```
    <!-- /output -->

and :data:`BLOCKS` says how ``NAME`` is made:

* :class:`Run`: the commands are run now, from the repository root, as a user runs them
  (``accelerators`` is this checkout's CLI, ``python`` this interpreter), ``COLUMNS`` fixed,
  no colour, stdout and stderr together; the exit code is checked too.
* :class:`Report`: a committed benchmark report (JSON), rendered as ``accelerators bench``
  prints it. The run itself depends on the host, so it is not repeated; the caption names the
  host and the time the report records.
* :class:`Python`: Python statements run now; the block shows them as a session
  (``>>>`` lines and what each prints or raises) or only the message of the error raised.
* :class:`Figure`: a chart's Markdown image, its alt text written from the report the chart
  was drawn from (``docs/make_figures.py`` draws it and stamps the PNG with the report's
  SHA-256, which is checked).
* :class:`Captured`: the output of a long, host-dependent run (a benchmark script), kept as it
  was captured; the caption names the host and the date. What can still be checked is
  checked: each command shown exists and accepts the options it is given (``--help``).

``python docs/make_outputs.py`` rewrites every block in place; ``--check`` rewrites nothing and
exits 1 naming each stale block (``tests/test_docs_outputs.py`` does the same check);
``--only NAME`` limits either to some blocks.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
import tomllib
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: The pages whose blocks this script owns (and whose commands the tests check).
PAGES = (
    "README.md",
    "CONTRIBUTING.md",
    *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")),
    "benchmarks/README.md",
    "dags/README.md",
    "plugins/README.md",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "plugins").glob("*/README.md")),
)

#: Pages that are also package descriptions on PyPI (the core's and the plugins' READMEs), where
#: a relative link leads nowhere: the links this script writes there are absolute, into the
#: repository at the project's URL (tests/test_readme.py checks every link of these pages).
PYPI_PAGES = ("README.md", "plugins/flyte/README.md", "plugins/airflow/README.md")


def project_url() -> str:
    """The project's URL: ``Homepage`` in the core's ``pyproject.toml``."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        url: str = tomllib.load(f)["project"]["urls"]["Homepage"]
    return url.rstrip("/")


def href(page: str, target: str, *, image: bool = False) -> str:
    """Where a link on ``page`` to ``target`` (both relative to the repository root) points:
    relative, or on a PyPI page the file in the repository (``raw`` for an image)."""
    if page in PYPI_PAGES:
        kind = "raw" if image else ("tree" if (ROOT / target).is_dir() else "blob")
        return f"{project_url()}/{kind}/main/{target}"
    return os.path.relpath(target, os.path.dirname(page) or ".")


BEGIN = re.compile(r"^<!-- output: (?P<name>[a-z0-9][a-z0-9-]*) -->$")
END = "<!-- /output -->"
FENCE = re.compile(r"^(?P<fence>```+)(?P<info>[^`]*)$")


# ---------------------------------------------------------------------------- kinds of block


@dataclass(frozen=True)
class Run:
    """Commands run now; the block shows each after ``$ `` with what it printed.

    :param commands: the commands as shown; a backslash-newline continues a long one.
    :param width: the terminal width they are run at (``COLUMNS``).
    :param head: keep only the first lines of each output (the prose says so).
    :param stop_after: keep each output up to the first line that matches this regex.
    :param exit_codes: the exit code of each command (default: all 0).
    :param fence: the code fence's info string.
    """

    commands: tuple[str, ...]
    width: int = 96
    head: int | None = None
    stop_after: str | None = None
    exit_codes: tuple[int, ...] = ()
    fence: str = "console"


@dataclass(frozen=True)
class Report:
    """A committed ``accelerators bench`` report rendered as the command prints it.

    :param shown: the command shown (it made the report).
    :param path: the report, relative to the repository root.
    """

    shown: str
    path: str
    width: int = 96
    fence: str = "console"


@dataclass(frozen=True)
class Python:
    """Python statements run now (in this process, after ``setup``).

    :param lines: the statements; each is shown after ``>>>`` with its repr or its error.
    :param setup: run first, not shown (imports).
    :param message_only: show only the message of the error the single statement raises.
    """

    lines: tuple[str, ...]
    setup: str = ""
    message_only: bool = False
    width: int = 100
    fence: str = "text"


@dataclass(frozen=True)
class Captured:
    """Output of a host-dependent run, kept as captured (the block's body is the source).

    :param host: the machine it ran on, in words.
    :param date: when (as precise as known).
    :param commands: the commands that produced it, when the body does not show them; each
        must still exist and accept its options.
    """

    host: str
    date: str
    commands: tuple[str, ...] = ()


@dataclass(frozen=True)
class Figure:
    """A chart drawn from a committed report, and its alt text written from the same report.

    The PNG carries the SHA-256 of the report it was drawn from (a ``tEXt`` chunk that
    ``docs/make_figures.py`` writes); a chart drawn from another run is stale.

    :param report: the report (JSON), relative to the repository root.
    :param image: the chart (PNG), relative to the repository root.
    """

    report: str
    image: str


Block = Run | Report | Python | Captured | Figure

# ---------------------------------------------------------------------------- the blocks

_QWEN = (
    "accelerators plan --config tests/data/qwen2.5-0.5b-config.json --method full \\\n"
    "      --tokens 2e7 --epochs 3 --budget 5 --no-history --top 6"
)
_LORA = (
    "accelerators plan --params 7e9 --method lora --tokens 1e8 --budget 50 --deadline 2 \\\n"
    "      --no-history --top 6"
)
_QLORA = (
    "accelerators plan --params 70e9 --method qlora --tokens 2e7 --budget 200 --rank time \\\n"
    "      --no-history --top 6"
)
_INFEASIBLE = (
    "accelerators plan --params 70e9 --method full --tokens 2e7 --budget 20 --deadline 1 \\\n"
    "      --no-history"
)
_INVENTORY = (
    "accelerators plan --config tests/data/qwen2.5-0.5b-config.json --method lora \\\n"
    '      --tokens 1e7 --scope cluster --inventory "A100-80GB@1g.10gb:7" --inventory "L4:4"'
)
_PLATFORM = (
    "accelerators plan --config tests/data/qwen2.5-0.5b-config.json --method full \\\n"
    "      --tokens 2e7 --budget 50 --platform karpenter --no-history --top 4"
)
_ZEN3 = "the shared 2-vCPU development VM (AMD EPYC, Zen 3, AVX2), torch 2.13.0+cpu"

#: Every generated block, by the name its markers carry.
BLOCKS: dict[str, Block] = {
    # README.md: a tour of the command line
    "readme-list": Run(("accelerators list --min-memory 180 --sort memory",)),
    "readme-show": Run(("accelerators show H100-SXM",), width=110, stop_after="└"),
    "readme-parse": Run(
        ('accelerators parse "H100-SXM:8 | A100-80GB:8"', 'accelerators parse "H10O:8"'),
        exit_codes=(0, 2),
    ),
    "readme-k8s": Run(('accelerators k8s "A100@1g.5gb" --platform nvidia',)),
    "readme-bench": Report("accelerators bench --profile quick", "docs/img/bench-quick.json"),
    "readme-roofline": Figure("docs/img/bench-quick.json", "docs/img/bench-quick.png"),
    # docs/planning.md
    "plan-inventory": Run((_INVENTORY,), width=120, fence=""),
    "plan-qwen": Run((_QWEN,), width=120, fence=""),
    "plan-lora": Run((_LORA,), width=120, fence=""),
    "plan-qlora": Run((_QLORA,), width=120, fence=""),
    "plan-infeasible": Run((_INFEASIBLE,), width=120, exit_codes=(1,), fence=""),
    "plan-platform": Run((_PLATFORM,), width=120, fence=""),
    # docs/grammar.md
    "grammar-count-error": Python(
        ('AcceleratorSpec.parse("H100:x")',),
        setup="from accelerators import AcceleratorSpec",
        message_only=True,
    ),
    "grammar-explain": Run(
        (
            'accelerators parse --explain "8gpu-128vcpu-1600gb-h100"',
            'accelerators parse --explain "l40s-180"',
        ),
        exit_codes=(0, 2),
    ),
    "grammar-system-word": Run(
        (
            'accelerators parse --explain "A100-80GB_solver_wombat"',
            'accelerators parse --denotes mixed "A100-80GB_solver_wombat"',
        ),
        exit_codes=(0, 2),
    ),
    "grammar-unknown-error": Python(
        ('AcceleratorSpec.parse("H10O")',),
        setup="from accelerators import AcceleratorSpec",
        message_only=True,
    ),
    # docs/kubernetes.md
    "k8s-placement-error": Python(
        ('to_pod_fragment("A100-40GB@4g.20gb", platform="gke")',),
        setup="from accelerators.kubernetes import to_pod_fragment",
        message_only=True,
        fence="",
    ),
    # docs/constants.md
    "constants-no-attribute": Python(
        ("A100.partition_1g_20gb",), setup="import accelerators; from accelerators import A100"
    ),
    "constants-misspelt": Python(
        ("A100.partiton_2g_10gb", "A100.to_sepc", "accelerators.H10O"),
        setup="import accelerators; from accelerators import A100",
    ),
    # docs/benchmark.md: runs that take minutes and depend on the host
    "bench-fleet-history": Captured(
        host="the shared 2-vCPU development VM, Zen 3; the fleet is the fake backend's H100s",
        date="2026-11-23",
        commands=(
            "python benchmarks/fleet_history.py --store /tmp/fleet.sqlite"
            " --chart docs/fleet-history.png",
        ),
    ),
    "bench-history-scale": Captured(
        host="the 2-vCPU development VM, AMD EPYC family 26 (Zen 5), quiet: load 0.6-1.6 before"
        " the writers (its own), up to 51 with them",
        date="2026-11-28",
    ),
    "bench-fault-detection": Captured(
        host=_ZEN3 + ", busy (load 5-7)",
        date="2026-11-23",
        commands=(
            "python benchmarks/fault_detection.py --trials 100 --gate-runs 0",
            "python benchmarks/fault_detection.py --trials 0 --gate-runs 20",
        ),
    ),
    "bench-int8-checksums": Captured(
        host=_ZEN3 + ", load about 6",
        date="2026-11-23, finished 15:06 UTC",
        commands=("python benchmarks/int8_checksums.py --trials 100",),
    ),
}


# ---------------------------------------------------------------------------- rendering


def _lines(text: str) -> list[str]:
    """Lines without trailing blanks (rich pads table cells), trailing empty lines dropped."""
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _argv(command: str) -> list[str]:
    words = shlex.split(command.replace("\\\n", " "))
    if words[0] == "accelerators":
        return [sys.executable, "-m", "accelerators.cli", *words[1:]]
    if words[0] == "python":
        return [sys.executable, *words[1:]]
    raise ValueError(f"{command!r}: only 'accelerators' and 'python' commands are run")


def _env(width: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(
        COLUMNS=str(width),
        LINES="100",
        NO_COLOR="1",
        TERM="xterm-256color",
        PYTHONUTF8="1",
        PYTHONUNBUFFERED="1",
    )
    return env


def _run(argv: list[str], width: int, *, expect: int = 0) -> list[str]:
    done = subprocess.run(
        argv,
        cwd=ROOT,
        env=_env(width),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        encoding="utf-8",
        timeout=300,
        check=False,
    )
    if done.returncode != expect:
        raise RuntimeError(
            f"{shlex.join(argv)} exited {done.returncode}, expected {expect}:\n{done.stdout}"
        )
    return _lines(done.stdout)


def _fenced(info: str, body: list[str]) -> list[str]:
    return [f"```{info}", *body, "```"]


def render_run(block: Run) -> list[str]:
    codes = block.exit_codes or (0,) * len(block.commands)
    body: list[str] = []
    for command, code in zip(block.commands, codes, strict=True):
        body.extend(f"$ {line}" if i == 0 else line for i, line in enumerate(command.split("\n")))
        output = _run(_argv(command), block.width, expect=code)
        if block.stop_after:
            end = next(i for i, line in enumerate(output) if re.match(block.stop_after, line))
            output = output[: end + 1]
        body.extend(output[: block.head] if block.head else output)
    return _fenced(block.fence, body)


_REPORT_SCRIPT = """
import sys
from accelerators.bench import BenchReport
from accelerators.cli._bench_tables import print_report
with open(sys.argv[1], encoding="utf-8") as f:
    print_report(BenchReport.model_validate_json(f.read()))
"""


def _link(page: str, target: str) -> str:
    """A Markdown link from ``page`` to ``target`` (both relative to the repository root)."""
    return f"[{target}]({href(page, target)})"


def render_report(block: Report, page: str) -> list[str]:
    report = json.loads((ROOT / block.path).read_text(encoding="utf-8"))
    output = _run([sys.executable, "-c", _REPORT_SCRIPT, block.path], block.width)
    started = datetime.fromisoformat(report["started_at"].replace("Z", "+00:00"))
    device = report["device"]
    catalog = report.get("versions", {}).get("catalog", "?")
    caption = (
        f"*Captured example*: the report {_link(page, block.path)} of one run on host "
        f"`{report.get('host') or '?'}` ({device['count']} x {device['name']}, "
        f"{report['conditions'].get('cpus', '?'):g} CPUs) on {started:%Y-%m-%d %H:%M} UTC, "
        f"catalog {catalog}, printed as the command prints it by "
        f"{_link(page, 'docs/make_outputs.py')}."
    )
    return [caption, "", *_fenced(block.fence, [f"$ {block.shown}", *output])]


def _wrap(line: str, width: int) -> list[str]:
    if len(line) <= width:
        return [line]
    return textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False)


def _message(exc: BaseException, width: int) -> list[str]:
    lines = str(exc).split("\n")
    return [*_wrap(lines[0], width), *lines[1:]]


def render_python(block: Python) -> list[str]:
    namespace: dict[str, object] = {}
    exec(block.setup, namespace)  # the setup is this file's own text
    body: list[str] = []
    for statement in block.lines:
        try:
            value = eval(statement, namespace)  # this file's own text
        except Exception as exc:
            if block.message_only:
                body.extend(_message(exc, block.width))
            else:
                first, *rest = str(exc).split("\n")
                body.extend(
                    [
                        f">>> {statement}",
                        *_wrap(f"{type(exc).__name__}: {first}", block.width),
                        *rest,
                    ]
                )
            continue
        if block.message_only:
            raise RuntimeError(f"{statement} raised nothing; the block shows its error")
        body.extend([f">>> {statement}", *_wrap(repr(value), block.width)])
    return _fenced(block.fence, body)


def captured_caption(block: Captured, page: str) -> str:
    return (
        f"*Captured example* ({block.host}; {block.date}), kept as it was printed; "
        f"{_link(page, 'docs/make_outputs.py')} checks that its commands still exist."
    )


# The PNG chunk that names the report a chart was drawn from.
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_STAMP_KEY = b"accelerators-report-sha256"


def _png_chunks(data: bytes) -> Iterator[tuple[int, bytes, bytes]]:
    """(offset, type, data) of each chunk of a PNG."""
    if not data.startswith(_PNG_SIGNATURE):
        raise ValueError("not a PNG")
    at = len(_PNG_SIGNATURE)
    while at < len(data):
        size = int.from_bytes(data[at : at + 4], "big")
        yield at, data[at + 4 : at + 8], data[at + 8 : at + 8 + size]
        at += 12 + size


def report_digest(report: str) -> str:
    """The SHA-256 of a committed report (relative to the repository root)."""
    return hashlib.sha256((ROOT / report).read_bytes()).hexdigest()


def stamped_digest(png: bytes) -> str | None:
    """The report digest a PNG was stamped with, or ``None``."""
    for _at, kind, body in _png_chunks(png):
        if kind == b"tEXt" and body.startswith(_STAMP_KEY + b"\0"):
            return body[len(_STAMP_KEY) + 1 :].decode("latin-1")
    return None


def stamp(png: bytes, digest: str) -> bytes:
    """``png`` with a ``tEXt`` chunk naming the report's digest (an earlier one replaced)."""
    chunks = [(at, kind) for at, kind, _body in _png_chunks(png)]
    kept = bytearray(_PNG_SIGNATURE)
    for (at, kind), (end, _k) in zip(chunks, [*chunks[1:], (len(png), b"")], strict=True):
        if kind == b"tEXt" and png[at + 8 :].startswith(_STAMP_KEY + b"\0"):
            continue
        kept += png[at:end]
        if kind == b"IHDR":
            body = _STAMP_KEY + b"\0" + digest.encode("ascii")
            crc = zlib.crc32(b"tEXt" + body)
            kept += len(body).to_bytes(4, "big") + b"tEXt" + body + crc.to_bytes(4, "big")
    return bytes(kept)


def _g(value: float) -> str:
    return f"{value:.4g}"


def alt_text(report: dict[str, Any]) -> str:
    """The alt text of a report's roofline: the figures the chart shows, from the report."""
    device = report["device"]
    parts = []
    for g in report["gemm"]:
        rate = g.get("median_tflops") or g.get("tflops")
        if not rate:
            continue
        where = (
            f", {rate / g['peak_tflops']:.0%} of its {_g(g['peak_tflops'] * 1e3)} GFLOP/s peak"
            if g.get("peak_tflops")
            else " (no datasheet peak)"
        )
        parts.append(f"GEMM {g['dtype']} median {_g(rate * 1e3)} GFLOP/s{where}")
    best = max(report["memory"], key=lambda m: m.get("gbps") or 0.0, default=None)
    if best and best.get("gbps"):
        parts.append(
            "the STREAM kernels under the best measured bandwidth, "
            f"{_g(best['gbps'])} GB/s ({best['kernel']})"
        )
    return (
        f"Roofline of one {report['profile']} run of the benchmark gate on {device['count']} x "
        f"{device['accelerator'] or device['name']} (verdict {report['verdict'].upper()}, "
        f"{report['elapsed_s']:.1f} s): " + "; ".join(parts)
    )


def render_figure(block: Figure, page: str) -> list[str]:
    png = (ROOT / block.image).read_bytes()
    digest = report_digest(block.report)
    if stamped_digest(png) != digest:
        raise RuntimeError(
            f"{block.image} was not drawn from {block.report} (its stamp: "
            f"{stamped_digest(png)}, the report's SHA-256: {digest}); run "
            "`python docs/make_figures.py` (a new run) or `--redraw` (the committed report)"
        )
    report = json.loads((ROOT / block.report).read_text(encoding="utf-8"))
    return [f"![{alt_text(report)}]({href(page, block.image, image=True)})"]


def render(name: str, current: list[str], page: str) -> list[str]:
    """The lines between the markers of block ``name`` on ``page``; ``current``: what is
    there now."""
    block = BLOCKS[name]
    if isinstance(block, Run):
        return render_run(block)
    if isinstance(block, Report):
        return render_report(block, page)
    if isinstance(block, Python):
        return render_python(block)
    if isinstance(block, Figure):
        return render_figure(block, page)
    return [captured_caption(block, page), "", *fenced_body(current, name)[1]]


# ---------------------------------------------------------------------------- pages


@dataclass(frozen=True)
class Marked:
    """One block between markers on a page: ``lines[begin:end]`` is its content."""

    page: str
    name: str
    begin: int
    end: int


def marked_blocks(page: str, lines: list[str]) -> Iterator[Marked]:
    """The marked blocks of a page, in order; bad markers raise ``ValueError``."""
    open_at: tuple[str, int] | None = None
    for i, line in enumerate(lines):
        begin = BEGIN.match(line)
        if begin:
            if open_at:
                raise ValueError(f"{page}:{i + 1}: a block opens inside '{open_at[0]}'")
            open_at = (begin["name"], i + 1)
        elif line == END:
            if not open_at:
                raise ValueError(f"{page}:{i + 1}: {END} with no block open")
            yield Marked(page, open_at[0], open_at[1], i)
            open_at = None
    if open_at:
        raise ValueError(f"{page}: block '{open_at[0]}' is not closed by {END}")


def fenced_body(lines: list[str], name: str) -> tuple[str, list[str]]:
    """The fence's info string and the fenced block itself (fences included) in ``lines``."""
    start = next((i for i, line in enumerate(lines) if FENCE.match(line)), None)
    if start is None:
        raise ValueError(f"block '{name}' has no code fence")
    fence = FENCE.match(lines[start])
    if fence is None:  # pragma: no cover - matched just above
        raise ValueError(f"block '{name}' has no code fence")
    close = next((i for i in range(start + 1, len(lines)) if lines[i] == fence["fence"]), None)
    if close is None:
        raise ValueError(f"block '{name}': the code fence is not closed")
    return fence["info"], lines[start : close + 1]


@dataclass(frozen=True)
class Result:
    marked: Marked
    current: list[str]
    wanted: list[str]

    @property
    def stale(self) -> bool:
        return self.current != self.wanted

    def diff(self) -> str:
        return "\n".join(
            difflib.unified_diff(
                self.current, self.wanted, f"{self.marked.page} (now)", "generated", lineterm=""
            )
        )


def pages_blocks() -> Iterator[tuple[str, list[str], Marked]]:
    for page in PAGES:
        lines = (ROOT / page).read_text(encoding="utf-8").split("\n")
        for marked in marked_blocks(page, lines):
            yield page, lines, marked


def check(names: set[str] | None = None) -> list[Result]:
    """Render every marked block (or those in ``names``) and compare it with the page."""
    results = []
    seen: set[str] = set()
    for _page, lines, marked in pages_blocks():
        if marked.name in seen:
            raise ValueError(f"{marked.page}: block '{marked.name}' appears twice")
        seen.add(marked.name)
        if marked.name not in BLOCKS:
            raise ValueError(f"{marked.page}: block '{marked.name}' is not in BLOCKS")
        if names is not None and marked.name not in names:
            continue
        current = lines[marked.begin : marked.end]
        results.append(Result(marked, current, render(marked.name, current, marked.page)))
    missing = sorted((names if names is not None else set(BLOCKS)) - seen)
    if missing:
        raise ValueError(f"blocks in BLOCKS that no page marks: {', '.join(missing)}")
    return results


def write(results: list[Result]) -> list[str]:
    """Rewrite the stale blocks in place; returns the names rewritten."""
    by_page: dict[str, list[Result]] = {}
    for result in results:
        if result.stale:
            by_page.setdefault(result.marked.page, []).append(result)
    for page, stale in by_page.items():
        path = ROOT / page
        lines = path.read_text(encoding="utf-8").split("\n")
        for result in sorted(stale, key=lambda r: r.marked.begin, reverse=True):
            lines[result.marked.begin : result.marked.end] = result.wanted
        path.write_text("\n".join(lines), encoding="utf-8")
    return [r.marked.name for rs in by_page.values() for r in rs]


# ---------------------------------------------------------------------------- commands shown


def shown_commands(lines: list[str]) -> list[str]:
    """The commands a console body shows (``$ `` lines, continuations joined)."""
    commands: list[str] = []
    pending: str | None = None
    for line in lines:
        if pending is not None:
            pending += " " + line.strip()
        elif line.startswith("$ "):
            pending = line[2:]
        else:
            continue
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
        else:
            commands.append(pending)
            pending = None
    return commands


def options_of(command: str) -> list[str]:
    """The long options a command line uses (up to a comment, a pipe or a redirection)."""
    options = []
    for word in shlex.split(command, comments=True):
        if word in ("|", ">", ">>", "&&", ";"):
            break
        if word.startswith("--"):
            options.append(word.split("=", 1)[0])
    return options


def check_exists(command: str) -> None:
    """Fail unless ``command`` (up to its options' values) still runs: ``--help`` lists each
    long option it uses. ``accelerators`` subcommands are the words before the first option.
    """
    words = shlex.split(command, comments=True)
    stop = next((i for i, w in enumerate(words) if w.startswith("-") or w in "|>"), len(words))
    prefix = words[:stop]
    if prefix[0] == "python":
        prefix = prefix[:2]
    elif prefix[0] == "accelerators":
        prefix = prefix[: 1 + sum(1 for w in prefix[1:] if re.fullmatch(r"[a-z][a-z-]*", w))]
    help_text = "\n".join(_run(_argv(shlex.join([*prefix, "--help"])), 200))
    absent = [o for o in options_of(command) if o not in help_text]
    if absent:
        raise RuntimeError(f"{command!r}: {' '.join(prefix)} --help lists no {', '.join(absent)}")


def check_captured(name: str, current: list[str]) -> list[str]:
    """Check what can be checked of a captured block; returns the commands checked."""
    block = BLOCKS[name]
    if not isinstance(block, Captured):
        raise TypeError(f"block '{name}' is not captured")
    commands = [*block.commands, *shown_commands(fenced_body(current, name)[1])]
    if not commands:
        raise ValueError(f"captured block '{name}' names no command")
    for command in commands:
        check_exists(command)
    return commands


# ---------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="rewrite nothing; exit 1 if stale")
    parser.add_argument("--only", action="append", metavar="NAME", help="only these blocks")
    args = parser.parse_args(argv)
    results = check(set(args.only) if args.only else None)
    for result in results:
        if isinstance(BLOCKS[result.marked.name], Captured):
            check_captured(result.marked.name, result.current)
    stale = [r for r in results if r.stale]
    if args.check:
        for result in stale:
            print(result.diff())
        print(f"{len(stale)} of {len(results)} blocks stale", file=sys.stderr)
        return 1 if stale else 0
    for name in write(results):
        print(f"rewrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
