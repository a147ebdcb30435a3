"""The accelerator catalog: datasheet facts loaded lazily from versioned data files.

>>> from accelerators import catalog
>>> catalog.get("H100-SXM").memory_gb
80.0
>>> catalog.get("nvidia-tesla-a100").name
'A100-40GB-SXM'
>>> type(catalog.get("H100-SXM")) is catalog.Accelerator
True

The facts live in ``accelerators/data/catalog.toml`` (every accelerator, its figures and
their sources, its MIG profiles and TPU slices); ``instances.toml`` and ``prices.toml`` add
the cloud instance types that carry them (:func:`largest_node`). The catalog file is read on
first use, validated (:mod:`accelerators.catalog._schema`, pydantic) and indexed
(:mod:`accelerators.catalog._store`); once it has passed validation its records are read back
from a cache without validating again (:mod:`accelerators.catalog._trusted`). Names in every
system's form are resolved by :mod:`accelerators.catalog._names`.

Public names: lookups :func:`get`, :func:`all`, :func:`by_model`, :func:`models`,
:func:`select`, :func:`sources`, :func:`catalog_version`, :func:`largest_node`; the records
they return, :class:`Accelerator` (one entry), :class:`MigProfile` (one of its MIG
partitions), :class:`TpuTopology` (one of its TPU slices), :class:`Figure` (a sourced
datasheet figure) and :class:`Source` (where figures come from), and :class:`NodeSize`.

Importing this package reads no data file and imports neither pydantic nor any other
third-party package: the record classes are imported on first access (PEP 562, the table
of :mod:`accelerators._lazy`).

This package is a low layer of the core, above :mod:`accelerators._lazy`,
:mod:`accelerators.errors`, :mod:`accelerators._text` and :mod:`accelerators._datafiles`, the
only modules of the core it imports (the contracts are in ``pyproject.toml``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelerators._lazy import lazy_exports
from accelerators.catalog._node_sizes import NodeSize as NodeSize
from accelerators.catalog._node_sizes import largest_node as largest_node
from accelerators.catalog._store import _DATA_FILE as _DATA_FILE  # constants read it raw
from accelerators.catalog._store import _DATA_PACKAGE as _DATA_PACKAGE
from accelerators.catalog._store import all as all  # noqa: A004 - the name the API promises
from accelerators.catalog._store import by_exact_name
from accelerators.catalog._store import by_model as by_model
from accelerators.catalog._store import catalog_version as catalog_version
from accelerators.catalog._store import models as models
from accelerators.catalog._store import select as select
from accelerators.catalog._store import sources as sources
from accelerators.errors import UnknownAcceleratorError

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator as Accelerator
    from accelerators.catalog._schema import Figure as Figure
    from accelerators.catalog._schema import MigProfile as MigProfile
    from accelerators.catalog._schema import Source as Source
    from accelerators.catalog._schema import TpuTopology as TpuTopology

# The public names: the lookups defined or imported here, and the record classes, which
# import pydantic and so are imported on first access (PEP 562).
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {"._schema": "Accelerator Figure MigProfile Source TpuTopology"},
    own="NodeSize all by_model catalog_version get largest_node models select sources",
)


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

    found = resolve_name(name)
    if found.family:
        models = [acc.model for acc in (found.accelerator, *found.family)]
        raise UnknownAcceleratorError(
            f"Accelerator name {name!r} does not say which model it is: it could be "
            f"{' or '.join(models)}. Write the one you mean",
            name=name,
            suggestions=tuple(models),
        )
    return found.accelerator
