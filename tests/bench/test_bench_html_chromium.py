"""The HTML report rendered by a real browser: headless Chromium (Debian's ``chromium``).

``scripts/system-deps`` installs it; ``scripts/bootstrap`` runs that (``apt-get install
chromium``, as root) only when the browser tests are asked for, ``ACCELERATORS_BROWSER_TESTS=1``,
as ``.ci/run`` does. The ``chromium`` fixture (tests/conftest.py): asked for, a missing browser
is a failure that says which command to run; not asked for, the test skips and says how to ask.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from accelerators.bench import html_report, run
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

PIL_Image = pytest.importorskip("PIL.Image")  # Pillow comes with matplotlib ([bench])


def test_a_blank_page_fails_the_ink_check(tmp_path: Path, chromium) -> None:
    """The checks below can fail: an empty page has next to no ink."""
    page = tmp_path / "blank.html"
    page.write_text("<!DOCTYPE html><html><body></body></html>", encoding="utf-8")
    shot = tmp_path / "blank.png"
    chromium.screenshot(page.as_uri(), shot)
    data = PIL_Image.open(shot).convert("RGB").tobytes()
    assert sum(1 for i in range(0, len(data), 3) if sum(data[i : i + 3]) < 600) == 0


def test_chromium_renders_the_report(tmp_path: Path, chromium) -> None:
    report = run("H100-SXM", backend=FakeBackend([FakeDevice()]), detected=fake_detected())
    page = tmp_path / "report.html"
    page.write_text(html_report(report), encoding="utf-8")
    shot = tmp_path / "shot.png"
    chromium.screenshot(page.as_uri(), shot)
    image = PIL_Image.open(shot).convert("RGB")
    assert image.size == (1200, 1400)
    data = image.tobytes()
    pixels = list(zip(data[0::3], data[1::3], data[2::3], strict=True))
    ink = sum(1 for p in pixels if sum(p) < 600) / len(pixels)
    assert ink > 0.02, f"the page looks blank: {ink:.2%} of pixels are not near-white"
    colours = len(set(pixels))
    assert colours > 200, f"only {colours} colours: the chart did not render"
    # The PASS badge: the verdict green (#2e7d32) over a block of pixels near the top.
    badge = sum(
        1 for p in pixels[: 1200 * 120] if abs(p[0] - 46) + abs(p[1] - 125) + abs(p[2] - 50) < 30
    )
    assert badge > 500, "no verdict badge in the first 120 rows"
