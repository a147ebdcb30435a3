"""The two value types of the constants: :class:`Device` (``accelerators.A100``) and
:class:`Partition` (``accelerators.A100.partition_2g_10gb``, ``A100.unpartitioned``).

:mod:`accelerators.constants` makes the constants of these from the catalog and documents
them (and re-exports both classes: ``accelerators.constants.Device`` is the public name).
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import TYPE_CHECKING, Any, overload

from accelerators import catalog
from accelerators._flyte_names import (
    _check_entry,
    _is_label_value,
    _label,
    _missing_attribute_message,
    _partition_attributes,
    _unlabelable_attributes,
    _unlabelable_message,
    flyte_device,
)
from accelerators.errors import AcceleratorError, PlacementError, close_matches

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.spec import AcceleratorSpec

__all__ = ["Device", "Partition"]

_FLYTE_IMPORT_ERROR_MESSAGE = (
    "to_flyte_idl() needs flyteidl, which comes with flytekit. Install it with: "
    'pip install "accelerators[flyte]"'
)


# -- the two value types -----------------------------------------------------------------


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

    @overload
    def __call__(
        self,
        version: str | int | None = None,
        *,
        count: float = 1,
        memory: str | float | None = None,
        form_factor: str | None = None,
        partition: str | None = None,
        topology: str | None = None,
        exact: bool = False,
    ) -> AcceleratorSpec: ...

    @overload
    def __call__(self, *, context: Any, jinja_env: Any = None) -> Device: ...

    def __call__(
        self,
        version: str | int | None = None,
        *,
        count: float = 1,
        memory: str | float | None = None,
        form_factor: str | None = None,
        partition: str | None = None,
        topology: str | None = None,
        exact: bool = False,
        context: Any = None,
        jinja_env: Any = None,
    ) -> AcceleratorSpec | Device:
        """The spec of this constant, as skyward's ``sky.accelerators.A100(count=4)``.

        ``accelerators.H100(count=8)`` is ``H100:8``; ``accelerators.A100(memory="80GB")`` is
        the 80 GB A100: with ``version``, ``memory`` or ``form_factor`` this is the family's
        factory (:mod:`accelerators._factories`), so ``A100(count=4)`` equals
        ``AcceleratorSpec.NVIDIA.A100(count=4)``. ``partition`` takes a MIG profile (or
        ``"whole"``), ``topology`` a TPU slice.

        Airflow calls a callable in a templated field with ``context=`` and ``jinja_env=``
        to render it: then the constant is returned unchanged, as a value that is not
        callable would render.
        """
        if context is not None or jinja_env is not None:
            return self
        from accelerators._factories import constant_fields
        from accelerators.spec import AcceleratorSpec

        fields = constant_fields(
            self.accelerator,
            version,
            count=count,
            memory=memory,
            form_factor=form_factor,
            partition=partition,
            topology=topology,
            exact=exact,
        )
        return AcceleratorSpec(**fields)

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

    @overload
    def __call__(self, *, count: float = 1) -> AcceleratorSpec: ...

    @overload
    def __call__(self, *, context: Any, jinja_env: Any = None) -> Partition: ...

    def __call__(
        self, *, count: float = 1, context: Any = None, jinja_env: Any = None
    ) -> AcceleratorSpec | Partition:
        """The spec of ``count`` of these slices: ``A100.partition_1g_5gb(count=7)``.

        Called by Airflow's template rendering (``context=``), it returns itself.
        """
        if context is not None or jinja_env is not None:
            return self
        return self.to_spec(count)

    def __getattr__(self, name: str) -> Any:
        if name.startswith(("partition_", "slice_")) or name == "partitioned":
            raise AttributeError(
                f"{self!r} is already a partition and has no attribute {name!r}: take "
                f"partitions from the device (accelerators.{self.accelerator.constant or '…'}"
                f".{name})"
            )
        message = f"{type(self).__name__!r} object has no attribute {name!r}"
        if not name.startswith("_"):
            hints = close_matches(name, [a for a in dir(self) if not a.startswith("_")])
            if hints:
                message += f"; did you mean {' or '.join(repr(h) for h in hints)}?"
        raise AttributeError(message)

    def __repr__(self) -> str:
        return f"<Partition {_label(self.accelerator)}@{self.partition or 'whole'}>"

    def __reduce__(self) -> tuple[Any, tuple[str, str | None, bool]]:
        return (_restore_partition, (self.accelerator.name, self.partition, self.whole))

    def __copy__(self) -> Partition:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Partition:
        return self


def _restore_device(sku: str) -> Device:
    return Device(catalog.get(sku))


def _restore_partition(sku: str, partition: str | None, unpartitioned: bool) -> Partition:
    return Partition(catalog.get(sku), partition=partition, unpartitioned=unpartitioned)
