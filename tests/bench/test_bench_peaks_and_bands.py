"""Datasheet peaks per device (MIG, GCDs, CPUs) and the sourced bands data file."""

from __future__ import annotations

import dataclasses

import pytest
from bench_helpers import catalog_device

from accelerators import catalog
from accelerators.bench.expect._bands import band_for, bands, devices_per_package
from accelerators.bench.expect._peaks import cpu_gemm_peak, device_gemm_peak, device_memory_peak
from accelerators.detect import CpuInfo

ZEN3 = CpuInfo(
    model_name="AMD EPYC",
    vendor="amd",
    logical_cpus=2,
    physical_cores=2,
    flags=frozenset({"avx", "avx2", "fma"}),
    l1d_bytes=32 << 10,
    l2_bytes=512 << 10,
    l3_bytes=32 << 20,
    max_mhz=2250.0,
    family=25,
    model=1,
)


# -- GPU peaks -----------------------------------------------------------------------------
def test_whole_gpu_peaks_are_the_catalog_figures() -> None:
    h100 = catalog_device("H100-SXM")
    peak = device_gemm_peak(h100, "bf16")
    assert peak is not None
    assert peak.value == pytest.approx(989.5)
    figure = catalog.get("H100-SXM").figure("tflops.bf16")
    assert figure is not None
    assert (peak.source, peak.confidence) == (figure.source, figure.confidence)
    memory = device_memory_peak(h100)
    assert memory is not None
    assert memory.value == pytest.approx(3350.0)
    assert device_gemm_peak(h100, "int4") is None


def test_mig_peaks_scale_with_sm_fraction_and_memory_slices() -> None:
    slice_ = catalog_device("H100-SXM", "1g.10gb")
    compute = device_gemm_peak(slice_, "bf16")
    memory = device_memory_peak(slice_)
    assert compute is not None
    assert memory is not None
    assert compute.value == pytest.approx(989.5 * 0.142857)  # no SM count: nominal g/7
    assert compute.note is not None
    assert "nominal" in compute.note
    assert memory.value == pytest.approx(3350.0 / 8)
    reported = device_gemm_peak(slice_, "bf16", sms=16)
    assert reported is not None
    assert reported.value == pytest.approx(989.5 * 16 / 132)
    assert reported.note is not None
    assert "16/132 SMs" in reported.note
    assert compute.confidence == memory.confidence == "derived"
    three = device_gemm_peak(catalog_device("A100-40GB-SXM", "3g.20gb"), "bf16")
    profile = catalog.get("A100-40GB-SXM").mig_profile("3g.20gb")
    assert profile is not None
    assert three is not None
    assert three.value == pytest.approx(312.0 * profile.sm_fraction)


def test_an_unknown_mig_profile_has_no_peak() -> None:
    assert device_gemm_peak(catalog_device("H100-SXM", "9g.99gb"), "bf16") is None


@pytest.mark.parametrize(("name", "devices"), [("MI250X", 2), ("MI250", 2), ("K80", 2), ("M60", 2)])
def test_multi_device_packages_are_split(name: str, devices: int) -> None:
    acc = catalog.get(name)
    assert devices_per_package(acc.name) == devices
    dtype = "bf16" if "bf16" in acc.tflops else "fp32"
    peak = device_gemm_peak(catalog_device(name), dtype)
    assert peak is not None
    assert peak.value == pytest.approx(acc.tflops[dtype] / devices)
    memory = device_memory_peak(catalog_device(name))
    assert memory is not None
    assert memory.value == pytest.approx(acc.bandwidth_tbps * 1000 / devices)


def test_single_device_packages_are_not_split() -> None:
    assert devices_per_package("H100-SXM") == 1


# -- CPU peaks -----------------------------------------------------------------------------
def test_cpu_peak_from_fma_width_cores_and_clock() -> None:
    peak = cpu_gemm_peak(ZEN3, "fp32")
    assert peak is not None
    assert peak.value == pytest.approx(32 * 2 * 2250e6 / 1e12)
    assert peak.confidence == "unconfirmed"
    fp64 = cpu_gemm_peak(ZEN3, "fp64")
    assert fp64 is not None
    assert fp64.value == pytest.approx(peak.value / 2)


