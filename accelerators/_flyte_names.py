"""Device names other systems give a catalog entry: Flyte's node-label string and Flyte 2's name.

:func:`flyte_device` and :func:`flyte2_name` are public through :mod:`accelerators.constants`
(which re-exports them); this module sits between the spec and the constants layers so the
constants module keeps to the value types.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from accelerators import catalog
from accelerators._vendors import device_records
from accelerators.errors import AcceleratorError, PlacementError, close_matches

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.spec import AcceleratorSpec

__all__ = ["flyte2_name", "flyte_device"]

_MAX_LISTED = 6  # constants named in an error message before "and N more"

#: Prefix of a derived device string, per (vendor, device class): the vendor registry's.
_DEVICE_PREFIX: dict[tuple[str, str], str] = {
    (vendor.name, device.device_class): device.flyte_prefix for vendor, device in device_records()
}


def _check_entry(owner: str, value: object) -> None:
    from accelerators.catalog._schema import Accelerator

    if not isinstance(value, Accelerator):
        raise AcceleratorError(
            f"{owner} expects a catalog entry (accelerators.catalog.get(name)), got "
            f"{type(value).__name__}: {value!r}"
        )


def _label(accelerator: Accelerator) -> str:
    """Spec text naming ``accelerator``: the model for its default SKU, else the SKU."""
    return accelerator.model if accelerator.default_for_model else accelerator.name


def flyte_device(accelerator: Accelerator) -> str:
    """The ``GPUAccelerator.device`` string for a catalog entry: the node label value.

    flytekit's own string where flytekit has the device (catalog ``names.flyte``); else one
    derived from the vendor and the entry (``nvidia-a30``, ``nvidia-a100-40gb-pcie``,
    ``habana-gaudi2``): the model's name for a model's default SKU, the SKU's name for any
    other, so the value never stands for more than the constant does. Label your nodes
    with it (``docs/flyte.md`` lists every value).

    :param accelerator: a catalog entry (``accelerators.catalog.get(name)``).
    """
    _check_entry("flyte_device", accelerator)
    if accelerator.names.flyte:
        return accelerator.names.flyte
    prefix = _DEVICE_PREFIX.get(
        (accelerator.vendor, accelerator.device_class), f"{accelerator.vendor}-"
    )
    stem = re.sub(r"[^0-9a-z]+", "-", _label(accelerator).lower()).strip("-")
    return prefix + stem.removeprefix(prefix)


def flyte2_name(spec: AcceleratorSpec | str) -> str:
    """The Flyte 2 SDK's name for ``spec``'s device (``flyte.GPU(device=...)``).

    ``names.flyte2`` of the entry (``"A100 80G"``, ``"Trn2"``), or for a shared slot
    (``T4@shared``) its ``flyte2_shared`` (``"T4 shared"``); the inverse of parsing that
    name. Flyte 2 gives a shared GPU to one container only and states no share.

    :raises PlacementError: Flyte 2 has no name for it (fallbacks, a memory request, a shared
        slot of a GPU it does not share, a fraction, or more than one shared slot).
    """
    from accelerators.spec import AcceleratorSpec

    spec = AcceleratorSpec.coerce(spec)
    acc = spec.accelerator
    if spec.fallbacks or acc is None:
        raise PlacementError(f"{str(spec)!r}: a Flyte 2 device name names one accelerator")
    shared_names = [a.flyte2_shared for a in catalog.all() if a.flyte2_shared]
    if spec.is_fractional:
        raise PlacementError(
            f"{str(spec)!r}: Flyte 2's shared GPUs state no share; ask for "
            f"'{acc.model}@shared' (Flyte 2 shares: {', '.join(shared_names)})"
        )
    name = acc.flyte2_shared if spec.shared else acc.names.flyte2
    if name is None:
        what = "shared GPU" if spec.shared else "device name"
        raise PlacementError(
            f"{str(spec)!r}: Flyte 2 has no {what} for {acc.name}"
            + (f" (it shares: {', '.join(shared_names)})" if spec.shared else "")
        )
    if spec.shared and spec.count != 1:
        raise PlacementError(f"{str(spec)!r}: Flyte 2 gives one shared GPU ('{name}:1') only")
    return name


#: A Kubernetes label value (``validation.IsValidLabelValue``), without the 63-character cap.
_LABEL_VALUE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")


def _is_label_value(partition: str) -> bool:
    return bool(_LABEL_VALUE.match(partition))


@functools.cache
def _partition_attributes(accelerator: Accelerator) -> dict[str, str]:
    """``{"partition_1g_5gb": "1g.5gb", "slice_2x4": "2x4", ...}`` for one entry.

    Only partitions a Flyte node label can carry: ``+me``/``+gfx`` profiles are left out.
    """
    found = {m.attribute: m.profile for m in accelerator.mig if _is_label_value(m.profile)}
    found.update({t.attribute: t.topology for t in accelerator.tpu_topologies})
    return found


def _unlabelable_attributes(accelerator: Accelerator) -> dict[str, str]:
    """The ``+me``/``+gfx`` profiles' would-be attribute names, for error messages."""
    return {m.attribute: m.profile for m in accelerator.mig if not _is_label_value(m.profile)}


def _unlabelable_message(accelerator: Accelerator, partition: str) -> str:
    return (
        f"MIG profile {partition!r} of {accelerator.name} cannot be a Flyte constant: Flyte "
        "selects partitions by node label and '+' is not allowed in a Kubernetes label value, "
        f"so the task would fail at serialisation or never schedule. Use the spec "
        f"AcceleratorSpec.parse('{_label(accelerator)}@{partition}') with platform 'nvidia' "
        f"(resource nvidia.com/mig-{partition}) in a pod template instead"
    )


def _missing_attribute_message(
    device: object, accelerator: Accelerator, name: str, attributes: dict[str, str]
) -> str:
    head = f"{device!r} has no attribute {name!r}"
    misspelt_prefix = close_matches(name.split("_", 1)[0], ("partition", "slice", "unpartitioned"))
    if not attributes and misspelt_prefix:
        return (
            f"{head}: {accelerator.name} cannot be partitioned (it has no MIG profiles or TPU "
            "topologies)"
        )
    if not name.startswith(("partition_", "slice_")) and name != "unpartitioned":
        # A misspelt prefix (``partiton_2g_10gb``) or method: the closest real attributes.
        public = [a for a in dir(device) if not a.startswith("_")]
        hints = close_matches(name, public, cutoff=0.75)
        if not hints:
            return head
        message = f"{head}; did you mean {' or '.join(repr(h) for h in hints)}?"
        if attributes and any(h in attributes for h in hints):
            message += f" (partitions: {', '.join([*attributes, 'unpartitioned'])})"
        return message
    if not attributes:
        return (
            f"{head}: {accelerator.name} cannot be partitioned (it has no MIG profiles or TPU "
            "topologies)"
        )
    valid = [*attributes, "unpartitioned"]
    message = f"{head}; valid: {', '.join(valid)}."
    hints = close_matches(name, valid if name == "unpartitioned" else attributes)
    if hints:
        message += f" Did you mean {' or '.join(repr(h) for h in hints)}?"
    elsewhere = [
        other.constant
        for other in catalog.all()
        if other.constant and other != accelerator and name in _partition_attributes(other)
    ]
    if elsewhere:
        shown = ", ".join(elsewhere[:_MAX_LISTED])
        more = f" and {len(elsewhere) - _MAX_LISTED} more" if len(elsewhere) > _MAX_LISTED else ""
        message += f" ({name} is an attribute of {shown}{more}.)"
    return message
