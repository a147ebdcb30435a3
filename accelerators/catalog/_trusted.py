"""The validated catalog kept on disk, read back without validating it a second time.

Validating the catalog builds pydantic's validators for every record class and checks ~1,100
records: about 7 ms of every fresh process that names an accelerator (an Airflow DAG file is
parsed in one). Once a data file has passed validation, nothing in it can fail the next time:
this module stores the validated records (:func:`to_blob`) in the data-file cache of
:mod:`accelerators._datafiles` and builds the same records again from them with
``model_construct`` (:func:`from_blob`), which validates nothing, so the schema classes never
build their validators (they are ``defer_build``).

The entry's key (:func:`cache_key`) is the SHA-256 of the data file's bytes, of the source
of this module and of the schema's (:mod:`accelerators.catalog._schema`, ``._records`` and
``._file``), and of the pydantic and Python versions: an edited data file or schema gets a new
entry, and a stale one is never read. A damaged entry fails its checksum
(:func:`accelerators._datafiles.read_blob`) or its shape check here and is rebuilt from the
data file, validated. A data file that fails validation is never stored.

Records are stored with :mod:`marshal` (plain tuples, strings and numbers only: loading runs
no code), each record as its field values in declaration order and the bit mask of the fields the
data gave.
"""

from __future__ import annotations

import gc
import hashlib
import marshal
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic
from pydantic import BaseModel

from accelerators.catalog import _file, _records, _schema
from accelerators.catalog._file import CatalogFile

__all__ = ["cache_key", "from_blob", "to_blob"]

#: Bumped when the stored layout changes (the source digest covers it too).
_FORMAT = 1

_Convert = Callable[[Any], Any]


def cache_key(data: bytes) -> str | None:
    """The cache key of the validated records of the data file ``data`` (None: do not cache)."""
    digest = hashlib.sha256(data)
    for module in (_schema, _records, _file, sys.modules[__name__]):
        try:
            digest.update(Path(module.__file__ or "").read_bytes())
        except OSError:  # no source to tell one schema from another: never trust a copy
            return None
    digest.update(f"{_FORMAT}:{pydantic.VERSION}:{sys.version_info[:2]}".encode())
    return digest.hexdigest()[:32]


def to_blob(catalog: CatalogFile) -> bytes:
    """The validated ``catalog`` as bytes for :func:`from_blob`."""
    return marshal.dumps((_FORMAT, _plan(CatalogFile).dump(catalog)))


def from_blob(blob: bytes) -> CatalogFile:
    """The records :func:`to_blob` stored, constructed without validation.

    :raises ValueError: ``blob`` is not what :func:`to_blob` writes for this schema.
    """
    collecting = gc.isenabled()
    gc.disable()  # ~12,000 objects, all kept: collections would only scan the whole heap
    try:
        version, payload = marshal.loads(blob)
        if version != _FORMAT:
            raise ValueError(f"stored format {version!r}, expected {_FORMAT}")
        built = _plan(CatalogFile).load(payload)
    except (AttributeError, EOFError, KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not a stored catalog: {exc}") from exc
    finally:
        if collecting:
            gc.enable()
    if not isinstance(built, CatalogFile):
        raise ValueError("not a stored catalog")
    return built


class _Plan:
    """How one record class is stored: each field's name and its value's converters.

    A record is stored as its pickle state (pydantic's ``__getstate__``: the field values,
    the set of fields the data gave, no extra or private values) and rebuilt with
    ``__setstate__``, as unpickling does; nothing is validated on the way back.
    """

    def __init__(self, cls: type[BaseModel]) -> None:
        self.cls = cls
        self.fields: list[tuple[str, _Convert | None, _Convert | None]] = []
        for name, field in cls.model_fields.items():
            pair = _converters(field.annotation)
            self.fields.append((name, *pair) if pair else (name, None, None))
        self.names = tuple(name for name, _, _ in self.fields)
        self.loads = tuple((name, load) for name, _, load in self.fields if load is not None)
        self._given: dict[int, frozenset[str]] = {}

    def dump(self, record: BaseModel) -> tuple[Any, ...]:
        state = record.__getstate__()
        if state["__pydantic_extra__"] or state["__pydantic_private__"]:
            raise TypeError(f"cannot store {type(record).__name__}: extra or private values")
        given = record.model_fields_set
        mask = sum(1 << i for i, (name, _, _) in enumerate(self.fields) if name in given)
        values = state["__dict__"]
        return (*(dump(values[n]) if dump else values[n] for n, dump, _ in self.fields), mask)

    def load(self, stored: tuple[Any, ...]) -> BaseModel:
        if type(stored) is not tuple or len(stored) != len(self.fields) + 1:
            raise ValueError(f"a {self.cls.__name__} record of the wrong shape")
        values = dict(zip(self.names, stored))  # noqa: B905 - the mask comes last, unnamed
        for name, load in self.loads:
            values[name] = load(values[name])
        record = self.cls.__new__(self.cls)
        state = {
            "__dict__": values,
            "__pydantic_fields_set__": set(self._fields_given(stored[-1])),
            "__pydantic_extra__": None,
            "__pydantic_private__": None,
        }
        record.__setstate__(state)
        return record

    def _fields_given(self, mask: int) -> frozenset[str]:
        given = self._given.get(mask)
        if given is None:
            names = (name for i, (name, _, _) in enumerate(self.fields) if mask >> i & 1)
            given = self._given[mask] = frozenset(names)
        return given


_PLANS: dict[type[BaseModel], _Plan] = {}


def _plan(cls: type[BaseModel]) -> _Plan:
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _Plan(cls)
    return plan


def _converters(annotation: Any) -> tuple[_Convert, _Convert] | None:
    """(dump, load) for values of ``annotation``; None where the value is stored as it is."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        plan = _plan(annotation)
        return plan.dump, plan.load
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        pairs = [_converters(a) for a in inner]
        if not any(pairs):
            return None
        if len(inner) != 1:
            raise TypeError(f"cannot store {annotation}: a union with a record in it")
        dump, load = pairs[0]  # type: ignore[misc]
        return (lambda v: None if v is None else dump(v)), (
            lambda v: None if v is None else load(v)
        )
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        pair = _converters(args[0])
        if pair is None:
            return tuple, tuple
        dump, load = pair
        return (lambda v: tuple(map(dump, v))), (lambda v: tuple(map(load, v)))
    if origin is dict:
        pair = _converters(args[1])
        if pair is None:
            return dict, dict
        dump, load = pair
        return (lambda v: {k: dump(x) for k, x in v.items()}), (
            lambda v: {k: load(x) for k, x in v.items()}
        )
    if origin is not None and origin is not typing.Literal:
        raise TypeError(f"cannot store {annotation}")
    return None