def test_cpu_bf16_needs_its_isa() -> None:
    assert cpu_gemm_peak(ZEN3, "bf16") is None
    zen4 = dataclasses.replace(ZEN3, flags=ZEN3.flags | {"avx512f", "avx512_bf16"}, model=0x11)
    bf16 = cpu_gemm_peak(zen4, "bf16")
    assert bf16 is not None
    assert bf16.value == pytest.approx(64 * 2 * 2250e6 / 1e12)
    spr = dataclasses.replace(
        ZEN3, vendor="intel", family=6, flags=frozenset({"avx2", "fma", "avx512f", "amx_bf16"})
    )
    amx = cpu_gemm_peak(spr, "bf16")
    assert amx is not None
    assert amx.value == pytest.approx(1024 * 2 * 2250e6 / 1e12)


def test_cpu_peak_unknown_without_clock_or_known_isa() -> None:
    assert cpu_gemm_peak(dataclasses.replace(ZEN3, max_mhz=None), "fp32") is None
    old = dataclasses.replace(ZEN3, vendor="intel", family=6, flags=frozenset({"sse2"}))
    assert cpu_gemm_peak(old, "fp32") is None


def test_zen2_and_zen1_differ() -> None:
    zen2 = dataclasses.replace(ZEN3, family=23, model=0x31)
    zen1 = dataclasses.replace(ZEN3, family=23, model=0x01)
    p2, p1 = cpu_gemm_peak(zen2, "fp32"), cpu_gemm_peak(zen1, "fp32")
    assert p2 is not None
    assert p1 is not None
    assert p2.value == pytest.approx(2 * p1.value)


# -- the bands file ------------------------------------------------------------------------
def test_bands_file_loads_with_dcgm_thresholds() -> None:
    data = bands()
    assert data.thresholds.fail_below == 0.75
    assert data.thresholds.fail_source == "dcgm-diag-skus"
    assert data.thresholds.fail_below < data.thresholds.warn_below < 1


def test_every_band_and_package_names_a_catalog_accelerator() -> None:
    names = [b.accelerator for b in bands().band if b.accelerator] + [
        p.accelerator for p in bands().package
    ]
    for name in names:
        assert catalog.get(name).name == name


def test_published_figures_are_the_bands() -> None:
    h100_bf16 = band_for("gemm.bf16", accelerator="H100-SXM", vendor="nvidia", device_class="gpu")
    assert h100_bf16 is not None
    assert h100_bf16.fraction == pytest.approx(794.5 / 989, abs=0.001)
    triad = band_for("memory.triad", accelerator="H100-SXM", vendor="nvidia", device_class="gpu")
    assert triad is not None
    assert triad.fraction == pytest.approx(2.97 / 3.35, abs=0.001)


def test_band_resolution_prefers_the_most_specific_row() -> None:
    # H200-SXM has memory.* and memory.triad rows: the exact metric wins for triad.
    h200 = band_for("memory.triad", accelerator="H200-SXM", vendor="nvidia", device_class="gpu")
    h200_copy = band_for("memory.copy", accelerator="H200-SXM", vendor="nvidia", device_class="gpu")
    assert h200 is not None
    assert h200_copy is not None
    assert (h200.fraction, h200_copy.fraction) == (0.865, 0.833)
    # An NVIDIA GPU without its own row gets the vendor default.
    l4 = band_for("gemm.bf16", accelerator="L4", vendor="nvidia", device_class="gpu")
    assert l4 is not None
    assert l4.vendor == "nvidia"
    # A device of no known vendor gets the unconfirmed fallback.
    other = band_for("gemm.bf16", accelerator=None, vendor=None, device_class="gpu")
    assert other is not None
    assert other.confidence == "unconfirmed"


def test_cpu_bands_cover_gemm_only() -> None:
    gemm = band_for("gemm.fp32", accelerator=None, vendor=None, device_class="cpu")
    assert gemm is not None
    assert gemm.device_class == "cpu"
    assert band_for("memory.triad", accelerator=None, vendor=None, device_class="cpu") is None


def test_throttle_policy() -> None:
    policy = bands().throttle
    assert policy.severity("hw_slowdown") == "fail"
    assert policy.severity("sw_thermal_slowdown") == "warn"
    assert policy.severity("sw_power_cap") == "info"
    assert policy.severity("something_new") == "warn"
