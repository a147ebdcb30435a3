"""The rich tables of ``accelerators list`` and ``accelerators show`` (imported when they print:
``accelerators parse`` and ``--help`` do not load rich's tables)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from accelerators import catalog
from accelerators.catalog._schema import Names
from accelerators.cli._common import console

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator, Figure, MigProfile, TpuTopology

__all__ = ["print_list", "print_show"]

_TABLE_DTYPES: tuple[str, ...] = ("bf16", "fp16", "fp8", "fp32")
_FIGURE_UNITS: dict[str, str] = {
    "memory_gb": "GB",
    "bandwidth_tbps": "TB/s",
    "tdp_w": "W",
    "tflops.int8": "TOPS",
}
_NOT_FROM_SOURCE = "*"


def print_list(entries: tuple[Accelerator, ...] | list[Accelerator], order: str = "") -> None:
    """The ``list`` table: one row per entry, dense figures, partitions; ``order`` (``"by
    memory"``) goes in the title."""
    title = f"{len(entries)} accelerators (catalog {catalog.catalog_version()})"
    table = Table(
        title=f"{title}, {order}" if order else title,
        caption=(
            f"Dense TFLOPS. {_NOT_FROM_SOURCE} derived or unconfirmed: see `accelerators show`."
        ),
        box=None,
        pad_edge=False,
        header_style="bold underline",
    )
    table.add_column("Name", style="bold", no_wrap=True)
    table.add_column("Vendor", no_wrap=True)
    for header in ("Mem GB", "TB/s", *(d.upper() for d in _TABLE_DTYPES)):
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("Parts", no_wrap=True)
    for acc in entries:
        table.add_row(
            acc.name,
            acc.vendor,
            _figure_text(acc.memory),
            _figure_text(acc.bandwidth),
            *(_figure_text(acc.tflops_figures.get(dtype)) for dtype in _TABLE_DTYPES),
            _partitions_text(acc),
        )
    console.print(table)


def print_show(acc: Accelerator, source_keys: set[str]) -> None:
    """The ``show`` tables: overview, figures, partitions, names, sources, notes."""
    console.print(_overview(acc))
    console.print(_figures_table(acc))
    if acc.mig:
        console.print(_mig_table(acc))
    if acc.tpu_topologies:
        console.print(_tpu_table(acc))
    console.print(_names_table(acc))
    console.print(_sources_table(acc, source_keys))
    for note in acc.notes:
        console.print(Text(f"Note: {note}"), soft_wrap=True)


def _number(value: float) -> str:
    return f"{value:g}"


def _figure_text(figure: Figure | None) -> str:
    if figure is None:
        return "-"
    mark = "" if figure.confidence == "source" else _NOT_FROM_SOURCE
    return f"{figure.value:.4g}{mark}"


def _partitions_text(acc: Accelerator) -> str:
    if acc.mig:
        return f"{len(acc.mig)} MIG"
    if acc.tpu_topologies:
        return f"{len(acc.tpu_topologies)} TPU"
    return "-"


def _overview(acc: Accelerator) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.title = acc.name
    grid.add_column(style="bold")
    grid.add_column()
    skus = catalog.by_model(acc.model)
    role = "default SKU" if acc.default_for_model else f"non-default SKU (default: {skus[0].name})"
    others = ", ".join(s.name for s in skus if s != acc)
    rows = [
        ("Model", f"{acc.model}, {role}" + (f"; other SKUs: {others}" if others else "")),
        ("Vendor", f"{acc.vendor} {acc.family} ({acc.device_class})"),
        ("Architecture", acc.architecture),
        ("Compute capability", acc.compute_capability or "-"),
        ("Form factor", acc.form_factor),
        ("Memory", f"{_number(acc.memory_gb)} GB {acc.memory_type}"),
        ("Interconnect", acc.interconnect),
        ("Constant", f"accelerators.{acc.constant}" if acc.constant else "- (none)"),
        ("Aliases", ", ".join(acc.aliases) or "-"),
    ]
    for key, value in rows:
        grid.add_row(key, Text(value))
    return grid


def _figures_table(acc: Accelerator) -> Table:
    table = Table(title="Figures (dense)")
    table.add_column("Figure", no_wrap=True)
    table.add_column("Value", justify="right", no_wrap=True)
    table.add_column("Confidence")
    table.add_column("Source", overflow="fold")
    table.add_column("Note")
    keys = ["memory_gb", "bandwidth_tbps", "tdp_w", *(f"tflops.{d}" for d in acc.tflops)]
    for key in keys:
        figure = acc.figure(key)
        if figure is None:
            continue
        unit = _FIGURE_UNITS.get(key, "TFLOPS")
        table.add_row(
            key,
            f"{_number(figure.value)} {unit}",
            figure.confidence,
            figure.source,
            Text(figure.note or ""),
        )
    return table


def _sources_table(acc: Accelerator, source_keys: set[str]) -> Table:
    table = Table(title="Sources")
    table.add_column("Key", overflow="fold")
    table.add_column("Kind", no_wrap=True)
    table.add_column("Title and address", overflow="fold")
    for key, source in sorted(catalog.sources().items()):
        if key not in source_keys:
            continue
        cited = Text(source.title)
        if source.url:
            cited.append(f"\n{source.url}", style="dim")
        if source.note:
            cited.append(f"\n{source.note}", style="italic")
        table.add_row(key, source.kind, cited)
    return table


def _mig_table(acc: Accelerator) -> Table:
    table = Table(title="MIG profiles", caption=_partition_caption(acc.mig))
    table.add_column("Profile", no_wrap=True)
    table.add_column("Constant attribute", no_wrap=True)
    table.add_column("Max instances", justify="right")
    table.add_column("Memory GB", justify="right")
    table.add_column("SM share", justify="right")
    table.add_column("Slices", justify="right")
    for m in acc.mig:
        table.add_row(
            m.profile + ("" if m.confidence == "source" else _NOT_FROM_SOURCE),
            m.attribute,
            str(m.max_instances),
            _number(m.memory_gb),
            f"{m.sm_fraction:.0%}",
            f"{m.compute_slices}/{m.memory_slices}",
        )
    return table


def _tpu_table(acc: Accelerator) -> Table:
    table = Table(title="TPU slice topologies", caption=_partition_caption(acc.tpu_topologies))
    table.add_column("Topology", no_wrap=True)
    table.add_column("Constant attribute", no_wrap=True)
    table.add_column("Chips", justify="right")
    for t in acc.tpu_topologies:
        mark = "" if t.confidence == "source" else _NOT_FROM_SOURCE
        table.add_row(t.topology + mark, t.attribute, str(t.chips))
    return table


def _partition_caption(rows: tuple[MigProfile, ...] | tuple[TpuTopology, ...]) -> str:
    keys = ", ".join(dict.fromkeys(row.source for row in rows))
    caption = f"Source: {keys}."
    if any(row.confidence != "source" for row in rows):
        caption += f" {_NOT_FROM_SOURCE} derived or unconfirmed."
    if rows and hasattr(rows[0], "compute_slices"):
        caption += " Slices: compute/memory."
    return caption


def _names_table(acc: Accelerator) -> Table:
    table = Table(title="Names on other systems")
    table.add_column("System", no_wrap=True)
    table.add_column("Name(s)")
    for system in Names.model_fields:
        value = getattr(acc.names, system)
        shown = ", ".join(value) if isinstance(value, tuple) else value
        if shown:
            table.add_row(Text(system), Text(shown))
    return table
