"""Issue 11's missing phases on fake devices: catalog-gated dtypes, matrix fp64 peaks, MI300X
compute partitions (CPX divided out of the peak)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from bench_helpers import catalog_device

from accelerators import catalog
from accelerators.bench import PROFILES, ReasonCode, Severity, Verdict, run
from accelerators.bench.expect._bands import bands, compute_partition
from accelerators.bench.expect._peaks import device_gemm_peak, device_memory_peak, partition_mode
from accelerators.bench.measure._backend import Shape
from accelerators.bench.measure._profiles import get_profile
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

STANDARD = dataclasses.replace(get_profile("standard").scaled(0.25), gpu_warmup_s=0.2)


# -- profiles ------------------------------------------------------------------------------
def test_quick_keeps_to_the_headline_dtypes_and_standard_adds_the_rest() -> None:
    assert PROFILES["quick"].gpu_dtypes == ("fp32", "tf32", "bf16", "fp16", "fp8")
    assert PROFILES["quick"].cpu_dtypes == ("fp32", "bf16")
    for name in ("standard", "full"):
        assert {"fp64", "int8", "fp4", "mxfp8"} <= set(PROFILES[name].gpu_dtypes)
        assert {"fp64", "int8"} <= set(PROFILES[name].cpu_dtypes)
        assert set(PROFILES[name].catalog_gated) == {"fp64", "int8", "fp4", "mxfp8"}


# -- fp64 matrix peaks ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "tflops"),
    [("H100-SXM", 67.0), ("H100-PCIE", 51.0), ("A100-80GB-SXM", 19.5), ("MI300X", 163.4)],
)
def test_fp64_is_judged_against_the_matrix_unit_peak(name: str, tflops: float) -> None:
    peak = device_gemm_peak(catalog_device(name), "fp64")
    assert peak is not None
    assert peak.value == pytest.approx(tflops)
    assert peak.note is not None
    assert "vector rate" in peak.note
    assert "http" in peak.source


def test_matrix_fp64_of_a_two_gcd_package_is_halved() -> None:
    peak = device_gemm_peak(catalog_device("MI250X"), "fp64")
    assert peak is not None
    assert peak.value == pytest.approx(95.7 / 2)
    assert peak.confidence == "unconfirmed"


def test_other_dtypes_keep_the_catalog_figure() -> None:
    peak = device_gemm_peak(catalog_device("H100-SXM"), "bf16")
    assert peak is not None
    assert peak.value == pytest.approx(989.5)
    assert peak.note is None


def test_every_matrix_peak_and_partition_names_a_catalog_accelerator() -> None:
    for entry in (*bands().matrix_peak, *bands().compute_partition):
        assert catalog.get(entry.accelerator).name == entry.accelerator
        assert "http" in entry.source or "catalog note" in entry.source


# -- MI300X compute partitions -------------------------------------------------------------
@pytest.mark.parametrize(
    ("cus", "expected"),
    [
        (304, None),
        (152, ("DPX", 4, 8)),
        (76, ("QPX", 2, 8)),
        (38, ("CPX", 1, 8)),
        (300, None),  # CUs disabled, not a partition: judged as a whole GPU
        (37, None),
        (None, None),
    ],
)
def test_partition_mode_from_the_reported_cus(cus: int | None, expected: object) -> None:
    assert partition_mode("MI300X", cus) == expected


def test_partitions_only_for_partitionable_gpus() -> None:
    assert partition_mode("H100-SXM", 16) is None
    assert compute_partition("MI300X") is not None
    assert compute_partition("MI300X").cus_per_xcd == 38  # type: ignore[union-attr]
    assert partition_mode("MI300A", 38) == ("CPX", 1, 6)


def test_cpx_divides_the_peak_by_eight_and_leaves_bandwidth_unjudged() -> None:
    device = catalog_device("MI300X")
    whole = device_gemm_peak(device, "bf16", sms=304)
    cpx = device_gemm_peak(device, "bf16", sms=38)
    assert whole is not None
    assert cpx is not None
    assert whole.value == pytest.approx(1307.4)
    assert cpx.value == pytest.approx(1307.4 / 8)
    assert cpx.confidence == "derived"
    assert "CPX" in (cpx.note or "")
    assert device_memory_peak(device, sms=304) is not None
    assert device_memory_peak(device, sms=38) is None


def _mi300x(cus: int, share: float, **changes: object) -> FakeDevice:
    """An MI300X partition running at the whole GPU's per-CU rate (60 % of peak)."""
    rates = {"fp32": 163.4 * 0.6, "bf16": 1307.4 * 0.6, "fp16": 1307.4 * 0.6, "fp8": 2614.9 * 0.6}
    values: dict[str, object] = {
        "name": "AMD Instinct MI300X",
        "kind": "rocm",
        "compute_units": cus,
        "capability": "gfx942",
        "gemm_tflops": {d: r * share for d, r in rates.items()},
        "optimum": None,
        "unsupported": {"tf32": "TF32 through torch is not measured on ROCm"},
        "memory_bytes": 24 << 30,
    }
    values.update(changes)
    return FakeDevice(**values)  # type: ignore[arg-type]


