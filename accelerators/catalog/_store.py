"""Loading the catalog data file once, and the plain lookups over it.

The data is read, validated (:mod:`accelerators.catalog._schema`) and indexed on first use,
under a lock, so threads that race for the first lookup parse the file once between them.
A data file that passed validation once is read back from the cache of its validated records
(:mod:`accelerators.catalog._trusted`) without validating it again.
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING

from accelerators import _datafiles
from accelerators._datafiles import load_toml
from accelerators.errors import CatalogDataError

if TYPE_CHECKING:
    from accelerators.catalog._file import CatalogFile
    from accelerators.catalog._schema import Accelerator, Source

__all__ = [
    "all",
    "by_exact_name",
    "by_model",
    "catalog_version",
    "group_members",
    "models",
    "select",
    "sources",
]

_DATA_PACKAGE = "accelerators.data"
_DATA_FILE = "catalog.toml"


def _read_data(*, fresh: bool = False) -> dict[str, object]:
    try:
        return load_toml(_DATA_PACKAGE, _DATA_FILE, fresh=fresh)
    except ValueError as exc:  # tomllib.TOMLDecodeError (imported only on a cache miss)
        raise CatalogDataError(f"catalog data file {_DATA_FILE} is not valid TOML: {exc}") from exc


def _read_data_now() -> dict[str, object]:
    # Looked up at call time, so tests can swap the reader (``_store._read_data``).
    return _read_data()


class _Loaded:
    """The validated file and its name index, built once per process (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._file: CatalogFile | None = None
        self._by_name: dict[str, Accelerator] = {}
        self._by_model: dict[str, tuple[Accelerator, ...]] = {}
        self.loads = 0  # how many times the file was parsed (tests check it stays 1)

    def file(self) -> CatalogFile:
        loaded = self._file
        if loaded is not None:
            return loaded
        with self._lock:
            if self._file is None:
                loaded = self._parse()
                self._by_name, self._by_model = _indexes(loaded)
                self._file = loaded
                self.loads += 1
            return self._file

    def by_name(self) -> dict[str, Accelerator]:
        self.file()
        return self._by_name

    def by_model(self) -> dict[str, tuple[Accelerator, ...]]:
        self.file()
        return self._by_model

    def cache_clear(self) -> None:
        """Forget the loaded file: the next lookup reads it again (tests that edit data)."""
        self.install(None)

    def install(self, loaded: CatalogFile | None) -> None:
        """Use ``loaded`` as the catalog (None: read the file on next use)."""
        with self._lock:
            self._by_name, self._by_model = _indexes(loaded) if loaded else ({}, {})
            self._file = loaded

    @staticmethod
    def _parse() -> CatalogFile:
        if _read_data is not _PACKAGE_READER:  # a test's data, not the package's data file
            return _validate(_read_data_now())
        from accelerators.catalog import _trusted

        raw = _datafiles.data_bytes(_DATA_PACKAGE, _DATA_FILE)
        key = _trusted.cache_key(raw)
        blob = _datafiles.read_blob(_TRUSTED_NAME, key) if key else None
        if blob is not None:
            try:
                stored = _trusted.from_blob(blob)
            except ValueError:  # not what this schema stores: validate and store it again
                stored = None
            if stored is not None and agrees_with(stored, raw):
                return stored
        loaded = _validate(_read_data_now())
        if not agrees_with(loaded, raw):  # the parsed copy in the cache is not this file's
            loaded = _validate(_read_data(fresh=True))
        if key:
            _datafiles.write_blob(_TRUSTED_NAME, key, _trusted.to_blob(loaded))
        return loaded


#: The data file's SKU records as written: each ``[[accelerators]]`` table starts with its
#: ``name``, and its ``memory_gb`` is an inline figure (tests/test_catalog_trusted.py pins it).
_RECORD = b"\n[[accelerators]]\n"
_NAME = re.compile(rb'\n\[\[accelerators\]\]\nname = "([^"\n]*)"')
_MEMORY = re.compile(rb"\nmemory_gb = \{ value = ([0-9.eE+-]+)[,} ]")


def agrees_with(loaded: CatalogFile, raw: bytes) -> bool:
    """The cheap check a cached copy of the catalog must pass against the data file's bytes
    ``raw`` (about a millisecond, where validating takes ~7): as many SKUs, with the same
    names and memory figures in the same order. A copy edited in place (an H100 with 8 GB)
    fails it."""
    accelerators = loaded.accelerators
    if len(accelerators) != raw.count(_RECORD):
        return False
    names = [n.decode("utf-8", "replace") for n in _NAME.findall(raw)]
    if names != [acc.name for acc in accelerators]:
        return False
    try:
        memory = [float(m) for m in _MEMORY.findall(raw)]
    except ValueError:
        return False
    return memory == [acc.memory_gb for acc in accelerators]


def _indexes(
    loaded: CatalogFile,
) -> tuple[dict[str, Accelerator], dict[str, tuple[Accelerator, ...]]]:
    """Entries by case-folded SKU name, and by case-folded model (default SKU first)."""
    by_name = {acc.name.casefold(): acc for acc in loaded.accelerators}
    by_model: dict[str, list[Accelerator]] = {}
    for acc in loaded.accelerators:
        by_model.setdefault(acc.model.casefold(), []).append(acc)
    return by_name, {
        model: tuple(sorted(skus, key=lambda acc: not acc.default_for_model))
        for model, skus in by_model.items()
    }


def _validate(raw: dict[str, object]) -> CatalogFile:
    """``raw`` (the parsed data file) as validated records.

    :raises CatalogDataError: ``raw`` fails the schema, with pydantic's report.
    """
    from pydantic import ValidationError

    from accelerators.catalog._file import CatalogFile

    try:
        return CatalogFile.model_validate(raw)
    except ValidationError as exc:
        raise CatalogDataError(f"catalog data file {_DATA_FILE} failed validation:\n{exc}") from exc


_PACKAGE_READER = _read_data
#: Cache name of the validated records (``_datafiles.read_blob``).
_TRUSTED_NAME = f"{_DATA_FILE}.validated"


LOADED = _Loaded()


def all() -> tuple[Accelerator, ...]:  # noqa: A001 - the name the API promises
    """Every catalog entry, in data-file order."""
    return LOADED.file().accelerators


def catalog_version() -> str:
    """Version string of the data file (``YYYY.MM.patch``)."""
    return LOADED.file().catalog_version


def sources() -> dict[str, Source]:
    """Source records keyed as the figures reference them."""
    return dict(LOADED.file().sources)


def group_members(name: str) -> tuple[Accelerator, ...] | None:
    """Default SKUs of the models a group name means (``B200+``), in order; None if no group."""
    folded = name.strip().casefold()
    for group in LOADED.file().groups:
        if group.name.casefold() == folded:
            return tuple(by_model(model)[0] for model in group.members)
    return None


def by_exact_name(name: str) -> Accelerator | None:
    """The entry whose SKU name is ``name`` (case-insensitive), or None."""
    return LOADED.by_name().get(name.casefold())


def by_model(model: str) -> tuple[Accelerator, ...]:
    """Every SKU of ``model`` (e.g. the SXM and PCIe A100 40 GB), default first."""
    return LOADED.by_model().get(model.casefold(), ())


def models() -> tuple[str, ...]:
    """Distinct model names, in data-file order."""
    return tuple(dict.fromkeys(acc.model for acc in all()))


def select(
    *,
    vendor: str | None = None,
    device_class: str | None = None,
    min_memory_gb: float | None = None,
    memory_gb: float | None = None,
) -> tuple[Accelerator, ...]:
    """Entries matching every given filter (memory compared in GB)."""
    out = []
    for acc in all():
        if vendor is not None and acc.vendor != vendor.lower():
            continue
        if device_class is not None and acc.device_class != device_class.lower():
            continue
        if min_memory_gb is not None and acc.memory_gb < min_memory_gb:
            continue
        if memory_gb is not None and acc.memory_gb != memory_gb:
            continue
        out.append(acc)
    return tuple(out)
