"""What a stored report must be before the bench history uses it, and its figures.

A history is shared by a fleet: one bad record (a truncated object, a report from a foreign
tool, a hand-edited row, a forged figure) must not crash or sway every gate that reads it.
:func:`figures_of` therefore reads a report given as plain JSON data and either returns its
sustained figures or raises :class:`BadRecord` saying what is wrong. A record is used whole
or not at all:

* it is a JSON object with an ISO ``started_at`` that carries its time zone, a string
  ``node``/``host``, a known ``verdict``;
* ``devices`` is a list of objects, each with an integer ``index`` in ``[0, 4096)``, string
  names, and ``gemm``/``memory`` lists of objects with a string ``dtype``/``kernel``;
* every figure is a finite positive number and physically possible: at most
  :data:`IMPOSSIBLE` times the catalog's peak of its SKU (its dtype's dense TFLOPS, or the
  matrix-unit peak where the bands file has one; its memory bandwidth), and below
  :data:`MAX_TFLOPS` / :data:`MAX_GBPS` for devices the catalog does not know (CPUs).

Plain ``json`` data in, frozen :class:`Figure` rows out; no pydantic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from accelerators.errors import AcceleratorError

__all__ = ["IMPOSSIBLE", "MAX_GBPS", "MAX_TFLOPS", "BadRecord", "Bounds", "Figure", "figures_of"]

#: A figure above this multiple of its catalog peak cannot have been measured: the record is
#: rejected. Not 1.0: a catalog figure may be a little low (boost clocks, an unconfirmed
#: peak); a measured rate above ~105 % of its peak already warns (``peak_unreliable``).
IMPOSSIBLE = 1.5
#: Bounds for devices without a catalog peak (CPUs, unknown GPUs): above the fastest
#: accelerator of any datasheet (B300 FP4 is ~15,000 dense TFLOPS, HBM4 ~20 TB/s).
MAX_TFLOPS = 100_000.0
MAX_GBPS = 100_000.0
_MAX_INDEX = 4096
_MAX_TEXT = 256
_VERDICTS = ("pass", "warn", "fail")


class BadRecord(AcceleratorError):
    """A stored report that is malformed or physically impossible (the message says which)."""


@dataclass(frozen=True)
class Figure:
    """One sustained figure of one device in one run.

    :ivar node: the Kubernetes node (``report.node``) or else the host name.
    :ivar sku: the catalog name of the device, or its reported name when not in the catalog.
    :ivar metric: ``gemm.<dtype>`` (unit ``tflops``) or ``memory.<kernel>`` (unit ``gbps``).
    :ivar value: the median rate of the timed calls (the best call's when no median).
    """

    started_at: datetime
    node: str
    device_index: int
    sku: str
    metric: str
    value: float
    unit: str
    verdict: str


def figures_of(data: object) -> list[Figure]:
    """The sustained figures of one report given as JSON data (a ``dict``).

    :raises BadRecord: the record is malformed or a figure is physically impossible.
    """
    report = _mapping(data, "the record")
    started = _started(report.get("started_at"))
    node = _text(report.get("node") or report.get("host") or "unknown", "node")
    verdict = _verdict(report.get("verdict"), "verdict")
    out: list[Figure] = []
    for number, device in enumerate(_list(report.get("devices"), "devices")):
        where = f"devices[{number}]"
        device = _mapping(device, where)
        index = device.get("index", 0)
        if type(index) is not int or not 0 <= index < _MAX_INDEX:
            raise BadRecord(f"{where}.index is {_shown(index)}, not a device index")
        name = device.get("accelerator") or device.get("name") or "unknown"
        sku = _text(name, f"{where}.accelerator")
        profile = device.get("mig_profile")
        if device.get("is_mig") and profile:
            sku += f"@{_text(profile, f'{where}.mig_profile')}"
        state = _verdict(device.get("verdict", verdict), f"{where}.verdict")
        limits = Bounds(sku)
        for kind, key, unit, values in (
            ("gemm", "dtype", "tflops", ("median_tflops", "tflops")),
            ("memory", "kernel", "gbps", ("median_gbps", "gbps")),
        ):
            for item_number, item in enumerate(_list(device.get(kind), f"{where}.{kind}")):
                at = f"{where}.{kind}[{item_number}]"
                item = _mapping(item, at)
                label = _text(item.get(key), f"{at}.{key}")
                value = _figure(item, values, at)
                if value is None:
                    continue
                bound, basis = limits.bound(unit, label)
                if value > bound:
                    raise BadRecord(
                        f"{at} claims {value:.6g} {unit} for {label} on {sku}: physically "
                        f"impossible (above {basis})"
                    )
                metric = f"{kind}.{label}"
                out.append(Figure(started, node, index, sku, metric, value, unit, state))
    return out


def _shown(value: object) -> str:
    text = repr(value)
    kind = type(value).__name__
    return f"{kind} {text[:40]}..." if len(text) > 40 else f"{kind} {text}"


def _mapping(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise BadRecord(f"{where} is {_shown(value)}, not an object")
    return value


def _list(value: object, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadRecord(f"{where} is {_shown(value)}, not a list")
    return value


def _text(value: object, where: str) -> str:
    if not isinstance(value, str) or not value or len(value) > _MAX_TEXT:
        raise BadRecord(f"{where} is {_shown(value)}, not a name")
    return value


def _verdict(value: object, where: str) -> str:
    if value not in _VERDICTS:
        raise BadRecord(f"{where} is {_shown(value)}, not one of {', '.join(_VERDICTS)}")
    return str(value)


def _started(value: object) -> datetime:
    if not isinstance(value, str):
        raise BadRecord(f"started_at is {_shown(value)}, not an ISO 8601 time")
    try:
        started = datetime.fromisoformat(value)
    except ValueError:
        raise BadRecord(f"started_at is {_shown(value)}, not an ISO 8601 time") from None
    if started.tzinfo is None or started.utcoffset() is None:
        raise BadRecord(f"started_at {value[:40]!r} has no time zone")
    return started


def _figure(item: Mapping[str, Any], keys: tuple[str, ...], where: str) -> float | None:
    """The first of ``keys`` that is set (0 and null: not measured), checked."""
    for key in keys:
        value = item.get(key)
        if value is None or value == 0:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BadRecord(f"{where}.{key} is {_shown(value)}, not a number")
        number = float(value)
        if not math.isfinite(number) or number < 0:
            raise BadRecord(f"{where}.{key} is {number!r}, not a finite positive rate")
        return number
    return None


class Bounds:
    """The highest figure a device of ``sku`` can reach, per unit and dtype."""

    def __init__(self, sku: str) -> None:
        self.sku = sku
        self._entry: Any = None
        self._looked = False
        self._bounds: dict[tuple[str, str], tuple[float, str]] = {}

    def _accelerator(self) -> Any:
        if not self._looked:
            self._looked = True
            from accelerators.catalog import _store

            self._entry = _store.by_exact_name(self.sku.partition("@")[0])
        return self._entry

    def bound(self, unit: str, label: str) -> tuple[float, str]:
        """The highest possible figure in ``unit`` for ``label`` and what it rests on
        (remembered: a history read asks it for every figure of every summary)."""
        key = (unit, label)
        if key not in self._bounds:
            self._bounds[key] = self._bound(unit, label)
        return self._bounds[key]

    def _bound(self, unit: str, label: str) -> tuple[float, str]:
        acc = self._accelerator()
        if unit == "gbps":
            if acc is not None and acc.bandwidth_tbps > 0:
                peak = acc.bandwidth_tbps * 1000.0
                return IMPOSSIBLE * peak, f"{IMPOSSIBLE:g} x the {peak:g} GB/s datasheet"
            return MAX_GBPS, f"{MAX_GBPS:,.0f} GB/s"
        if acc is not None:
            from accelerators.bench.expect._bands import matrix_peak

            peaks = [acc.tflops.get(label) or 0.0]
            matrix = matrix_peak(acc.name, label)
            if matrix is not None:
                peaks.append(float(matrix.tflops))
            peak = max(peaks) or max(acc.tflops.values(), default=0.0)
            if peak > 0:
                return IMPOSSIBLE * peak, f"{IMPOSSIBLE:g} x the {peak:g} TFLOPS datasheet peak"
        return MAX_TFLOPS, f"{MAX_TFLOPS:,.0f} TFLOPS"
