"""The roofline chart of a report: achieved FLOP/s against arithmetic intensity, log-log.

Ceilings come from the catalog (each dtype's datasheet peak, the datasheet bandwidth) and
from the run (the best stream bandwidth, dashed); every measured GEMM and stream kernel is a
labelled point (:mod:`accelerators.bench.render._roofline`). matplotlib is imported inside the
functions with the Agg backend (no display needed); files are written atomically.

Every label is drawn as the text it is (:data:`PLAIN_TEXT`): a device named ``$\\frac$`` by
its driver is printed, not typeset. Tick labels are therefore written as plain numbers
(``0.01``, ``100``, ``1,000,000``) by :func:`plain_log_axis`, never with matplotlib's default
log formatter, whose labels are mathtext (``$\\mathdefault{10^{2}}$``) and would print
verbatim.
"""

from __future__ import annotations

import io
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

from accelerators.bench.render._roofline import Ceiling, Roofline, RoofPoint, roofline
from accelerators.bench.report._models import BenchReport, atomic_write

__all__ = ["PLAIN_TEXT", "plain_log_axis", "plain_number", "plot_report", "roofline_png"]

#: matplotlib settings under which every label is drawn as the text it is.
PLAIN_TEXT: dict[Any, Any] = {"text.parse_math": False, "text.usetex": False}

_VERDICT_COLOURS = {"pass": "#2e7d32", "warn": "#ef6c00", "fail": "#c62828"}
_GEMM_COLOUR = "#1565c0"
_STREAM_COLOUR = "#6a1b9a"
_ROOF_COLOUR = "#37474f"


def plot_report(report: BenchReport, path: str | os.PathLike[str]) -> Path:
    """Draw the roofline of ``report`` to a PNG at ``path``; returns the path.

    :param report: a benchmark report.
    :param path: where to write the PNG; its directory must exist.
    :raises ImportError: matplotlib is not installed (the ``[bench]`` extra).
    """
    return atomic_write(path, roofline_png(report))


def roofline_png(report: BenchReport, *, dpi: int = 110) -> bytes:
    """The roofline of ``report`` as PNG bytes.

    :raises ImportError: matplotlib is not installed (the ``[bench]`` extra).
    """
    figure = roofline_figure(report)
    import matplotlib

    # Tick labels are made while the figure is drawn: the plain-text settings hold then too.
    with matplotlib.rc_context(PLAIN_TEXT):
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def roofline_figure(report: BenchReport) -> Any:
    """The roofline of ``report`` as a drawn matplotlib ``Figure`` (its tick labels made).

    :raises ImportError: matplotlib is not installed (the ``[bench]`` extra).
    """
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - matplotlib is installed where tests run
        raise ImportError('Plotting needs matplotlib: pip install "accelerators[bench]"') from exc

    # Device names come from the driver, node names from the history: text, never math
    # ("$\\undefinedmacro$" would raise while drawing).
    with matplotlib.rc_context(PLAIN_TEXT):
        figure = Figure(figsize=(9, 5.6), layout="constrained")
        axes = figure.subplots()
        _draw(axes, roofline(report))
        device = report.device
        what = device.accelerator or device.name
        if device.is_mig:
            what += f" MIG {device.mig_profile}"
        figure.suptitle(
            f"{device.count} x {what} - profile {report.profile} - verdict "
            f"{report.verdict.value.upper()} ({report.elapsed_s:.1f} s)",
            color=_VERDICT_COLOURS.get(report.verdict.value, "black"),
            fontweight="bold",
        )
        figure.draw_without_rendering()
    return figure


def plain_number(value: float) -> str:
    """A tick value as the number it is: ``0.01``, ``20``, ``1,000,000`` (6 significant digits,
    no exponent, no mathtext)."""
    return f"{Decimal(f'{value:.6g}').normalize():,f}"


def plain_log_axis(axis: Any) -> None:
    """Label a log-scaled matplotlib ``axis`` with :func:`plain_number`, major and minor ticks.

    Which ticks carry a label is matplotlib's own choice (its ``LogFormatter``: decades only on
    a wide axis, some or all minor ticks on a narrow one); only the text changes.
    """
    from matplotlib.ticker import LogFormatter

    class PlainLogFormatter(LogFormatter):
        def __call__(self, x: float, pos: int | None = None) -> str:
            return plain_number(x) if x > 0 and super().__call__(x, pos) else ""

    axis.set_major_formatter(PlainLogFormatter(base=10))
    axis.set_minor_formatter(PlainLogFormatter(base=10))


