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

One boundary: :meth:`AcceleratorSpec.coerce` turns anything a user may hand over
(:data:`SpecLike`: a spec, spec text, a constant, a list of those) into a spec, once, and
every public function that takes a spec calls it at its entry; :meth:`AcceleratorSpec.parse`
reads text only. The rules of the fields are in :mod:`accelerators._spec_rules`, the
canonical text and ``explain`` in :mod:`accelerators._spec_text`, the
``AcceleratorSpec.NVIDIA...`` factories in :mod:`accelerators._factories`.
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

from accelerators import _spec_rules as rules
from accelerators import catalog
from accelerators._parser import MAX_COUNT, ParsedSpec, parse_spec
from accelerators._parser_fields import denoting
from accelerators._spec_factories import VendorAttribute
from accelerators._spec_text import alternative_text, explain_text
from accelerators.catalog._memory import MemoryRequest
from accelerators.catalog._partitions import check_partition
from accelerators.catalog._schema import Accelerator, MigProfile, TpuTopology
from accelerators.errors import AcceleratorError, InvalidSpecError

if TYPE_CHECKING:
    from accelerators.catalog._reading import SpecExplanation

__all__ = [
    "MAX_COUNT",
    "AcceleratorSpec",
    "MemoryRequest",
    "SpecLike",
    "SupportsToSpec",
    "check_partition",
]


if TYPE_CHECKING:
    AcceleratorRef = Accelerator
