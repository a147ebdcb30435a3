"""What Kubernetes calls the vendors' devices, read from the vendor registry
(:mod:`accelerators._vendors`), and the device rules every platform shares.

* :func:`device_resource`: the device plugin's extended resource for a whole device;
* :func:`is_device_resource`: whether a resource counts accelerator devices at all (a user's
  ``amd.com/gpu`` next to an H100 needs a node with both);
* :func:`taint_key`: the taint nodes with a resource conventionally carry;
* :func:`describe`: ``"H100-SXM is an NVIDIA GPU"``, for messages;
* :func:`wants_whole_devices`: whether a spec must keep off MIG-partitioned nodes;
* :func:`mib_threshold`: decimal GB as the MiB that memory node labels count.

Standard library and the registry only (``catalog`` and ``spec`` types for annotations).
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

from accelerators._vendors import VENDORS, device_records, vendor_record

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.spec import AcceleratorSpec

__all__ = [
    "describe",
    "device_resource",
    "device_resources",
    "is_device_resource",
    "mib_threshold",
    "taint_key",
    "wants_whole_devices",
]


@functools.cache
def _whole_device_resources() -> dict[tuple[str, str], str]:
    return {(v.name, d.device_class): d.resource for v, d in device_records()}


def device_resource(vendor: str, device_class: str) -> str | None:
    """The device plugin's extended resource for a whole device, or ``None`` if unknown."""
    return _whole_device_resources().get((vendor, device_class))


@functools.cache
def device_resources() -> tuple[frozenset[str], tuple[str, ...]]:
    """Every extended resource that counts accelerator devices, and the prefixes of the
    resource families (``nvidia.com/mig-``: one resource per MIG profile)."""
    names = frozenset(
        name
        for _, device in device_records()
        for name in (device.resource, *device.other_resources)
    )
    prefixes = tuple(prefix for vendor in VENDORS for prefix in vendor.resource_families)
    return names, prefixes


def is_device_resource(name: str) -> bool:
    """Whether the extended resource ``name`` counts accelerator devices (``nvidia.com/gpu``,
    ``nvidia.com/mig-1g.10gb``, ``amd.com/gpu``, ``google.com/tpu``...): the device plugins'
    names of the vendor registry. Intel's ``millicores``/``memory.max`` and the
    ``*_monitoring`` resources count no device and are not among them."""
    names, prefixes = device_resources()
    return name in names or name.startswith(prefixes)


def taint_key(resource: str) -> str:
    """The conventional taint key for an extended resource (MIG and shared ones included):
    the vendor's (``nvidia.com/gpu`` for every ``nvidia.com/`` resource), else its own name."""
    for vendor in VENDORS:
        if vendor.taint is not None and resource.startswith(vendor.taint[0]):
            return vendor.taint[1]
    return resource


def describe(acc: Accelerator) -> str:
    """``"H100-SXM is an NVIDIA GPU"``, for error messages."""
    record = vendor_record(acc.vendor)
    device = record.device(acc.device_class) if record is not None else None
    vendor = f"{record.article} {record.display}" if record is not None else f"a {acc.vendor}"
    return f"{acc.name} is {vendor} {device.noun if device is not None else acc.device_class}"


def wants_whole_devices(spec: AcceleratorSpec) -> bool:
    """Whether ``spec`` asks for whole devices of an accelerator that MIG can split.

    ``@whole``, or no partition at all on a device with MIG profiles: a spec without a
    partition means whole devices (the benchmark gate fails a MIG slice for it,
    ``mig_slice``), so a platform that labels MIG nodes must keep such a pod off them
    (``<partition label> DoesNotExist``). A shared slot or a fraction is not a whole device.

    :param spec: one alternative (no fallbacks).
    """
    if spec.unpartitioned:
        return True
    if spec.partition is not None or spec.is_shared:
        return False
    return any(acc.mig_profiles for acc in spec.candidates)


def mib_threshold(gb: float) -> int:
    """Decimal GB -> whole MiB (``gb·10⁹ / 2²⁰``, rounded down): the node-label unit.

    Decimal GB is what datasheets and EC2 ``MemoryInfo.SizeInMiB`` use (a 24 GB L4 is
    22888 MiB on Karpenter), so a datasheet-sized device clears its own threshold.
    """
    return math.floor(gb * 1e9 / 2**20)
