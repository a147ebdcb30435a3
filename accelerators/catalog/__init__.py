"""The accelerator catalog: datasheet facts loaded lazily from one versioned data file.

>>> from accelerators import catalog
>>> catalog.get("H100").memory_gb
80.0
>>> catalog.get("nvidia-tesla-a100").name
'A100-40GB-SXM'

The data lives in ``accelerators/data/catalog.toml``; it is loaded on first use, validated
(:mod:`accelerators.catalog._schema`) and indexed (:mod:`accelerators.catalog._store`).
Names in every system's form are resolved by :mod:`accelerators.catalog._names`. Importing
this package reads nothing and imports nothing heavy.

This package is the second layer of the core: it imports only :mod:`accelerators.errors`
and :mod:`accelerators._text` (the contracts are in ``pyproject.toml``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelerators.catalog._node_sizes import NodeSize, largest_node
from accelerators.catalog._store import _DATA_FILE as _DATA_FILE  # constants read it raw
from accelerators.catalog._store import _DATA_PACKAGE as _DATA_PACKAGE
from accelerators.catalog._store import (
    all,  # noqa: A004 - the name the API promises
    by_exact_name,
    by_model,
    catalog_version,
    models,
    select,
    sources,
)
from accelerators.errors import UnknownAcceleratorError

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = [
    "NodeSize",
    "all",
    "by_model",
    "catalog_version",
    "get",
    "largest_node",
    "models",
    "select",
    "sources",
]


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
    exact = by_exact_name(name.strip()) if name.isascii() else None
    if exact is not None:
        return exact
    from accelerators.catalog._names import resolve_name

    return resolve_name(name).accelerator
