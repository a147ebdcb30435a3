"""The roofline geometry, the roofline PNG and the self-contained HTML report (fake devices)."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from accelerators.bench import BenchReport, html_report, plot_report, run
from accelerators.bench.render._roofline import gemm_intensity, roofline
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def h100_report() -> BenchReport:
    return run("H100-SXM", backend=FakeBackend([FakeDevice()]), detected=fake_detected("H100-SXM"))


def test_gemm_intensity_counts_each_operand_once() -> None:
    # 2*n^3 FLOP over 3*n^2 elements of 2 bytes: n/3 FLOP per byte.
    assert gemm_intensity(3000, 3000, 3000, "bf16") == pytest.approx(1000.0)
    assert gemm_intensity(64, 64, 64, "fp32") == pytest.approx(2 * 64**3 / (4 * 3 * 64**2))


def test_roofline_places_every_kernel_but_copy(h100_report: BenchReport) -> None:
    roof = roofline(h100_report)
    labels = {p.label for p in roof.points}
    measured_dtypes = {g.dtype for g in h100_report.gemm if g.tflops}
    assert {f"GEMM {d}" for d in measured_dtypes} <= labels
    assert {"scale", "add", "triad", "dot"} <= labels
    assert roof.unplaced == ("copy",)
    triad = next(p for p in roof.points if p.label == "triad")
    triad_gbps = next(m.median_gbps for m in h100_report.memory if m.kernel == "triad")
    assert triad_gbps is not None
    width = 8 if h100_report.memory[0].dtype == "fp64" else 4
    assert triad.intensity == pytest.approx(2 / (3 * width))
    assert triad.gflops == pytest.approx(triad_gbps * triad.intensity)
    compute = {c.label: c.value for c in roof.compute()}
    bf16_peak = next(g.peak_tflops for g in h100_report.gemm if g.dtype == "bf16")
    assert bf16_peak is not None
    assert compute["bf16 peak"] == pytest.approx(bf16_peak * 1e3)
    sources = {c.source for c in roof.memory()}
    assert sources == {"datasheet", "measured"}


def test_several_devices_are_tagged() -> None:
    report = run(
        "H100-SXM:2",
        backend=FakeBackend([FakeDevice(), FakeDevice()]),
        detected=fake_detected("H100-SXM", count=2),
    )
    labels = {p.label for p in roofline(report).points}
    assert {"GEMM bf16 #0", "GEMM bf16 #1", "triad #0", "triad #1"} <= labels


def test_plot_report_writes_a_png(tmp_path: Path, h100_report: BenchReport) -> None:
    target = plot_report(h100_report, tmp_path / "roofline.png")
    data = target.read_bytes()
    assert data.startswith(_PNG_MAGIC)
    assert len(data) > 20_000  # a drawn chart, not an empty canvas


def test_html_report_is_self_contained(h100_report: BenchReport) -> None:
    page = html_report(h100_report)
    assert page.startswith("<!DOCTYPE html>")
    assert page.rstrip().endswith("</html>")
    # No external fetch of any kind: no URL, no script, no stylesheet link.
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", page)
    assert not re.search(r"(https?:)?//[a-z]|url\(", text, flags=re.IGNORECASE)
    assert "<script" not in page
    assert "<link" not in page
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 1
    assert base64.b64decode(images[0]).startswith(_PNG_MAGIC)
    assert "PASS" in page
    for gemm in h100_report.gemm:
        if gemm.tflops:
            assert f"{gemm.tflops:,.4g}" in page
    for kernel in ("copy", "scale", "add", "triad", "dot"):
        assert f"<td class=l>{kernel}</td>" in page


def test_html_report_escapes_what_it_is_given(h100_report: BenchReport) -> None:
    hostile = h100_report.model_copy(
        update={"host": "<script>alert(1)</script>", "expect": 'H100 "&" <b>'}
    )
    page = html_report(hostile)
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "H100 &quot;&amp;&quot; &lt;b&gt;" in page


def test_html_report_of_a_failed_gate_lists_its_reasons() -> None:
    report = run("A100", backend=FakeBackend([FakeDevice()]), detected=fake_detected("H100-SXM"))
    page = html_report(report)
    assert "FAIL" in page
    assert "wrong_accelerator" in page
    assert "#c62828" in page  # the verdict colour of a failure