else:
    # Validated by to_accelerator alone, which accepts a catalog entry or a name and nothing
    # else: the field's schema is then built without the catalog record classes', which a
    # process that reads its catalog from the validated cache never needs (catalog._trusted).
    AcceleratorRef = Annotated[
        Any,
        PlainValidator(rules.to_accelerator),
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
    NVIDIA: ClassVar[VendorAttribute] = VendorAttribute("nvidia")
    AMD: ClassVar[VendorAttribute] = VendorAttribute("amd")
    Intel: ClassVar[VendorAttribute] = VendorAttribute("intel")
    Google: ClassVar[VendorAttribute] = VendorAttribute("google")
    AWS: ClassVar[VendorAttribute] = VendorAttribute("aws")
    Huawei: ClassVar[VendorAttribute] = VendorAttribute("huawei")
    Qualcomm: ClassVar[VendorAttribute] = VendorAttribute("qualcomm")
    Cambricon: ClassVar[VendorAttribute] = VendorAttribute("cambricon")
    Hygon: ClassVar[VendorAttribute] = VendorAttribute("hygon")
    Iluvatar: ClassVar[VendorAttribute] = VendorAttribute("iluvatar")
    MetaX: ClassVar[VendorAttribute] = VendorAttribute("metax")
    MooreThreads: ClassVar[VendorAttribute] = VendorAttribute("mthreads")
    Biren: ClassVar[VendorAttribute] = VendorAttribute("biren")
    Tenstorrent: ClassVar[VendorAttribute] = VendorAttribute("tenstorrent")
    FuriosaAI: ClassVar[VendorAttribute] = VendorAttribute("furiosa")

    Apple: ClassVar[VendorAttribute] = VendorAttribute("apple")

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise rules.as_spec_error(exc, data) from None

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> AcceleratorSpec:
        try:
            return super().model_validate(obj, **kwargs)
        except ValidationError as exc:
            raise rules.as_spec_error(exc, obj) from None

    @classmethod
    def model_validate_json(cls, json_data: Any, **kwargs: Any) -> AcceleratorSpec:
        try:
            return super().model_validate_json(json_data, **kwargs)
        except ValidationError as exc:
            raise rules.as_spec_error(exc, json_data) from None

    # -- validation (the rules: accelerators._spec_rules) ------------------------------
    @field_validator("count", mode="before")
    @classmethod
    def _normalise_count(cls, value: Any) -> int | float:
        return rules.normalise_count(value)

    @field_validator("vendor")
    @classmethod
    def _normalise_vendor(cls, value: str | None) -> str | None:
        return rules.normalise_vendor(value)

    @model_validator(mode="after")
    def _check_consistency(self) -> AcceleratorSpec:
        rules.check_consistency(self)
        return self

    # -- construction ------------------------------------------------------------------
    @classmethod
    def coerce(cls, value: SpecLike | None) -> AcceleratorSpec:
        """The spec ``value`` stands for: the one conversion of :data:`SpecLike`.

        * an :class:`AcceleratorSpec` is returned as it is;
        * text is parsed (:meth:`parse`);
        * a constant or partition (``accelerators.H100``, ``A100.partition_2g_10gb``, any
          :class:`SupportsToSpec`) gives its ``to_spec()``;
        * a list or tuple of those is an ordered fallback chain, the first item preferred.

        Every public function that takes a spec calls this once, at its entry, and hands
        only the spec inward.

        >>> AcceleratorSpec.coerce(["H100-SXM:8", "A100-80GB:8"])
        <AcceleratorSpec('H100-SXM:8 | A100-80GB:8')>

        :raises InvalidSpecError: ``value`` is none of those (``None``, a number, an empty
            list...); the message names what was given.
        :raises SpecSyntaxError: text that does not follow the grammar (an empty string).
        """
        raw: object = value  # typed SpecLike for callers; checked here whatever it is
        if isinstance(raw, AcceleratorSpec):
            return raw
        if isinstance(raw, str):
            return cls.parse(raw)
        to_spec = getattr(raw, "to_spec", None)
        if callable(to_spec):
            spec = to_spec()
            if isinstance(spec, AcceleratorSpec):
                return spec
        if isinstance(raw, Sequence) and not isinstance(raw, bytes | bytearray):
            return cls._chain(raw)
        got = "None" if raw is None else f"{type(raw).__name__}: {reprlib.repr(raw)}"
        raise InvalidSpecError(
            "Expected an accelerator spec such as 'H100:8' or 'A100@1g.10gb | L4', a constant "
            f"such as accelerators.H100, an AcceleratorSpec or a list of those; got {got}"
        )

    @classmethod
    def _chain(cls, value: Sequence[Any]) -> AcceleratorSpec:
        """A fallback chain from a list of specs, texts or constants (each may carry its own
        fallbacks, which keep their place)."""
        nested = [item for item in value if isinstance(item, Sequence | set | dict)]
        nested = [item for item in nested if not isinstance(item, str)]
        if nested:
            raise InvalidSpecError(
                "Expected a flat fallback list of specs, names or constants, got a nested "
                f"{type(nested[0]).__name__}: {reprlib.repr(nested[0])}"
            )
        if not value:
            raise InvalidSpecError("Expected at least one accelerator in the fallback list, got []")
        flat: list[AcceleratorSpec] = []
        for item in (cls.coerce(item) for item in value):
            flat.append(item.model_copy(update={"fallbacks": ()}))
            flat.extend(item.fallbacks)
        return flat[0].model_copy(update={"fallbacks": tuple(flat[1:])})

    @classmethod
    def parse(cls, text: str, *, denotes: str = "device") -> AcceleratorSpec:
        """Read a spec from its text (``"H100:8"``, ``"A100@1g.10gb | L4"``; the grammar is in
        ``docs/grammar.md``). For a spec, a constant or a list, use :meth:`coerce`.

        ``denotes`` says what a source's names stand for: ``"device"`` (the default; ``H100``
        is one), ``"board"`` (a product as sold: ``Tesla K80`` is 2 devices), ``"node"`` (a
        machine, partition or instance type: a name that states no count is refused) or
        ``"mixed"`` (a list of those kinds: a name reads as a device where a device's and a
        board's reading agree; ``MI250``, a product of 2 devices stating no count, is refused).

        :raises SpecSyntaxError: the text does not follow the grammar.
        :raises InvalidSpecError: it does, but its parts cannot hold together (``T4@whole``),
            or ``text`` is not a string.
        :raises UnknownAcceleratorError: a name the catalog does not know.
        :raises UnknownPartitionError: a MIG profile or topology the accelerator lacks.
        """
        if not isinstance(text, str):
            raise InvalidSpecError(
                "AcceleratorSpec.parse reads spec text such as 'H100:8', got "
                f"{type(text).__name__}: {reprlib.repr(text)}; AcceleratorSpec.coerce(value) "
                "also reads specs, constants and lists of those"
            )
        with denoting(denotes):
            return cls._from_parsed(parse_spec(text))

    @classmethod
    def explain(cls, text: str, *, denotes: str = "device") -> SpecExplanation:
        """How ``text`` reads, name by name and token by token; never raises for a string.

        Each accelerator name in the spec gets a :class:`~accelerators.catalog.NameReading`:
        which step read it (a catalog spelling, an instance type, the token reader) and, token
        by token, what each part of the name was taken to say (vendor, model, memory, count,
        host figure, noise...); a refused name shows the tokens that could not be placed and
        why. ``accelerators parse --explain SPEC`` prints it.

        >>> print(AcceleratorSpec.explain("2x-gpu-nvidia-h100").names[0].result)
        H100-SXM:2 | H100-PCIE:2 | H100-NVL:2
        """
        with denoting(denotes):
            return explain_text(text, cls._from_parsed)

    @classmethod
    def _from_parsed(cls, parsed: ParsedSpec) -> AcceleratorSpec:
        """Build the spec from what the grammar read; errors point into its source."""
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
        own rules; they run here, in the order validation runs them, and the spec is built
        without validation (``model_construct``: the same values and fields set). Anything
        else the parser may hand over (a field of another type, an unknown key, a rule that
        raises something other than our errors) takes ``cls(**fields)``, whose result or
        error is the one to give. ``tests/test_spec_from_fields.py`` checks that both routes
        agree on many specs, good and bad.
        """
        if not rules.has_parsed_types(fields):
            return cls(**fields)
        values = dict(fields)
        try:
            if "count" in values:
                values["count"] = rules.normalise_count(values["count"])
            if "vendor" in values:
                values["vendor"] = rules.normalise_vendor(values["vendor"])
            spec = cls.model_construct(**values)
            rules.check_consistency(spec)
        except AcceleratorError:
            raise
        except Exception:  # validation's own error (or result) is the one to give
            return cls(**fields)
        return spec

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

    # -- canonical text (accelerators._spec_text) ---------------------------------------
    def __str__(self) -> str:
        return " | ".join(alternative_text(spec) for spec in (self, *self.fallbacks))

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


class SupportsToSpec(Protocol):
    """Anything :meth:`AcceleratorSpec.coerce` reads through its ``to_spec()``: a catalog
    constant (``accelerators.H100``, a :class:`accelerators.constants.Device`) or one of its
    partitions (``accelerators.A100.partition_2g_10gb``, a
    :class:`accelerators.constants.Partition`)."""

    def to_spec(self) -> AcceleratorSpec: ...


#: Everything :meth:`AcceleratorSpec.coerce` accepts as a spec: an :class:`AcceleratorSpec`,
#: a spec string (``"H100:8"``, ``"A100@1g.10gb | L4"``), a constant or partition, or a list
#: of those (an ordered fallback chain). The functions that take a spec are typed with it.
SpecLike: TypeAlias = (
    AcceleratorSpec | str | SupportsToSpec | Sequence[AcceleratorSpec | str | SupportsToSpec]
)
