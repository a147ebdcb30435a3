"""Power limit, application clocks, PCIe and NVLink read through a fake NVML (issue 11)."""

from __future__ import annotations

from typing import Any

import pytest

from accelerators.bench import ReasonCode, Severity, Verdict, run
from accelerators.bench.device import _config as device_config
from accelerators.bench.device._config import config_reasons, read_config
from accelerators.bench.report._config import DeviceConfigRecord
from accelerators.bench.testing import FakeBackend, FakeDevice, fake_detected

UUID = "GPU-aaaaaaaa-0000-0000-0000-000000000000"


class NVMLError(Exception):
    pass


class NotSupported(NVMLError):
    def __str__(self) -> str:
        return "Not Supported"


class FakeNvml:
    """The pynvml functions the config check calls, over planted figures (a healthy H100 SXM)."""

    NVML_CLOCK_SM = 1
    NVML_NVLINK_MAX_LINKS = 18

    def __init__(self, **figures: Any):
        self.figures: dict[str, Any] = {
            "power_limit_mw": 700_000,
            "default_power_limit_mw": 700_000,
            "app_clock": 1980,
            "default_app_clock": 1980,
            "max_clock": 1980,
            "gen": 5,
            "max_gen": 5,
            "gpu_max_gen": 5,
            "width": 16,
            "max_width": 16,
            "links": [1] * 18,
        }
        self.figures.update(figures)
        self.handles: list[str] = []
        self.inits = self.shutdowns = 0

    def _value(self, key: str) -> Any:
        value = self.figures[key]
        if isinstance(value, Exception):
            raise value
        return value

    def nvmlInit(self) -> None:
        self.inits += 1
        if isinstance(self.figures.get("init"), Exception):
            raise self.figures["init"]

    def nvmlShutdown(self) -> None:
        self.shutdowns += 1

    def nvmlDeviceGetHandleByUUID(self, uuid: str) -> str:
        self.handles.append(uuid)
        return uuid

    def nvmlDeviceGetHandleByIndex(self, index: int) -> str:
        self.handles.append(f"index {index}")
        return f"index {index}"

    def nvmlDeviceGetDeviceHandleFromMigDeviceHandle(self, handle: str) -> str:
        self.handles.append(f"parent of {handle}")
        return f"parent of {handle}"

    def nvmlDeviceGetEnforcedPowerLimit(self, handle: str) -> int:
        if handle.startswith("MIG-"):
            raise NotSupported()
        return self._value("power_limit_mw")

    def nvmlDeviceGetPowerManagementDefaultLimit(self, handle: str) -> int:
        return self._value("default_power_limit_mw")

    def nvmlDeviceGetApplicationsClock(self, handle: str, clock: int) -> int:
        assert clock == self.NVML_CLOCK_SM
        return self._value("app_clock")

    def nvmlDeviceGetDefaultApplicationsClock(self, handle: str, clock: int) -> int:
        return self._value("default_app_clock")

    def nvmlDeviceGetMaxClockInfo(self, handle: str, clock: int) -> int:
        return self._value("max_clock")

    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle: str) -> int:
        return self._value("gen")

    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle: str) -> int:
        return self._value("max_gen")

    def nvmlDeviceGetGpuMaxPcieLinkGeneration(self, handle: str) -> int:
        return self._value("gpu_max_gen")

    def nvmlDeviceGetCurrPcieLinkWidth(self, handle: str) -> int:
        return self._value("width")

    def nvmlDeviceGetMaxPcieLinkWidth(self, handle: str) -> int:
        return self._value("max_width")

    def nvmlDeviceGetNvLinkState(self, handle: str, link: int) -> int:
        links = self._value("links")
        if link >= len(links):
            raise NVMLError("Invalid Argument")
        return links[link]


def _codes(reasons: list[Any]) -> list[tuple[ReasonCode, Severity]]:
    return [(r.code, r.severity) for r in reasons]


