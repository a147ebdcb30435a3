"""The result model: frozen, versioned, units in names, JSON round-trip, atomic writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pydantic
import pytest

from accelerators.bench import SCHEMA_VERSION, BenchReport, Verdict, run, write_json
from accelerators.bench.report._models import atomic_write
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected


@pytest.fixture(scope="module")
def report() -> BenchReport:
    slow = dict(FakeDevice().gemm_tflops, bf16=560.0)
    return run(
        "H100-SXM:2",
        backend=FakeBackend([FakeDevice(), FakeDevice(gemm_tflops=slow)]),
        detected=fake_detected("H100-SXM", count=2),  # type: ignore[arg-type]
    )


def test_json_round_trip(report: BenchReport) -> None:
    text = report.model_dump_json()
    again = BenchReport.model_validate_json(text)
    assert again == report
    assert again.model_dump_json() == text


def test_required_fields_and_units(report: BenchReport) -> None:
    data = json.loads(report.model_dump_json())
    assert data["schema_version"] == SCHEMA_VERSION == 2
    for key in ("device", "gemm", "memory", "verdict", "reasons", "elapsed_s"):
        assert key in data
    for entry in data["gemm"]:
        assert {"dtype", "m", "n", "k", "tflops", "median_tflops", "samples_s"} <= set(entry)
    for entry in data["memory"]:
        assert {"kernel", "gbps", "median_gbps", "bytes_per_call", "samples_s"} <= set(entry)
    assert data["verdict"] == "fail"
    assert {r["code"] for r in data["reasons"]} >= {"gemm_slow", "device_spread"}


def test_raw_samples_are_kept(report: BenchReport) -> None:
    bf16 = next(g for g in report.devices[0].gemm if g.dtype == "bf16")
    assert len(bf16.samples_s) >= 5
    assert bf16.tflops == pytest.approx(2 * bf16.m * bf16.n * bf16.k / min(bf16.samples_s) / 1e12)  # type: ignore[operator]


def test_models_are_frozen_and_strict(report: BenchReport) -> None:
    with pytest.raises(pydantic.ValidationError):
        report.verdict = Verdict.PASS  # type: ignore[misc]
    data = json.loads(report.model_dump_json())
    data["surprise"] = 1
    with pytest.raises(pydantic.ValidationError):
        BenchReport.model_validate(data)
    data.pop("surprise")
    data["schema_version"] = 3
    with pytest.raises(pydantic.ValidationError):
        BenchReport.model_validate(data)


def test_write_json_is_atomic_and_readable(report: BenchReport, tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")
    os.chmod(target, 0o640)
    write_json(report, target)
    assert BenchReport.model_validate_json(target.read_text()) == report
    assert (target.stat().st_mode & 0o777) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_atomic_write_leaves_the_old_file_on_error(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")

    class Boom(bytes):
        pass

    with pytest.raises(TypeError):
        atomic_write(target, object())  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]
    del Boom


def test_reasons_at_least(report: BenchReport) -> None:
    from accelerators.bench import Severity

    warn_or_worse = report.reasons_at_least(Severity.WARN)
    assert warn_or_worse
    assert all(r.severity in (Severity.WARN, Severity.FAIL) for r in warn_or_worse)
    assert not report.passed
