"""What a cluster you already run offers a job: whole-device nodes, MIG slices, read from specs
or from the nodes' own Kubernetes labels.

>>> from accelerators.sizing import owned_nodes
>>> [str(n.spec) for n in owned_nodes(["H100-SXM:8", {"spec": "A100-80GB@1g.10gb:7", "nodes": 2}])]
['H100-SXM:8', 'A100-80GB@1g.10gb:7']
>>> owned_nodes([{"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count": "8"}]
...             )[0].spec.count
8

An inventory item is one kind of node:

* a spec (text, constant or :class:`~accelerators.AcceleratorSpec`): what one node holds,
  ``H100:8`` or ``A100-80GB@1g.10gb:7`` (seven 1g.10gb slices);
* a mapping ``{"spec": ..., "nodes": 2, "usd_per_hour": 18.0, "name": "pool-a"}`` (the
  hourly figure is what one node costs you; without it the plan prices a node at the rented
  rate of the same devices and says so);
* a node's labels (a mapping whose keys contain ``/``), or a Node object from the
  Kubernetes API (``{"metadata": {"labels": ...}}``): GKE's ``gke-accelerator``,
  ``gke-accelerator-count`` and ``gke-gpu-partition-size``; GPU Feature Discovery's
  ``nvidia.com/gpu.product`` and ``gpu.count`` (``-MIG-<profile>`` under the single
  strategy, ``nvidia.com/mig-<profile>.count`` under the mixed one); Karpenter's
  ``instance-gpu-name``, ``-count`` and ``-memory``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from accelerators._labels import AMD_PRODUCT as _AMD
from accelerators._labels import GFD_COUNT as _GFD_COUNT
from accelerators._labels import GFD_PRODUCT as _GFD_PRODUCT
from accelerators._labels import GKE as _GKE
from accelerators._labels import GKE_COUNT as _GKE_COUNT
from accelerators._labels import KARPENTER_GPU as _KARPENTER
from accelerators._labels import KARPENTER_GPU_COUNT as _KARPENTER_COUNT
from accelerators.errors import AcceleratorError
from accelerators.sizing._model import SizingError
from accelerators.spec import AcceleratorSpec

__all__ = ["OwnedNodes", "owned_nodes"]

_GKE_PARTITION = "cloud.google.com/gke-gpu-partition-size"
_GFD_MIG_COUNT = re.compile(r"^nvidia\.com/mig-(?P<profile>\d+g\.\d+gb(?:\.me)?)\.count$")
_KARPENTER_MEMORY = "karpenter.k8s.aws/instance-gpu-memory"


@dataclass(frozen=True, slots=True)
class OwnedNodes:
    """Nodes of one kind that you run: what one node offers, how many, what one costs you."""

    spec: AcceleratorSpec
    """One node's devices (``H100:8``) or slices (``A100-80GB@1g.10gb:7``)."""
    nodes: int = 1
    usd_per_hour: float | None = None
    """What one node costs you per hour; ``None``: priced at the rented rate, said so."""
    name: str = "inventory"


def owned_nodes(items: Iterable[Any]) -> tuple[OwnedNodes, ...]:
    """Read an inventory: specs, ``{"spec": ...}`` mappings, node labels or Node objects.

    :raises SizingError: an item names no accelerator (with its position and what was read).
    """
    if isinstance(items, str | Mapping) or not isinstance(items, Iterable):
        items = [items]
    found: list[OwnedNodes] = []
    for index, item in enumerate(items):
        where = f"inventory[{index}]"
        try:
            found.extend(_item(item, where))
        except AcceleratorError as exc:
            if isinstance(exc, SizingError):
                raise
            raise SizingError(f"{where}: {exc}") from None
    if not found:
        raise SizingError("The inventory is empty: list the nodes you own (specs or node labels)")
    return tuple(found)


def _item(item: Any, where: str) -> list[OwnedNodes]:
    if isinstance(item, Mapping):
        labels = _labels_of(item)
        if labels is not None:
            name = _node_name(item) or where
            return [OwnedNodes(spec, 1, None, name) for spec in _from_labels(labels, where)]
        if "spec" not in item:
            raise SizingError(
                f"{where}: expected a spec, node labels or {{'spec': ..., 'nodes': N, "
                f"'usd_per_hour': X}}, got keys {sorted(map(str, item))}"
            )
        unknown = set(map(str, item)) - {"spec", "nodes", "usd_per_hour", "name"}
        if unknown:
            raise SizingError(f"{where}: unknown keys {sorted(unknown)}")
        spec = _whole_spec(AcceleratorSpec.coerce(item["spec"]), where)
        nodes = item.get("nodes", 1)
        if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
            raise SizingError(f"{where}: expected a positive integer for nodes, got {nodes!r}")
        rate = item.get("usd_per_hour")
        if rate is not None and (
            isinstance(rate, bool)
            or not isinstance(rate, int | float)
            or not math.isfinite(rate)
            or rate <= 0
        ):
            raise SizingError(f"{where}: expected a positive usd_per_hour, got {rate!r}")
        name = str(item.get("name") or where)
        return [OwnedNodes(spec, nodes, None if rate is None else float(rate), name)]
    return [OwnedNodes(_whole_spec(AcceleratorSpec.coerce(item), where), 1, None, where)]