def _draw(axes: Any, roof: Roofline) -> None:
    axes.set_xscale("log")
    axes.set_yscale("log")
    plain_log_axis(axes.xaxis)
    plain_log_axis(axes.yaxis)
    axes.set_xlabel("arithmetic intensity (FLOP/byte)")
    axes.set_ylabel("achieved GFLOP/s")
    axes.grid(True, which="major", alpha=0.3)
    if not roof.points and not roof.ceilings:
        axes.text(0.5, 0.5, "nothing measured", ha="center", va="center", transform=axes.transAxes)
        return
    xs = [p.intensity for p in roof.points]
    ys = [p.gflops for p in roof.points]
    compute = roof.compute()
    memory = roof.memory()
    bandwidth = max((c.value for c in memory), default=0.0)
    ridges = [c.value / bandwidth for c in compute if bandwidth]
    x_lo = min([*xs, *ridges, 1.0]) / 10
    x_hi = max([*xs, *ridges, 1.0]) * 25
    top = max([*ys, *(c.value for c in compute)], default=1.0)
    y_lo = min([*ys, *(c.value * x_lo for c in memory)] or [top / 1e4]) / 3
    axes.set_xlim(x_lo, x_hi)
    axes.set_ylim(y_lo, top * 3)
    roof_top = max((c.value for c in compute), default=top * 2)
    for ceiling in memory:
        dashed = ceiling.source == "measured"
        end = min(x_hi, roof_top / ceiling.value)
        axes.plot(
            [x_lo, end],
            [ceiling.value * x_lo, ceiling.value * end],
            color=_ROOF_COLOUR,
            linestyle="--" if dashed else "-",
            linewidth=1.2 if dashed else 2,
            label=f"{ceiling.label}: {ceiling.value:,.4g} GB/s",
        )
    merged = _merged(compute)
    for ceiling in merged:
        start = ceiling.value / bandwidth if bandwidth else x_lo
        axes.plot([start, x_hi], [ceiling.value, ceiling.value], color=_ROOF_COLOUR, linewidth=2)
    if merged:  # compute roofs are named on a right-hand axis, clear of the points
        right = axes.twinx()
        right.set_yscale("log")
        right.set_ylim(axes.get_ylim())
        right.set_yticks([c.value for c in merged], [f"{c.label} {_rate(c.value)}" for c in merged])
        right.minorticks_off()
        right.tick_params(labelsize=8, colors=_ROOF_COLOUR)
    grouped = _grouped(roof.points)
    streams = sorted((p for p, _ in grouped if p.kind == "stream"), key=lambda p: -p.gflops)
    rank = {p.label: number for number, p in enumerate(streams)}  # highest point, top label
    for point, label in grouped:
        colour = _GEMM_COLOUR if point.kind == "gemm" else _STREAM_COLOUR
        marker = "o" if point.kind == "gemm" else "s"
        axes.plot([point.intensity], [point.gflops], marker, color=colour, markersize=7)
        if point.kind == "gemm":  # one line to the right: GEMM points sit under their roofs
            axes.annotate(
                label.replace("\n", ": "),
                (point.intensity, point.gflops),
                textcoords="offset points",
                xytext=(7, 0),
                fontsize=8,
                color=colour,
                va="center",
            )
            continue
        # Stream points crowd at low intensity: their labels stack in a column to the right,
        # each joined to its point by a thin line.
        axes.annotate(
            label.replace("\n", ": "),
            (point.intensity, point.gflops),
            textcoords="axes fraction",
            xytext=(0.40, 0.42 - 0.05 * rank[point.label]),
            fontsize=8,
            color=colour,
            va="center",
            arrowprops={"arrowstyle": "-", "color": colour, "linewidth": 0.6, "alpha": 0.6},
        )
    axes.plot([], [], "o", color=_GEMM_COLOUR, label="GEMM, best shape (median rate)")
    axes.plot([], [], "s", color=_STREAM_COLOUR, label="stream kernel (median rate)")
    axes.legend(loc="lower right", fontsize=8)
    notes = []
    if not compute:
        notes.append("no datasheet compute peak")
    if not any(c.source == "datasheet" for c in memory):
        notes.append("no datasheet bandwidth")
    if roof.unplaced:
        notes.append(f"not placed (0 FLOP): {', '.join(roof.unplaced)}")
    if notes:
        axes.text(0.01, 0.99, "; ".join(notes), transform=axes.transAxes, fontsize=8, va="top")


def _grouped(points: tuple[RoofPoint, ...]) -> list[tuple[RoofPoint, str]]:
    """Points sorted by intensity; points within 8 % of each other share one label."""
    out: list[tuple[RoofPoint, str]] = []
    for point in sorted(points, key=lambda p: (p.intensity, p.gflops)):
        if out:
            held, label = out[-1]
            close = max(held.intensity, point.intensity) / min(held.intensity, point.intensity)
            near = max(held.gflops, point.gflops) / min(held.gflops, point.gflops)
            if held.kind == point.kind and close < 1.08 and near < 1.08:
                out[-1] = (held, label.replace("\n", f", {point.label}\n", 1))
                continue
        out.append((point, f"{point.label}\n{_rate(point.gflops)}"))
    return out


def _merged(compute: tuple[Ceiling, ...]) -> list[Ceiling]:
    """One roof per distinct value: bf16 and fp16 peaks are often equal."""
    by_value: dict[float, list[Ceiling]] = {}
    for ceiling in compute:
        by_value.setdefault(round(ceiling.value, 6), []).append(ceiling)
    merged = []
    for same in by_value.values():
        label = "/".join(c.label.removesuffix(" peak") for c in same) + " peak"
        merged.append(Ceiling(label, "compute", same[0].value, same[0].source))
    return merged


def _rate(gflops: float) -> str:
    if gflops >= 1e3:
        return f"{gflops / 1e3:,.4g} TFLOP/s"
    return f"{gflops:,.4g} GFLOP/s"
