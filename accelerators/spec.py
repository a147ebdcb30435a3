"""`AcceleratorSpec`: one value that says which accelerator, how many, which slice of it.

>>> from accelerators import AcceleratorSpec
>>> spec = AcceleratorSpec.parse("A100-80GB:4")
>>> spec.accelerator.name, spec.count, str(spec)
('A100-80GB-SXM', 4, 'A100-80GB:4')
>>> AcceleratorSpec.parse(str(spec)) == spec
True

Semantics (the grammar is in ``docs/grammar.md``):

* ``accelerator`` is a catalog SKU. A model-level name (``A100``, ``H100``) resolves to the
  model's default SKU and accepts every SKU of that model (``exact`` is false); naming a form
  factor (``A100-40GB-PCIE``, an nvidia-smi name) or adding ``!`` pins the SKU (``exact``).
* ``count`` is the number of devices (a fraction means a shared device).
* ``shared`` asks for a shared slot of a GPU (time-slicing or MPS: Flyte 2's ``"T4 shared"``,
  written ``T4@shared``) without saying how large a share; ``count`` is then the number of
  slots. A fraction (``T4:0.5``) is a shared slot that also says its share.
* ``partition`` is a MIG profile or a TPU topology of that accelerator; ``unpartitioned``
  asks explicitly for a whole, non-MIG device (flytekit's ``.unpartitioned``).
* ``memory``/``vendor`` describe a request by memory (``80GB+``, ``nvidia:24GB:2``) that
  leaves ``accelerator`` empty. Next to a name, a memory size picks the model
  (``A100:80GB`` is the 80 GB A100); it stays in ``memory`` but is not printed, since the
  model already says it.
* ``fallbacks`` are ordered alternatives; each is a spec without fallbacks of its own.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Protocol, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    PlainSerializer,
    PlainValidator,
    ValidationError,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from accelerators import catalog
from accelerators._parser import MAX_COUNT, parse_spec
from accelerators._text import format_number, shorten
from accelerators.catalog._memory import MemoryRequest
from accelerators.catalog._partitions import check_partition
from accelerators.catalog._schema import Accelerator, MigProfile, TpuTopology
from accelerators.errors import AcceleratorError, close_matches

if TYPE_CHECKING:
    from accelerators._factories import VendorFactories
    from accelerators.catalog._reading import SpecExplanation

__all__ = [
    "MAX_COUNT",
    "AcceleratorSpec",
    "MemoryRequest",
    "SpecLike",
    "SupportsToSpec",
    "check_partition",
]


def _to_accelerator(value: Any) -> Any:
    if value is None or isinstance(value, Accelerator):
        return value
    if isinstance(value, str):
        return catalog.get(value)
    inner = getattr(value, "accelerator", None)
    if isinstance(inner, Accelerator):
        return inner
    raise AcceleratorError(
        f"Expected a catalog accelerator or its name, got {type(value).__name__}: {value!r}"
    )


class _Factories:
    """``AcceleratorSpec.NVIDIA`` and its siblings; :mod:`accelerators._factories` (which
    builds them from the catalog) is imported the first time one is read, not with this
    module: parsing a spec does not need it."""

    def __init__(self, vendor: str) -> None:
        self.vendor = vendor

    def __get__(self, instance: object, owner: type) -> VendorFactories:
        from accelerators._factories import VendorFactories

        return VendorFactories(self.vendor, owner)


if TYPE_CHECKING:
    AcceleratorRef = Accelerator
else:
    # Validated by _to_accelerator alone, which accepts a catalog entry or a name and nothing
    # else: the field's schema is then built without the catalog record classes', which a
    # process that reads its catalog from the validated cache never needs (catalog._trusted).
    AcceleratorRef = Annotated[
        Any,
        PlainValidator(_to_accelerator),
        PlainSerializer(lambda acc: acc.name, return_type=str),
        WithJsonSchema({"type": "string", "description": "A catalog accelerator name"}),
    ]


class AcceleratorSpec(BaseModel):
    """A frozen, hashable, JSON-serialisable accelerator request."""

    # defer_build: pydantic builds this class's validator and serializer when first used, not
    # at import. Parsing text needs neither (_from_fields); building them costs ~20 ms (the
    # core schema, and pydantic's plugin scan over every installed distribution's metadata).
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    accelerator: AcceleratorRef | None = None
    count: int | float = 1
    #: A count range (dstack's ``H100:1..2``, ``MI300X:4..``): (low, high), high None for no
    #: upper end; ``count`` is then its low end, the count a placement requests.
    count_range: tuple[int, int | None] | None = None
    partition: str | None = None
    unpartitioned: bool = False
    shared: bool = False
    exact: bool = False
    memory: MemoryRequest | None = None
    vendor: str | None = None
    fallbacks: tuple[AcceleratorSpec, ...] = ()

    # Factories in skyward's style, one per catalog family and model of each vendor:
    # ``AcceleratorSpec.NVIDIA.H100(count=8, form_factor="SXM")`` (see ``_factories``).
    NVIDIA: ClassVar[_Factories] = _Factories("nvidia")
    AMD: ClassVar[_Factories] = _Factories("amd")
    Intel: ClassVar[_Factories] = _Factories("intel")
    Google: ClassVar[_Factories] = _Factories("google")
    AWS: ClassVar[_Factories] = _Factories("aws")
    Huawei: ClassVar[_Factories] = _Factories("huawei")
    Qualcomm: ClassVar[_Factories] = _Factories("qualcomm")

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _as_accelerator_error(exc, data) from None

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> AcceleratorSpec:
        try:
            return super().model_validate(obj, **kwargs)
        except ValidationError as exc:
            raise _as_accelerator_error(exc, obj) from None

    @classmethod
    def model_validate_json(cls, json_data: Any, **kwargs: Any) -> AcceleratorSpec:
        try:
            return super().model_validate_json(json_data, **kwargs)
        except ValidationError as exc:
            raise _as_accelerator_error(exc, json_data) from None

    # -- validation --------------------------------------------------------------------
    @field_validator("count", mode="before")
    @classmethod
    def _normalise_count(cls, value: Any) -> int | float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise AcceleratorError(
                f"Expected a positive number for count, got {shorten(repr(value), 80)}"
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise AcceleratorError(f"Expected a positive, finite count, got {value!r}")
        if value <= 0 or value > MAX_COUNT:
            raise AcceleratorError(
                f"Expected a positive count of at most 2**53 ({MAX_COUNT}), got "
                f"{shorten(repr(value), 80)}"
            )
        if isinstance(value, int):
            return value
        if value.is_integer():
            return int(value)
        return value

    @field_validator("vendor")
    @classmethod
    def _normalise_vendor(cls, value: str | None) -> str | None:
        if value is None:
            return None
        from accelerators._vendors import vendor_names

        vendors = vendor_names()
        folded = value.strip().lower()
        if folded not in vendors:
            hint = close_matches(folded, vendors)
            extra = f"; did you mean {hint[0]!r}?" if hint else ""
            raise AcceleratorError(f"Unknown vendor {value!r}: expected one of {vendors}{extra}")
        return folded

    @model_validator(mode="after")
    def _check_consistency(self) -> AcceleratorSpec:
        acc = self.accelerator
        if acc is None:
            if self.memory is None and self.vendor is None:
                raise AcceleratorError(
                    "An AcceleratorSpec needs an accelerator, a memory request or a vendor"
                )
            if self.partition is not None or self.unpartitioned:
                raise AcceleratorError(
                    "A partition needs a named accelerator: MIG profiles and TPU topologies "
                    "differ per model"
                )
            if self.exact:
                raise AcceleratorError("'!' (exact) needs a named accelerator")
        else:
            if self.memory is not None and not self.memory.matches(acc):
                raise AcceleratorError(
                    f"{acc.name} has {format_number(acc.device_memory_gb)} GB per device, which "
                    "does not satisfy "
                    f"the memory request {self.memory}"
                )
            if self.vendor is not None and self.vendor != acc.vendor:
                raise AcceleratorError(f"{acc.name} is made by {acc.vendor}, not {self.vendor}")
        if self.partition is not None:
            if self.unpartitioned:
                raise AcceleratorError(
                    f"Spec asks for partition {self.partition!r} and for an unpartitioned device"
                )
            check_partition(acc, self.partition)  # type: ignore[arg-type]
        if self.shared:
            _check_shared(self)
        if self.unpartitioned and acc is not None and not acc.partitions:
            raise AcceleratorError(
                f"{acc.name} cannot be partitioned, so 'unpartitioned' means nothing for it"
            )
        if self.count_range is not None:
            _check_count_range(self)
        for fallback in self.fallbacks:
            if fallback.fallbacks:
                raise AcceleratorError("A fallback cannot carry fallbacks of its own")
        return self

    # -- construction ------------------------------------------------------------------
    @classmethod
    def parse(cls, value: Any) -> AcceleratorSpec:
        """Read a spec from a string, a constant or partition, a spec, or a list of those
        (:data:`SpecLike`).

        A list is an ordered fallback chain: the first item is preferred. Anything else
        raises :class:`AcceleratorError` (so ``value`` is typed ``Any``: it is the check).
        """
        if isinstance(value, AcceleratorSpec):
            return value
        if isinstance(value, str):
            return cls._from_parsed(value)
        to_spec = getattr(value, "to_spec", None)
        if callable(to_spec):
            spec = to_spec()
            if isinstance(spec, AcceleratorSpec):
                return spec
        if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
            nested = [item for item in value if isinstance(item, Sequence | set | dict)]
            nested = [item for item in nested if not isinstance(item, str)]
            if nested:
                raise AcceleratorError(
                    "Expected a flat fallback list of specs, names or constants, got a nested "
                    f"{type(nested[0]).__name__}: {reprlib.repr(nested[0])}"
                )
            items = [cls.parse(item) for item in value]
            if not items:
                raise AcceleratorError(
                    "Expected at least one accelerator in the fallback list, got []"
                )
            flat: list[AcceleratorSpec] = []
            for item in items:
                flat.append(item.model_copy(update={"fallbacks": ()}))
                flat.extend(item.fallbacks)
            return flat[0].model_copy(update={"fallbacks": tuple(flat[1:])})
        raise AcceleratorError(
            "Expected an accelerator spec: a string such as 'H100:8', a constant such as "
            f"accelerators.A100, or a list of those; got {type(value).__name__}: "
            f"{reprlib.repr(value)}"
        )

    @classmethod
    def explain(cls, text: str) -> SpecExplanation:
        """How ``text`` reads, name by name and token by token; never raises for a string.

        Each accelerator name in the spec gets a :class:`~accelerators.catalog.NameReading`:
        which step read it (a catalog spelling, an instance type, the token reader) and, token
        by token, what each part of the name was taken to say (vendor, model, memory, count,
        host figure, noise...); a refused name shows the tokens that could not be placed and
        why. ``accelerators parse --explain SPEC`` prints it.

        >>> print(AcceleratorSpec.explain("2x-gpu-nvidia-h100").names[0].result)
        H100:2 | H100-PCIE:2 | H100-NVL:2
        """
        from accelerators._parser import ParsedSpec
        from accelerators.catalog._explain import explain_name
        from accelerators.catalog._reading import NameReading, SpecExplanation

        if not isinstance(text, str):
            raise AcceleratorError(
                f"Expected an accelerator spec string to explain, got {type(text).__name__}"
            )
        names: list[str] = []
        try:
            parsed: ParsedSpec | None = parse_spec(text)
            spec, error = cls._from_parsed(text), None
        except AcceleratorError as exc:
            parsed, spec, error = None, None, str(exc).splitlines()[0]
            name = getattr(exc, "name", None)
            if isinstance(name, str) and name:
                names.append(name)
        if parsed is not None:
            names = [name for name, _ in parsed.names]
        readings: list[NameReading] = []
        for name in dict.fromkeys(names):
            group = catalog._store.group_members(name)
            if group is not None:
                members = " | ".join(acc.model for acc in group)
                readings.append(NameReading(name, "group name", (), members))
            else:
                readings.append(explain_name(name))
        return SpecExplanation(text, None if spec is None else str(spec), error, tuple(readings))

    @classmethod
    def _from_parsed(cls, text: str) -> AcceleratorSpec:
        """Build the spec from what the grammar read; errors point into ``text``."""
        parsed = parse_spec(text)
        specs: list[AcceleratorSpec] = []
        for alternative in parsed.alternatives:
            try:
                specs.append(cls._from_fields(alternative.fields))
            except AcceleratorError as exc:
                raise parsed.error_at(exc, alternative.span) from None
        first, *fallbacks = specs
        if not fallbacks:
            return first
        return first.model_copy(update={"fallbacks": tuple(fallbacks)})

    @classmethod
    def _from_fields(cls, fields: dict[str, Any]) -> AcceleratorSpec:
        """The spec ``cls(**fields)`` builds, for fields the grammar read.

        The parser gives every field its final type (a catalog entry, a count, a
        :class:`MemoryRequest`...), so pydantic's validation of it reduces to this class's
        own validators; they run here, in the order validation runs them, and the spec is
        built without validation (``model_construct``: the same values and fields set).
        Anything else the parser may hand over (a field of another type, an unknown key, a
        validator that raises something other than our errors) takes ``cls(**fields)``,
        whose result or error is the one to give. ``tests/test_spec_from_fields.py`` checks
        that both routes agree on many specs, good and bad.
        """
        if not _parsed_types(fields):
            return cls(**fields)
        values = dict(fields)
        try:
            if "count" in values:
                values["count"] = cls._normalise_count(values["count"])
            if "vendor" in values:
                values["vendor"] = cls._normalise_vendor(values["vendor"])
            spec = cls.model_construct(**values)
            # The model validator, called as validation calls it (mypy sees pydantic's proxy).
            checked: AcceleratorSpec = spec._check_consistency()  # type: ignore[operator]
        except AcceleratorError:
            raise
        except Exception:  # validation's own error (or result) is the one to give
            return cls(**fields)
        return checked

    # -- derived views -----------------------------------------------------------------
    @property
    def is_fractional(self) -> bool:
        return isinstance(self.count, float)

    @property
    def devices_needed(self) -> int:
        """How many devices this alternative needs: the count rounded up, at least one (a
        fraction of a GPU, or a shared slot, still needs a device to be there)."""
        return max(1, math.ceil(self.count))

    @property
    def is_shared(self) -> bool:
        """A slot of a shared GPU: ``@shared``, or a fraction (which also says the share)."""
        return self.shared or self.is_fractional

    @property
    def mig_profile(self) -> MigProfile | None:
        if self.accelerator is None or self.partition is None:
            return None
        return self.accelerator.mig_profile(self.partition)

    @property
    def tpu_topology(self) -> TpuTopology | None:
        if self.accelerator is None or self.partition is None:
            return None
        return self.accelerator.tpu_topology(self.partition)

    @property
    def candidates(self) -> tuple[Accelerator, ...]:
        """SKUs this spec accepts, preferred first (fallbacks not included)."""
        acc = self.accelerator
        if acc is not None:
            if self.exact:
                return (acc,)
            return catalog.by_model(acc.model)
        found = catalog.select(vendor=self.vendor)
        if self.memory is not None:
            found = tuple(a for a in found if self.memory.matches(a))
        return found

    @property
    def alternatives(self) -> tuple[AcceleratorSpec, ...]:
        """This spec without its fallbacks, then each fallback, in order of preference."""
        return (self.model_copy(update={"fallbacks": ()}), *self.fallbacks)

    def with_count(self, count: float) -> AcceleratorSpec:
        return type(self).model_validate({**self._fields(), "count": count})

    def with_partition(self, partition: str | None) -> AcceleratorSpec:
        return type(self).model_validate(
            {**self._fields(), "partition": partition, "unpartitioned": False}
        )

    def _fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in type(self).model_fields}

    # -- canonical text ----------------------------------------------------------------
    def _single_str(self) -> str:
        acc = self.accelerator
        parts: list[str] = []
        if acc is None:
            head = ":".join(
                p for p in (self.vendor, str(self.memory) if self.memory else None) if p
            )
            parts.append(head)
        else:
            # A memory request next to a name is not printed: it was checked against the
            # accelerator and says nothing more (all SKUs of a model share their memory), so
            # "A100:80GB" and "A100-80GB" are the same spec. The vendor is left out likewise.
            parts.append(f"{acc.name}!" if self.exact else acc.model)
            if self.partition is not None:
                parts[-1] += f"@{self.partition}"
            elif self.unpartitioned:
                parts[-1] += "@whole"
            elif self.shared:
                parts[-1] += "@shared"
        text = ":".join(parts)
        if self.count_range is not None:
            low, high = self.count_range
            text += f":{low}..{'' if high is None else high}"
        elif self.count != 1:
            text += f":{format_number(self.count)}"
        return text

    def __str__(self) -> str:
        return " | ".join(spec._single_str() for spec in self.alternatives)

    def __repr__(self) -> str:
        return f"<AcceleratorSpec({str(self)!r})>"

    # Equality and hashing both go by the canonical text, so a spec and the string that is
    # its canonical text are equal *and* hash alike (``{spec: 1}["H100:8"]`` works). Another
    # spelling of the same spec ("h100:8") is not equal to it: no hash could agree with
    # every spelling. Parse such text first: ``spec == AcceleratorSpec.parse("h100:8")``.
    def __eq__(self, other: object) -> bool:
        if isinstance(other, AcceleratorSpec):
            return str(self) == str(other)
        if isinstance(other, str):
            return str(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(str(self))


#: The type each field may have in a parser's fields for AcceleratorSpec._from_fields.
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


def _parsed_types(fields: dict[str, Any]) -> bool:
    """Whether every field has a type :meth:`AcceleratorSpec._from_fields` builds without
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


