"""Open a bench history by location: the default SQLite file, a path, a PostgreSQL URL or an
S3 prefix."""

from __future__ import annotations

import os
from pathlib import Path

from accelerators._text import printable, redact
from accelerators.bench.history._sqlite import SqliteStore
from accelerators.bench.history._store import HistoryStore, Limits
from accelerators.errors import AcceleratorError

__all__ = ["HISTORY_ENV", "default_history_path", "history_store", "open_store"]

#: Where every gate run of a deployment appends its report when the code names no history:
#: a path, a ``postgresql://user@host/db`` or ``s3://bucket/prefix`` URL, or ``default`` (set
#: it in the pods' environment).
HISTORY_ENV = "ACCELERATORS_BENCH_HISTORY"

_FILE_NAME = "bench-history.sqlite"


def default_history_path() -> Path:
    """``bench-history.sqlite`` in the user data directory (platformdirs, else XDG rules)."""
    try:
        import platformdirs  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(base) / "accelerators" / _FILE_NAME
    return Path(platformdirs.user_data_dir("accelerators")) / _FILE_NAME


def open_store(
    location: str | os.PathLike[str] | None = None, *, limits: Limits | None = None
) -> HistoryStore:
    """The store at ``location``: ``None`` (the default SQLite file), a path,
    ``postgresql://`` or ``s3://``.

    :param location: where the history lives.
    :param limits: how long it may take (default: :meth:`Limits.from_env`).
    :raises AcceleratorError: an ``s3://`` URL without a bucket, another URL scheme, or a
        limit in the environment that is not a number.
    """
    if location is None:
        return SqliteStore(default_history_path(), limits=limits)
    text = os.fspath(location)
    if text.startswith("s3://"):
        from accelerators.bench.history._s3 import S3Store  # boto3 only when asked for

        return S3Store.from_url(text, limits=limits)
    if text.startswith(("postgresql://", "postgres://")):
        from accelerators.bench.history._postgres import PostgresStore  # psycopg when used

        return PostgresStore(text, limits=limits)
    if "://" in text:
        raise AcceleratorError(
            "Expected a bench history path, a postgresql://user@host/db or an "
            f"s3://bucket/prefix URL, got '{printable(redact(text), 80)}'"
        )
    return SqliteStore(text, limits=limits)


def history_store(
    history: str | os.PathLike[str] | HistoryStore | bool | None,
) -> HistoryStore | None:
    """The store a run appends to: ``history`` itself, the store at a path or URL
    (``"default"``: the default SQLite file), none for ``False``; for ``None`` the store
    :data:`HISTORY_ENV` names (unset or empty: none), for ``True`` that store or else the
    default file.

    :raises AcceleratorError: a location that is neither a path nor a ``postgresql://`` or
        ``s3://`` URL.
    """
    if history is False:
        return None
    if isinstance(history, HistoryStore):
        return history
    where = ""
    if history is None or history is True:
        named = os.environ.get(HISTORY_ENV, "").strip()
        if not named and history is None:
            return None
        history, where = (named, f" ({HISTORY_ENV})") if named else ("default", "")
    text = os.fspath(history)
    try:
        return open_store(None if text == "default" else text)
    except AcceleratorError as exc:
        shown = printable(redact(text), 120)
        raise AcceleratorError(f"Bench history '{shown}'{where}: {exc}") from exc
