"""A fake ``amdsmi`` module and a fake ROCm torch, built from AMD SMI's documented shapes.

Shapes and units follow ROCm/amdsmi's ``py-interface/README.md`` and ``include/amd_smi/amdsmi.h``:
power caps in microwatts, od-volt frequencies in Hz, clocks in MHz, PCIe speed in MT/s,
unsupported members as ``"N/A"``, errors as ``AmdSmiLibraryException``. The default figures are
a healthy MI300X (750 W cap, 2100 MHz peak engine clock, PCIe Gen5 x16, 7 XGMI links up).
"""

from __future__ import annotations

from enum import IntEnum
from types import SimpleNamespace
from typing import Any

GiB = 1 << 30


class AmdSmiException(Exception):
    pass


class AmdSmiLibraryException(AmdSmiException):
    def __init__(self, err_code: int, err_info: str):
        super().__init__(f"Error code:\n\t{err_code} | {err_info}")
        self.err_code, self.err_info = err_code, err_info


def not_supported() -> AmdSmiLibraryException:
    return AmdSmiLibraryException(2, "AMDSMI_STATUS_NOT_SUPPORTED - Feature not supported")


class AmdSmiClkType(IntEnum):
    SYS = 0
    GFX = 0  # AMDSMI_CLK_TYPE_GFX = AMDSMI_CLK_TYPE_SYS in amdsmi.h


class Handle:
    """An opaque processor handle (the real ones are ctypes pointers)."""

    def __init__(self, index: int):
        self.index = index

    def __repr__(self) -> str:
        return f"<handle {self.index}>"


def healthy_figures() -> dict[str, Any]:
    return {
        "bdf": None,  # set per GPU from its index
        "power_cap_uw": 750_000_000,
        "default_power_cap_uw": 750_000_000,
        "clk": 2100,
        "max_clk": 2100,
        "clk_locked": False,
        "sclk_upper_hz": 2_100_000_000,
        "sclk_limit_hz": 2_100_000_000,
        "pcie_width": 16,
        "max_pcie_width": 16,
        "pcie_speed": 32000,
        "pcie_version": 5,
        "xgmi": ["U"] * 7,
        "hotspot_c": 71,
        "socket_power_w": 690,
        "violations": {},  # overrides of the active_* flags
        "throttle_status": "N/A",  # MI300: N/A, the violation status answers
        "ecc_uncorrectable": 0,
    }


