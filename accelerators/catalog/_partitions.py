"""Checking a MIG profile or TPU topology against what an accelerator offers."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from accelerators.catalog import _store
from accelerators.errors import UnknownPartitionError, close_matches

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = ["check_partition"]

#: A MIG profile's compute slices, memory and suffix: ``1g`` ``10gb`` ``+me``.
_MIG_SHAPE = re.compile(r"([0-9]+g)\.([0-9]+gb)(.*)")


def check_partition(accelerator: Accelerator, partition: str) -> None:
    """Raise :class:`UnknownPartitionError` unless ``accelerator`` offers ``partition``."""
    if partition in accelerator.partitions:
        return
    valid = accelerator.partitions
    what = "TPU topology" if accelerator.device_class == "tpu" else "MIG profile"
    if _MIG_SHAPE.fullmatch(partition) is None and re.fullmatch(r"[0-9]+(x[0-9]+)+", partition):
        what = "TPU topology"  # what was asked for, whatever the device offers
    if not valid:
        raise UnknownPartitionError(
            f"{accelerator.name} cannot be partitioned: it has no MIG profiles or TPU "
            f"topologies, so {partition!r} is not available",
            accelerator=accelerator.name,
            partition=partition,
        )
    # MIG profiles with the same compute slices and suffix as asked ("1g.*gb" for "1g.20gb")
    # first, closest first; then spelling neighbours.
    shape = _MIG_SHAPE.fullmatch(partition)
    same = [
        p
        for p in valid
        if shape and (m := _MIG_SHAPE.fullmatch(p)) and m.group(1, 3) == shape.group(1, 3)
    ]
    ranked = close_matches(partition, same, n=len(same), cutoff=0) if same else []
    hints = list(dict.fromkeys([*ranked, *close_matches(partition, valid)]))[:3]
    hint = f" Did you mean {' or '.join(repr(h) for h in hints)}?" if hints else ""
    elsewhere = [
        other.model
        for other in _store.all()
        if other.family == accelerator.family
        and other.model != accelerator.model
        and other.default_for_model
        and partition in other.partitions
    ]
    if elsewhere:
        verb = "has" if len(elsewhere) == 1 else "have"
        hint += f" ({' and '.join(elsewhere)} {verb} {partition!r}.)"
    raise UnknownPartitionError(
        f"{accelerator.name} has no {what} {partition!r}; valid: {', '.join(valid)}.{hint}",
        accelerator=accelerator.name,
        partition=partition,
        valid=valid,
    )
