"""Type checks for platform options: a value of the wrong Python type is a
:class:`~accelerators.errors.PlacementError` naming the platform, the option, what it got and
what it expects, never a ``TypeError`` from deep inside a platform (an Airflow DAG file that
passes ``labels="gpu"`` fails at parse time with a message, not a traceback).

Imports the standard library, :mod:`accelerators.errors` and :mod:`accelerators._text` (to
shorten a long value in the message).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accelerators._text import shorten
from accelerators.errors import PlacementError

__all__ = ["flag", "label_keys", "label_values", "requirement", "sequence", "text"]


def _bad(platform: str, option: str, value: object, expected: str) -> PlacementError:
    shown = shorten(repr(value), 80)
    return PlacementError(
        f"Option {option!r} for platform {platform!r}: expected {expected}, got "
        f"{type(value).__name__} {shown}"
    )


def _is_text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def text(platform: str, option: str, value: object) -> str | None:
    """``None`` or a non-empty string."""
    if value is None:
        return None
    if not _is_text(value):
        raise _bad(platform, option, value, "a non-empty string")
    return str(value)


def flag(platform: str, option: str, value: object) -> bool:
    """``True`` or ``False`` (not a truthy string: ``"false"`` is not False)."""
    if not isinstance(value, bool):
        raise _bad(platform, option, value, "True or False")
    return value


def sequence(platform: str, option: str, value: object) -> tuple[Any, ...]:
    """``None`` (nothing) or a list or tuple."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise _bad(platform, option, value, "a list")
    return tuple(value)


def label_keys(platform: str, value: object) -> dict[str, str]:
    """``labels``: ``None`` or a mapping of label role to label key, all strings."""
    if value is None:
        return {}
    expected = "a mapping of label role to label key, e.g. {'product': 'example.com/gpu'}"
    if not isinstance(value, Mapping):
        raise _bad(platform, "labels", value, expected)
    for role, key in value.items():
        if not isinstance(role, str) or not _is_text(key):
            raise _bad(platform, "labels", {role: key}, expected)
    return dict(value)


def label_values(platform: str, value: object) -> dict[str, tuple[str, ...]]:
    """``label_values``: ``None`` or a mapping of catalog name to a label value or a list of
    them, all strings; keys case-folded."""
    if value is None:
        return {}
    expected = "a mapping of catalog name to a label value or a list of them, e.g. {'H100': 'h100'}"
    if not isinstance(value, Mapping):
        raise _bad(platform, "label_values", value, expected)
    out: dict[str, tuple[str, ...]] = {}
    for name, values in value.items():
        listed = (values,) if isinstance(values, str) else values
        if not _is_text(name) or not isinstance(listed, list | tuple) or not listed:
            raise _bad(platform, "label_values", {name: values}, expected)
        if not all(_is_text(v) for v in listed):
            raise _bad(platform, "label_values", {name: values}, expected)
        out[str(name).casefold()] = tuple(listed)
    return out


def requirement(platform: str, option: str, value: object) -> tuple[str, str, tuple[str, ...]]:
    """A node requirement given as ``{"key": ..., "operator": ..., "values": [...]}``."""
    expected = "a node requirement {'key': str, 'operator': str, 'values': [str, ...]}"
    if not isinstance(value, Mapping):
        raise _bad(platform, option, value, expected)
    key, operator, values = value.get("key"), value.get("operator"), value.get("values") or ()
    if not _is_text(key) or not _is_text(operator) or not isinstance(values, list | tuple):
        raise _bad(platform, option, value, expected)
    if not all(isinstance(v, str) for v in values):
        raise _bad(platform, option, value, expected)
    return str(key), str(operator), tuple(values)