def test_a_healthy_gpu_reads_every_figure_and_gives_no_reason() -> None:
    config = read_config(FakeNvml(), "h")
    assert config == DeviceConfigRecord(
        source="nvml",
        power_limit_w=700.0,
        default_power_limit_w=700.0,
        app_sm_clock_mhz=1980.0,
        default_app_sm_clock_mhz=1980.0,
        max_sm_clock_mhz=1980.0,
        pcie_generation=5,
        pcie_max_generation=5,
        pcie_gpu_max_generation=5,
        pcie_width=16,
        pcie_max_width=16,
        nvlinks_up=18,
        nvlinks_down=(),
    )
    assert config_reasons(config, 0) == []


def test_a_lowered_power_limit_warns_with_the_figures() -> None:
    reasons = config_reasons(read_config(FakeNvml(power_limit_mw=500_000), "h"), 3)
    assert _codes(reasons) == [(ReasonCode.POWER_LIMIT_LOW, Severity.WARN)]
    assert reasons[0].message == (
        "device 3: power limit 500 W is below the board default 700 W (71%): "
        "the GPU cannot reach its datasheet rate"
    )


def test_application_clocks_below_default_warn() -> None:
    reasons = config_reasons(read_config(FakeNvml(app_clock=1410), "h"), 0)
    assert _codes(reasons) == [(ReasonCode.CLOCKS_LOCKED, Severity.WARN)]
    assert "1410 MHz, below its default 1980 MHz, max 1980 MHz" in reasons[0].message


def test_a_narrow_pcie_link_warns_but_an_idle_generation_does_not() -> None:
    idle = config_reasons(read_config(FakeNvml(gen=1), "h"), 0)
    assert idle == []  # an idle link drops to Gen1 to save power
    narrow = config_reasons(read_config(FakeNvml(width=8), "h"), 0)
    assert _codes(narrow) == [(ReasonCode.PCIE_DEGRADED, Severity.WARN)]
    assert "x8 of x16" in narrow[0].message


def test_a_slot_that_caps_the_generation_warns() -> None:
    reasons = config_reasons(read_config(FakeNvml(max_gen=4, gen=4), "h"), 0)
    assert _codes(reasons) == [(ReasonCode.PCIE_DEGRADED, Severity.WARN)]
    assert "Gen4 only, the GPU supports Gen5" in reasons[0].message


def test_a_down_nvlink_warns_and_a_card_without_links_does_not() -> None:
    links = [1] * 18
    links[4] = links[11] = 0
    reasons = config_reasons(read_config(FakeNvml(links=links), "h"), 0)
    assert _codes(reasons) == [(ReasonCode.NVLINK_DOWN, Severity.WARN)]
    assert "link(s) 4, 11 down, 16 up" in reasons[0].message
    bridge_absent = read_config(FakeNvml(links=[0] * 18), "h")
    assert bridge_absent.nvlinks_up == 0
    assert config_reasons(bridge_absent, 0) == []
    pcie_card = read_config(FakeNvml(links=NotSupported()), "h")
    assert pcie_card.nvlinks_up is None
    assert config_reasons(pcie_card, 0) == []


class OldNvml:
    """A pynvml without ``nvmlDeviceGetGpuMaxPcieLinkGeneration`` (added in later versions)."""

    def __init__(self, inner: FakeNvml):
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        if name == "nvmlDeviceGetGpuMaxPcieLinkGeneration":
            raise AttributeError(name)
        return getattr(self.inner, name)


def test_unreadable_figures_are_reported_not_raised() -> None:
    nvml = FakeNvml(power_limit_mw=NotSupported(), default_power_limit_mw=NotSupported())
    config = read_config(OldNvml(nvml), "h")
    assert config.power_limit_w is None
    assert config.default_power_limit_w is None
    why = "nvmlDeviceGetEnforcedPowerLimit: NotSupported: Not Supported"
    assert config.unreadable["power_limit"] == why
    assert "AttributeError" in config.unreadable["pcie_gpu_max_generation"]
    assert config.pcie_width == 16  # the rest is still read
    reasons = config_reasons(config, 0)
    assert _codes(reasons) == [(ReasonCode.CONFIG_UNAVAILABLE, Severity.INFO)]
    assert "power_limit (nvmlDeviceGetEnforcedPowerLimit" in reasons[0].message


