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

Laziness: importing this module reads nothing and imports nothing beyond the standard
library. ``__all__`` and ``dir()`` list the constant names by scanning the data file's
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

import dataclasses
import functools
import importlib
import re
from importlib import resources
from typing import TYPE_CHECKING, Any

from accelerators import catalog
from accelerators.errors import (
    AcceleratorError,
    PlacementError,
    UnknownAcceleratorError,
    close_matches,
)

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
_MAX_LISTED = 6  # constants named in an error message before "and N more"

_CONSTANT_LINE = re.compile(r"""^[ \t]*constant[ \t]*=[ \t]*["']([A-Z][A-Z0-9_]*)["']""", re.M)

#: A Kubernetes label value (``validation.IsValidLabelValue``), without the 63-character cap.
_LABEL_VALUE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")

#: Prefix of a derived device string, per (vendor, device class).
_DEVICE_PREFIX: dict[tuple[str, str], str] = {
    ("nvidia", "gpu"): "nvidia-",
    ("amd", "gpu"): "amd-",
    ("intel", "hpu"): "habana-",
    ("intel", "gpu"): "intel-",
    ("google", "tpu"): "tpu-",
    ("aws", "neuron"): "aws-neuron-",
    ("huawei", "npu"): "huawei-",
}

_FLYTE_IMPORT_ERROR_MESSAGE = (
    "to_flyte_idl() needs flyteidl, which comes with flytekit. Install it with: "
    'pip install "accelerators[flyte]"'
)


# -- the two value types -----------------------------------------------------------------
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

    spec = AcceleratorSpec.parse(spec)
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


def _check_entry(owner: str, value: object) -> None:
    from accelerators.catalog._schema import Accelerator

    if not isinstance(value, Accelerator):
        raise AcceleratorError(
            f"{owner} expects a catalog entry (accelerators.catalog.get(name)), got "
            f"{type(value).__name__}: {value!r}"
        )


def _gpu_accelerator_idl(device: str, **partition: Any) -> Any:
    """Build ``flyteidl.core.tasks_pb2.GPUAccelerator`` the way flytekit does."""
    try:
        tasks_pb2 = importlib.import_module("flyteidl.core.tasks_pb2")
    except ImportError as exc:
        raise ImportError(_FLYTE_IMPORT_ERROR_MESSAGE) from exc
    return tasks_pb2.GPUAccelerator(device=device, **partition)


def _spec(accelerator: Accelerator, count: float, **fields: Any) -> AcceleratorSpec:
    from accelerators.spec import AcceleratorSpec

    return AcceleratorSpec(
        accelerator=accelerator,
        count=count,
        exact=not accelerator.default_for_model,
        **fields,
    )


@dataclasses.dataclass(frozen=True, slots=True, repr=False)
class Device:
    """A whole accelerator: what ``accelerators.A100`` is.

    Equal to any other :class:`Device` of the same catalog entry; hashable.

    :param accelerator: the catalog entry.
    """

    accelerator: Accelerator

    def __post_init__(self) -> None:
        _check_entry(type(self).__name__, self.accelerator)

    @property
    def name(self) -> str | None:
        """The constant's name (``"A100"``), or ``None`` for an entry without a constant."""
        return self.accelerator.constant

    @property
    def device(self) -> str:
        """The flytekit device string (``GPUAccelerator.device``): :func:`flyte_device`."""
        return flyte_device(self.accelerator)

    def to_flyte_idl(self) -> Any:
        """The flyteidl message flytekit sends for this constant: the device, no partition.

        :returns: a ``flyteidl.core.tasks_pb2.GPUAccelerator`` whose partition oneof is unset.
        :raises ImportError: flyteidl (the ``[flyte]`` extra) is not installed.
        """
        return _gpu_accelerator_idl(self.device)

    def to_spec(self, count: float = 1) -> AcceleratorSpec:
        """The spec this constant stands for.

        A model's default SKU (``A100``) gives the model-level spec, which accepts every SKU
        of the model; any other SKU gives an exact spec.

        :param count: number of devices.
        """
        return _spec(self.accelerator, count)

    def partitioned(self, partition: str) -> Partition:
        """The :class:`Partition` for a MIG profile or TPU topology given as text.

        :param partition: a profile (``"2g.10gb"``) or topology (``"2x4"``) of this entry.
        :raises UnknownPartitionError: the entry does not offer ``partition``.
        :raises PlacementError: the profile is not a valid node label value (``+me``).
        """
        return Partition(self.accelerator, partition=partition)

    def __getattr__(self, name: str) -> Partition:
        # Called only when normal lookup fails: ``unpartitioned``, ``partition_*``, ``slice_*``.
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            accelerator: Accelerator = object.__getattribute__(self, "accelerator")
        except AttributeError:  # half-built instance (copy/pickle protocols)
            raise AttributeError(name) from None
        attributes = _partition_attributes(accelerator)
        if name == "unpartitioned" and attributes:
            return Partition(accelerator, unpartitioned=True)
        if name in attributes:
            return Partition(accelerator, partition=attributes[name])
        unlabelable = _unlabelable_attributes(accelerator)
        if name in unlabelable:
            raise AttributeError(_unlabelable_message(accelerator, unlabelable[name]))
        raise AttributeError(_missing_attribute_message(self, accelerator, name, attributes))

    def __dir__(self) -> list[str]:
        names = set(object.__dir__(self)) | set(_partition_attributes(self.accelerator))
        if _partition_attributes(self.accelerator):
            names.add("unpartitioned")
        return sorted(names)

    def __repr__(self) -> str:
        return f"<Device {_label(self.accelerator)}>"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (_restore_device, (self.accelerator.name,))

    def __copy__(self) -> Device:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Device:
        return self


