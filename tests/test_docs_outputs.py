"""The console blocks of README.md and docs/*.md are what their commands print today.

``docs/make_outputs.py`` writes each block between ``<!-- output: NAME -->`` markers; these
tests render every block again and fail on any difference (run the script to rewrite them),
and fail on a console block that no marker owns or a command shown anywhere in the docs that
the command line no longer accepts.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_SPEC = importlib.util.spec_from_file_location("make_outputs", ROOT / "docs" / "make_outputs.py")
assert _SPEC is not None
assert _SPEC.loader is not None
make_outputs = importlib.util.module_from_spec(_SPEC)
sys.modules["make_outputs"] = make_outputs  # dataclasses look their module up
_SPEC.loader.exec_module(make_outputs)

REGENERATE = "run `python docs/make_outputs.py` to rewrite it (review the diff)"
#: Fenced blocks that hold code, not a session.
CODE = {"python", "yaml", "json", "ebnf", "toml"}
#: The pages' marked blocks, found once at collection.
MARKED = [(page, marked) for page, _lines, marked in make_outputs.pages_blocks()]


def _lines(page: str) -> list[str]:
    return (ROOT / page).read_text(encoding="utf-8").split("\n")


def _fenced_blocks(page: str) -> list[tuple[int, str, list[str]]]:
    """(line number, info string, body) of every fenced block of a page."""
    lines, blocks, at = _lines(page), [], 0
    while at < len(lines):
        fence = make_outputs.FENCE.match(lines[at])
        if not fence:
            at += 1
            continue
        end = next(i for i in range(at + 1, len(lines)) if lines[i] == fence["fence"])
        blocks.append((at + 1, fence["info"].strip(), lines[at + 1 : end]))
        at = end + 1
    return blocks


def _shows_output(body: list[str]) -> bool:
    """A session: a ``$`` command followed by a line that is not a command, comment or
    continuation."""
    after_command = continued = False
    for line in body:
        if line.startswith("$ ") or continued:
            after_command = True
        elif after_command and line.strip() and not line.lstrip().startswith("#"):
            return True
        continued = line.endswith("\\")
    return False


def _commands(page: str) -> list[tuple[int, str]]:
    """Every ``accelerators`` or ``python`` command a page's non-code blocks show."""
    found = []
    for number, info, body in _fenced_blocks(page):
        if info in CODE:
            continue
        bare = [line for line in body if re.match(r"(accelerators|python) ", line)]
        joined = make_outputs.shown_commands(
            [f"$ {line}" if line in bare else line for line in body]
        )
        found.extend((number, c) for c in joined if re.match(r"(accelerators|python) ", c))
    return found


#: Each command shown once (the first page that shows it), without its comment.
COMMANDS = sorted(
    {
        c.split(" #")[0].strip(): page
        for page in reversed(make_outputs.PAGES)
        for _n, c in _commands(page)
    }.items()
)


@pytest.mark.parametrize(("page", "marked"), MARKED, ids=[m.name for _p, m in MARKED])
def test_block_is_what_its_command_prints(page: str, marked) -> None:
    current = _lines(page)[marked.begin : marked.end]
    block = make_outputs.BLOCKS[marked.name]
    if isinstance(block, make_outputs.Captured):
        assert make_outputs.check_captured(marked.name, current)
    wanted = make_outputs.render(marked.name, current, page)
    assert current == wanted, (
        f"{page}: block '{marked.name}' is stale; {REGENERATE}:\n"
        + make_outputs.Result(marked, current, wanted).diff()
    )


def test_every_block_is_on_a_page_once() -> None:
    names = [m.name for _p, m in MARKED]
    assert sorted(names) == sorted(make_outputs.BLOCKS)
    assert len(names) == len(set(names))


@pytest.mark.parametrize("page", make_outputs.PAGES)
def test_every_session_on_a_page_is_generated(page: str) -> None:
    """A block that shows a command's output is owned by markers (else nothing checks it)."""
    owned = {line for _p, m in MARKED if _p == page for line in range(m.begin + 1, m.end + 1)}
    loose = [
        f"{page}:{number}"
        for number, info, body in _fenced_blocks(page)
        if info not in CODE and _shows_output(body) and number not in owned
    ]
    assert not loose, f"console blocks with output but no <!-- output: NAME --> markers: {loose}"


