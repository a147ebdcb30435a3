"""The gate's Flyte Deck: the headline, the local-run note, then the core's HTML report.

The Deck opens on the gate's tab (it is moved before flytekit's Timeline, Input and Output
tabs), leads with :func:`accelerators.bench.gate_headline` (``not checked: this machine has
no L40S`` on a local run), and on a local run its file is logged when flytekit has written it
(each local run writes a new ``deck.html`` under a temporary folder: :func:`last_gate_deck`).
"""

from __future__ import annotations

import html
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flytekitplugins.accelerators._gate import GateResult

    from accelerators.bench import BenchReport

__all__ = ["DECK_NAME", "last_gate_deck", "render_deck", "report_html", "writing_decks"]

#: The gate's tab.
DECK_NAME = "Accelerator gate"
#: In the gate's HTML, to find the ``deck.html`` flytekit wrote it into.
_MARK = "<!-- accelerators-gate-deck -->"
_DECKS: dict[str, str] = {}
_UNCHECKED = "#607d8b"


def report_html(report: BenchReport, *, note: str = "", headline: str = "") -> str:
    """Self-contained HTML for ``report``: :func:`accelerators.bench.html_report`.

    :param report: the gate's report.
    :param note: a line shown above the report (the local-run rule, when it applied).
    :param headline: the verdict in one line, shown first (see :func:`gate_headline`).
    """
    from accelerators.bench import html_report

    head = _MARK
    if headline:
        colour = _UNCHECKED if headline.startswith("not checked") else "#212121"
        head += f'<h2 style="font-family:sans-serif;color:{colour}">{html.escape(headline)}</h2>'
    if note:
        head += f"<p><b>{html.escape(note)}</b></p>"
    return head + html_report(report)


def render_deck(result: GateResult) -> None:
    """Show ``result`` as the task's first Deck tab (needs ``enable_deck=True``)."""
    from flytekit import Deck, FlyteContextManager

    deck = Deck(DECK_NAME, report_html(result.report(), note=result.note, headline=result.headline))
    decks = FlyteContextManager.current_context().user_space_params.decks
    if deck in decks:  # Deck() appended it after flytekit's Timeline: open on it instead
        decks.remove(deck)
        decks.insert(0, deck)


@contextmanager
def writing_decks(expected: str) -> Iterator[None]:
    """Around flytekit's ``_write_decks``: on a local run, log the ``deck.html`` it wrote.

    :param expected: the spec of the gate, for :func:`last_gate_deck`.
    """
    started = time.time() - 1
    yield
    from flytekit import FlyteContextManager
    from flytekit.loggers import user_space_logger

    ctx = FlyteContextManager.current_context()
    state = ctx.execution_state
    if state is None or not state.is_local_execution():
        return
    path = _newest_gate_deck(Path(ctx.file_access.local_sandbox_dir), started)
    if path is None:
        return
    _DECKS[expected] = _DECKS[""] = str(path)
    user_space_logger.info(f"Accelerator gate Deck ({expected}): file://{path}")


def last_gate_deck(spec: Any = None) -> str | None:
    """The ``deck.html`` of the last local gate run in this process (for ``spec``, or any)."""
    if spec is None:
        return _DECKS.get("")
    from accelerators import AcceleratorSpec

    return _DECKS.get(str(AcceleratorSpec.coerce(spec)))


def _newest_gate_deck(sandbox: Path, since: float) -> Path | None:
    """The newest ``<sandbox>/<random>/deck.html`` written since ``since`` with the gate's mark."""
    found: list[tuple[float, Path]] = []
    try:
        entries = list(os.scandir(sandbox))
    except OSError:
        return None
    for entry in entries:
        candidate = Path(entry.path) / "deck.html"
        try:
            modified = candidate.stat().st_mtime
        except OSError:
            continue
        if modified >= since:
            found.append((modified, candidate))
    for _, candidate in sorted(found, reverse=True):
        try:
            if _MARK in candidate.read_text(encoding="utf-8", errors="replace"):
                return candidate
        except OSError:
            continue
    return None
