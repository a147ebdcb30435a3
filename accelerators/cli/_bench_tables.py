"""The tables, verdict line and cost line ``accelerators bench`` prints for a report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from accelerators._text import flops_unit
from accelerators.cli._common import console, err_console

if TYPE_CHECKING:
    from accelerators.bench import BenchReport

__all__ = ["print_cost", "print_report", "print_verdict_line"]

_STATUS_STYLE = {"pass": "bold green", "warn": "bold yellow", "fail": "bold red"}
_SEVERITY_STYLE = {"info": "dim", "warn": "yellow", "fail": "red"}


def print_cost(report: BenchReport, instance: str) -> None:
    """What the measured matmul rate costs on ``instance`` (needs a price in the table)."""
    from accelerators.sizing import SizingError, cost_of_throughput

    try:
        cost = cost_of_throughput(report, instance)
    except SizingError as exc:
        console.print(Text(f"Cost on {instance}: not known ({exc})", style="dim"))
        return
    datasheet = (
        f" (datasheet rate: ${cost.datasheet_usd_per_tflop_hour:.4f})"
        if cost.datasheet_usd_per_tflop_hour is not None
        else ""
    )
    console.print(
        f"Cost on {cost.instance} ({cost.price.cloud} {cost.price.kind}, price of "
        f"{cost.price.date}, {cost.price.confidence}): "
        f"${cost.usd_per_tflop_hour:.4f} per TFLOP-hour at the measured "
        f"{cost.measured_tflops:.1f} TFLOPS per device{datasheet}; "
        f"${cost.usd_per_pflop:.4f} per PFLOP"
    )


def _fmt(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}g}"


def _pct(value: float | None, of: float | None) -> str:
    if value is None or not of:
        return "-"
    return f"{value / of:.0%}"


def _reruns(reruns: int, unjudged: str | None) -> str:
    """Re-measurements of a figure; ``!`` when it still could not be judged."""
    return (str(reruns) if reruns else "-") + (" !" if unjudged else "")


def print_report(report: BenchReport) -> None:
    several = len(report.devices) > 1
    rates = [g.tflops for d in report.devices for g in d.gemm if g.tflops]
    scale, unit = flops_unit(max(rates)) if rates else (1.0, "TFLOPS")
    # CPUs: the median with a thread on every core and on one, whichever was chosen.
    cores = any(g.all_core_tflops or g.per_core_tflops for d in report.devices for g in d.gemm)
    gemm = Table(
        title="GEMM (winning shape; % peak: the median, the figure the gate judges)",
        header_style="bold",
        box=None,
    )
    for header in (
        *(["Dev"] if several else []),
        "dtype",
        "m x n x k",
        f"best {unit}",
        "median",
        *(["all-core", "per-core"] if cores else []),
        "peak",
        "% peak",
        "expected",
        "threads",
        "reruns",
        "check",
    ):
        gemm.add_column(header, justify="left" if header in ("dtype", "m x n x k") else "right")
    for dev in report.devices:
        for g in dev.gemm:
            shape = f"{g.m}x{g.n}x{g.k}" if g.m else g.status
            check = "-" if g.correct is None else ("ok" if g.correct else "MISCOMPARE")
            gemm.add_row(
                *([str(dev.index)] if several else []),
                g.dtype,
                shape,
                _fmt(g.tflops * scale if g.tflops else None),
                _fmt(g.median_tflops * scale if g.median_tflops else None),
                *(
                    [
                        _fmt(g.all_core_tflops * scale if g.all_core_tflops else None),
                        _fmt(g.per_core_tflops * scale if g.per_core_tflops else None),
                    ]
                    if cores
                    else []
                ),
                _fmt(g.peak_tflops * scale if g.peak_tflops else None),
                _pct(g.median_tflops or g.tflops, g.peak_tflops),
                _fmt(g.expected_tflops * scale if g.expected_tflops else None),
                _fmt(g.threads) + (" (1 core's peak)" if g.judged_on == "per-core" else ""),
                _reruns(g.reruns, g.unjudged),
                check,
            )
    memory = Table(title="Memory bandwidth (STREAM byte counting)", header_style="bold", box=None)
    for header in (
        *(["Dev"] if several else []),
        "kernel",
        "bytes",
        "best GB/s",
        "median",
        "peak",
        "% peak",
        "expected",
        "reruns",
        "check",
    ):
        memory.add_column(header, justify="left" if header in ("kernel", "bytes") else "right")
    for dev in report.devices:
        for m in dev.memory:
            check = "-" if m.correct is None else ("ok" if m.correct else "MISCOMPARE")
            memory.add_row(
                *([str(dev.index)] if several else []),
                m.kernel,
                m.bytes_formula or "-",
                _fmt(m.gbps),
                _fmt(m.median_gbps),
                _fmt(m.peak_gbps),
                _pct(m.median_gbps or m.gbps, m.peak_gbps),
                _fmt(m.expected_gbps),
                _reruns(m.reruns, m.unjudged),
                check,
            )
    if any(d.gemm for d in report.devices):
        console.print(gemm)
    for dev in report.devices:
        clocks = dev.clocks_mhz
        if dev.kind == "cpu" and "peak" in clocks:
            measured = f", measured {clocks['measured']:.0f}" if "measured" in clocks else ""
            reported = f", reported {clocks['reported']:.0f}" if "reported" in clocks else ""
            console.print(
                Text(
                    f"CPU clock behind the peaks: {clocks['peak']:.0f} MHz{measured}{reported}",
                    style="dim",
                ),
                soft_wrap=True,
            )
    if any(d.memory for d in report.devices):
        console.print(memory)
    for reason in report.reasons:
        style = _SEVERITY_STYLE.get(reason.severity.value, "")
        console.print(
            Text(f"{reason.severity.value:>4} {reason.code.value}: ", style=style)
            + Text(reason.message),
            soft_wrap=True,
        )
    print_verdict_line(report)


def print_verdict_line(report: BenchReport, *, to_stderr: bool = False) -> None:
    """The one-line verdict; on stderr (``-q``, ``--json -``) with the reasons that matter."""
    device = report.device
    what = device.accelerator or device.name
    if device.is_mig:
        what += f" MIG {device.mig_profile}"
    verdict = report.verdict.value
    line = Text(f"{verdict.upper()}", style=_STATUS_STYLE.get(verdict, "bold"))
    line += Text(
        f"  {device.count} x {what} ({device.backend or device.kind}), profile "
        f"{report.profile}, {report.elapsed_s:.1f} s"
        + (f", expected {report.expect}" if report.expect else "")
    )
    target = err_console if to_stderr else console
    target.print(line, soft_wrap=True)
    if to_stderr:
        for reason in report.reasons:
            if reason.severity.value != "info":
                target.print(
                    Text(f"{reason.severity.value:>4} {reason.code.value}: {reason.message}"),
                    soft_wrap=True,
                )