def _check_count_range(spec: AcceleratorSpec) -> None:
    """A count range is whole devices, low to high, and ``count`` is its low end."""
    low, high = spec.count_range  # type: ignore[misc]
    if isinstance(low, bool) or not isinstance(low, int) or low < 1 or low > MAX_COUNT:
        raise AcceleratorError(
            f"Expected a count range of whole devices from 1, got {spec.count_range}"
        )
    if high is not None and (
        isinstance(high, bool) or not isinstance(high, int) or not low <= high <= MAX_COUNT
    ):
        raise AcceleratorError(f"Expected a count range from low to high, got {spec.count_range}")
    if spec.count != low:
        raise AcceleratorError(
            f"count ({format_number(spec.count)}) must be the low end of count_range "
            f"{spec.count_range}"
        )
    if spec.shared:
        raise AcceleratorError("A count range asks for whole devices; '@shared' cannot take one")


def _check_shared(spec: AcceleratorSpec) -> None:
    """A shared slot is of one whole GPU, counted in slots, with no share stated twice."""
    acc = spec.accelerator
    if acc is None:
        raise AcceleratorError("A shared slot ('@shared') needs a named GPU, as in 'T4@shared'")
    if acc.device_class != "gpu":
        raise AcceleratorError(
            f"{acc.name} is a {acc.device_class.upper()}, not a GPU: only GPUs are shared "
            "(time-slicing or MPS), so '@shared' means nothing for it"
        )
    if spec.partition is not None or spec.unpartitioned:
        raise AcceleratorError(
            f"A spec is either a shared slot ('@shared') or a partition "
            f"('@{spec.partition or 'whole'}'), not both"
        )
    if spec.is_fractional:
        raise AcceleratorError(
            f"A fractional count ({spec.count}) already means a shared GPU and says the share; "
            f"write '{acc.model}:{spec.count}' or '{acc.model}@shared', not both"
        )


