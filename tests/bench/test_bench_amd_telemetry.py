"""AMD telemetry: the ROCm probe reads AMD SMI, and the gate samples it through the run."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from amd_fakes import FakeAmdSmi, not_supported, rocm_torch

from accelerators import catalog
from accelerators.bench import ReasonCode, Severity, Verdict, run
from accelerators.bench.device import _telemetry
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected
from accelerators.detect import Detected, current
from accelerators.detect._amdsmi import throttle_names
from accelerators.detect._rocm import RocmProbe

MI300X = catalog.get("MI300X")


@pytest.fixture(autouse=True)
def _fast_sampling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_telemetry, "SAMPLE_INTERVAL_S", 0.001)


def _probe(amdsmi: Any, count: int = 1, *, pci: bool = True, env: Any = None) -> Detected:
    probe = RocmProbe(torch=rocm_torch(count, pci=pci), amdsmi=amdsmi, env=env or {})
    return current(probes=[probe])


def test_the_probe_reads_clocks_power_temperature_and_ecc() -> None:
    found = _probe(FakeAmdSmi({}, {"clk": 1900, "hotspot_c": 80}), count=2)
    assert found.accelerator == MI300X
    first, second = found.devices
    assert dict(first.clocks_mhz) == {"sm": 2100.0, "gfx_max": 2100.0, "mem": 1300.0}
    assert (first.temperature_c, first.power_w, first.power_limit_w) == (71.0, 690.0, 750.0)
    assert (first.ecc_errors, first.throttle_reasons) == (0, ())
    assert first.extra["bdf"] == "0000:0c:00.0"
    assert "telemetry_error" not in first.extra
    # The second torch device is the GPU at the second PCI address, not a copy of the first.
    assert (second.clocks_mhz["sm"], second.temperature_c) == (1900.0, 80.0)
    assert second.extra["bdf"] == "0000:1c:00.0"


def test_pci_addresses_pair_devices_whatever_amd_smi_order() -> None:
    amdsmi = FakeAmdSmi({"bdf": "0000:1c:00.0", "clk": 1700}, {"bdf": "0000:0c:00.0"})
    first = _probe(amdsmi, env={"HIP_VISIBLE_DEVICES": "0"}).devices[0]
    assert first.extra["bdf"] == "0000:0c:00.0"
    assert first.clocks_mhz["sm"] == 2100.0  # AMD SMI's second handle, torch's device 0


def _flags(default: Any = False, **active: Any) -> dict[str, Any]:
    """An ``amdsmi_get_violation_status`` answer: every ``active_*`` flag, some overridden."""
    names = (
        "prochot_thrm",
        "ppt_pwr",
        "socket_thrm",
        "vr_thrm",
        "hbm_thrm",
        "gfx_clk_below_host_limit",
    )
    return {f"active_{n}": active.get(n, default) for n in names}


@pytest.mark.parametrize(
    ("violations", "throttle_status", "expected"),
    [
        (_flags(ppt_pwr=True, socket_thrm=True), "N/A", ("amd_ppt_power", "amd_socket_thermal")),
        (_flags(hbm_thrm=1, vr_thrm="N/A"), "N/A", ("amd_hbm_thermal",)),
        (_flags(gfx_clk_below_host_limit=[False, True]), "N/A", ("amd_gfx_clk_below_host_limit",)),
        (_flags(), 1, ()),  # the violation flags answer on MI300; throttle_status is N/A there
        (_flags("N/A"), 1, ("amd_throttle_status",)),  # MI100/MI200: every flag N/A
        (None, 0, ()),
        (None, "N/A", ()),
    ],
)
def test_throttle_names(
    violations: dict[str, Any] | None, throttle_status: Any, expected: Sequence[str]
) -> None:
    assert throttle_names(violations, throttle_status) == tuple(expected)


def test_a_library_without_violation_status_falls_back_to_throttle_status() -> None:
    amdsmi = FakeAmdSmi({"throttle_status": 1}, missing=("amdsmi_get_violation_status",))
    assert _probe(amdsmi).devices[0].throttle_reasons == ("amd_throttle_status",)


def test_a_failing_call_keeps_the_rest_and_names_the_error() -> None:
    device = _probe(FakeAmdSmi({"hotspot_c": not_supported(), "clk": 2000})).devices[0]
    # The metrics call raised: temperature and power are gone, the clock info remains.
    assert device.temperature_c is None
    assert device.power_w is None
    assert device.clocks_mhz["sm"] == 2000.0
    assert device.extra["telemetry_error"].startswith(
        "amdsmi_get_gpu_metrics_info: AmdSmiLibraryException"
    )


def test_without_amd_smi_the_devices_are_still_found_and_say_why() -> None:
    found = _probe(FakeAmdSmi(init=not_supported()))
    assert found.accelerator == MI300X
    device = found.devices[0]
    assert dict(device.clocks_mhz) == {}
    assert device.extra["telemetry_error"].startswith("amdsmi_init failed (")


def test_no_pci_address_and_a_hidden_order_are_not_guessed() -> None:
    amdsmi = FakeAmdSmi({}, {})
    hidden = _probe(amdsmi, pci=False, env={"HIP_VISIBLE_DEVICES": "1"}).devices[0]
    assert dict(hidden.clocks_mhz) == {}
    assert "no AMD SMI device matches it" in hidden.extra["telemetry_error"]
    same_list = _probe(amdsmi, count=2, pci=False).devices  # no variable, same count: position
    assert [d.clocks_mhz["sm"] for d in same_list] == [2100.0, 2100.0]


class _Runner:
    def __init__(self, answers: dict[str, tuple[int, str]]):
        self.answers = answers

    def __call__(self, argv: Sequence[str], timeout: float) -> tuple[int, str]:
        return self.answers.get(argv[0], (127, ""))


def test_amd_smi_cli_rows_use_its_gpu_index(tmp_path: Path) -> None:
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "kfd").touch()
    asic = {"market_name": "AMD Instinct MI300X", "device_id": "0x74a1"}
    vram = {"size": {"value": 196592, "unit": "MB"}}
    rows = json.dumps([{"gpu": i, "asic": asic, "vram": vram} for i in range(2)])
    amdsmi = FakeAmdSmi({}, {"clk": 1234})
    probe = RocmProbe(
        run=_Runner({"amd-smi": (0, rows)}),
        env={"HIP_VISIBLE_DEVICES": "1"},
        root=str(tmp_path),
        amdsmi=amdsmi,
    )
    (device,) = current(probes=[probe]).devices
    assert device.extra["tool"] == "amd-smi"
    assert device.clocks_mhz["sm"] == 1234.0


# -- through the gate ----------------------------------------------------------------------
def _mi300x() -> FakeDevice:
    rates = {"fp32": 163.4 * 0.6, "bf16": 1307.4 * 0.6, "fp16": 1307.4 * 0.6, "fp8": 2614.9 * 0.6}
    return FakeDevice(
        name="AMD Instinct MI300X",
        kind="rocm",
        compute_units=304,
        capability="gfx942",
        gemm_tflops=rates,
        optimum=None,
        unsupported={"tf32": "TF32 through torch is not measured on ROCm"},
        memory_bytes=192 << 30,
        bandwidth_gbps=dict.fromkeys(("copy", "scale", "add", "triad", "dot"), 4200.0),
    )


class _Switch:
    """The fake AMD SMI's figures change after the first ``reads`` telemetry reads."""

    def __init__(self, healthy: FakeAmdSmi, later: FakeAmdSmi, reads: int = 1):
        self.healthy, self.later, self.reads, self.calls = healthy, later, reads, 0

    def __call__(self) -> Detected:
        self.calls += 1
        amdsmi = self.healthy if self.calls <= self.reads else self.later
        return _probe(amdsmi)


