"""Accelerator constants generated from the catalog, drop-in compatible with flytekit's.

>>> from accelerators.constants import A100, T4
>>> A100
<Device A100-40GB>
>>> A100.partition_2g_10gb
<Partition A100-40GB@2g.10gb>
>>> A100.partition_2g_10gb.to_spec().partition
'2g.10gb'
>>> T4.device
'nvidia-tesla-t4'

Every catalog entry with a ``constant`` becomes a module attribute: a :class:`Device`. A
device that can be split (MIG profiles, TPU topologies) also has ``.unpartitioned`` and one
attribute per profile or topology (``partition_1g_5gb``, ``slice_2x4``), each a
:class:`Partition`. Partitions are leaves: they have no further partition attributes.

``to_flyte_idl()`` returns the same ``flyteidl.core.tasks_pb2.GPUAccelerator`` message as
flytekit's constant of the same name, so these values can be passed to
``@task(accelerator=...)`` and ``with_overrides(accelerator=...)`` unchanged. flytekit only
calls ``to_flyte_idl()`` on them (flytekit 1.16 has no ``isinstance`` check against its
``BaseAccelerator``), so no registration with flytekit is needed.

Laziness: importing this module reads nothing and imports only the package's light modules
(``catalog``, ``_datafiles``, ``_flyte_names``, ``_constant_types``, ``errors``: no pydantic, no
data file). ``__all__`` and ``dir()`` list the constant names by scanning the data file's
``constant = "…"`` lines (a regular expression over the text, no TOML parse and no
pydantic); the first access to a constant loads and validates the catalog.
``tests/test_constants.py`` checks that the scan and the validated catalog agree.

Entries without a ``constant`` still get a :class:`Device` from :func:`constant_for`; its
``name`` is ``None`` (an anonymous device).

Every value serialises (no constant is accepted by ``@task`` and fails only at
serialisation): :func:`flyte_device` gives each entry a device string — flytekit's own where
flytekit has the device, else a derived ``<vendor>-<name>`` label value that names exactly
that entry, never a wider one. MIG profiles whose name is not a valid Kubernetes label value
(``+me``, ``+gfx``, ``+me.all``: ``+`` is not allowed) are not attributes and cannot be a
:class:`Partition`: asking for one raises at once, naming the spec route that can place it.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

from accelerators import _datafiles, catalog
from accelerators._constant_types import Device as Device
from accelerators._constant_types import Partition as Partition

# Pickles of constants made before the value types moved to _constant_types name these here.
from accelerators._constant_types import _restore_device as _restore_device
from accelerators._constant_types import _restore_partition as _restore_partition
from accelerators._flyte_names import flyte2_name as flyte2_name
from accelerators._flyte_names import flyte_device as flyte_device
from accelerators.errors import AcceleratorError, UnknownAcceleratorError, close_matches

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.spec import AcceleratorSpec

_STATIC_NAMES: tuple[str, ...] = (
    "Device",
    "Partition",
    "constant_for",
    "flyte2_name",
    "flyte_device",
    "from_flyte_device",
)

_CONSTANT_LINE = re.compile(r"""^[ \t]*constant[ \t]*=[ \t]*["']([A-Z][A-Z0-9_]*)["']""", re.M)


# -- spec -> constant ---------------------------------------------------------------------
def constant_for(spec: AcceleratorSpec | str) -> Device | Partition:
    """The constant for ``spec``: the inverse of ``Device.to_spec``/``Partition.to_spec``.

    The count is not part of a constant and is dropped, as is ``@shared`` (how a device is
    shared is the platform's business: :func:`flyte2_name`, :mod:`accelerators.kubernetes`).
    A spec that accepts any SKU of a model maps to the model's default SKU. An exact spec of
    a model's default SKU (``A100-40GB-SXM!``) maps to the model's constant, whose
    ``to_spec()`` is not exact: a Flyte device string cannot tell the two apart. An entry
    without a ``constant`` gives an anonymous :class:`Device` (``name`` is ``None``).

    :param spec: an :class:`~accelerators.spec.AcceleratorSpec` or spec text.
    :raises AcceleratorError: the spec names no accelerator (a memory or vendor request) or
        carries fallbacks.
    """
    from accelerators.spec import AcceleratorSpec

    spec = AcceleratorSpec.coerce(spec)
    if spec.fallbacks:
        raise AcceleratorError(
            f"{spec} has fallbacks, and a constant names one accelerator; convert each of "
            "spec.alternatives instead"
        )
    accelerator = spec.accelerator
    if accelerator is None:
        matches = ", ".join(acc.name for acc in spec.candidates) or "none"
        raise AcceleratorError(
            f"{spec} asks by memory or vendor and names no accelerator, so it has no "
            f"constant (catalog entries that satisfy it: {matches})"
        )
    if not spec.exact:
        accelerator = catalog.by_model(accelerator.model)[0]
    device = _constant_object(accelerator)
    if spec.partition is not None:
        return device.partitioned(spec.partition)
    if spec.unpartitioned:
        return Partition(accelerator, unpartitioned=True)
    return device


def from_flyte_device(
    device: str, partition: str | None = None, *, unpartitioned: bool = False
) -> Device | Partition:
    """The constant a Flyte ``GPUAccelerator`` message stands for: the inverse of ``.device``.

    :param device: ``GPUAccelerator.device`` (``"nvidia-tesla-a100"``).
    :param partition: ``partition_size``, if set.
    :param unpartitioned: ``unpartitioned``, if set.
    :raises UnknownAcceleratorError: no catalog entry has this device string.
    :raises UnknownPartitionError: the device has no such MIG profile or TPU topology.
    """
    by_device = _by_flyte_device()
    accelerator = by_device.get(device)
    if accelerator is None:
        hints = tuple(close_matches(device, by_device))
        hint = f"; did you mean {' or '.join(repr(h) for h in hints)}?" if hints else ""
        raise UnknownAcceleratorError(
            f"No accelerator has the Flyte device string {device!r}{hint}",
            name=device,
            suggestions=hints,
        )
    value = _constant_object(accelerator)
    if partition:
        return value.partitioned(partition)
    if unpartitioned:
        return Partition(accelerator, unpartitioned=True)
    return value


@functools.cache
def _by_flyte_device() -> dict[str, Accelerator]:
    return {flyte_device(acc): acc for acc in catalog.all()}


def _constant_object(accelerator: Accelerator) -> Device:
    name = accelerator.constant
    if name is None:
        return Device(accelerator)
    value = globals().get(name)
    if value is None:  # what __getattr__ would build, without scanning the data file's text
        value = globals().setdefault(name, _build_constant(name))
    return value if isinstance(value, Device) else Device(accelerator)


# -- lazy module attributes (PEP 562) --------------------------------------------------------
@functools.cache
def _constant_names() -> tuple[str, ...]:
    """Constant names in data-file order, scanned from the data file without parsing it."""
    text = _datafiles.data_bytes(catalog._DATA_PACKAGE, catalog._DATA_FILE).decode("utf-8")
    return tuple(dict.fromkeys(_CONSTANT_LINE.findall(text)))


def _build_constant(name: str) -> Device:
    for accelerator in catalog.all():
        if accelerator.constant == name:
            return Device(accelerator)
    raise AcceleratorError(  # pragma: no cover - the scan and the catalog disagree
        f"constant {name} is in the data file but no validated catalog entry carries it"
    )


def __getattr__(name: str) -> Any:
    if name == "__all__":
        value: Any = [*_STATIC_NAMES, *_constant_names()]
    elif name.startswith("__"):
        # No constant starts with "_": a dunder probe (``from accelerators.constants import
        # constant_for`` asks for ``__path__``) must not scan the data file (~3 ms).
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    elif name in _constant_names():
        value = _build_constant(name)
    else:
        message = f"module {__name__!r} has no attribute {name!r}"
        if name.isupper():
            hints = close_matches(name, _constant_names())
            if hints:
                message += f"; did you mean {' or '.join(repr(h) for h in hints)}?"
        raise AttributeError(message)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return [*_STATIC_NAMES, *_constant_names()]
