"""Azure VM sizes as Azure's own tools write them, without the ``Standard_`` prefix.

>>> from accelerators import AcceleratorSpec
>>> str(AcceleratorSpec.parse("nc48ads_a100_v4", denotes="node"))
'A100-40GB:2 | A100-80GB:2'

IMDS's ``vmSize`` and the Azure HPC health checks' configuration files (``conf/<size>.conf``)
name a size lower-cased and without ``Standard_``; the instance table
(``accelerators/data/instances.toml``) holds the full names. A ``Standard_`` size the table
lacks (Azure Local's ``Standard_NC16_L4_1``) is left to the token reader, which reads its
family-and-vCPUs word as the machine's (:func:`azure_family`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from accelerators.catalog._spellings import NameMatch

if TYPE_CHECKING:
    from accelerators.catalog._narrow import Token

__all__ = ["azure_family", "azure_size", "mark_azure_family"]

#: A size's family and vCPUs right after ``Standard_`` (``NC16``, ``NV6``, ``ND96isr``).
_FAMILY = re.compile(r"n[a-z]{0,2}[0-9]{1,3}[a-z]*")
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


def azure_family(tokens: list[Token]) -> Token | None:
    """The family-and-vCPUs word of an Azure size the instance table lacks, which Azure Local
    writes ``Standard_NC16_L4_1`` (16 vCPUs, one L4) and ``Standard_NC4_A30``: a machine's
    figure, so the name is a machine's, whose device count only the name's own count gives
    (the trailing ``1``), or the spec."""
    if len(tokens) < 3:
        return None
    first, second = tokens[0].piece, tokens[1].piece
    plain = first.text.casefold() == "standard" and not second.glued
    if not plain or second.kind != "unknown" or _FAMILY.fullmatch(second.value) is None:
        return None
    return tokens[1]


def mark_azure_family(tokens: list[Token]) -> None:
    """Give an Azure size's family word (:func:`azure_family`) its role, a host figure, once the
    tokens have their first roles: a bare number that ends the name is then its count."""
    family = azure_family(tokens)
    if family is not None:
        family.role = "host figure"
        family.meaning = "an Azure size's family and vCPUs: a machine's"