def _whole_spec(spec: AcceleratorSpec, where: str) -> AcceleratorSpec:
    if spec.fallbacks or spec.accelerator is None:
        raise SizingError(
            f"{where}: a node holds one named accelerator, got {str(spec)!r} (fallbacks or a "
            "memory/vendor request)"
        )
    if spec.is_fractional or spec.shared:
        raise SizingError(
            f"{where}: give what a node holds in whole devices or MIG slices, got {str(spec)!r}"
        )
    if spec.tpu_topology is not None:
        raise SizingError(f"{where}: TPU slices are not planned as cluster shares ({spec})")
    return spec


def _labels_of(item: Mapping[Any, Any]) -> Mapping[str, Any] | None:
    metadata = item.get("metadata")
    if isinstance(metadata, Mapping) and isinstance(metadata.get("labels"), Mapping):
        labels: Mapping[str, Any] = metadata["labels"]
        return labels
    if item and all(isinstance(k, str) for k in item) and any("/" in k for k in item):
        return item
    return None


def _node_name(item: Mapping[Any, Any]) -> str | None:
    metadata = item.get("metadata")
    if isinstance(metadata, Mapping) and metadata.get("name"):
        return str(metadata["name"])
    return None


def _from_labels(labels: Mapping[str, Any], where: str) -> list[AcceleratorSpec]:
    """The specs one node's labels describe (one per MIG profile under GFD's mixed strategy)."""
    if _GKE in labels:
        count = _count(labels.get(_GKE_COUNT), where, _GKE_COUNT)
        partition = labels.get(_GKE_PARTITION)
        base = AcceleratorSpec.parse(str(labels[_GKE]))
        if partition:
            return [_sliced(base, str(partition), count)]
        return [base.model_copy(update={"count": count})]
    if _GFD_PRODUCT in labels:
        product = str(labels[_GFD_PRODUCT])
        count = _count(labels.get(_GFD_COUNT), where, _GFD_COUNT)
        name, _, profile = product.partition("-MIG-")
        base = AcceleratorSpec.parse(name.removesuffix("-SHARED"))
        if profile:  # single strategy: gpu.count is the number of MIG devices
            return [AcceleratorSpec(accelerator=base.accelerator, partition=profile, count=count)]
        mixed = [
            AcceleratorSpec(
                accelerator=base.accelerator,
                partition=match["profile"].replace(".me", "+me"),
                count=_count(value, where, key),
            )
            for key, value in labels.items()
            if (match := _GFD_MIG_COUNT.match(key)) and _count(value, where, key) > 0
        ]
        return mixed or [base.model_copy(update={"count": count})]
    if _KARPENTER in labels:
        count = _count(labels.get(_KARPENTER_COUNT), where, _KARPENTER_COUNT)
        name = str(labels[_KARPENTER])
        memory = labels.get(_KARPENTER_MEMORY)
        if memory is not None:  # MiB per GPU: pick the memory variant (a100 -> A100-80GB)
            gib = _count(memory, where, _KARPENTER_MEMORY) / 1024
            try:
                return [AcceleratorSpec.parse(f"{name}-{round(gib)}GB:{count}")]
            except AcceleratorError:
                pass
        return [AcceleratorSpec.parse(f"{name}:{count}")]
    if _AMD in labels:
        return [AcceleratorSpec.parse(str(labels[_AMD]).replace("_", " "))]
    raise SizingError(
        f"{where}: no accelerator label among {sorted(labels)[:8]}; expected one of {_GKE}, "
        f"{_GFD_PRODUCT}, {_KARPENTER} or {_AMD}"
    )


def _sliced(base: AcceleratorSpec, profile: str, gpus: int) -> AcceleratorSpec:
    """GKE: a node with ``gpus`` GPUs cut into ``profile`` slices, as many as each GPU holds."""
    acc = base.accelerator
    found = acc.mig_profile(profile) if acc is not None else None
    per_gpu = found.max_instances if found is not None else 1
    return AcceleratorSpec(accelerator=acc, partition=profile, count=gpus * per_gpu)


def _count(value: Any, where: str, key: str) -> int:
    if value is None:
        return 1
    try:
        count = int(str(value).strip())
    except ValueError:
        raise SizingError(f"{where}: label {key} is not a count: {value!r}") from None
    if count < 0:
        raise SizingError(f"{where}: label {key} is negative: {value!r}")
    return count
