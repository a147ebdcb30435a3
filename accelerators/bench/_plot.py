"""A PNG comparing achieved figures with datasheet peaks, per dtype and per stream kernel.

matplotlib is imported inside :func:`plot_report` with the Agg backend (no display needed);
the file is written atomically.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from accelerators.bench._report import BenchReport, GemmResult, MemoryResult, atomic_write

__all__ = ["plot_report"]

_VERDICT_COLOURS = {"pass": "#2e7d32", "warn": "#ef6c00", "fail": "#c62828"}


def plot_report(report: BenchReport, path: str | os.PathLike[str]) -> Path:
    """Draw ``report`` to a PNG at ``path``; returns the path.

    Left: GEMM TFLOPS per dtype; right: stream GB/s per kernel. Bars are the slowest
    device's achieved figure and the datasheet peak, with a tick at the expected
    (band) figure and dots for every device when there are several.

    :param report: a benchmark report.
    :param path: where to write the PNG; its directory must exist.
    :raises ImportError: matplotlib is not installed (the ``[bench]`` extra).
    """
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - matplotlib is installed where tests run
        raise ImportError('Plotting needs matplotlib: pip install "accelerators[bench]"') from exc

    figure = Figure(figsize=(12, 4.8), layout="constrained")
    left, right = figure.subplots(1, 2)
    gemm = [g for g in report.gemm if g.tflops is not None]
    memory = [m for m in report.memory if m.gbps is not None]
    _panel(
        left,
        labels=[g.dtype for g in gemm],
        achieved=[g.tflops for g in gemm],
        peaks=[g.peak_tflops for g in gemm],
        expected=[g.expected_tflops for g in gemm],
        per_device=[[d.tflops for d in _all_gemm(report, g.dtype)] for g in gemm],
        unit="TFLOPS",
        title="GEMM (maximum achievable matmul)",
    )
    _panel(
        right,
        labels=[m.kernel for m in memory],
        achieved=[m.gbps for m in memory],
        peaks=[m.peak_gbps for m in memory],
        expected=[m.expected_gbps for m in memory],
        per_device=[[d.gbps for d in _all_memory(report, m.kernel)] for m in memory],
        unit="GB/s",
        title="Memory bandwidth (STREAM byte counting)",
    )
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
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    return atomic_write(path, buffer.getvalue())


def _all_gemm(report: BenchReport, dtype: str) -> list[GemmResult]:
    return [g for d in report.devices for g in d.gemm if g.dtype == dtype and g.tflops]


def _all_memory(report: BenchReport, kernel: str) -> list[MemoryResult]:
    return [m for d in report.devices for m in d.memory if m.kernel == kernel and m.gbps]


def _panel(
    axes: Any,
    *,
    labels: Sequence[str],
    achieved: Sequence[float | None],
    peaks: Sequence[float | None],
    expected: Sequence[float | None],
    per_device: Sequence[Sequence[float | None]],
    unit: str,
    title: str,
) -> None:
    axes.set_title(title)
    axes.set_ylabel(unit)
    if not labels:
        axes.text(0.5, 0.5, "not measured", ha="center", va="center", transform=axes.transAxes)
        axes.set_xticks([])
        return
    xs = list(range(len(labels)))
    width = 0.38
    peak_values = [p or 0.0 for p in peaks]
    achieved_values = [a or 0.0 for a in achieved]
    if any(peak_values):
        axes.bar(
            [x - width / 2 for x in xs], peak_values, width, label="datasheet peak", color="#b0bec5"
        )
    axes.bar([x + width / 2 for x in xs], achieved_values, width, label="achieved", color="#1565c0")
    for x, value in zip(xs, expected, strict=True):
        if value:
            axes.hlines(value, x + 0.02, x + width * 1.1, colors="#ef6c00", linewidth=2)
    if any(len(values) > 1 for values in per_device):
        for x, values in zip(xs, per_device, strict=True):
            points = [v for v in values if v]
            axes.plot([x + width / 2] * len(points), points, "k.", markersize=4)
    for x, value, peak in zip(xs, achieved_values, peak_values, strict=True):
        shown = f"{value:,.0f}" if value >= 100 else f"{value:.3g}"
        text = shown + (f"\n{value / peak:.0%}" if peak else "")
        axes.annotate(text, (x + width / 2, value), ha="center", va="bottom", fontsize=8)
    if any(expected):
        axes.plot([], [], color="#ef6c00", linewidth=2, label="expected (band)")
    axes.set_xticks(xs, labels)
    top = [v for v in peak_values + achieved_values if v > 0]
    if top and max(top) / min(top) > 30:
        axes.set_yscale("log")
        axes.set_ylim(min(top) / 2, max(top) * 4)
    elif top:
        axes.set_ylim(0, max(top) * 1.3)
    if not any(peak_values):
        axes.text(
            0.5,
            0.97,
            "no datasheet figure: measured only",
            ha="center",
            va="top",
            transform=axes.transAxes,
            fontsize=8,
        )
    axes.legend(loc="upper right", fontsize=8)
