"""The rules an :class:`~accelerators.AcceleratorSpec`'s fields obey, whoever built them.

The spec's validators call these, and so does its fast build from the parser's fields
(``AcceleratorSpec._from_fields``), so text and keywords meet the same rules and the same
error types (:mod:`accelerators.errors`): an unknown accelerator or partition raises
:class:`UnknownAcceleratorError` / :class:`UnknownPartitionError`, every other field that
cannot hold :class:`InvalidSpecError`. The rules read a spec through :class:`SpecFields`,
so this module sits below :mod:`accelerators.spec` and never imports it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from accelerators import catalog
from accelerators._parser import MAX_COUNT
from accelerators._text import format_number, shorten
from accelerators._vendors import vendor_names
from accelerators.catalog._memory import MemoryRequest
from accelerators.catalog._partitions import check_partition
from accelerators.catalog._schema import Accelerator
from accelerators.errors import AcceleratorError, InvalidSpecError, close_matches

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = [
    "VENDORS",
    "SpecFields",
    "as_spec_error",
    "check_consistency",
    "has_parsed_types",
    "normalise_count",
    "normalise_vendor",
    "to_accelerator",
]

#: The vendors a spec may name (``nvidia:24GB``, ``vendor="amd"``).
#: The vendors a spec may name: the vendor registry's (:mod:`accelerators._vendors`), in order.
VENDORS = vendor_names()


class SpecFields(Protocol):
    """The fields of a spec, as the rules read them."""

    @property
    def accelerator(self) -> Accelerator | None: ...
    @property
    def count(self) -> int | float: ...
    @property
    def count_range(self) -> tuple[int, int | None] | None: ...
    @property
    def partition(self) -> str | None: ...
    @property
    def unpartitioned(self) -> bool: ...
    @property
    def shared(self) -> bool: ...
    @property
    def exact(self) -> bool: ...
    @property
    def memory(self) -> MemoryRequest | None: ...
    @property
    def vendor(self) -> str | None: ...
    @property
    def fallbacks(self) -> Sequence[SpecFields]: ...


def to_accelerator(value: Any) -> Any:
    """The ``accelerator`` field: a catalog entry, or the entry a name resolves to."""
    if value is None or isinstance(value, Accelerator):
        return value
    if isinstance(value, str):
        return catalog.get(value)
    inner = getattr(value, "accelerator", None)
    if isinstance(inner, Accelerator):
        return inner
    raise InvalidSpecError(
        f"Expected a catalog accelerator or its name, got {type(value).__name__}: {value!r}"
    )


def normalise_count(value: Any) -> int | float:
    """The ``count`` field: a positive number up to 2**53; a whole float becomes an int."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidSpecError(
            f"Expected a positive number for count, got {shorten(repr(value), 80)}"
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidSpecError(f"Expected a positive, finite count, got {value!r}")
    if value <= 0 or value > MAX_COUNT:
        raise InvalidSpecError(
            f"Expected a positive count of at most 2**53 ({MAX_COUNT}), got "
            f"{shorten(repr(value), 80)}"
        )
    if isinstance(value, int):
        return value
    if value.is_integer():
        return int(value)
    return value


def normalise_vendor(value: str | None) -> str | None:
    """The ``vendor`` field: one of the vendor registry's names (:data:`VENDORS`), case-folded."""
    if value is None:
        return None
    folded = value.strip().lower()
    if folded not in VENDORS:
        hint = close_matches(folded, VENDORS)
        extra = f"; did you mean {hint[0]!r}?" if hint else ""
        raise InvalidSpecError(f"Unknown vendor {value!r}: expected one of {VENDORS}{extra}")
    return folded


