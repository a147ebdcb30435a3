"""Catalog commands: ``accelerators list``, ``accelerators show NAME``, ``accelerators parse SPEC``.

``list`` and ``show`` read the catalog (their rich tables are in
:mod:`accelerators.cli._catalog_tables`, imported when they print); ``parse`` shows what a
spec string resolves to, in plain text. Each takes ``--json`` for scripts. Bad input exits
with code 2 and a one-screen message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, get_args

import typer

from accelerators import catalog
from accelerators.catalog._schema import DTYPES, DeviceClass, Vendor
from accelerators.cli._common import guarded, print_json
from accelerators.errors import AcceleratorError, close_matches

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = [
    "SORT_KEYS",
    "list_accelerators",
    "parse_spec",
    "register",
    "show_accelerator",
    "sort_entries",
]


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
    sort: Annotated[
        str | None,
        typer.Option(
            "--sort",
            metavar="KEY",
            help="Order by name, vendor, memory, bandwidth, tdp or a dtype's dense TFLOPS "
            "(bf16, fp8, fp32...): names A-Z, figures largest first, missing figures last.",
        ),
    ] = None,
    reverse: Annotated[bool, typer.Option("--reverse", help="Reverse the --sort order.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
) -> None:
    """List catalog accelerators with their headline figures."""
    entries = catalog.select(
        vendor=_choice("vendor", vendor, get_args(Vendor)),
        device_class=_choice("class", device_class, get_args(DeviceClass)),
        min_memory_gb=min_memory,
    )
    key = _choice("sort", sort, SORT_KEYS)
    if key is not None:
        entries = sort_entries(entries, key, reverse=reverse)
    elif reverse:
        raise AcceleratorError("--reverse needs --sort KEY (the key to reverse the order of)")
    if as_json:
        print_json([_summary(acc) for acc in entries])
        return
    from accelerators.cli._catalog_tables import print_list

    print_list(entries, order=f"by {key}{', reversed' if reverse else ''}" if key else "")


#: What ``list --sort`` orders by: text keys A-Z, figures largest first.
SORT_KEYS: tuple[str, ...] = ("name", "vendor", "memory", "bandwidth", "tdp", *DTYPES)


def sort_entries(
    entries: tuple[Accelerator, ...], key: str, *, reverse: bool = False
) -> tuple[Accelerator, ...]:
    """``entries`` ordered by ``key`` (one of :data:`SORT_KEYS`); ties keep catalog order, and
    entries without the figure come last either way."""
    if key in ("name", "vendor"):
        return tuple(sorted(entries, key=lambda acc: getattr(acc, key).casefold(), reverse=reverse))

    def value(acc: Accelerator) -> float | None:
        if key == "memory":
            return acc.memory_gb
        if key == "bandwidth":
            return acc.bandwidth_tbps
        return acc.tdp_w if key == "tdp" else acc.tflops.get(key)

    figures = {acc.name: value(acc) for acc in entries}
    known = [acc for acc in entries if figures[acc.name] is not None]
    missing = [acc for acc in entries if figures[acc.name] is None]
    return (*sorted(known, key=lambda acc: figures[acc.name] or 0.0, reverse=not reverse), *missing)


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
    from accelerators.cli._catalog_tables import print_show

    print_show(acc, _source_keys(acc))


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
        # every alternative's SKUs: a bare H100 is the family, SXM, PCIe or NVL
        names = (acc.name for alt in spec.alternatives for acc in alt.candidates)
        matches = ", ".join(dict.fromkeys(names))
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


# -- parse -----------------------------------------------------------------------------------
@guarded
def parse_spec(
    spec: Annotated[str, typer.Argument(help="An accelerator spec, e.g. 'A100@2g.10gb:2'.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the spec as JSON (model_dump_json).")
    ] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Show how each name is read, token by token (what each part was taken to "
            "say, or which part could not be placed), then the spec.",
        ),
    ] = False,
    denotes: Annotated[
        str,
        typer.Option(
            "--denotes",
            help="What the spec's names stand for: 'device' (one each, the default), 'board' "
            "(a product as sold: a K80 board is 2 devices), 'node' (a machine, partition or "
            "instance type: a name that states no count is refused) or 'mixed' (a list of "
            "those kinds: a product of several devices that states no count is refused).",
        ),
    ] = "device",
) -> None:
    """Show what a spec resolves to: canonical form, accepted SKUs, count, partition."""
    from accelerators.cli._parse import lines
    from accelerators.spec import AcceleratorSpec

    if explain:
        explanation = AcceleratorSpec.explain(spec, denotes=denotes)
        if as_json:
            import dataclasses
            import json

            typer.echo(json.dumps(dataclasses.asdict(explanation), indent=2))
        else:
            for line in explanation.lines():
                typer.echo(line)
        if explanation.spec is None:
            raise typer.Exit(code=2)
        return
    parsed = AcceleratorSpec.parse(spec, denotes=denotes)
    if as_json:
        typer.echo(parsed.model_dump_json())
        return
    # Plain aligned text (bold keys on a terminal): parse answers without loading rich. The
    # fast path (accelerators.cli._parse.run_fast) prints the same lines without typer.
    for line in lines(parsed, lambda key: typer.style(key, bold=True)):
        typer.echo(line)
