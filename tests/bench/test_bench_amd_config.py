"""AMD power cap, GFX clock limits, PCIe and XGMI read through a fake AMD SMI (issue 11)."""

from __future__ import annotations

from typing import Any

import pytest
from amd_fakes import FakeAmdSmi, not_supported

from accelerators.bench import ReasonCode, Severity, Verdict, run
from accelerators.bench.device._amd_config import read_amd_config
from accelerators.bench.device._config import config_reasons
from accelerators.bench.report._config import DeviceConfigRecord
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected
from accelerators.detect import _amdsmi


def _codes(reasons: list[Any]) -> list[tuple[ReasonCode, Severity]]:
    return [(r.code, r.severity) for r in reasons]


def _read(**figures: Any) -> DeviceConfigRecord:
    amdsmi = FakeAmdSmi(figures)
    return read_amd_config(amdsmi, amdsmi.handles[0])


def test_a_healthy_mi300x_reads_every_figure_and_gives_no_reason() -> None:
    config = _read()
    assert config == DeviceConfigRecord(
        source="amdsmi",
        power_limit_w=750.0,
        default_power_limit_w=750.0,
        max_sm_clock_mhz=2100.0,
        gfx_clock_max_mhz=2100.0,
        gfx_clock_limit_mhz=2100.0,
        gfx_clock_locked=False,
        pcie_generation=5,
        pcie_max_generation=5,
        pcie_width=16,
        pcie_max_width=16,
        xgmi_links_up=7,
        xgmi_links_down=(),
    )
    assert config_reasons(config, 0) == []


def test_a_lowered_power_cap_warns_with_the_figures() -> None:
    reasons = config_reasons(_read(power_cap_uw=500_000_000), 2)
    assert _codes(reasons) == [(ReasonCode.POWER_LIMIT_LOW, Severity.WARN)]
    assert reasons[0].message == (
        "device 2: power limit 500 W is below the board default 750 W (67%): "
        "the GPU cannot reach its datasheet rate"
    )


def test_a_soft_maximum_gfx_clock_warns_and_a_lock_alone_is_info() -> None:
    capped = config_reasons(_read(sclk_upper_hz=1_500_000_000, max_clk=1500), 0)
    assert _codes(capped) == [(ReasonCode.CLOCKS_LOCKED, Severity.WARN)]
    assert "GFX clock capped at 1500 MHz, below its 2100 MHz limit" in capped[0].message
    locked = config_reasons(_read(clk_locked=True), 0)
    assert _codes(locked) == [(ReasonCode.CLOCKS_LOCKED, Severity.INFO)]
    assert "clk_locked" in locked[0].message


def test_a_narrow_pcie_link_warns_but_an_idle_speed_does_not() -> None:
    idle = _read(pcie_speed=2500)
    assert idle.pcie_generation == 1
    assert config_reasons(idle, 0) == []
    narrow = config_reasons(_read(pcie_width=8), 0)
    assert _codes(narrow) == [(ReasonCode.PCIE_DEGRADED, Severity.WARN)]
    assert "x8 of x16" in narrow[0].message


def test_a_down_xgmi_link_warns_and_a_card_without_xgmi_does_not() -> None:
    down = config_reasons(_read(xgmi=["U", "U", "D", "U", "U", "D", "U"]), 0)
    assert _codes(down) == [(ReasonCode.XGMI_DOWN, Severity.WARN)]
    assert "XGMI link(s) 2, 5 down, 5 up" in down[0].message
    disabled = _read(xgmi=["X"] * 7)
    assert (disabled.xgmi_links_up, disabled.xgmi_links_down) == (0, ())
    assert config_reasons(disabled, 0) == []
    pcie_card = _read(xgmi=not_supported())
    assert pcie_card.xgmi_links_up is None
    assert "AMDSMI_STATUS_NOT_SUPPORTED" in pcie_card.unreadable["xgmi"]
    assert config_reasons(pcie_card, 0) == []  # no XGMI is not a finding


