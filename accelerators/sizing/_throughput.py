"""What an accelerator really delivers: the fleet's measured matmul rate, else a sourced default.

>>> from accelerators import catalog
>>> from accelerators.sizing import achievable
>>> rate = achievable(catalog.get("H100-SXM"), "bf16")
>>> round(rate.achievable_tflops, 1), rate.source
(794.6, 'default')

Two sources, in this order:

* **fleet**: the median sustained GEMM rate of every device of that SKU (or MIG profile) in
  the bench history (``accelerators bench`` / ``gate(history=...)``), each device's latest
  run that did not fail. It is what *your* nodes deliver, throttling and drivers included.
* **default**: the datasheet's dense peak times the efficiency band the gate judges against
  (``accelerators/data/bench_bands.toml``): Stas Bekman's measured MAMF ratios for the SKUs
  that have one (H100 SXM 80.3 %, A100 SXM 86.9 %, MI300X 51.4 %...), else the vendor's
  range, else the generic 60 % (unconfirmed). The band's source and confidence are named.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from accelerators.errors import AcceleratorError
from accelerators.sizing._model import SizingError

if TYPE_CHECKING:
    from accelerators.bench.history._store import Figure, HistoryStore
    from accelerators.catalog._schema import Accelerator

__all__ = ["FleetBaseline", "Throughput", "achievable", "fleet_baseline"]

#: Verdicts whose figures count towards the fleet baseline (a failed node is not the fleet).
_COUNTED = frozenset({"pass", "warn"})


@dataclass(frozen=True, slots=True)
class Throughput:
    """The matmul rate one device (or one MIG slice) sustains, and where the figure comes from."""

    accelerator: str
    """Catalog name of the SKU."""
    partition: str | None
    dtype: str
    peak_tflops: float
    """Dense datasheet peak of the device or slice."""
    achievable_tflops: float
    source: Literal["fleet", "default"]
    detail: str
    confidence: str
    """``fleet`` for a measurement; the band's ``source``/``derived``/``unconfirmed`` else."""

    @property
    def fraction(self) -> float:
        """Achievable over datasheet peak."""
        return self.achievable_tflops / self.peak_tflops


#: Reports of a bench history the fleet baseline reads: the newest.
_RECENT = 10_000


@dataclass(frozen=True)
class FleetBaseline:
    """Median sustained TFLOPS per ``(sku, "gemm.<dtype>")`` over a bench history."""

    medians: Mapping[tuple[str, str], tuple[float, int]] = field(default_factory=dict)
    """``(sku, metric) -> (median of each device's latest figure, devices)``."""
    location: str | None = None

    def rate(self, sku: str, dtype: str) -> tuple[float, int] | None:
        found = self.medians.get((sku, f"gemm.{dtype}"))
        return found if found and found[0] > 0 else None


def fleet_baseline(
    history: str | os.PathLike[str] | HistoryStore | Iterable[Figure] | bool | None = None,
) -> FleetBaseline:
    """The fleet baseline of a bench history.

    ``history`` is a store, a path or ``s3://`` URL, figures already read, ``False`` (none),
    or ``None``/``True``: the store ``ACCELERATORS_BENCH_HISTORY`` names (``None``: none if
    unset; ``True``: else the default file). A history that cannot be read raises
    :class:`SizingError` naming it.
    """
    from accelerators.bench.history._open import history_store
    from accelerators.bench.history._store import Figure, HistoryStore, Query

    if history is False:
        return FleetBaseline()
    figures: list[Figure]
    location: str | None
    if isinstance(history, str | os.PathLike | HistoryStore) or history in (None, True):
        try:
            store = history_store(history)
            # The newest reports (an indexed read: the same cost at any history size).
            figures = store.figures(Query(limit=_RECENT)) if store is not None else []
        except AcceleratorError as exc:
            raise SizingError(
                f"Cannot read the bench history for the fleet baseline: {exc}"
            ) from None
        location = store.location if store is not None else None
    else:
        figures = list(history)  # type: ignore[arg-type]
        if not all(isinstance(f, Figure) for f in figures):
            raise SizingError("Expected bench history figures (accelerators.bench Figure rows)")
        location = "figures given"
    latest: dict[tuple[str, int, str, str], Figure] = {}
    for figure in sorted(figures, key=lambda f: f.started_at):
        if figure.metric.startswith("gemm.") and figure.verdict in _COUNTED:
            latest[(figure.node, figure.device_index, figure.sku, figure.metric)] = figure
    by_sku: dict[tuple[str, str], list[float]] = {}
    for figure in latest.values():
        by_sku.setdefault((figure.sku, figure.metric), []).append(figure.value)
    medians = {key: (statistics.median(v), len(v)) for key, v in by_sku.items()}
    return FleetBaseline(medians, location)


def achievable(
    accelerator: Accelerator,
    dtype: str,
    *,
    partition: str | None = None,
    fleet: FleetBaseline | None = None,
) -> Throughput:
    """The rate one ``accelerator`` device (or its ``partition`` MIG slice) sustains at ``dtype``.

    :raises SizingError: the catalog has no dense ``dtype`` peak for it.
    """
    from accelerators.bench.expect._bands import band_for, bands

    peak = accelerator.tflops.get(dtype)
    if not peak:
        raise SizingError(f"{accelerator.name} has no dense {dtype} peak in the catalog")
    share = 1.0
    sku = accelerator.name
    if partition is not None:
        profile = accelerator.mig_profile(partition)
        if profile is None:
            raise SizingError(f"{accelerator.name} has no MIG profile {partition!r}")
        share = profile.sm_fraction
        sku = f"{accelerator.name}@{profile.profile}"
    peak *= share
    measured = fleet.rate(sku, dtype) if fleet is not None else None
    if measured is not None:
        median, devices = measured
        where = f" ({fleet.location})" if fleet is not None and fleet.location else ""
        return Throughput(
            accelerator=accelerator.name,
            partition=partition,
            dtype=dtype,
            peak_tflops=peak,
            achievable_tflops=median,
            source="fleet",
            detail=f"fleet median of {devices} {sku} device{'s' * (devices != 1)} in the bench "
            f"history{where}: {median:.1f} TFLOPS, {median / peak:.0%} of peak",
            confidence="fleet",
        )
    band = band_for(
        f"gemm.{dtype}",
        accelerator=accelerator.name,
        vendor=accelerator.vendor,
        device_class=accelerator.device_class,
    )
    if band is None:  # pragma: no cover - the bands file has a generic gemm.* row
        raise SizingError(f"No efficiency band for {dtype} GEMMs on {accelerator.name}")
    scope = band.accelerator or band.vendor or band.device_class or "any accelerator"
    source = bands().sources.get(band.source)
    cited = source.title.split(" (")[0] if source is not None else band.source
    return Throughput(
        accelerator=accelerator.name,
        partition=partition,
        dtype=dtype,
        peak_tflops=peak,
        achievable_tflops=peak * band.fraction,
        source="default",
        detail=f"{band.fraction:.1%} of the {peak:.4g} TFLOPS {dtype} peak, {scope} band "
        f"({band.confidence}); {cited}",
        confidence=band.confidence,
    )