# -- through the gate ----------------------------------------------------------------------
def _gate(monkeypatch: pytest.MonkeyPatch, nvml: object) -> Any:
    monkeypatch.setattr(device_config, "nvml_loader", lambda: nvml)
    return run(
        "H100-SXM",
        backend=FakeBackend([FakeDevice(uuid=UUID[4:])]),
        detected=fake_detected("H100-SXM", uuids=[UUID]),  # type: ignore[arg-type]
    )


def test_the_gate_reports_the_config_and_warns_on_a_power_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nvml = FakeNvml(power_limit_mw=400_000)
    report = _gate(monkeypatch, nvml)
    device = report.devices[0]
    assert device.config is not None
    assert device.config.power_limit_w == 400.0
    assert nvml.handles == [UUID]  # matched by UUID, not position
    assert nvml.inits == nvml.shutdowns == 1
    assert report.verdict is Verdict.WARN
    assert [r.code for r in report.reasons_at_least(Severity.WARN)] == [ReasonCode.POWER_LIMIT_LOW]
    again = type(report).model_validate_json(report.model_dump_json())
    assert again.devices[0].config == device.config


def test_the_gate_passes_a_healthy_config(monkeypatch: pytest.MonkeyPatch) -> None:
    report = _gate(monkeypatch, FakeNvml())
    assert report.verdict is Verdict.PASS, report.reasons
    assert report.devices[0].config is not None


def test_nvml_that_cannot_start_is_an_info_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    report = _gate(monkeypatch, FakeNvml(init=NVMLError("Driver Not Loaded")))
    assert report.verdict is Verdict.PASS
    infos = [r for r in report.reasons if r.code is ReasonCode.CONFIG_UNAVAILABLE]
    assert len(infos) == 1
    assert "nvmlInit failed (NVMLError: Driver Not Loaded)" in infos[0].message
    assert report.devices[0].config is None


def test_fake_backends_without_an_nvml_hook_read_nothing() -> None:
    report = run(
        "H100-SXM",
        backend=FakeBackend([FakeDevice()]),
        detected=fake_detected("H100-SXM"),  # type: ignore[arg-type]
    )
    assert report.devices[0].config is None
    assert not [r for r in report.reasons if r.code is ReasonCode.CONFIG_UNAVAILABLE]


def test_missing_pynvml_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(device_config, "nvml_loader", None)

    def no_pynvml(name: str) -> Any:
        raise ImportError(name)

    monkeypatch.setattr(device_config.importlib, "import_module", no_pynvml)
    nvml, why = device_config._load()
    assert nvml is None
    assert why == "pynvml (nvidia-ml-py) is not installed"


def test_a_mig_slice_reads_its_parent_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    nvml = FakeNvml(power_limit_mw=450_000)
    monkeypatch.setattr(device_config, "nvml_loader", lambda: nvml)
    mig_uuid = "MIG-cccccccc-0000-0000-0000-000000000000"
    share = 16 / 132
    tensor = {d: r * share for d, r in FakeDevice().gemm_tflops.items() if d != "fp32"}
    report = run(
        "H100-SXM@1g.10gb",
        backend=FakeBackend([FakeDevice(compute_units=16, gemm_tflops=tensor, uuid=mig_uuid)]),
        detected=fake_detected("H100-SXM", mig_profile="1g.10gb", uuids=[mig_uuid]),  # type: ignore[arg-type]
    )
    assert nvml.handles == [mig_uuid, f"parent of {mig_uuid}"]
    config = report.devices[0].config
    assert config is not None
    assert config.power_limit_w == 450.0
    assert ReasonCode.POWER_LIMIT_LOW in {r.code for r in report.reasons}