def test_unreadable_figures_are_reported_not_raised() -> None:
    amdsmi = FakeAmdSmi(
        {"power_cap_uw": not_supported(), "pcie_width": "N/A"},
        missing=("amdsmi_get_gpu_xgmi_link_status",),  # a library before ROCm 6.4
    )
    config = read_amd_config(amdsmi, amdsmi.handles[0])
    assert config.power_limit_w is None
    assert config.default_power_limit_w is None
    assert config.unreadable["power_limit"].startswith(
        "amdsmi_get_power_cap_info: AmdSmiLibraryException: Error code:"
    )
    assert config.unreadable["pcie_width"] == "amdsmi_get_pcie_info: N/A"
    assert "AttributeError" in config.unreadable["xgmi"]
    assert config.pcie_max_width == 16  # the rest is still read
    reasons = config_reasons(config, 0)
    assert _codes(reasons) == [(ReasonCode.CONFIG_UNAVAILABLE, Severity.INFO)]
    assert "power_limit (amdsmi_get_power_cap_info" in reasons[0].message
    assert "xgmi" not in reasons[0].message


def test_the_record_round_trips_through_json() -> None:
    config = _read(xgmi=["U", "D"], sclk_upper_hz=1_800_000_000)
    again = DeviceConfigRecord.model_validate_json(config.model_dump_json())
    assert again == config
    assert again.xgmi_links_down == (1,)


# -- through the gate ----------------------------------------------------------------------
def _mi300x(**changes: Any) -> FakeDevice:
    """A whole MI300X at 60 % of its datasheet rates (as in the CPX partition test)."""
    rates = {"fp32": 163.4 * 0.6, "bf16": 1307.4 * 0.6, "fp16": 1307.4 * 0.6, "fp8": 2614.9 * 0.6}
    values: dict[str, Any] = {
        "name": "AMD Instinct MI300X",
        "kind": "rocm",
        "compute_units": 304,
        "capability": "gfx942",
        "gemm_tflops": rates,
        "optimum": None,
        "unsupported": {"tf32": "TF32 through torch is not measured on ROCm"},
        "memory_bytes": 192 << 30,
        "bandwidth_gbps": dict.fromkeys(("copy", "scale", "add", "triad", "dot"), 4200.0),
    }
    return FakeDevice(**(values | changes))


def _gate(monkeypatch: pytest.MonkeyPatch, amdsmi: object, count: int = 1) -> Any:
    monkeypatch.setattr(_amdsmi, "amdsmi_loader", lambda: amdsmi)
    monkeypatch.delenv("HIP_VISIBLE_DEVICES", raising=False)
    monkeypatch.delenv("ROCR_VISIBLE_DEVICES", raising=False)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    return run(
        f"MI300X:{count}",
        backend=FakeBackend([_mi300x() for _ in range(count)]),
        detected=fake_detected("MI300X", count=count),  # type: ignore[arg-type]
    )


def test_the_gate_warns_on_a_power_capped_mi300x(monkeypatch: pytest.MonkeyPatch) -> None:
    amdsmi = FakeAmdSmi({"power_cap_uw": 450_000_000})
    report = _gate(monkeypatch, amdsmi)
    device = report.devices[0]
    assert device.config is not None
    assert device.config.source == "amdsmi"
    assert device.config.power_limit_w == 450.0
    assert amdsmi.inits == amdsmi.shutdowns == 1
    assert report.verdict is Verdict.WARN, report.reasons
    assert [r.code for r in report.reasons_at_least(Severity.WARN)] == [ReasonCode.POWER_LIMIT_LOW]
    again = type(report).model_validate_json(report.model_dump_json())
    assert again.devices[0].config == device.config


