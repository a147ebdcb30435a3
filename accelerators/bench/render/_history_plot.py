"""The history chart: one panel per metric, one line per node and device, flagged in red.

matplotlib is imported inside :func:`history_figure` (Agg backend). Names are drawn as text
(:data:`accelerators.bench.render._plot.PLAIN_TEXT`); the axes are linear and dated, whose tick
labels matplotlib writes as plain numbers and dates.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from accelerators.bench.history._fleet import Trend

__all__ = ["history_figure", "history_png"]

_FLAGGED = "#c62828"
#: matplotlib's tab10 without its red, which marks flagged devices.
_HEALTHY = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
_UNITS = {"tflops": "TFLOPS (median)", "gbps": "GB/s (median)"}


def history_png(trends: Sequence[Trend], *, max_panels: int = 4, dpi: int = 110) -> bytes:
    """A PNG of ``trends``: the first ``max_panels`` metrics, flagged devices in red.

    :raises ImportError: matplotlib is not installed (the ``[bench]`` extra).
    """
    figure = history_figure(trends, max_panels=max_panels)
    import matplotlib

    from accelerators.bench.render._plot import PLAIN_TEXT

    with matplotlib.rc_context(PLAIN_TEXT):  # a tick label made while saving is text too
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def history_figure(trends: Sequence[Trend], *, max_panels: int = 4) -> Any:
    """The chart of :func:`history_png` as a drawn matplotlib ``Figure`` (tick labels made).

    :raises ImportError: matplotlib is not installed (the ``[bench]`` extra).
    """
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - matplotlib is installed where tests run
        raise ImportError('Charts need matplotlib: pip install "accelerators[bench]"') from exc

    from accelerators.bench.render._plot import PLAIN_TEXT

    with matplotlib.rc_context(PLAIN_TEXT):  # node and device names are text, never math
        metrics = list(dict.fromkeys(t.metric for t in trends))[:max_panels] or ["(no history)"]
        figure = Figure(
            figsize=(6.2 * min(len(metrics), 2), 3.8 * ((len(metrics) + 1) // 2)),
            layout="constrained",
        )
        panels = figure.subplots((len(metrics) + 1) // 2, min(len(metrics), 2), squeeze=False)
        for number, metric in enumerate(metrics):
            axes = panels[number // 2][number % 2]
            shown = [t for t in trends if t.metric == metric]
            axes.set_title(metric)
            for line, trend in enumerate(shown):
                label = f"{trend.node} #{trend.device_index}"
                if trend.flagged:
                    axes.plot(
                        trend.times,
                        trend.values,
                        "o-",
                        color=_FLAGGED,
                        linewidth=2.2,
                        markersize=3,
                        label=f"{label}: {', '.join(trend.flags)}",
                    )
                else:
                    axes.plot(
                        trend.times,
                        trend.values,
                        "-",
                        linewidth=1,
                        alpha=0.8,
                        label=label,
                        color=_HEALTHY[line % len(_HEALTHY)],
                    )
            fleet = next((t.fleet_median for t in shown if t.fleet_median), None)
            if fleet:
                axes.axhline(fleet, color="black", linestyle=":", linewidth=1, label="fleet median")
            if shown:
                axes.set_ylabel(_UNITS.get(shown[0].unit, shown[0].unit))
                axes.legend(fontsize=7, loc="lower left")
            axes.tick_params(axis="x", labelrotation=30, labelsize=8)
        for number in range(len(metrics), len(panels) * len(panels[0])):
            panels[number // 2][number % 2].set_visible(False)
        figure.draw_without_rendering()
    return figure
