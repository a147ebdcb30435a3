"""Factories in skyward's documented style, generated from catalog families and models.

>>> from accelerators import AcceleratorSpec
>>> str(AcceleratorSpec.NVIDIA.H100(count=8, memory="80GB", form_factor="SXM"))
'H100-SXM!:8'
>>> str(AcceleratorSpec.NVIDIA.A100(memory="40GB", partition="2g.10gb"))
'A100-40GB@2g.10gb'
>>> str(AcceleratorSpec.Google.TPU("v5e", topology="2x4"))
'TPU-V5E@2x4'

``AcceleratorSpec.<Vendor>`` (``NVIDIA``, ``AMD``, ``Intel``, ``Google``, ``AWS``,
``Huawei``, ``Qualcomm``) has one factory per catalog ``family`` of that vendor, named after
the family without vendor words (``Tesla V100`` -> ``V100``, ``Instinct MI300`` -> ``MI300``,
``RTX PRO 6000`` -> ``RTX_PRO_6000``), and one per model whose name differs from every
family's (``MI300X``, ``A100_80GB``, ``TRAINIUM2``). Attribute lookup is case-insensitive.
Nothing is loaded until a factory is first looked up.

Each factory takes:

* ``version`` (positional or keyword): which model of the family, as the model's name
  goes on after the family's (``TPU("v5e")``, ``Trainium(version=2)``, ``Gaudi(version=3)``);
* ``count``: devices (a fraction shares one);
* ``memory``: ``"80GB"``, ``"80G"`` or a number of GB; picks the model with that memory;
* ``form_factor``: ``"SXM"``, ``"PCIe"``, ``"NVL"``… as the SKU names write it (or a word
  of the catalog's ``form_factor``); giving one pins the SKU (``exact``);
* ``partition`` (a MIG profile, ``"whole"``) or, for TPUs, ``topology`` (``"2x4"``);
* ``exact``: pin the SKU chosen, no substitution.

Without ``version``, ``memory`` or ``form_factor`` a family means the model its family name
resolves to (``A100`` is the 40 GB A100); if the name resolves to none, the factory asks
for ``version``. A keyword value no model of the factory has raises
:class:`~accelerators.errors.InvalidSpecError` naming the valid values, as the same request
written as text does.

Factories return fields, as the parser does, and the spec builds itself from them: a
:class:`Factory` reads its keywords into the keyword arguments of a spec and hands them to
its ``build``, which is ``dict`` for the catalog's factories (they return the fields) and the
spec class for those read through ``AcceleratorSpec.NVIDIA`` (:class:`VendorFactories` binds
them to the class it is read from). So this module sits below :mod:`accelerators.spec` and
never imports it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from accelerators import catalog
from accelerators._text import format_number
from accelerators._vendors import VENDORS
from accelerators.catalog._names import is_vendor_word, loose_key, resolve_name, words
from accelerators.errors import AcceleratorError, InvalidSpecError, close_matches

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = ["Factory", "VendorFactories", "constant_fields"]

#: What a factory builds: its fields (``dict``) or the spec.
S = TypeVar("S")
T = TypeVar("T")

#: How each vendor's namespace is spelled on ``AcceleratorSpec``.
_VENDOR_LABELS = {v.name: v.display for v in VENDORS}
_NON_IDENTIFIER = re.compile(r"[^A-Za-z0-9]+")
_MEMORY_TEXT = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(?:gb|g)?\s*", re.IGNORECASE)
_DIGIT = re.compile(r"[0-9]")
_VERSION = re.compile(r"v?[0-9]")
_WHOLE = ("whole", "unpartitioned")


def _identifier(text: str) -> str:
    """``Instinct MI300`` -> ``MI300``; ``RTX PRO 6000`` -> ``RTX_PRO_6000``."""
    words = [w for w in _NON_IDENTIFIER.split(text) if w and not is_vendor_word(w)]
    name = "_".join(words) or _NON_IDENTIFIER.sub("_", text).strip("_")
    return f"_{name}" if name[:1].isdigit() else name


class VendorFactories(Generic[S]):
    """``AcceleratorSpec.NVIDIA`` and its siblings: one vendor's factories, looked up by
    attribute (case-insensitively), each bound to ``build``, which makes a spec of fields.

    :param vendor: the catalog vendor (``"nvidia"``).
    :param build: called with a factory's fields as keyword arguments (the spec class).
    """

    def __init__(self, vendor: str, build: Callable[..., S]) -> None:
        self.vendor = vendor
        self.label = _VENDOR_LABELS.get(vendor, vendor)
        self.build = build

    def _factories(self) -> dict[str, Factory[_Fields]]:
        return _all_factories(catalog.all()).get(self.vendor, {})

    def __getattr__(self, attribute: str) -> Factory[S]:
        if attribute.startswith("_"):
            raise AttributeError(attribute)
        factories = self._factories()
        found = factories.get(attribute.casefold())
        if found is None:
            names = [factory.attribute for factory in factories.values()]
            hints = close_matches(attribute, names)
            hint = f"; did you mean {' or '.join(hints)}?" if hints else "."
            raise AttributeError(
                f"AcceleratorSpec.{self.label} has no factory {attribute!r}{hint} "
                f"Available: {', '.join(names) or 'none'}"
            )
        return found.bind(self.build)

    def __dir__(self) -> list[str]:
        return [factory.attribute for factory in self._factories().values()]

    def __repr__(self) -> str:
        return f"<AcceleratorSpec.{self.label} factories: {', '.join(self.__dir__())}>"


#: The keyword arguments of a spec, what the catalog's factories return.
_Fields = dict[str, Any]

_cache: list[tuple[tuple[Accelerator, ...], dict[str, dict[str, Factory[_Fields]]]]] = []


def _all_factories(entries: tuple[Accelerator, ...]) -> dict[str, dict[str, Factory[_Fields]]]:
    """Factories per vendor, keyed by case-folded attribute; rebuilt if the catalog changes."""
    if _cache and _cache[0][0] is entries:
        return _cache[0][1]
    out: dict[str, dict[str, Factory[_Fields]]] = {}
    for vendor in dict.fromkeys(acc.vendor for acc in entries):
        mine = [acc for acc in entries if acc.vendor == vendor]
        factories: dict[str, Factory[_Fields]] = {}
        for family in dict.fromkeys(acc.family for acc in mine):
            models = tuple(dict.fromkeys(acc.model for acc in mine if acc.family == family))
            attribute = _identifier(family)
            factories.setdefault(
                attribute.casefold(),
                Factory(_VENDOR_LABELS.get(vendor, vendor), attribute, family, models, dict),
            )
        for acc in mine:
            attribute = _identifier(acc.model)
            factories.setdefault(
                attribute.casefold(),
                Factory(
                    _VENDOR_LABELS.get(vendor, vendor), attribute, acc.family, (acc.model,), dict
                ),
            )
        out[vendor] = factories
    _cache[:] = [(entries, out)]
    return out


@dataclass(frozen=True)
class Factory(Generic[S]):
    """One factory over the models it covers: ``AcceleratorSpec.NVIDIA.H100(...)``.

    Calling it reads its keywords into the fields of a spec and returns ``build(**fields)``.
    """

    vendor_label: str
    attribute: str
    family: str
    models: tuple[str, ...]
    #: What is made of the fields: ``dict`` (the fields), or the spec class.
    build: Callable[..., S] = field(compare=False, repr=False)

    def bind(self, build: Callable[..., T]) -> Factory[T]:
        """This factory, building with ``build``."""
        return Factory(self.vendor_label, self.attribute, self.family, self.models, build)

    def __repr__(self) -> str:
        models = ", ".join(self.models)
        return f"<factory AcceleratorSpec.{self.vendor_label}.{self.attribute} ({models})>"

    @property
    def skus(self) -> tuple[Accelerator, ...]:
        return tuple(acc for acc in catalog.all() if acc.model in self.models)

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
    ) -> S:
        """Build the spec (or its fields); see the module docstring for the keywords."""
        call = f"AcceleratorSpec.{self.vendor_label}.{self.attribute}"
        if not isinstance(exact, bool):
            raise InvalidSpecError(f"{call}: exact must be True or False, got {exact!r}")
        skus = list(self.skus)
        if version is not None:
            skus = self._with_version(call, skus, version)
        if memory is not None:
            skus = self._with_memory(call, skus, memory)
        if form_factor is not None:
            skus = self._with_form_factor(call, skus, form_factor)
        sku = self._choose(call, skus, pin=form_factor is not None or exact)
        slice_ = self._slice(call, sku, partition, topology)
        return self.build(
            **_spec_fields(sku, count, slice_, exact=form_factor is not None or exact)
        )

    # -- keyword handling ----------------------------------------------------------------
    def _variant(self, model: str) -> str:
        """How a model's name goes on after its family's: ``TPU-V5E`` -> ``v5e``, ``GAUDI3`` ->
        ``3``; the model name itself where it does not (``MI325X`` in family Instinct MI300)."""
        family, name = loose_key(self.family), loose_key(model)
        rest = name[len(family) :] if name.startswith(family) else ""
        return rest if _VERSION.match(rest) else model

    def _with_version(
        self, call: str, skus: list[Accelerator], version: str | int
    ) -> list[Accelerator]:
        if isinstance(version, bool) or not isinstance(version, str | int):
            raise InvalidSpecError(
                f"{call}: version must be a string or an integer, got {version!r}"
            )
        wanted = loose_key(str(version))
        found = [
            acc
            for acc in skus
            if loose_key(self._variant(acc.model)) in (wanted, f"v{wanted}")
            or loose_key(acc.model) == wanted
        ]
        if not found:
            for text in (f"{self.family} {version}", str(version)):
                try:
                    model = resolve_name(text).accelerator.model
                except AcceleratorError:
                    continue
                found = [acc for acc in skus if acc.model == model]
                if found:
                    break
        if not found:
            versions = _listing(self._variant(model) for model in _models(skus))
            raise InvalidSpecError(f"{call} has no version {version!r}; versions: {versions}")
        return found

    def _with_memory(
        self, call: str, skus: list[Accelerator], memory: str | float
    ) -> list[Accelerator]:
        gb: float | None = None
        if isinstance(memory, int | float) and not isinstance(memory, bool):
            gb = float(memory)
        elif isinstance(memory, str):
            size = _MEMORY_TEXT.fullmatch(memory)
            gb = float(size[1]) if size else None
        valid = _listing(
            f"{format_number(gb_)}GB" for gb_ in sorted({acc.memory_gb for acc in skus})
        )
        if gb is None:
            raise InvalidSpecError(
                f"{call}: memory must be a size such as '80GB' or a number of GB, got "
                f"{memory!r}; valid: {valid}"
            )
        found = [acc for acc in skus if abs(acc.memory_gb - gb) <= 0.5]
        if not found:
            raise InvalidSpecError(f"{call} has no {memory!r} memory variant; valid: {valid}")
        return found

    def _with_form_factor(
        self, call: str, skus: list[Accelerator], form_factor: str
    ) -> list[Accelerator]:
        if not isinstance(form_factor, str):
            raise InvalidSpecError(f"{call}: form_factor must be a string, got {form_factor!r}")
        wanted = loose_key(form_factor)
        named = {acc: self._name_form_factors(acc) for acc in skus}
        found = [acc for acc in skus if wanted in named[acc]]
        if not found:  # a word of the catalog's form_factor, such as "OAM"
            found = [acc for acc in skus if wanted in words(acc.form_factor)]
        if not found:
            labels = [label.upper() for acc in skus for label in sorted(named[acc])]
            if not labels:
                labels = [acc.form_factor for acc in skus]
            raise InvalidSpecError(
                f"{call} has no form factor {form_factor!r}; valid: {_listing(labels)}"
            )
        return found

    def _name_form_factors(self, acc: Accelerator) -> set[str]:
        """Words the SKU name adds to the family name, without sizes and version numbers."""
        extra = set(words(acc.name)) - set(words(self.family))
        return {word for word in extra if not _DIGIT.search(word)}

    def _choose(self, call: str, skus: list[Accelerator], *, pin: bool) -> Accelerator:
        models = _models(skus)
        if len(models) > 1:
            try:
                found = resolve_name(self.family)
            except AcceleratorError:
                found = None
            # a family the token reader reads (the MI300 open name's four models) names no
            # default, as a catalog spelling does (A100 is the 40 GB card, flytekit's A100)
            preferred = (
                None
                if found is None or found.source in ("reader", "open-name")
                else found.accelerator.model
            )
            if preferred not in models:
                raise InvalidSpecError(
                    f"{call} covers several models ({_listing(models)}); choose one with "
                    f"version= ({_listing(self._variant(m) for m in models)}), memory= or "
                    "form_factor="
                )
            models = [preferred]
        chosen = [acc for acc in skus if acc.model == models[0]]
        if not pin:
            return catalog.by_model(models[0])[0]
        defaults = [acc for acc in chosen if acc.default_for_model]
        return defaults[0] if defaults else chosen[0]

    def _slice(
        self, call: str, sku: Accelerator, partition: str | None, topology: str | None
    ) -> str | None:
        if partition is not None and topology is not None:
            raise InvalidSpecError(f"{call}: give partition= or topology=, not both")
        if topology is not None and sku.device_class != "tpu":
            raise InvalidSpecError(
                f"{call}: topology= is for TPU slices; use partition= for a MIG profile"
            )
        chosen = partition if partition is not None else topology
        if chosen is not None and not isinstance(chosen, str):
            raise InvalidSpecError(
                f"{call}: a partition is a string such as '1g.10gb', '2x4' or 'whole', got "
                f"{chosen!r}"
            )
        return chosen.lower() if chosen is not None else None


def _models(skus: Iterable[Accelerator]) -> list[str]:
    return list(dict.fromkeys(acc.model for acc in skus))


def _listing(items: Iterable[str]) -> str:
    return ", ".join(dict.fromkeys(items))


def _spec_fields(
    accelerator: Accelerator, count: float, slice_: str | None, *, exact: bool
) -> dict[str, Any]:
    return {
        "accelerator": accelerator,
        "count": count,
        "partition": None if slice_ in _WHOLE else slice_,
        "unpartitioned": slice_ in _WHOLE,
        "exact": exact,
    }


def constant_fields(
    accelerator: Accelerator,
    version: str | int | None = None,
    *,
    count: float = 1,
    memory: str | float | None = None,
    form_factor: str | None = None,
    partition: str | None = None,
    topology: str | None = None,
    exact: bool = False,
) -> dict[str, Any]:
    """The spec's fields when a constant is called: ``accelerators.A100(count=4)``,
    ``A100(memory="80GB")``.

    With ``version``, ``memory`` or ``form_factor`` the call is the factory of the constant's
    family (``AcceleratorSpec.NVIDIA.A100``), so the variant can change; without them it
    keeps the constant's own SKU (exact when the constant names a non-default SKU, as
    ``to_spec()`` does). ``accelerators.A100(count=4) == AcceleratorSpec.NVIDIA.A100(count=4)``.
    """
    factory = _constant_factory(accelerator)
    if version is not None or memory is not None or form_factor is not None:
        return factory(
            version,
            count=count,
            memory=memory,
            form_factor=form_factor,
            partition=partition,
            topology=topology,
            exact=exact,
        )
    call = f"accelerators.{accelerator.constant or accelerator.name}"
    if not isinstance(exact, bool):
        raise InvalidSpecError(f"{call}: exact must be True or False, got {exact!r}")
    slice_ = factory._slice(call, accelerator, partition, topology)
    return _spec_fields(
        accelerator, count, slice_, exact=exact or not accelerator.default_for_model
    )


def _constant_factory(accelerator: Accelerator) -> Factory[_Fields]:
    """The factory named like the constant when it covers its model (``A100`` covers both
    A100 memory variants), else its family's (``V100`` for ``V100_PCIE``, ``TPU`` for
    ``V5E``), else the model's own."""
    factories = _all_factories(catalog.all()).get(accelerator.vendor, {})
    for name in (accelerator.constant or "", _identifier(accelerator.family)):
        found = factories.get(name.casefold())
        if found is not None and accelerator.model in found.models:
            return found
    return factories[_identifier(accelerator.model).casefold()]