def test_the_gate_passes_a_healthy_mi300x(monkeypatch: pytest.MonkeyPatch) -> None:
    report = _gate(monkeypatch, FakeAmdSmi())
    assert report.verdict is Verdict.PASS, report.reasons
    assert report.devices[0].config is not None


def test_each_device_reads_its_own_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    amdsmi = FakeAmdSmi({}, {"xgmi": ["U"] * 5 + ["D", "D"]})
    report = _gate(monkeypatch, amdsmi, count=2)
    xgmi = [r for r in report.reasons if r.code is ReasonCode.XGMI_DOWN]
    assert [r.device_index for r in xgmi] == [1]
    assert report.devices[0].config.xgmi_links_down == ()


def test_a_hidden_device_order_is_not_guessed(monkeypatch: pytest.MonkeyPatch) -> None:
    amdsmi = FakeAmdSmi({}, {"power_cap_uw": 300_000_000})
    monkeypatch.setattr(_amdsmi, "amdsmi_loader", lambda: amdsmi)
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "1")
    report = run(
        "MI300X",
        backend=FakeBackend([_mi300x()]),
        detected=fake_detected("MI300X"),  # type: ignore[arg-type]
    )
    info = [r for r in report.reasons if r.code is ReasonCode.CONFIG_UNAVAILABLE]
    assert len(info) == 1
    assert "no AMD SMI handle" in info[0].message
    assert report.devices[0].config is None


def test_a_bdf_from_detection_picks_the_handle(monkeypatch: pytest.MonkeyPatch) -> None:
    amdsmi = FakeAmdSmi({}, {"power_cap_uw": 300_000_000})
    monkeypatch.setattr(_amdsmi, "amdsmi_loader", lambda: amdsmi)
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "1")  # the order is hidden, the address is not
    detected = fake_detected("MI300X", per_device=[{"extra": {"bdf": "0000:1c:00.0"}}])
    report = run("MI300X", backend=FakeBackend([_mi300x()]), detected=detected)  # type: ignore[arg-type]
    assert report.devices[0].config.power_limit_w == 300.0  # type: ignore[union-attr]
    assert ReasonCode.POWER_LIMIT_LOW in {r.code for r in report.reasons}


@pytest.mark.parametrize(
    ("loader", "said"),
    [
        (lambda: FakeAmdSmi(init=not_supported()), "amdsmi_init failed (AmdSmiLibraryException"),
        (lambda: (_ for _ in ()).throw(OSError("libamd_smi.so: cannot open")), "libamd_smi.so"),
    ],
    ids=["init-fails", "library-missing"],
)
def test_an_unusable_amd_smi_is_an_info_reason(
    monkeypatch: pytest.MonkeyPatch, loader: Any, said: str
) -> None:
    monkeypatch.setattr(_amdsmi, "amdsmi_loader", loader)
    report = run(
        "MI300X",
        backend=FakeBackend([_mi300x()]),
        detected=fake_detected("MI300X"),  # type: ignore[arg-type]
    )
    assert report.verdict is Verdict.PASS
    infos = [r for r in report.reasons if r.code is ReasonCode.CONFIG_UNAVAILABLE]
    assert len(infos) == 1
    assert said in infos[0].message
    assert report.devices[0].config is None


def test_a_missing_amdsmi_package_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_amdsmi, "amdsmi_loader", None)

    def no_amdsmi(name: str) -> Any:
        raise ImportError(name)

    monkeypatch.setattr("importlib.import_module", no_amdsmi)
    assert _amdsmi.load_amdsmi() == (
        None,
        "the amdsmi Python library (ROCm's AMD SMI) is not installed",
    )


def test_fake_backends_without_an_amdsmi_hook_read_nothing() -> None:
    report = run(
        "MI300X",
        backend=FakeBackend([_mi300x()]),
        detected=fake_detected("MI300X"),  # type: ignore[arg-type]
    )
    assert report.devices[0].config is None
    assert not [r for r in report.reasons if r.code is ReasonCode.CONFIG_UNAVAILABLE]