def check_consistency(spec: SpecFields) -> None:
    """Raise unless the fields of ``spec`` hold together (the model validator's rules)."""
    acc = spec.accelerator
    if acc is None:
        if spec.memory is None and spec.vendor is None:
            raise InvalidSpecError(
                "An AcceleratorSpec needs an accelerator, a memory request or a vendor"
            )
        if spec.partition is not None or spec.unpartitioned:
            raise InvalidSpecError(
                "A partition needs a named accelerator: MIG profiles and TPU topologies "
                "differ per model"
            )
        if spec.exact:
            raise InvalidSpecError("'!' (exact) needs a named accelerator")
    else:
        if spec.memory is not None and not spec.memory.matches(acc):
            raise InvalidSpecError(
                f"{acc.name} has {format_number(acc.device_memory_gb)} GB per device, which "
                f"does not satisfy the memory request {spec.memory}"
            )
        if spec.vendor is not None and spec.vendor != acc.vendor:
            raise InvalidSpecError(f"{acc.name} is made by {acc.vendor}, not {spec.vendor}")
    if spec.partition is not None:
        if spec.unpartitioned:
            raise InvalidSpecError(
                f"Spec asks for partition {spec.partition!r} and for an unpartitioned device"
            )
        check_partition(acc, spec.partition)  # type: ignore[arg-type]
    if spec.shared:
        _check_shared(spec)
    if spec.unpartitioned and acc is not None and not acc.partitions:
        raise InvalidSpecError(
            f"{acc.name} cannot be partitioned, so 'unpartitioned' means nothing for it"
        )
    if spec.count_range is not None:
        _check_count_range(spec)
    for fallback in spec.fallbacks:
        if fallback.fallbacks:
            raise InvalidSpecError("A fallback cannot carry fallbacks of its own")


def _check_count_range(spec: SpecFields) -> None:
    """A count range is whole devices, low to high, and ``count`` is its low end."""
    low, high = spec.count_range  # type: ignore[misc]
    if isinstance(low, bool) or not isinstance(low, int) or low < 1 or low > MAX_COUNT:
        raise InvalidSpecError(
            f"Expected a count range of whole devices from 1, got {spec.count_range}"
        )
    if high is not None and (
        isinstance(high, bool) or not isinstance(high, int) or not low <= high <= MAX_COUNT
    ):
        raise InvalidSpecError(f"Expected a count range from low to high, got {spec.count_range}")
    if spec.count != low:
        raise InvalidSpecError(
            f"count ({format_number(spec.count)}) must be the low end of count_range "
            f"{spec.count_range}"
        )
    if spec.shared:
        raise InvalidSpecError("A count range asks for whole devices; '@shared' cannot take one")


def _check_shared(spec: SpecFields) -> None:
    """A shared slot is of one whole GPU, counted in slots, with no share stated twice."""
    acc = spec.accelerator
    if acc is None:
        raise InvalidSpecError("A shared slot ('@shared') needs a named GPU, as in 'T4@shared'")
    if acc.device_class != "gpu":
        raise InvalidSpecError(
            f"{acc.name} is a {acc.device_class.upper()}, not a GPU: only GPUs are shared "
            "(time-slicing or MPS), so '@shared' means nothing for it"
        )
    if spec.partition is not None or spec.unpartitioned:
        raise InvalidSpecError(
            f"A spec is either a shared slot ('@shared') or a partition "
            f"('@{spec.partition or 'whole'}'), not both"
        )
    if isinstance(spec.count, float):
        raise InvalidSpecError(
            f"A fractional count ({spec.count}) already means a shared GPU and says the share; "
            f"write '{acc.model}:{spec.count}' or '{acc.model}@shared', not both"
        )


#: The type each field may have in a parser's fields for ``AcceleratorSpec._from_fields``.
_PARSED_TYPES: dict[str, tuple[type, ...]] = {
    "accelerator": (Accelerator,),
    "count": (int, float),
    "count_range": (tuple,),
    "partition": (str,),
    "unpartitioned": (bool,),
    "shared": (bool,),
    "exact": (bool,),
    "memory": (MemoryRequest,),
    "vendor": (str,),
}


def has_parsed_types(fields: dict[str, Any]) -> bool:
    """Whether every field has a type ``AcceleratorSpec._from_fields`` builds without
    validation (a count range: two ints, the second possibly None)."""
    for name, value in fields.items():
        expected = _PARSED_TYPES.get(name)
        if expected is None or type(value) not in expected:
            return False
    count_range = fields.get("count_range")
    if count_range is not None:
        if len(count_range) != 2 or type(count_range[0]) is not int:
            return False
        if count_range[1] is not None and type(count_range[1]) is not int:
            return False
    return True


def as_spec_error(exc: ValidationError, data: Any) -> AcceleratorError:
    """Pydantic's error as ours: the error a validator raised, else an
    :class:`InvalidSpecError` naming each field that failed."""
    for error in exc.errors():
        original = (error.get("ctx") or {}).get("error")
        if isinstance(original, AcceleratorError):
            return original
    lines = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ())) or "spec"
        lines.append(f"{where}: {error.get('msg')} (got {shorten(repr(error.get('input')), 80)})")
    return InvalidSpecError(
        f"Invalid AcceleratorSpec {shorten(repr(data), 200)}: " + "; ".join(lines)
    )