def _gate(sample: Any) -> Any:
    return run(
        "MI300X",
        backend=FakeBackend([_mi300x()]),
        detected=fake_detected("MI300X"),  # type: ignore[arg-type]
        sample=sample,
    )


def test_the_gate_samples_amd_telemetry_through_the_run() -> None:
    sample = _Switch(FakeAmdSmi(), FakeAmdSmi({"violations": {"active_socket_thrm": True}}))
    report = _gate(sample)
    device = report.devices[0]
    assert sample.calls > 1
    assert device.telemetry_samples == sample.calls
    assert device.throttle_reasons == ("amd_socket_thermal",)
    throttled = [r for r in report.reasons if r.code is ReasonCode.THROTTLED]
    assert [(r.severity, r.metric) for r in throttled] == [
        (Severity.WARN, "throttle.amd_socket_thermal")
    ]


def test_a_power_capped_gemm_clock_is_not_clocks_low() -> None:
    # AMD's MAF blog: a healthy MI300X runs BF16 GEMMs at a median 1207 MHz of its 2100 MHz
    # peak (57 %), under the 70 % that clocks_low applies to NVIDIA's SM clock.
    sample = _Switch(FakeAmdSmi(), FakeAmdSmi({"clk": 1207}), reads=0)
    report = _gate(sample)
    assert not [r for r in report.reasons if r.code is ReasonCode.CLOCKS_LOW]
    assert report.devices[0].clocks_mhz["sm"] == 1207.0
    assert report.verdict is Verdict.PASS, report.reasons


def test_a_healthy_mi300x_passes_with_its_telemetry() -> None:
    report = _gate(lambda: _probe(FakeAmdSmi()))
    assert report.verdict is Verdict.PASS, report.reasons
    assert report.devices[0].telemetry_samples > 1
    assert not [r for r in report.reasons if r.code is ReasonCode.TELEMETRY_UNAVAILABLE]


def test_unreadable_amd_telemetry_is_reported_with_amd_smis_error() -> None:
    report = _gate(lambda: _probe(FakeAmdSmi(init=not_supported())))
    reason = next(r for r in report.reasons if r.code is ReasonCode.TELEMETRY_UNAVAILABLE)
    assert reason.severity is Severity.INFO
    assert "amdsmi_init failed (AmdSmiLibraryException" in reason.message
    assert "not judged" in reason.message
    assert report.verdict is Verdict.PASS


@pytest.mark.parametrize(
    ("violation", "severity", "verdict"),
    [
        # The package power limit reached under a dense GEMM: AMD's sw_power_cap, informative.
        ("active_ppt_pwr", Severity.INFO, Verdict.PASS),
        ("active_hbm_thrm", Severity.WARN, Verdict.WARN),
        # PROCHOT: the hardware thermal emergency, as NVIDIA's hw_thermal_slowdown.
        ("active_prochot_thrm", Severity.FAIL, Verdict.FAIL),
    ],
)
def test_amd_violations_are_judged_by_the_throttle_policy(
    violation: str, severity: Severity, verdict: Verdict
) -> None:
    sample = _Switch(FakeAmdSmi(), FakeAmdSmi({"violations": {violation: True}}))
    report = _gate(sample)
    (throttled,) = [r for r in report.reasons if r.code is ReasonCode.THROTTLED]
    assert throttled.severity is severity
    assert report.verdict is verdict, report.reasons