def _as_accelerator_error(exc: ValidationError, data: Any) -> AcceleratorError:
    """Turn pydantic's error into ours, keeping our own error when a validator raised it."""
    for error in exc.errors():
        original = (error.get("ctx") or {}).get("error")
        if isinstance(original, AcceleratorError):
            return original
    lines = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ())) or "spec"
        lines.append(f"{where}: {error.get('msg')} (got {shorten(repr(error.get('input')), 80)})")
    return AcceleratorError(
        f"Invalid AcceleratorSpec {shorten(repr(data), 200)}: " + "; ".join(lines)
    )


class SupportsToSpec(Protocol):
    """Anything :meth:`AcceleratorSpec.parse` reads through its ``to_spec()``: a catalog
    constant (``accelerators.H100``, a :class:`accelerators.constants.Device`) or one of its
    partitions (``accelerators.A100.partition_2g_10gb``, a
    :class:`accelerators.constants.Partition`)."""

    def to_spec(self) -> AcceleratorSpec: ...


#: Everything :meth:`AcceleratorSpec.parse` accepts as a spec: an :class:`AcceleratorSpec`,
#: a spec string (``"H100:8"``, ``"A100@1g.10gb | L4"``), a constant or partition, or a list
#: of those (an ordered fallback chain). The functions that take a spec are typed with it.
SpecLike: TypeAlias = (
    AcceleratorSpec | str | SupportsToSpec | Sequence[AcceleratorSpec | str | SupportsToSpec]
)
