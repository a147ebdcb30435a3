"""The charts' tick labels, read from the drawn figure: numbers as text, never raw mathtext.

Every label of the roofline and history charts is drawn as the text it is (``PLAIN_TEXT``:
``text.parse_math`` off, so that a device named ``$\\frac$`` is printed, not typeset). That
rule also reaches the tick labels, and matplotlib's default log formatter writes those as
mathtext (``$\\mathdefault{10^{2}}$``), which then printed verbatim in every ``--plot`` PNG
and ``--html`` report. These tests draw the figures and read each visible tick label's Text:
its string, and whether matplotlib would parse it as math.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from accelerators.bench import BenchReport, html_report, run
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

matplotlib = pytest.importorskip("matplotlib")

from accelerators.bench.render._history_plot import history_figure  # noqa: E402
from accelerators.bench.render._plot import (  # noqa: E402
    PLAIN_TEXT,
    plain_log_axis,
    plain_number,
    roofline_figure,
)

ROOT = Path(__file__).resolve().parents[2]


def _drawn_ticks(axis: Any) -> list[tuple[float, Any]]:
    """(location, Text) of each tick label the draw showed: visible, non-empty, in view."""
    low, high = sorted(axis.get_view_interval())
    shown = []
    for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
        location = tick.get_loc()
        if location is None or not (low <= location <= high) or not tick.get_visible():
            continue
        for label in (tick.label1, tick.label2):  # left/bottom, right/top
            if label.get_visible() and label.get_text():
                shown.append((location, label))
    return shown


def _rendered(label: Any) -> str:
    """The string the Text draws: its text, unless matplotlib would typeset it as math."""
    text: str = label.get_text()
    if label.get_parse_math() and text.count("$") >= 2:
        return f"<math {text}>"
    return text


def _assert_numbers(axis: Any) -> list[str]:
    """Every drawn label of a log axis is its tick's location, written as a plain number."""
    ticks = _drawn_ticks(axis)
    assert len(ticks) >= 2, "fewer than two labelled ticks"
    shown = []
    for location, label in ticks:
        rendered = _rendered(label)
        assert "$" not in rendered, rendered
        assert "\\" not in rendered, rendered
        assert float(rendered.replace(",", "")) == pytest.approx(location, rel=1e-5), rendered
        shown.append(rendered)
    return shown


@pytest.fixture(scope="module")
def readme_report() -> BenchReport:
    """The committed report the README's chart is drawn from (a CPU run)."""
    path = ROOT / "docs" / "img" / "bench-quick.json"
    return BenchReport.model_validate_json(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def h100_report() -> BenchReport:
    return run("H100-SXM", backend=FakeBackend([FakeDevice()]), detected=fake_detected("H100-SXM"))


@pytest.mark.parametrize("which", ["readme_report", "h100_report"])
def test_the_roofline_ticks_are_plain_numbers(which: str, request: pytest.FixtureRequest) -> None:
    report = request.getfixturevalue(which)
    figure = roofline_figure(report)
    main, right = figure.axes
    x_labels = _assert_numbers(main.xaxis)
    y_labels = _assert_numbers(main.yaxis)
    assert "1" in x_labels
    assert "100" in y_labels
    if which == "h100_report":  # TFLOP/s-scale rates: thousands separators, no exponent
        assert "1,000,000" in y_labels
    # The right-hand axis names the compute roofs, as text.
    roofs = [_rendered(label) for _loc, label in _drawn_ticks(right.yaxis)]
    assert roofs
    assert all(" peak " in roof and "$" not in roof for roof in roofs), roofs


def test_the_readme_chart_is_drawn_from_the_same_code(readme_report: BenchReport) -> None:
    """The README's x axis: decades 0.01 to 1,000 (its report spans them)."""
    labels = _assert_numbers(roofline_figure(readme_report).axes[0].xaxis)
    assert {"0.01", "0.1", "1", "10", "100", "1,000"} <= set(labels)


def test_matplotlibs_default_log_labels_would_fail_the_check() -> None:
    """Without plain_log_axis the same settings draw raw mathtext: the checks above can fail."""
    from matplotlib.figure import Figure

    with matplotlib.rc_context(PLAIN_TEXT):
        figure = Figure()
        axes = figure.subplots()
        axes.set_xscale("log")
        axes.set_xlim(0.01, 1000)
        figure.draw_without_rendering()
    rendered = [_rendered(label) for _loc, label in _drawn_ticks(axes.xaxis)]
    assert any("\\mathdefault{10^{2}}" in text for text in rendered), rendered
    with pytest.raises(AssertionError):
        _assert_numbers(axes.xaxis)


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        (20, 60, {"20", "30", "40", "60"}),  # under a decade: matplotlib labels minor ticks
        (0.002, 0.05, {"0.002", "0.01", "0.03"}),
        (1e3, 5e6, {"1,000", "10,000", "100,000", "1,000,000"}),
    ],
)
def test_narrow_and_wide_log_axes_get_plain_labels(
    low: float, high: float, expected: set[str]
) -> None:
    from matplotlib.figure import Figure

    with matplotlib.rc_context(PLAIN_TEXT):
        figure = Figure()
        axes = figure.subplots()
        axes.set_yscale("log")
        plain_log_axis(axes.yaxis)
        axes.set_ylim(low, high)
        figure.draw_without_rendering()
    assert expected <= set(_assert_numbers(axes.yaxis))


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.01, "0.01"),
        (0.30000000000000004, "0.3"),
        (2e-5, "0.00002"),
        (1.0, "1"),
        (100.0, "100"),
        (1e6, "1,000,000"),
        (123456789.0, "123,457,000"),
    ],
)
def test_plain_number(value: float, text: str) -> None:
    assert plain_number(value) == text


@pytest.mark.parametrize("name", ["$\\undefinedmacro$", "GPU $x^{$", "a\\b_c^d $\\frac$"])
def test_device_names_stay_text_while_ticks_are_numbers(
    name: str, readme_report: BenchReport
) -> None:
    data = readme_report.model_dump(mode="json")
    data["device"].update(name=name, accelerator=None)
    for device in data["devices"]:
        device.update(name=name, accelerator=None)
    hostile = BenchReport.model_validate(data)
    figure = roofline_figure(hostile)
    title = figure.get_suptitle()
    assert name in title
    assert not figure._suptitle.get_parse_math()  # drawn as typed, not typeset
    _assert_numbers(figure.axes[0].yaxis)
    assert "<html" in html_report(hostile).lower()  # the HTML page embeds the same chart


def test_the_history_chart_ticks_are_numbers_and_dates() -> None:
    from accelerators.bench.history._fleet import trends
    from accelerators.bench.history._store import Figure

    figures = [
        Figure(
            datetime(2026, 11, day, tzinfo=UTC),
            "node $\\x$",
            0,
            "H100-SXM",
            "gemm.bf16",
            700.0 + day,
            "tflops",
            "pass",
        )
        for day in range(1, 15)
    ]
    figure = history_figure(trends(figures))
    axes = figure.axes[0]
    values = _drawn_ticks(axes.yaxis)
    assert len(values) >= 3
    for location, label in values:
        rendered = _rendered(label)
        assert "$" not in rendered
        assert float(rendered.replace(",", "").replace("\N{MINUS SIGN}", "-")) == pytest.approx(
            location
        )
    dates = [_rendered(label) for _loc, label in _drawn_ticks(axes.xaxis)]
    assert dates
    assert all("11-" in text and "$" not in text for text in dates), dates
