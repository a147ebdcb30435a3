"""The largest node we know for each accelerator: from the instance table's device counts.

>>> from accelerators.catalog import largest_node
>>> largest_node("H100-SXM")
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
    :param cloud: one of the table's clouds (``_instances.CLOUDS``); ``None``: anywhere, that is
        on ``aws``, ``gcp``, ``azure`` or ``hf`` (Hugging Face Jobs), whose machine types span
        the node sizes (:data:`_ANYWHERE`).
    :returns: ``NodeSize(devices, instance, cloud)``; on a tie, the first row of the table.
        ``None`` when the table lists no instance with that accelerator (on that cloud).
    :raises UnknownAcceleratorError: the name resolves to no catalog entry.
    :raises AcceleratorError: ``cloud`` is not one of the table's clouds.
    """
    from accelerators.catalog import get
    from accelerators.catalog._schema import Accelerator

    table = _largest_by_entry()
    wanted = None if cloud is None else str(cloud).strip().lower()
    if wanted is not None and wanted not in _clouds_with_rows():
        # A cloud without machine types here: is it one at all? (The instance table's module
        # is imported only now: its record classes cost a fresh process ~20 ms.)
        from accelerators.catalog._instances import CLOUDS

        if wanted not in CLOUDS:
            hint = close_matches(wanted, CLOUDS)
            raise AcceleratorError(
                f"Unknown cloud {cloud!r}: expected one of {', '.join(CLOUDS)} or None"
                + (f"; did you mean {hint[0]!r}?" if hint else "")
            )
    entry = accelerator if isinstance(accelerator, Accelerator) else get(accelerator)
    return table.get(entry.name, {}).get(wanted)


@functools.cache
def _clouds_with_rows() -> frozenset[str | None]:
    return frozenset(c for by in _largest_by_entry().values() for c in by)


#: The clouds "anywhere" spans: their machine types cover each accelerator's node sizes (OCI's
#: shapes included: its BM.GPU.A10.4 is the largest A10 node of the table). The table's other
#: clouds list a subset (Lambda's one GH200, Scaleway's one RTX 3070, Paperspace's single-GPU
#: types, SageMaker's copies of EC2's) and bound nothing beyond their own cloud.
_ANYWHERE = ("aws", "gcp", "azure", "oci", "hf")


#: Cache name of the table :func:`_largest_by_entry` builds (``_datafiles.read_blob``).
_CACHE_NAME = "node-sizes"
_FORMAT = 2  # 2: OCI joined _ANYWHERE


@functools.cache
def _largest_by_entry() -> dict[str, dict[str | None, NodeSize]]:
    """SKU name -> {cloud or None (any): the largest node}, built once from the table.

    Building it validates the instance table and resolves every row (~35 ms: an Airflow DAG
    file that places a spec pays it in every parse without the preload), so the result is
    kept in the data-file cache under the SHA-256 of both data files and of this module's
    source, and read back from there (``marshal``: plain values, checksummed).
    """
    import marshal

    from accelerators import _datafiles

    key = _cache_key()
    blob = _datafiles.read_blob(_CACHE_NAME, key) if key else None
    table = _from_blob(blob) if blob is not None else None
    if table is None:
        table = _build()
        if key:
            plain = {sku: {c: tuple(n) for c, n in by.items()} for sku, by in table.items()}
            _datafiles.write_blob(_CACHE_NAME, key, marshal.dumps(plain))
    return table


def _cache_key() -> str | None:
    import hashlib
    from pathlib import Path

    from accelerators import _datafiles
    from accelerators.catalog._store import _DATA_FILE, _DATA_PACKAGE

    digest = hashlib.sha256(f"{_FORMAT}".encode())
    try:
        for name in (_DATA_FILE, "instances.toml"):
            digest.update(_datafiles.data_bytes(_DATA_PACKAGE, name))
        digest.update(Path(__file__).read_bytes())
    except OSError:
        return None
    return digest.hexdigest()[:32]


def _from_blob(blob: bytes) -> dict[str, dict[str | None, NodeSize]] | None:
    """The table stored by :func:`_largest_by_entry`, or None if it is not that shape."""
    import marshal

    try:
        plain = marshal.loads(blob)
        return {
            str(sku): {cloud: NodeSize(int(n[0]), str(n[1]), str(n[2])) for cloud, n in by.items()}
            for sku, by in plain.items()
        }
    except (ValueError, EOFError, TypeError, AttributeError, IndexError, KeyError):
        return None


def _build() -> dict[str, dict[str | None, NodeSize]]:
    from accelerators.catalog import get
    from accelerators.catalog._instances import instances

    out: dict[str, dict[str | None, NodeSize]] = {}
    for row in instances():
        try:
            name = get(row.accelerator).name
        except AcceleratorError:  # a row for an accelerator the catalog does not list yet
            continue
        # a GPU type rented by the device (RunPod, Vast.ai) or a share of one is no node size
        if row.unit != "machine" or not float(row.count).is_integer():
            continue
        size = NodeSize(int(row.count), row.name, row.cloud)
        sizes = out.setdefault(name, {})
        for key in (row.cloud, None) if row.cloud in _ANYWHERE else (row.cloud,):
            if key not in sizes or size.devices > sizes[key].devices:
                sizes[key] = size
    return out
