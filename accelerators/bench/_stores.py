"""Open a bench history by location: the default SQLite file, a path, or an S3 prefix."""

from __future__ import annotations

import os
from pathlib import Path

from accelerators.bench._history import HistoryStore, SqliteStore
from accelerators.errors import AcceleratorError

__all__ = ["default_history_path", "open_store"]

_FILE_NAME = "bench-history.sqlite"


def default_history_path() -> Path:
    """``bench-history.sqlite`` in the user data directory (platformdirs, else XDG rules)."""
    try:
        import platformdirs  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(base) / "accelerators" / _FILE_NAME
    return Path(platformdirs.user_data_dir("accelerators")) / _FILE_NAME


def open_store(location: str | os.PathLike[str] | None = None) -> HistoryStore:
    """The store at ``location``: ``None`` (the default SQLite file), a path, or ``s3://``.

    :param location: where the history lives.
    :raises AcceleratorError: an ``s3://`` URL without a bucket, or boto3 is missing.
    """
    if location is None:
        return SqliteStore(default_history_path())
    text = os.fspath(location)
    if text.startswith("s3://"):
        from accelerators.bench._history_s3 import S3Store  # boto3 only when asked for

        return S3Store.from_url(text)
    if "://" in text:
        raise AcceleratorError(
            f"Expected a bench history path or an s3://bucket/prefix URL, got {text!r}"
        )
    return SqliteStore(text)
