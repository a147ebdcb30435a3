"""The compact summary a store keeps beside each full report: what a gate's baseline reads.

A full report is ~130 KB per device (every shape tried, every timing); a gate's baseline
needs a few numbers of it. :func:`summarize` turns one checked report into one
:class:`Summary` per accelerator it ran on (almost always one): its node, time, verdict and,
per device, each dtype's sustained TFLOPS and each kernel's sustained GB/s (and a CPU's
thread choices, which seed the next run's thread search). Its JSON form (:func:`encode`) is
a few hundred bytes per device; the stores index it by ``(accelerator, started_at)`` and
``(node, started_at)``, so a gate reads the newest few hundred summaries of its SKU and of
its node whatever the history's size.

A summary read back is checked as a full record is (:func:`decode_summary`): every figure finite,
positive and physically possible for its SKU (:mod:`._check`), names short text; one that is
not is a :class:`~._check.BadRecord`, counted and never used.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from accelerators.bench.history._check import BadRecord, Bounds, Figure, figures_of

__all__ = [
    "Summarized",
    "Summary",
    "day_start",
    "decode_summary",
    "encode",
    "from_us",
    "summarize",
    "to_us",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)
_MAX_TEXT = 256
_KINDS = {"gemm": ("tflops", "gemm"), "memory": ("gbps", "memory")}
_VERDICTS = ("pass", "warn", "fail")


def to_us(when: datetime) -> int:
    """Microseconds since the epoch (UTC): how the stores order and page summaries."""
    return (when - _EPOCH) // _MICRO


def from_us(micros: int) -> datetime:
    """The UTC time of :func:`to_us`."""
    return _EPOCH + timedelta(microseconds=micros)


def day_start(day: str) -> int:
    """:func:`to_us` of the start (UTC) of ``YYYY-MM-DD``."""
    return to_us(datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=UTC))


@dataclass(frozen=True)
class Summary:
    """One report's figures on one accelerator, as a store holds them.

    :ivar where: the record in messages (``row 17``, an ``s3://`` key).
    :ivar started_us: when the run started (:func:`to_us`); with ``order`` it sorts them.
    :ivar devices: per device ``{"index", "verdict", "gemm": {dtype: tflops}, "memory":
        {kernel: gbps}}``; a CPU's also ``kind``, ``name`` and ``threads`` (its thread
        choices, as the report records them).
    :ivar order: ties between equal times (a row id, a key), for stable paging.
    """

    where: str
    started_us: int
    node: str
    accelerator: str
    verdict: str
    devices: tuple[Mapping[str, Any], ...]
    order: str = ""

    @property
    def started_at(self) -> datetime:
        return from_us(self.started_us)

    def figures(self) -> list[Figure]:
        """The summary's figures as :class:`Figure` rows (what trends and baselines use)."""
        started = self.started_at
        out: list[Figure] = []
        for device in self.devices:
            index = int(device["index"])
            verdict = str(device.get("verdict") or self.verdict)
            for kind, (unit, _) in _KINDS.items():
                for label, value in device.get(kind, {}).items():
                    out.append(
                        Figure(
                            started,
                            self.node,
                            index,
                            self.accelerator,
                            f"{kind}.{label}",
                            float(value),
                            unit,
                            verdict,
                        )
                    )
        return out

    def as_report(self) -> dict[str, Any]:
        """The fields of a report that thread priors read (``node``, ``devices``)."""
        return {"node": self.node, "devices": [dict(d) for d in self.devices]}


@dataclass(frozen=True)
class Summarized:
    """What :func:`summarize` makes of one report: its keys and one summary per accelerator."""

    node: str
    started_us: int
    verdict: str
    rows: tuple[tuple[str, str], ...]
    """``(accelerator, summary JSON)``, one per accelerator the report ran on."""


def summarize(data: Mapping[str, Any]) -> Summarized:
    """The summaries of one report, checked.

    :raises BadRecord: the report is malformed or a figure is physically impossible.
    """
    figures = figures_of(data)  # checks the record as a whole first
    node = str(data.get("node") or data.get("host") or "unknown")
    started = to_us(datetime.fromisoformat(str(data["started_at"])))
    verdict = str(data.get("verdict"))
    devices: dict[str, dict[int, dict[str, Any]]] = {}
    for f in figures:
        kind, _, label = f.metric.partition(".")
        entry = devices.setdefault(f.sku, {}).setdefault(
            f.device_index, {"index": f.device_index, "verdict": f.verdict}
        )
        entry.setdefault(kind, {})[label] = f.value
    # A CPU's thread choices seed its next run's thread search (the report's own records).
    for raw in data.get("devices") or ():
        if not isinstance(raw, Mapping) or raw.get("kind") != "cpu" or not raw.get("threads"):
            continue
        for entries in devices.values():
            found = entries.get(raw.get("index", 0))
            if found is not None:
                found.update(kind="cpu", name=raw.get("name"), threads=_threads(raw["threads"]))
    if not devices:  # no figure at all (no accelerator found): still a run of this node
        rows: tuple[tuple[str, str], ...] = ((_accelerator_of(data), encode([])),)
    else:
        rows = tuple((sku, encode(list(by.values()))) for sku, by in sorted(devices.items()))
    return Summarized(node, started, verdict, rows)


