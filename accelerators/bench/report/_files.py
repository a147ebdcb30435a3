"""Writing a report file (``--json``, ``--html``, ``--plot``, ``--chart``) the way a user
expects of a path they name.

* A regular file (or a new one) is replaced atomically: a temporary file beside it, then
  :func:`os.replace`; a reader sees the old file or the new one, never a part.
* A symbolic link is written through: the file it points to is replaced (the link stays).
* A FIFO or a character device (``/dev/null``, ``/dev/stdout``, a terminal, ``>(jq .)``) is
  written to directly, as a shell's ``>`` would, and never replaced (as root, replacing
  ``/dev/null`` would break the whole host).
* Anything else that is not a regular file (a directory, a socket, a block device) is refused
  with an :class:`~accelerators.errors.AcceleratorError` saying what it is.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from accelerators.errors import AcceleratorError

__all__ = ["atomic_write", "target_kind"]

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISFIFO, "a FIFO"),
)


def target_kind(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` (through symlinks) is when it is not a regular file, else ``None``
    (a regular file, or nothing yet)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return next((kind for test, kind in _KINDS if test(mode)), None)


def atomic_write(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` (module docstring); returns ``path``.

    An existing file's permission bits are kept; a new file gets ``0o644``.

    :param path: the destination; its directory must exist.
    :param data: the content.
    :raises AcceleratorError: ``path`` is a directory, a socket or a block device.
    """
    target = Path(path)
    kind = target_kind(target)
    if kind in ("a FIFO", "a character device"):
        with open(target, "wb") as handle:  # a device: no temporary file beside it
            handle.write(data)
        return target
    if kind is not None:
        raise AcceleratorError(
            f"Cannot write {str(target)!r}: it is {kind}, not a regular file (name a file path)"
        )
    real = Path(os.path.realpath(target))  # through symlinks, to replace what they point to
    try:
        mode = real.stat().st_mode & 0o777
    except OSError:
        mode = 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    try:
        os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, real)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target