def _cli_accepts(args: list[str]) -> None:
    """Parse ``accelerators ARGS`` as the CLI would, down to the last subcommand, running
    nothing (click's parser: unknown options, bad values and missing arguments raise)."""
    import typer

    from accelerators.cli import build_app

    command = typer.main.get_command(build_app())
    context = command.make_context("accelerators", list(args))
    while hasattr(command, "resolve_command"):  # a group (typer's click may be its own)
        rest = [*context._protected_args, *context.args]
        if not rest:
            break
        name, sub, rest = command.resolve_command(context, rest)
        assert sub is not None, name
        context = sub.make_context(name, rest, parent=context)
        command = sub


@pytest.mark.parametrize(("command", "page"), COMMANDS, ids=[c for c, _p in COMMANDS])
def test_every_command_shown_is_accepted(command: str, page: str) -> None:
    words = shlex.split(command, comments=True)
    cut = next((i for i, w in enumerate(words) if w in ("|", ">", ">>", "&&", ";")), len(words))
    words = words[:cut]
    if words[0] == "accelerators":
        typer = pytest.importorskip("typer", reason="typer (the [cli] extra) is missing")
        try:
            _cli_accepts(words[1:])
        except (typer.Exit, SystemExit) as exc:  # --help or --version: exit code 0
            code = getattr(exc, "exit_code", getattr(exc, "code", 0))
            if code:
                pytest.fail(f"{page}: `{command}` exits {code}")
        except Exception as exc:
            pytest.fail(f"{page}: `{command}` is refused: {type(exc).__name__}: {exc}")
        return
    # python SCRIPT [options]: the script exists and its --help lists the options.
    script = words[1] if words[1] != "-m" else None
    if script is None:
        return
    assert (ROOT / script).is_file(), f"{page}: `{command}`: {script} does not exist"
    if script.startswith("benchmarks/") and any(w.startswith("--") for w in words):
        make_outputs.check_exists(shlex.join(words))


def test_sessions_are_detected() -> None:
    """The detector the loose-block test relies on tells output from a command list."""
    assert _shows_output(["$ accelerators list", "Name  Vendor"])
    assert not _shows_output(["$ accelerators list", "$ accelerators show H100-SXM"])
    assert not _shows_output(["$ accelerators plan --a \\", "      --b", "# a comment"])
    assert _shows_output(["84 runs", "$ accelerators bench history", " node  dev"])


def test_a_stale_block_is_reported_and_rewritten(tmp_path, monkeypatch) -> None:
    """The generator rewrites a block that differs, and only what lies between its markers."""
    page = tmp_path / "page.md"
    page.write_text(
        "intro\n<!-- output: grammar-count-error -->\n```text\nold\n```\n<!-- /output -->\nend",
        encoding="utf-8",
    )
    monkeypatch.setattr(make_outputs, "ROOT", tmp_path)
    monkeypatch.setattr(make_outputs, "PAGES", ("page.md",))
    results = make_outputs.check({"grammar-count-error"})
    assert [r.stale for r in results] == [True]
    assert make_outputs.write(results) == ["grammar-count-error"]
    text = page.read_text(encoding="utf-8")
    assert text.startswith("intro\n<!-- output: grammar-count-error -->\n```text\nExpected a count")
    assert text.endswith("         ^\n```\n<!-- /output -->\nend")
    assert not any(r.stale for r in make_outputs.check({"grammar-count-error"}))


def test_markers_that_do_not_close_are_refused() -> None:
    with pytest.raises(ValueError, match="not closed"):
        list(make_outputs.marked_blocks("p.md", ["<!-- output: a -->", "x"]))
    with pytest.raises(ValueError, match="no block open"):
        list(make_outputs.marked_blocks("p.md", ["<!-- /output -->"]))


def test_a_chart_not_drawn_from_its_report_is_stale() -> None:
    block = make_outputs.BLOCKS["readme-roofline"]
    png = (ROOT / block.image).read_bytes()
    digest = make_outputs.report_digest(block.report)
    assert make_outputs.stamped_digest(png) == digest
    other = make_outputs.stamp(png, "0" * 64)
    assert make_outputs.stamped_digest(other) == "0" * 64
    assert make_outputs.stamp(other, digest) == png  # the stamp is replaced, nothing else
