"""The largest node we know for each accelerator: from the instance table's device counts.

>>> from accelerators.catalog import largest_node
>>> largest_node("H100")
NodeSize(devices=8, instance='p5.48xlarge', cloud='aws')
>>> largest_node("A100-40GB", cloud="gcp").instance
'a2-megagpu-16g'

A node cannot give one pod more devices than it has, so a request above this count can never
be scheduled. The counts come from ``accelerators/data/instances.toml`` (every row sourced);
``cloud`` restricts them to one cloud's machine types (GKE's are ``gcp``'s). An accelerator
the table does not list has no known largest node (``None``): callers must not refuse it.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, NamedTuple

from accelerators.errors import AcceleratorError, close_matches

if TYPE_CHECKING:  # the schema imports pydantic: loaded on first call only
    from accelerators.catalog._schema import Accelerator

__all__ = ["NodeSize", "largest_node"]


class NodeSize(NamedTuple):
    """The most devices of one accelerator on one node, and the machine type that has them."""

    devices: int
    instance: str
    cloud: str


def largest_node(accelerator: str | Accelerator, *, cloud: str | None = None) -> NodeSize | None:
    """The instance type with the most devices of ``accelerator`` (of ``cloud``, if given).

    :param accelerator: a catalog entry, or any name :func:`accelerators.catalog.get`
        resolves (``"H100"``, ``"nvidia-h100-80gb"``). Rows count when their accelerator is
        that same entry: SKUs are told apart (``H100-NVL`` is not ``H100``), so for a
        model-level spec take the largest over ``spec.candidates``.
    :param cloud: ``aws``, ``gcp``, ``azure`` or ``hf`` (Hugging Face Jobs); ``None``: any.
    :returns: ``NodeSize(devices, instance, cloud)``; on a tie, the first row of the table.
        ``None`` when the table lists no instance with that accelerator (on that cloud).
    :raises UnknownAcceleratorError: the name resolves to no catalog entry.
    :raises AcceleratorError: ``cloud`` is not one of the table's clouds.
    """
    from accelerators.catalog import get
    from accelerators.catalog._instances import CLOUDS
    from accelerators.catalog._schema import Accelerator

    wanted = None if cloud is None else str(cloud).strip().lower()
    if wanted is not None and wanted not in CLOUDS:
        hint = close_matches(wanted, CLOUDS)
        raise AcceleratorError(
            f"Unknown cloud {cloud!r}: expected one of {', '.join(CLOUDS)} or None"
            + (f"; did you mean {hint[0]!r}?" if hint else "")
        )
    entry = accelerator if isinstance(accelerator, Accelerator) else get(accelerator)
    rows = _largest_by_entry().get(entry.name, {})
    return rows.get(wanted)


@functools.cache
def _largest_by_entry() -> dict[str, dict[str | None, NodeSize]]:
    """SKU name -> {cloud or None (any): the largest node}, built once from the table."""
    from accelerators.catalog import get
    from accelerators.catalog._instances import instances

    out: dict[str, dict[str | None, NodeSize]] = {}
    for row in instances():
        try:
            name = get(row.accelerator).name
        except AcceleratorError:  # a row for an accelerator the catalog does not list yet
            continue
        size = NodeSize(row.count, row.name, row.cloud)
        sizes = out.setdefault(name, {})
        for key in (row.cloud, None):
            if key not in sizes or size.devices > sizes[key].devices:
                sizes[key] = size
    return out