def test_a_healthy_cpx_partition_passes_and_a_slow_one_still_fails() -> None:
    detected = fake_detected("MI300X")
    healthy = run("MI300X", backend=FakeBackend([_mi300x(38, 1 / 8)]), detected=detected)  # type: ignore[arg-type]
    assert healthy.verdict is Verdict.PASS, healthy.reasons
    bf16 = next(g for g in healthy.gemm if g.dtype == "bf16")
    assert bf16.peak_tflops == pytest.approx(1307.4 / 8)
    # The same partition judged as a whole GPU would be at 1/8 of its expected rate: FAIL.
    slow = run("MI300X", backend=FakeBackend([_mi300x(38, 1 / 8 / 3)]), detected=detected)  # type: ignore[arg-type]
    assert slow.verdict is Verdict.FAIL
    assert ReasonCode.GEMM_SLOW in {r.code for r in slow.reasons}


# -- catalog-gated dtypes ------------------------------------------------------------------
def test_standard_runs_fp64_and_int8_where_the_catalog_has_them() -> None:
    rates = dict(FakeDevice().gemm_tflops) | {"fp64": 55.0, "int8": 1400.0}
    report = run(
        "H100-SXM",
        STANDARD,
        backend=FakeBackend([FakeDevice(gemm_tflops=rates)]),
        detected=fake_detected("H100-SXM"),  # type: ignore[arg-type]
    )
    by_dtype = {g.dtype: g for g in report.gemm}
    assert by_dtype["fp64"].status == "measured"
    assert by_dtype["fp64"].peak_tflops == pytest.approx(67.0)
    assert by_dtype["int8"].status == "measured"
    assert by_dtype["int8"].peak_tflops == pytest.approx(1979.0)
    assert by_dtype["int8"].tolerance == 0.0
    for dtype in ("fp4", "mxfp8"):
        assert by_dtype[dtype].status == "unsupported"
        assert (
            by_dtype[dtype].note == f"not run: the catalog has no dense {dtype} figure for H100-SXM"
        )
    assert report.verdict is Verdict.PASS, report.reasons


def test_a_dtype_without_a_catalog_figure_is_not_run_even_if_the_device_has_it() -> None:
    # V100 has no int8 tensor cores and the catalog lists no int8 figure for it.
    acc = catalog.get("V100-32GB-SXM2")
    assert acc.figure("tflops.int8") is None
    rates = {"fp32": 14.0, "fp16": 100.0, "fp64": 7.0, "int8": 50.0}
    backend = FakeBackend([FakeDevice(name=acc.name, capability="7.0", gemm_tflops=rates)])
    report = run(None, STANDARD, backend=backend, detected=fake_detected(acc.name))  # type: ignore[arg-type]
    int8 = next(g for g in report.gemm if g.dtype == "int8")
    assert int8.status == "unsupported"
    assert int8.note == f"not run: the catalog has no dense int8 figure for {acc.name}"
    assert backend.calls.get((0, "int8"), 0) == 0
    infos = [r for r in report.reasons if r.metric == "gemm.int8"]
    assert [(r.code, r.severity) for r in infos] == [(ReasonCode.DTYPE_UNSUPPORTED, Severity.INFO)]


