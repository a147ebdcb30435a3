"""Catalog commands: ``accelerators list``, ``accelerators show NAME``, ``accelerators parse SPEC``.

``list`` and ``show`` read the catalog; ``parse`` shows what a spec string resolves to.
Each takes ``--json`` for scripts. Bad input exits with code 2 and a one-screen message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, get_args

import typer
from rich.table import Table
from rich.text import Text

from accelerators import catalog
from accelerators.catalog._schema import DTYPES, DeviceClass, Names, Vendor
from accelerators.cli._common import console, guarded, print_json
from accelerators.errors import AcceleratorError, close_matches

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator, Figure, MigProfile, TpuTopology
    from accelerators.spec import AcceleratorSpec

__all__ = ["list_accelerators", "parse_spec", "register", "show_accelerator"]

_TABLE_DTYPES: tuple[str, ...] = ("bf16", "fp16", "fp8", "fp32")
_FIGURE_UNITS: dict[str, str] = {
    "memory_gb": "GB",
    "bandwidth_tbps": "TB/s",
    "tdp_w": "W",
    "tflops.int8": "TOPS",
}
_NOT_FROM_SOURCE = "*"


def register(app: typer.Typer) -> None:
    """Add ``list``, ``show`` and ``parse`` to ``app``.

    :param app: the root application.
    """
    app.command("list")(list_accelerators)
    app.command("show")(show_accelerator)
    app.command("parse")(parse_spec)


# -- list ------------------------------------------------------------------------------------
@guarded
def list_accelerators(
    vendor: Annotated[
        str | None, typer.Option("--vendor", help="nvidia, amd, intel, google or aws.")
    ] = None,
    min_memory: Annotated[
        float | None,
        typer.Option("--min-memory", metavar="GB", min=0, help="At least this much memory."),
    ] = None,
    device_class: Annotated[
        str | None, typer.Option("--class", help="gpu, tpu, neuron or hpu.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
) -> None:
    """List catalog accelerators with their headline figures."""
    entries = catalog.select(
        vendor=_choice("vendor", vendor, get_args(Vendor)),
        device_class=_choice("class", device_class, get_args(DeviceClass)),
        min_memory_gb=min_memory,
    )
    if as_json:
        print_json([_summary(acc) for acc in entries])
        return
    table = Table(
        title=f"{len(entries)} accelerators (catalog {catalog.catalog_version()})",
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


def _choice(option: str, value: str | None, choices: tuple[str, ...]) -> str | None:
    if value is None:
        return None
    folded = value.strip().lower()
    if folded in choices:
        return folded
    hints = close_matches(folded, choices)
    hint = f"; did you mean {hints[0]!r}?" if hints else ""
    raise AcceleratorError(
        f"Unknown --{option} {value!r}: expected one of {', '.join(choices)}{hint}"
    )


def _summary(acc: Accelerator) -> dict[str, Any]:
    row: dict[str, Any] = {
        "name": acc.name,
        "model": acc.model,
        "vendor": acc.vendor,
        "device_class": acc.device_class,
        "constant": acc.constant,
        "memory_gb": acc.memory_gb,
        "bandwidth_tbps": acc.bandwidth_tbps,
        "tdp_w": acc.tdp_w,
    }
    row.update({f"tflops_{dtype}": acc.tflops.get(dtype) for dtype in DTYPES})
    row["mig_profiles"] = [m.profile for m in acc.mig]
    row["tpu_topologies"] = [t.topology for t in acc.tpu_topologies]
    return row


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


# -- show ------------------------------------------------------------------------------------
@guarded
def show_accelerator(
    name: Annotated[str, typer.Argument(help="Any name or spec the grammar accepts.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
) -> None:
    """Show one accelerator: figures with sources, partitions, names on other systems."""
    acc = _resolve_one(name)
    if as_json:
        data = acc.model_dump(mode="json", by_alias=True)
        data["sources"] = {
            key: source.model_dump(mode="json")
            for key, source in catalog.sources().items()
            if key in _source_keys(acc)
        }
        print_json(data)
        return
    console.print(_overview(acc))
    console.print(_figures_table(acc))
    if acc.mig:
        console.print(_mig_table(acc))
    if acc.tpu_topologies:
        console.print(_tpu_table(acc))
    console.print(_names_table(acc))
    console.print(_sources_table(acc))
    for note in acc.notes:
        console.print(Text(f"Note: {note}"), soft_wrap=True)


def _resolve_one(text: str) -> Accelerator:
    """The entry a name or single-accelerator spec names (the spec's SKU when pinned)."""
    from accelerators.spec import AcceleratorSpec

    try:
        spec = AcceleratorSpec.parse(text)
    except AcceleratorError as parse_error:
        try:  # names the grammar does not take as a spec, e.g. with spaces
            return catalog.get(text)
        except AcceleratorError:
            raise parse_error from None
    if spec.fallbacks or spec.accelerator is None:
        matches = ", ".join(acc.name for acc in spec.candidates)
        raise AcceleratorError(
            f"{text!r} does not name one accelerator (it resolves to {spec}, which accepts: "
            f"{matches or 'nothing'}); give a single name, or use `accelerators parse`"
        )
    return spec.accelerator


def _source_keys(acc: Accelerator) -> set[str]:
    figures = [acc.memory, acc.bandwidth, acc.tdp, *acc.tflops_figures.values()]
    keys = {f.source for f in figures if f is not None}
    keys |= {m.source for m in acc.mig} | {t.source for t in acc.tpu_topologies}
    return keys


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


def _sources_table(acc: Accelerator) -> Table:
    table = Table(title="Sources")
    table.add_column("Key", overflow="fold")
    table.add_column("Kind", no_wrap=True)
    table.add_column("Title and address", overflow="fold")
    for key, source in sorted(catalog.sources().items()):
        if key not in _source_keys(acc):
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


# -- parse -----------------------------------------------------------------------------------
@guarded
def parse_spec(
    spec: Annotated[str, typer.Argument(help="An accelerator spec, e.g. 'A100@2g.10gb:2'.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the spec as JSON (model_dump_json).")
    ] = False,
) -> None:
    """Show what a spec resolves to: canonical form, accepted SKUs, count, partition."""
    from accelerators.spec import AcceleratorSpec

    parsed = AcceleratorSpec.parse(spec)
    if as_json:
        typer.echo(parsed.model_dump_json())
        return
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row("Canonical", Text(str(parsed)))
    for index, alternative in enumerate(parsed.alternatives):
        accepted = ", ".join(acc.name for acc in alternative.candidates)
        grid.add_row("")
        grid.add_row("Primary" if index == 0 else f"Fallback {index}", Text(str(alternative)))
        grid.add_row("  accepts", Text(accepted or "nothing in the catalog"))
        grid.add_row("  count", _count_text(alternative))
        grid.add_row("  partition", Text(_partition_text(alternative)))
        grid.add_row("  constant", Text(_constant_text(alternative)))
    console.print(grid)


def _count_text(spec: AcceleratorSpec) -> str:
    count = _number(spec.count)
    if spec.shared:
        return f"{count} shared slot{'' if spec.count == 1 else 's'} (share not stated)"
    return f"{count} (shared)" if spec.is_fractional else count


def _partition_text(spec: AcceleratorSpec) -> str:
    if spec.unpartitioned:
        return "whole device on a non-MIG node"
    profile, topology = spec.mig_profile, spec.tpu_topology
    if profile is not None:
        return (
            f"MIG {profile.profile}: {_number(profile.memory_gb)} GB, "
            f"{profile.sm_fraction:.0%} of SMs, up to {profile.max_instances} per GPU"
        )
    if topology is not None:
        return f"TPU slice {topology.topology}: {topology.chips} chips"
    return "-"


def _constant_text(spec: AcceleratorSpec) -> str:
    from accelerators.constants import constant_for

    try:
        value = constant_for(spec)
    except AcceleratorError:
        return "-"
    return f"accelerators.{value.name}" if value.name else repr(value)
