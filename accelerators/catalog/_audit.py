"""The catalog's own audit: where every figure comes from, and the figures that must agree.

:func:`audit` reads the loaded catalog and returns a :class:`Report`: counts of figures by
confidence and by source kind, the figures whose source has no address or is a third party,
and :class:`Finding` records for every rule a figure breaks:

``url``
    the figure's (or MIG profile's, TPU slice's) source has no URL, or no date it was read;
``explained``
    a derived, unconfirmed or third-party figure without a note saying why;
``derived``
    a derived figure without its ``formula``, or whose formula does not give its value, or
    whose note does not name the numbers the formula reads from the page;
``unconfirmed``
    more than :data:`MAX_UNCONFIRMED_SHARE` of all figures unconfirmed;
``board``
    per-device value times devices per board is not the board's figure;
``mig``
    a MIG profile with more memory than its GPU;
``sparse``
    a dense figure not below the sparse rate its source prints;
``chip``
    SKUs of one chip whose tensor rates are not in the same ratios (per clock, one die does
    the same work per dtype: only clocks and unit counts differ between its SKUs).

``python benchmarks/catalog_audit.py`` and ``accelerators catalog audit`` print it; both exit
1 when there is a finding.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from accelerators.catalog import _formula, _store
from accelerators.catalog._file import CatalogFile
from accelerators.catalog._schema import Accelerator, Figure

__all__ = ["MAX_UNCONFIRMED_SHARE", "FigureRow", "Finding", "Report", "audit", "main", "render"]

#: At most this share of all figures may be unconfirmed (issue 22).
MAX_UNCONFIRMED_SHARE = 0.05

#: Tensor dtypes whose ratios to FP16 (BF16 where FP16 is absent) one chip fixes per clock.
_TENSOR = ("tf32", "bf16", "fp16", "fp8", "mxfp8", "fp4", "int8")
_RATIO_TOLERANCE = 0.03
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


@dataclass(frozen=True)
class FigureRow:
    """One figure with its source, as the audit counts it."""

    entry: str
    key: str
    value: float
    confidence: str
    source: str
    kind: str
    url: str | None
    retrieved: str | None
    note: str | None


@dataclass(frozen=True)
class Finding:
    """One broken rule: which check, which entry and figure, and what is wrong."""

    check: str
    entry: str
    key: str
    message: str


@dataclass(frozen=True)
class Report:
    """What :func:`audit` found."""

    catalog_version: str
    figures: tuple[FigureRow, ...]
    partitions: int
    partitions_without_url: int
    findings: tuple[Finding, ...]

    @property
    def by_confidence(self) -> dict[str, int]:
        counts = Counter(row.confidence for row in self.figures)
        return {c: counts[c] for c in ("source", "derived", "unconfirmed")}

    @property
    def by_kind(self) -> dict[str, int]:
        return dict(Counter(row.kind for row in self.figures).most_common())

    @property
    def without_url(self) -> tuple[FigureRow, ...]:
        return tuple(row for row in self.figures if not row.url)

    @property
    def third_party(self) -> tuple[FigureRow, ...]:
        return tuple(row for row in self.figures if row.kind == "third-party")

    @property
    def unconfirmed_share(self) -> float:
        return self.by_confidence["unconfirmed"] / max(1, len(self.figures))

    @property
    def ok(self) -> bool:
        return not self.findings

    def as_dict(self) -> dict[str, object]:
        return {
            "catalog_version": self.catalog_version,
            "figures": len(self.figures),
            "by_confidence": self.by_confidence,
            "by_kind": self.by_kind,
            "unconfirmed_share": round(self.unconfirmed_share, 4),
            "without_url": [asdict(r) for r in self.without_url],
            "third_party": [asdict(r) for r in self.third_party],
            "partitions": self.partitions,
            "partitions_without_url": self.partitions_without_url,
            "findings": [asdict(f) for f in self.findings],
        }


def audit(loaded: CatalogFile | None = None) -> Report:
    """Audit ``loaded`` (default: the shipped catalog)."""
    loaded = loaded or _store.LOADED.file()
    sources = loaded.sources
    rows: list[FigureRow] = []
    findings: list[Finding] = []
    partitions = partitions_without_url = 0
    for acc in loaded.accelerators:
        for key, fig in acc.figures():
            src = sources[fig.source]
            rows.append(
                FigureRow(
                    acc.name,
                    key,
                    fig.value,
                    fig.confidence,
                    fig.source,
                    src.kind,
                    src.url,
                    src.retrieved,
                    fig.note,
                )
            )
            findings += _figure_findings(acc, key, fig, src.kind, src.note)
            # an unconfirmed figure cites the page it should be read on, which nobody read
            unread_ok = fig.confidence == "unconfirmed"
            if not src.url or not (src.retrieved or unread_ok):
                what = "no URL" if not src.url else "no date it was read"
                findings.append(Finding("url", acc.name, key, f"source {fig.source!r} has {what}"))
        for part, ref in [(m.profile, m.source) for m in acc.mig] + [
            (t.topology, t.source) for t in acc.tpu_topologies
        ]:
            partitions += 1
            if not sources[ref].url:
                partitions_without_url += 1
                findings.append(Finding("url", acc.name, part, f"source {ref!r} has no URL"))
        findings += _board_and_mig(acc)
    findings += _chip_ratios(loaded.accelerators)
    report = Report(loaded.catalog_version, tuple(rows), partitions, partitions_without_url, ())
    if report.unconfirmed_share > MAX_UNCONFIRMED_SHARE:
        share = f"{report.unconfirmed_share:.1%}"
        findings.append(
            Finding(
                "unconfirmed",
                "*",
                "*",
                f"{share} of figures unconfirmed (at most {MAX_UNCONFIRMED_SHARE:.0%})",
            )
        )
    return Report(
        loaded.catalog_version, tuple(rows), partitions, partitions_without_url, tuple(findings)
    )


def _figure_findings(
    acc: Accelerator, key: str, fig: Figure, kind: str, source_note: str | None
) -> list[Finding]:
    out: list[Finding] = []

    def add(check: str, message: str) -> None:
        out.append(Finding(check, acc.name, key, message))

    if fig.confidence != "source" and not fig.note:
        add("explained", f"a {fig.confidence} figure without a note saying why")
    if kind == "third-party" and not (fig.note or source_note):
        add("explained", "a third-party figure without a note saying why no vendor page is cited")
    if fig.confidence == "derived":
        if fig.formula is None:
            add("derived", "a derived figure without its formula")
        else:
            problem = acc.formula_problem(fig)
            if problem:
                add("derived", problem)
            missing = [n for n in _formula.inputs(fig.formula) if not _named(n, fig.note or "")]
            if missing:
                add("derived", f"the note does not name the input(s) {missing} of {fig.formula!r}")
    if fig.sparse is not None and fig.value >= fig.sparse:
        add("sparse", f"dense {fig.value:g} is not below the sparse {fig.sparse:g}")
    if fig.per_device is not None and not _formula.agrees(
        fig.value, fig.per_device * acc.devices_per_board
    ):
        add(
            "board",
            f"per device {fig.per_device:g} x {acc.devices_per_board} devices is not "
            f"the board's {fig.value:g}",
        )
    return out


def _named(number: float, note: str) -> bool:
    """Whether ``note`` writes ``number`` (commas aside; or in units 1000 times larger/smaller)."""
    written = {float(m) for m in _NUMBER.findall(note.replace(",", ""))}
    slack = 1e-9 * max(1.0, number)
    return any(abs(w * k - number) <= slack for w in written for k in (1, 1000, 0.001))


def _board_and_mig(acc: Accelerator) -> list[Finding]:
    out = []
    device_gb = acc.device_memory_gb
    for m in acc.mig:
        if m.memory_gb > device_gb:
            message = f"{m.memory_gb:g} GB is more than the GPU's {device_gb:g} GB"
            out.append(Finding("mig", acc.name, m.profile, message))
    return out


def _chip_ratios(entries: Sequence[Accelerator]) -> list[Finding]:
    """SKUs of one chip: each tensor dtype's rate over FP16's (BF16's) must agree."""
    by_chip: dict[str, list[Accelerator]] = {}
    for acc in entries:
        if acc.chip:
            by_chip.setdefault(acc.chip, []).append(acc)
    out = []
    for chip, skus in by_chip.items():
        first: dict[str, tuple[str, float]] = {}
        for acc in skus:
            t = acc.tflops
            base = t.get("fp16") or t.get("bf16")
            if not base:
                continue
            for dtype in _TENSOR:
                if dtype not in t:
                    continue
                ratio = t[dtype] / base
                seen = first.setdefault(dtype, (acc.name, ratio))
                if abs(ratio / seen[1] - 1) > _RATIO_TOLERANCE:
                    out.append(
                        Finding(
                            "chip",
                            acc.name,
                            f"tflops.{dtype}",
                            f"{dtype}/fp16 is {ratio:.3g} here but {seen[1]:.3g} on {seen[0]}, "
                            f"the same chip {chip}",
                        )
                    )
    return out


# -- output ------------------------------------------------------------------------------------
def render(report: Report, *, list_rows: str | None = None) -> str:
    """The report as text; ``list_rows`` (``third-party``, ``unconfirmed``, ``derived``,
    ``no-url``) also lists those figures one per line."""
    total = len(report.figures)
    out = [
        f"catalog {report.catalog_version}: {total} figures, "
        f"{report.partitions} MIG profiles and TPU slices"
    ]
    out.append("")
    out.append("by confidence:")
    for name, n in report.by_confidence.items():
        out.append(f"  {name:<12} {n:>5}  {n / max(1, total):6.1%}")
    out.append("by source kind (all / read there / unconfirmed, citing the page to read):")
    unread = Counter(row.kind for row in report.figures if row.confidence == "unconfirmed")
    for name, n in report.by_kind.items():
        share = f"{n / max(1, total):6.1%}"
        out.append(f"  {name:<20} {n:>5}  {share}  {n - unread[name]:>5} / {unread[name]:>4}")
    out.append(f"figures without a URL: {len(report.without_url)}")
    out.append(f"MIG profiles and TPU slices without a URL: {report.partitions_without_url}")
    third = Counter(row.source for row in report.third_party)
    out.append(
        f"figures from third-party sources: {len(report.third_party)} ({len(third)} sources)"
    )
    for source, n in third.most_common():
        out.append(f"  {n:>4}  {source}")
    checks = Counter(f.check for f in report.findings)
    out.append("")
    out.append(
        "consistency checks (board = device x devices, MIG memory <= GPU memory, dense < "
        "sparse, one chip's tensor ratios, derived = formula):"
    )
    for check in ("url", "explained", "derived", "unconfirmed", "board", "mig", "sparse", "chip"):
        out.append(f"  {check:<12} {checks.get(check, 0):>4} finding(s)")
    for f in report.findings:
        out.append(f"  [{f.check}] {f.entry} {f.key}: {f.message}")
    if list_rows:
        wanted: Callable[[FigureRow], bool] = {
            "third-party": lambda r: r.kind == "third-party",
            "unconfirmed": lambda r: r.confidence == "unconfirmed",
            "derived": lambda r: r.confidence == "derived",
            "no-url": lambda r: not r.url,
        }[list_rows]
        out.append("")
        out.append(f"{list_rows} figures:")
        for r in report.figures:
            if wanted(r):
                out.append(
                    f"  {r.entry} {r.key} = {r.value:g} [{r.confidence}] {r.source}: {r.note or ''}"
                )
    out.append("")
    out.append("OK" if report.ok else f"{len(report.findings)} finding(s)")
    return "\n".join(out)


LIST_CHOICES: tuple[str, ...] = ("third-party", "unconfirmed", "derived", "no-url")


def main(argv: Sequence[str] | None = None) -> int:
    """``python benchmarks/catalog_audit.py [--json] [--list KIND]``: print, exit 1 on findings."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser.add_argument("--list", choices=LIST_CHOICES, help="also list these figures")
    args = parser.parse_args(argv)
    report = audit()
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        print(render(report, list_rows=args.list))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
