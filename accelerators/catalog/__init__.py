"""The accelerator catalog: datasheet facts loaded lazily from one versioned data file.

>>> from accelerators import catalog
>>> catalog.get("H100").memory_gb
80.0
>>> catalog.get("nvidia-tesla-a100").name
'A100-40GB-SXM'

The data lives in ``accelerators/data/catalog.toml``; this module loads it on first use,
validates it (:mod:`accelerators.catalog._schema`) and indexes it. Importing this module
reads nothing and imports nothing heavy.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import TYPE_CHECKING

from accelerators.errors import CatalogDataError, UnknownAcceleratorError

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator, CatalogFile, Source

__all__ = ["all", "by_model", "catalog_version", "get", "models", "select", "sources"]

_DATA_PACKAGE = "accelerators.data"
_DATA_FILE = "catalog.toml"


def _read_data() -> dict[str, object]:
    text = resources.files(_DATA_PACKAGE).joinpath(_DATA_FILE).read_text(encoding="utf-8")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogDataError(f"catalog data file {_DATA_FILE} is not valid TOML: {exc}") from exc


@functools.cache
def _load() -> CatalogFile:
    """Parse and validate the data file once per process."""
    from pydantic import ValidationError

    from accelerators.catalog._schema import CatalogFile

    raw = _read_data()
    try:
        return CatalogFile.model_validate(raw)
    except ValidationError as exc:
        raise CatalogDataError(f"catalog data file {_DATA_FILE} failed validation:\n{exc}") from exc


def all() -> tuple[Accelerator, ...]:  # noqa: A001 - the name the API promises
    """Every catalog entry, in data-file order."""
    return _load().accelerators


def catalog_version() -> str:
    """Version string of the data file (``YYYY.MM.patch``)."""
    return _load().catalog_version


def sources() -> dict[str, Source]:
    """Source records keyed as the figures reference them."""
    return dict(_load().sources)


@functools.cache
def _by_name() -> dict[str, Accelerator]:
    return {acc.name.casefold(): acc for acc in all()}


def by_model(model: str) -> tuple[Accelerator, ...]:
    """Every SKU of ``model`` (e.g. the SXM and PCIe A100 40 GB), default first."""
    found = [acc for acc in all() if acc.model.casefold() == model.casefold()]
    found.sort(key=lambda acc: not acc.default_for_model)
    return tuple(found)


def models() -> tuple[str, ...]:
    """Distinct model names, in data-file order."""
    return tuple(dict.fromkeys(acc.model for acc in all()))


def get(name: str) -> Accelerator:
    """Resolve any accelerator name the spec grammar accepts to its catalog entry.

    Raises :class:`~accelerators.errors.UnknownAcceleratorError` (an ``AcceleratorError``)
    with close matches when nothing matches.
    """
    if not isinstance(name, str):
        raise UnknownAcceleratorError(
            f"Expected an accelerator name (str), got {type(name).__name__}: {name!r}",
            name=repr(name),
        )
    exact = _by_name().get(name.strip().casefold())
    if exact is not None:
        return exact
    from accelerators._names import resolve_name

    return resolve_name(name).accelerator


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
