"""The command line's standard streams, made safe for any terminal before a command runs.

:func:`guard_streams` (called first by :func:`accelerators.cli.main`) puts a
:class:`GuardedStream` in place of ``sys.stdout`` and ``sys.stderr``:

* text the stream's encoding cannot hold (``PYTHONIOENCODING=ascii``, a latin-1 or ``C``
  locale) is written with replacement characters, never raised: a passing gate whose table
  holds a ``…`` still exits 0;
* a stdout that is closed (``>&-``) or whose reader went away (``| head -1``) takes the
  output without raising, so the command finishes its work (the report file, the history
  row), and :func:`output_lost` says so: ``main`` then exits :data:`EXIT_OUTPUT` where it
  would have exited 0. The codes 1 (a failed gate) and 2 (bad input) keep their meaning.

Standard library only: ``accelerators parse`` answers before typer or rich are imported.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from typing import TextIO

__all__ = ["EXIT_OUTPUT", "GuardedStream", "guard_streams", "output_lost"]

#: Exit code of a command whose output could not be written (sysexits' ``EX_IOERR``).
EXIT_OUTPUT = 74


class GuardedStream(io.TextIOBase):
    """A text stream over ``stream`` (``None``: a closed one) that never raises on write."""

    def __init__(self, stream: TextIO | None) -> None:
        super().__init__()
        self._stream = stream
        self._broken = stream is None
        #: Output was given that could not be written.
        self.lost = False

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._stream, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str:  # type: ignore[override]
        return "replace"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        try:
            return bool(self._stream is not None and self._stream.isatty())
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        if self._stream is None:
            raise io.UnsupportedOperation("stdout is closed")
        return self._stream.fileno()

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if self._broken or self._stream is None:
            self.lost = self.lost or bool(text)
            return len(text)
        try:
            try:
                self._stream.write(text)
            except UnicodeEncodeError:
                encoding = self.encoding
                self._stream.write(text.encode(encoding, "replace").decode(encoding))
        except (OSError, ValueError):  # a closed pipe or file: the rest goes nowhere
            self._lose()
        return len(text)

    def flush(self) -> None:
        if self._broken or self._stream is None:
            return
        try:
            self._stream.flush()
        except (OSError, ValueError):
            self._lose()

    def _lose(self) -> None:
        self.lost = self._broken = True
        # What is left in the stream's buffer goes nowhere, and the interpreter's last flush
        # finds nothing to report.
        stream = self._stream
        if stream is not None:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def guard_streams() -> None:
    """Put :class:`GuardedStream` around ``sys.stdout`` and ``sys.stderr`` (once)."""
    if not isinstance(sys.stdout, GuardedStream):
        sys.stdout = GuardedStream(sys.stdout)
    if not isinstance(sys.stderr, GuardedStream):
        sys.stderr = GuardedStream(sys.stderr)


def output_lost() -> bool:
    """Whether some output to stdout could not be written (it is flushed first)."""
    stdout = sys.stdout
    if isinstance(stdout, GuardedStream):
        stdout.flush()
        return stdout.lost
    return False
