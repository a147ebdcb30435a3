"""Azure VM sizes as Azure's own tools write them, without the ``Standard_`` prefix.

>>> from accelerators import AcceleratorSpec
>>> str(AcceleratorSpec.parse("nc48ads_a100_v4", denotes="node"))
'A100-40GB:2 | A100-80GB:2'

IMDS's ``vmSize`` and the Azure HPC health checks' configuration files (``conf/<size>.conf``)
name a size lower-cased and without ``Standard_``; the instance table
(``accelerators/data/instances.toml``) holds the full names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from accelerators.catalog._spellings import NameMatch

__all__ = ["azure_size"]

#: An Azure VM size as IMDS and the health checks write it, without ``Standard_``
#: (``nc24ads_a100_v4``): the size code, the words between (group 1) and the version.
_AZURE_SIZE = re.compile(r"(?i)n[a-z]{1,2}\d+[a-z]*((?:_[a-z0-9]+)+)_v\d+")


def azure_size(text: str, lookup: Callable[[str], NameMatch | None]) -> NameMatch | None:
    """An Azure size written without its ``Standard_`` prefix (``nc24ads_a100_v4``), as IMDS
    and Azure's health checks write it: the device its own words name, as many as the
    instance table gives the size. The table is read only where a word of the name names the
    table's device; the device is what that word says (``a100``: 40 or 80 GB), as the name
    is not the table's exact one; a size whose name names no model (``nc6s_v3``) stays
    unread."""
    shape = _AZURE_SIZE.fullmatch(text)
    if shape is None:
        return None
    from accelerators.catalog._instances import get_instance

    row = get_instance(f"Standard_{text}")
    table = lookup(row.accelerator) if row is not None and row.partition is None else None
    if row is None or table is None:
        return None
    for word in shape.group(1).split("_")[1:]:
        named = lookup(word)
        if (
            named is not None
            and named.count is None
            and table.accelerator.model
            in {entry.model for entry in (named.accelerator, *named.family)}
        ):
            return replace(named, count=row.count, source="instance")
    return None