def test_an_int8_miscompare_fails() -> None:
    rates = dict(FakeDevice().gemm_tflops) | {"int8": 1400.0}
    report = run(
        "H100-SXM",
        STANDARD,
        backend=FakeBackend([FakeDevice(gemm_tflops=rates, miscompare=frozenset({"int8"}))]),
        detected=fake_detected("H100-SXM"),  # type: ignore[arg-type]
    )
    assert report.verdict is Verdict.FAIL
    assert any(r.code is ReasonCode.MISCOMPARE and r.metric == "gemm.int8" for r in report.reasons)


def test_blackwell_runs_mxfp8_and_fp4_against_their_catalog_figures() -> None:
    acc = catalog.get("B200")
    peaks = dict(acc.tflops)
    assert (peaks["mxfp8"], peaks["fp4"]) == (4500, 9000)

    def b200(fp4_share: float) -> Any:
        rates = {d: 0.8 * peaks[d] for d in ("fp32", "tf32", "bf16", "fp16", "fp8", "fp64")}
        rates |= {"int8": 0.8 * peaks["int8"], "mxfp8": 0.8 * peaks["mxfp8"]}
        rates["fp4"] = fp4_share * peaks["fp4"]
        # Its best shape is larger than the H100's: at B200 rates the H100's (112 GFLOP) runs
        # 31 us in fp8, too short to time alone (accelerators.bench.measure._gemm).
        device = FakeDevice(
            name="NVIDIA B200",
            capability="10.0",
            compute_units=148,
            gemm_tflops=rates,
            optimum=Shape(4096, 4096, 16384),
        )
        return run(
            "B200",
            STANDARD,
            backend=FakeBackend([device]),
            detected=fake_detected("B200"),  # type: ignore[arg-type]
        )

    report = b200(0.8)
    by_dtype = {g.dtype: g for g in report.gemm}
    for dtype in ("mxfp8", "fp4"):
        assert by_dtype[dtype].status == "measured"
        assert by_dtype[dtype].peak_tflops == pytest.approx(peaks[dtype])
        assert by_dtype[dtype].correct is True
    assert not [r for r in report.reasons if r.code is ReasonCode.GEMM_SLOW]
    slow = b200(0.2)
    (reason,) = [r for r in slow.reasons if r.code is ReasonCode.GEMM_SLOW]
    assert reason.metric == "gemm.fp4"
    assert reason.severity in (Severity.WARN, Severity.FAIL)


def test_quick_measures_fp16_only_where_bf16_does_not_stand_for_it() -> None:
    """fp16 and bf16 share an H100-SXM's matrix units at one datasheet rate: quick measures bf16
    and says why fp16 was not run; standard measures both; a V100 (no bf16) gets fp16."""
    quick = run("H100-SXM", backend=FakeBackend([FakeDevice()]), detected=fake_detected("H100-SXM"))
    fp16 = next(g for g in quick.gemm if g.dtype == "fp16")
    assert fp16.status == "unsupported"
    assert "same (989.5 TFLOPS" in (fp16.note or "")
    assert "the standard profile measures both" in (fp16.note or "")
    assert next(g for g in quick.gemm if g.dtype == "bf16").status == "measured"
    assert quick.verdict is Verdict.PASS, quick.reasons
    standard = run(
        "H100-SXM",
        STANDARD,
        backend=FakeBackend([FakeDevice()]),
        detected=fake_detected("H100-SXM"),
    )
    assert next(g for g in standard.gemm if g.dtype == "fp16").status == "measured"
    v100 = FakeDevice(
        name="Tesla V100-SXM2-32GB",
        capability="7.0",
        compute_units=80,
        unsupported={
            "bf16": "no bf16 before compute capability 8.0",
            "fp8": "none",
            "tf32": "none",
        },
        gemm_tflops={"fp32": 14.0, "fp16": 100.0},
    )
    old = run("V100", backend=FakeBackend([v100]), detected=fake_detected("V100-SXM2-32GB"))
    assert next(g for g in old.gemm if g.dtype == "fp16").status == "measured"
