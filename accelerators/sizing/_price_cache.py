"""The dated local cache the live price refreshers write and the sizing functions read first.

Each refresh writes ``<cloud>-<region>.json`` (``{"version", "cloud", "region",
"fetched_at", "prices": [...]}``) to the user cache folder (:func:`cache_dir`) through a fresh
temporary file and :func:`os.replace`. :func:`cached_rows` reads every such file back, newest
first, keeping the rows that validate: a damaged or foreign file is ignored, never fatal.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from accelerators import _datafiles
from accelerators.catalog._instances import Price

__all__ = [
    "VERSION",
    "PriceRefresh",
    "cache_dir",
    "cached_rows",
    "clear",
    "payloads",
    "write",
    "write_json",
]

VERSION = 1
#: A region or zone name: it becomes part of a file name, so nothing else is accepted.
REGION = re.compile(r"^[a-z]{2,12}(-[a-z0-9]+)*-?[0-9a-z]*$")


@dataclass(frozen=True, slots=True)
class PriceRefresh:
    """What a live price refresh did: ``source`` is ``live`` (the API answered) or ``shipped``
    (it was not asked: no API key), and the message says which table plans will read."""

    cloud: str
    region: str
    source: str
    message: str
    prices: tuple[Price, ...] = ()
    path: Path | None = None
    fetched_at: str | None = None
    skipped: int = 0
    """Items of the answer that were not prices of a known instance (or were garbled)."""


def cache_dir() -> Path | None:
    """Where live data is cached; ``None`` when the cache is off or cannot be trusted."""
    return _datafiles.trusted_cache_dir()


def write(cloud: str, region: str, prices: list[Price], **extra: Any) -> tuple[Path | None, str]:
    """Cache ``prices`` of ``cloud`` in ``region``; return the path (``None``: not written) and
    the UTC time stamp written."""
    fetched_at = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    payload = {
        "version": VERSION,
        "cloud": cloud,
        "region": region,
        "fetched_at": fetched_at,
        "prices": [p.model_dump(mode="json") for p in prices],
        **extra,
    }
    folder = cache_dir()
    path = None if folder is None else write_json(folder / f"{cloud}-{region}.json", payload)
    clear()
    return path, fetched_at


def write_json(path: Path, payload: dict[str, Any]) -> Path | None:
    """Write ``payload`` to ``path`` through a fresh temporary file (never a fixed name a link
    could sit on), then :func:`os.replace`; ``None`` when it cannot be written."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(payload, indent=1))
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
        return None
    return path


def payloads(cloud: str) -> tuple[dict[str, Any], ...]:
    """Every readable cache file of ``cloud``, newest first."""
    folder = cache_dir()
    if folder is None:
        return ()
    try:
        files = sorted(folder.glob(f"{cloud}-*.json"))
        stamp = tuple((f.name, f.stat().st_mtime) for f in files)
    except OSError:
        return ()
    return _read(str(folder), stamp)


@functools.cache
def _read(folder: str, stamp: tuple[tuple[str, float], ...]) -> tuple[dict[str, Any], ...]:
    found = []
    for name, _mtime in stamp:
        try:
            payload = json.loads((Path(folder) / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(payload, dict) and payload.get("version") == VERSION:
            found.append(payload)
    found.sort(key=lambda p: str(p.get("fetched_at", "")), reverse=True)
    return tuple(found)


def cached_rows(cloud: str, field: str = "prices") -> tuple[Price, ...]:
    """The price rows of every cache file of ``cloud`` that validate."""
    rows: list[Price] = []
    for payload in payloads(cloud):
        raws = payload.get(field)
        for raw in raws if isinstance(raws, list) else ():
            try:
                rows.append(Price.model_validate(raw))
            except ValidationError:
                continue
    return tuple(rows)


def clear() -> None:
    """Forget what was read (after a write, or in tests)."""
    _read.cache_clear()