@dataclasses.dataclass(frozen=True, slots=True, repr=False, init=False)
class Partition:
    """A slice of an accelerator, or the explicit request for a whole, unsplit one.

    ``A100.partition_2g_10gb`` is ``Partition(a100, partition="2g.10gb")``;
    ``A100.unpartitioned`` is ``Partition(a100, unpartitioned=True)``. Exactly one of the two
    is set (read back as :attr:`partition` and :attr:`whole`). A partition is a leaf: it has
    no partition attributes of its own, but, as in flytekit, ``.unpartitioned`` gives the
    same device's unpartitioned value.

    :param accelerator: the catalog entry.
    :param partition: a MIG profile (``"2g.10gb"``) or TPU topology (``"2x4"``) of the entry.
    :param unpartitioned: ask for a whole device on a node that is not MIG-partitioned.
    """

    accelerator: Accelerator
    partition: str | None
    whole: bool

    def __init__(
        self, accelerator: Accelerator, partition: str | None = None, unpartitioned: bool = False
    ) -> None:
        from accelerators.spec import check_partition

        _check_entry(type(self).__name__, accelerator)
        if (partition is None) == (not unpartitioned):
            raise AcceleratorError(
                "A Partition needs exactly one of partition=<profile or topology> and "
                f"unpartitioned=True, got partition={partition!r}, "
                f"unpartitioned={unpartitioned!r}; use Device(...) for a whole "
                "accelerator with no preference"
            )
        if partition is not None:
            check_partition(accelerator, partition)
            if not _is_label_value(partition):
                raise PlacementError(_unlabelable_message(accelerator, partition))
        elif not accelerator.partitions:
            raise AcceleratorError(
                f"{accelerator.name} cannot be partitioned, so 'unpartitioned' means nothing for it"
            )
        object.__setattr__(self, "accelerator", accelerator)
        object.__setattr__(self, "partition", partition)
        object.__setattr__(self, "whole", bool(unpartitioned))

    @property
    def unpartitioned(self) -> Partition:
        """This device, whole, on a node that is not partitioned (flytekit's behaviour)."""
        if self.whole:
            return self
        return Partition(self.accelerator, unpartitioned=True)

    @property
    def name(self) -> str | None:
        """The expression under ``accelerators`` (``"A100.partition_2g_10gb"``), if any."""
        constant = self.accelerator.constant
        if constant is None:
            return None
        return f"{constant}.{self.attribute}"

    @property
    def attribute(self) -> str:
        """The attribute of the device that gives this value (``"partition_2g_10gb"``)."""
        if self.partition is None:
            return "unpartitioned"
        by_partition = {p: a for a, p in _partition_attributes(self.accelerator).items()}
        return by_partition[self.partition]

    @property
    def device(self) -> str:
        """The flytekit device string (``GPUAccelerator.device``): :func:`flyte_device`."""
        return flyte_device(self.accelerator)

    def to_flyte_idl(self) -> Any:
        """The flyteidl message flytekit sends for this partition.

        :returns: a ``flyteidl.core.tasks_pb2.GPUAccelerator`` with ``partition_size`` set to
            the profile or topology, or with ``unpartitioned: true``.
        :raises ImportError: flyteidl (the ``[flyte]`` extra) is not installed.
        """
        if self.partition is None:
            return _gpu_accelerator_idl(self.device, unpartitioned=True)
        return _gpu_accelerator_idl(self.device, partition_size=self.partition)

    def to_spec(self, count: float = 1) -> AcceleratorSpec:
        """The spec this value stands for; see :meth:`Device.to_spec`.

        :param count: number of partitions (or whole devices, for ``unpartitioned``).
        """
        return _spec(self.accelerator, count, partition=self.partition, unpartitioned=self.whole)

    def __getattr__(self, name: str) -> Any:
        if name.startswith(("partition_", "slice_")) or name == "partitioned":
            raise AttributeError(
                f"{self!r} is already a partition and has no attribute {name!r}: take "
                f"partitions from the device (accelerators.{self.accelerator.constant or '…'}"
                f".{name})"
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        return f"<Partition {_label(self.accelerator)}@{self.partition or 'whole'}>"

    def __reduce__(self) -> tuple[Any, tuple[str, str | None, bool]]:
        return (_restore_partition, (self.accelerator.name, self.partition, self.whole))

    def __copy__(self) -> Partition:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Partition:
        return self


def _missing_attribute_message(
    device: Device, accelerator: Accelerator, name: str, attributes: dict[str, str]
) -> str:
    head = f"{device!r} has no attribute {name!r}"
    if not name.startswith(("partition_", "slice_")) and name != "unpartitioned":
        return head
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


def _restore_device(sku: str) -> Device:
    return Device(catalog.get(sku))


def _restore_partition(sku: str, partition: str | None, unpartitioned: bool) -> Partition:
    return Partition(catalog.get(sku), partition=partition, unpartitioned=unpartitioned)


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

    spec = AcceleratorSpec.parse(spec)
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
    if value is None:
        value = __getattr__(name)
    return value if isinstance(value, Device) else Device(accelerator)


# -- lazy module attributes (PEP 562) --------------------------------------------------------
@functools.cache
def _constant_names() -> tuple[str, ...]:
    """Constant names in data-file order, scanned from the data file without parsing it."""
    data = resources.files(catalog._DATA_PACKAGE).joinpath(catalog._DATA_FILE)
    text = data.read_text(encoding="utf-8")
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