class FakeAmdSmi:
    """The ``amdsmi`` functions the gate calls, over planted figures per GPU.

    :param gpus: figure overrides per GPU (a value that is an exception is raised).
    :param init: an exception ``amdsmi_init`` raises, if any.
    :param missing: function names this "older library" lacks.
    """

    AmdSmiClkType: type[AmdSmiClkType] = AmdSmiClkType
    AmdSmiLibraryException: type[AmdSmiLibraryException] = AmdSmiLibraryException

    def __init__(
        self,
        *gpus: dict[str, Any],
        init: Exception | None = None,
        missing: tuple[str, ...] = (),
    ):
        self.figures = []
        for index, changes in enumerate(gpus or ({},)):
            figures = healthy_figures() | {"bdf": f"0000:{0x0C + 0x10 * index:02x}:00.0"}
            self.figures.append(figures | changes)
        self.handles = [Handle(i) for i in range(len(self.figures))]
        self.init_error = init
        self.missing = set(missing)
        self.inits = self.shutdowns = 0
        self.calls: list[str] = []

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("amdsmi_") and name in object.__getattribute__(self, "missing"):
            raise AttributeError(name)
        return object.__getattribute__(self, name)

    def _value(self, handle: Handle, key: str) -> Any:
        if not isinstance(handle, Handle):  # the real interface raises AmdSmiParameterException
            raise TypeError(f"not a processor handle: {handle!r}")
        value = self.figures[handle.index][key]
        if isinstance(value, Exception):
            raise value
        return value

    def amdsmi_init(self) -> None:
        self.inits += 1
        if self.init_error is not None:
            raise self.init_error

    def amdsmi_shut_down(self) -> None:
        self.shutdowns += 1

    def amdsmi_get_processor_handles(self) -> list[Handle]:
        return list(self.handles)

    def amdsmi_get_gpu_device_bdf(self, handle: Handle) -> str:
        return str(self._value(handle, "bdf"))

    def amdsmi_get_power_cap_info(self, handle: Handle) -> dict[str, Any]:
        self.calls.append("power_cap")
        return {
            "power_cap": self._value(handle, "power_cap_uw"),
            "default_power_cap": self._value(handle, "default_power_cap_uw"),
            "dpm_cap": 2100,
            "min_power_cap": 0,
            "max_power_cap": 750_000_000,
        }

    def amdsmi_get_clock_info(self, handle: Handle, clock_type: object) -> dict[str, Any]:
        if not isinstance(clock_type, AmdSmiClkType):
            raise TypeError(f"not an AmdSmiClkType: {clock_type!r}")
        return {
            "clk": self._value(handle, "clk"),
            "min_clk": 500,
            "max_clk": self._value(handle, "max_clk"),
            "clk_locked": self._value(handle, "clk_locked"),
            "clk_deep_sleep": False,
        }

    def amdsmi_get_gpu_od_volt_info(self, handle: Handle) -> dict[str, Any]:
        return {
            "curr_sclk_range": {
                "lower_bound": 500_000_000,
                "upper_bound": self._value(handle, "sclk_upper_hz"),
            },
            "curr_mclk_range": {"lower_bound": 0, "upper_bound": 1_300_000_000},
            "sclk_freq_limits": {
                "lower_bound": 500_000_000,
                "upper_bound": self._value(handle, "sclk_limit_hz"),
            },
            "mclk_freq_limits": {"lower_bound": 0, "upper_bound": 1_300_000_000},
            "curve.vc_points": [],
            "num_regions": 0,
        }

    def amdsmi_get_pcie_info(self, handle: Handle) -> dict[str, Any]:
        return {
            "pcie_static": {
                "max_pcie_width": self._value(handle, "max_pcie_width"),
                "max_pcie_speed": 32000,
                "pcie_interface_version": self._value(handle, "pcie_version"),
                "max_pcie_interface_version": self._value(handle, "pcie_version"),
                "slot_type": "OAM",
            },
            "pcie_metric": {
                "pcie_width": self._value(handle, "pcie_width"),
                "pcie_speed": self._value(handle, "pcie_speed"),
                "pcie_bandwidth": 0,
                "pcie_replay_count": 0,
            },
        }

    def amdsmi_get_gpu_xgmi_link_status(self, handle: Handle) -> dict[str, Any]:
        links = self._value(handle, "xgmi")
        return {"status": list(links), "total_links": len(links)}

    def amdsmi_get_gpu_metrics_info(self, handle: Handle) -> dict[str, Any]:
        self.calls.append("metrics")
        return {
            "temperature_edge": "N/A",
            "temperature_hotspot": self._value(handle, "hotspot_c"),
            "temperature_mem": 60,
            "average_socket_power": "N/A",
            "current_socket_power": self._value(handle, "socket_power_w"),
            "current_gfxclk": "N/A",
            "current_gfxclks": [self._value(handle, "clk")] * 8,
            "current_uclk": 1300,
            "throttle_status": self._value(handle, "throttle_status"),
            "pcie_link_width": 16,
            "pcie_link_speed": 320,
        }

    def amdsmi_get_violation_status(self, handle: Handle) -> dict[str, Any]:
        flags = {
            "active_prochot_thrm": False,
            "active_ppt_pwr": False,
            "active_socket_thrm": False,
            "active_vr_thrm": False,
            "active_hbm_thrm": False,
            "active_gfx_clk_below_host_limit": False,
        }
        overrides: dict[str, Any] = self._value(handle, "violations")
        return flags | overrides

    def amdsmi_get_gpu_total_ecc_count(self, handle: Handle) -> dict[str, Any]:
        return {
            "correctable_count": 0,
            "uncorrectable_count": self._value(handle, "ecc_uncorrectable"),
            "deferred_count": 0,
        }


def rocm_torch(count: int = 1, *, pci: bool = True) -> Any:
    """A ROCm build of torch seeing ``count`` MI300X, on the fake's PCI addresses."""

    def props(index: int) -> SimpleNamespace:
        fields: dict[str, Any] = {
            "name": "AMD Instinct MI300X",
            "total_memory": 192 * GiB,
            "multi_processor_count": 304,
            "major": 9,
            "minor": 4,
            "L2_cache_size": 4 << 20,
            "gcnArchName": "gfx942:sramecc+:xnack-",
        }
        if pci:
            fields |= {"pci_domain_id": 0, "pci_bus_id": 0x0C + 0x10 * index, "pci_device_id": 0}
        return SimpleNamespace(**fields)

    cuda = SimpleNamespace(
        is_available=lambda: True, device_count=lambda: count, get_device_properties=props
    )
    return SimpleNamespace(version=SimpleNamespace(hip="6.4", cuda=None), cuda=cuda)