def encode(devices: list[dict[str, Any]]) -> str:
    """A summary's devices as compact JSON (plain ASCII: every store takes it as it is)."""
    return json.dumps({"devices": devices}, separators=(",", ":"), allow_nan=False)


def decode_summary(
    where: str,
    started_us: object,
    node: object,
    accelerator: object,
    verdict: object,
    text: object,
    limits: dict[str, Bounds],
    order: str = "",
) -> Summary:
    """A stored summary's columns as a checked :class:`Summary`.

    :param text: the summary's JSON (text or UTF-8 bytes), or the object it decodes to.
    :param limits: physical bounds per SKU, filled as SKUs are met (one catalog look-up
        per SKU per read, not per row).
    :raises BadRecord: a column is not what the store writes, or a figure is impossible.
    """
    if type(started_us) is not int:
        raise BadRecord(f"started_at is {_shown(started_us)}, not a time")
    node_text = _text(node, "node")
    sku = _text(accelerator, "accelerator", empty=True)
    if isinstance(verdict, bytes):
        verdict = verdict.decode("ascii", "replace")
    if verdict not in _VERDICTS:
        raise BadRecord(f"verdict is {_shown(verdict)}, not one of {', '.join(_VERDICTS)}")
    data = text if isinstance(text, dict) else _parsed(text)
    raw = data.get("devices") if isinstance(data, dict) else None
    if not isinstance(raw, list):
        raise BadRecord("its summary has no list of devices")
    bound = limits.get(sku)
    if bound is None:
        bound = limits[sku] = Bounds(sku)
    devices = tuple(_device(d, n, bound, str(verdict)) for n, d in enumerate(raw))
    return Summary(where, started_us, node_text, sku, str(verdict), devices, order)


def _parsed(text: object) -> object:
    if isinstance(text, bytes | bytearray | memoryview):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise BadRecord("its summary is not UTF-8 text") from None
    if not isinstance(text, str) or len(text) > 1 << 20:
        raise BadRecord(f"its summary is {_shown(text)}, not JSON text")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise BadRecord("its summary is not JSON") from None


def _device(raw: object, number: int, bound: Bounds, verdict: str) -> Mapping[str, Any]:
    where = f"summary device {number}"
    if not isinstance(raw, dict):
        raise BadRecord(f"{where} is {_shown(raw)}, not an object")
    index = raw.get("index")
    if type(index) is not int or not 0 <= index < 4096:
        raise BadRecord(f"{where}.index is {_shown(index)}, not a device index")
    state = raw.get("verdict", verdict)
    if state not in _VERDICTS:
        raise BadRecord(f"{where}.verdict is {_shown(state)}, not a verdict")
    for kind, (unit, _) in _KINDS.items():
        values = raw.get(kind, {})
        if not isinstance(values, dict):
            raise BadRecord(f"{where}.{kind} is {_shown(values)}, not an object")
        for label, value in values.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise BadRecord(f"{where}.{kind}.{label[:40]} is {_shown(value)}, not a number")
            if not math.isfinite(value) or value <= 0 or len(label) > _MAX_TEXT:
                raise BadRecord(f"{where}.{kind}.{label[:40]} is {value!r}, not a rate")
            limit, basis = bound.bound(unit, label)
            if value > limit:
                raise BadRecord(
                    f"{where} claims {value:.6g} {unit} for {label[:40]} on "
                    f"{bound.sku[:60]}: physically impossible (above {basis})"
                )
    return raw


def _threads(records: object) -> list[dict[str, Any]]:
    """A CPU's thread choices, as much of them as the next run's prior reads."""
    out = []
    for record in records if isinstance(records, list) else ():
        if isinstance(record, Mapping):
            out.append(
                {
                    "workload": record.get("workload"),
                    "threads": record.get("threads"),
                    "rates": record.get("rates") or record.get("median_s") or {},
                }
            )
    return out


def _accelerator_of(data: Mapping[str, Any]) -> str:
    device = data.get("device")
    name = device.get("accelerator") or device.get("name") if isinstance(device, Mapping) else None
    return name[:_MAX_TEXT] if isinstance(name, str) else ""


def _text(value: object, what: str, *, empty: bool = False) -> str:
    if isinstance(value, bytes | bytearray | memoryview):
        try:
            value = bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise BadRecord(f"its {what} is not UTF-8 text") from None
    if not isinstance(value, str) or (not value and not empty) or len(value) > _MAX_TEXT:
        raise BadRecord(f"its {what} is {_shown(value)}, not a name")
    return value


def _shown(value: object) -> str:
    text = ascii(value)
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"
