"""Reading the package's TOML data files, with a parsed copy cached on disk.

``tomllib`` is pure Python: parsing ``catalog.toml`` takes about 100 ms, most of what a DAG
file that names an accelerator costs Airflow's DAG processor on every parse (a fresh process
each time). The same data as JSON loads in about 6 ms (``benchmarks/catalog_load.py``).

:func:`load_toml` therefore keeps the parsed data as JSON in a cache folder, under a name
that carries the SHA-256 of the file's bytes: an edited or upgraded data file gets a new
entry, so the cache can never serve stale data. The TOML file stays the one source of truth;
the cache is only ever a faster way to read it. Anything wrong with the cache (no folder, no
permission, a damaged entry, data JSON cannot hold) falls back to parsing the TOML.

:func:`read_blob` and :func:`write_blob` keep other derived bytes the same way (the catalog
keeps its validated records there, :mod:`accelerators.catalog._trusted`), each entry behind
the SHA-256 of its payload, so a damaged or truncated entry reads as absent.

Folder: ``$ACCELERATORS_CACHE_DIR``, else ``$XDG_CACHE_HOME/accelerators``, else
``~/.cache/accelerators``; ``ACCELERATORS_CACHE_DIR=off`` turns the cache off.

**A cache is never trusted more than its folder.** The folder is created ``0700``; one that
another user owns (root aside) or that group or others can write is not used at all
(:func:`trusted_cache_dir`): whoever can write it could make every later process read wrong
figures. An entry's name carries the SHA-256 of the data file's bytes and of this code's
version, and an entry is checked against the data file before it is used: the number of
records of each ``[[table]]`` array (the catalog also checks every SKU's name and memory,
:mod:`accelerators.catalog._store`). A copy that fails is read as absent, and rewritten.
"""

from __future__ import annotations

import importlib
import os
import re
import stat
from pathlib import Path

__all__ = [
    "CACHE_ENV",
    "cache_dir",
    "data_bytes",
    "load_toml",
    "read_blob",
    "trusted_cache_dir",
    "write_blob",
]

#: ``[[name]]`` headers of top-level arrays of tables, counted against a cached copy.
_ARRAY_HEADER = re.compile(rb"(?:^|\n)\[\[([A-Za-z0-9_-]+)\]\]")

#: Environment variable naming the cache folder (``off`` disables the cache).
CACHE_ENV = "ACCELERATORS_CACHE_DIR"


def cache_dir() -> Path | None:
    """The folder parsed data files are cached in, or ``None`` when caching is off."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        return None if configured.strip().lower() in ("", "off", "0", "none") else Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "accelerators"


def trusted_cache_dir() -> Path | None:
    """:func:`cache_dir`, created ``0700``, or ``None`` when caching is off or the folder
    cannot be trusted: not a folder, owned by another user than this one or root, or
    writable by group or others."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid not in (os.geteuid(), 0):
        return None
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    return folder


def _version() -> str:
    import sys

    return str(getattr(sys.modules.get("accelerators"), "__version__", "0"))


def data_bytes(package: str, name: str) -> bytes:
    """The bytes of the data file ``name`` in ``package``.

    Read through the package's own loader (``get_data``, which a package on disk and one in a
    zip archive both have), as :mod:`importlib.resources` would read it: that module and the
    readers it imports (``tempfile``, ``zipfile``) cost ~5 ms of every process that names an
    accelerator. A package whose loader cannot read it (a namespace package, an unusual
    importer) is read through :mod:`importlib.resources`.
    """
    spec = importlib.import_module(package).__spec__
    get_data = getattr(spec.loader, "get_data", None) if spec is not None else None
    if spec is not None and spec.origin and get_data is not None:
        try:
            data = get_data(os.path.join(os.path.dirname(spec.origin), name))
        except OSError:
            data = None
        if isinstance(data, bytes):
            return data
    from importlib import resources

    return resources.files(package).joinpath(name).read_bytes()


def load_toml(package: str, name: str, *, fresh: bool = False) -> dict[str, object]:
    """The parsed contents of the TOML file ``name`` in ``package``, through the cache.

    :param fresh: parse the file even if a cached copy exists (and store the new copy): for a
        caller whose own check found the copy wrong.
    :raises ValueError: the file is not valid TOML (``tomllib.TOMLDecodeError``) or not UTF-8;
        callers wrap it in their documented error type.
    """
    import hashlib

    raw = data_bytes(package, name)
    folder = trusted_cache_dir()
    entry = None
    if folder is not None:
        digest = hashlib.sha256(raw + b"\0" + _version().encode()).hexdigest()[:32]
        entry = folder / f"{name}.{digest}.json"
        cached = None if fresh else _read_cached(entry, raw)
        if cached is not None:
            return cached
    import tomllib  # only on a cache miss: importing it costs a few ms per process

    data = tomllib.loads(raw.decode("utf-8"))
    if entry is not None:
        _write_cached(entry, data)
    return data


def _read_cached(entry: Path, raw: bytes) -> dict[str, object] | None:
    """The copy at ``entry`` if it reads and has as many records as ``raw`` has headers."""
    import json

    try:
        data = json.loads(entry.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    counts: dict[bytes, int] = {}
    for header in _ARRAY_HEADER.findall(raw):
        counts[header] = counts.get(header, 0) + 1
    for header, count in counts.items():
        records = data.get(header.decode())
        if not isinstance(records, list) or len(records) != count:
            return None
    return data


def _write_cached(entry: Path, data: dict[str, object]) -> None:
    """Write ``entry`` as JSON; never raise (see :func:`_replace_entry`)."""
    import json

    try:
        text = json.dumps(data, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):  # dates or non-finite floats: JSON cannot round-trip them
        return
    _replace_entry(entry, text.encode("utf-8"))


def read_blob(name: str, key: str) -> bytes | None:
    """The payload :func:`write_blob` stored for ``name`` under ``key``, or None.

    None also when caching is off, the entry is missing or unreadable, or its bytes do not
    match the SHA-256 stored with them (a damaged or truncated entry).
    """
    import hashlib

    folder = trusted_cache_dir()
    if folder is None:
        return None
    try:
        data = (folder / f"{name}.{key}.bin").read_bytes()
    except OSError:
        return None
    digest, payload = data[:32], data[32:]
    if len(digest) < 32 or hashlib.sha256(payload).digest() != digest:
        return None
    return payload


def write_blob(name: str, key: str, payload: bytes) -> None:
    """Store ``payload`` for ``name`` under ``key`` (dropping its other keys); never raise."""
    import hashlib

    folder = trusted_cache_dir()
    if folder is not None:
        _replace_entry(folder / f"{name}.{key}.bin", hashlib.sha256(payload).digest() + payload)


def _replace_entry(entry: Path, data: bytes) -> None:
    """Write ``entry`` atomically and drop the other entries of its stem; never raise.

    ``<stem>.<key>.<suffix>``: entries that differ only in ``key`` are older versions.
    """
    import tempfile

    stem, _, suffix = entry.name.rsplit(".", 2)
    try:
        fd, temporary = tempfile.mkstemp(dir=entry.parent, prefix=f".{stem}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temporary, entry)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        for old in entry.parent.glob(f"{stem}.*.{suffix}"):
            if old != entry:
                old.unlink(missing_ok=True)
    except OSError:
        return
