"""``accelerators.detect._amdsmi``: AMD SMI sessions, handles, telemetry, never an exception.

The probe reading through it (``RocmProbe``) and the gate judging what it reads are tested in
``tests/bench/test_bench_amd_telemetry.py``; here each helper is tested against a small fake
of the ``amdsmi`` module.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from accelerators.detect import _amdsmi
from accelerators.detect._amdsmi import (
    as_number,
    describe_error,
    gpu_handles,
    narrowed,
    open_amdsmi,
    pick_handle,
    read_telemetry,
    throttle_names,
)


class AmdSmiLibraryException(Exception):
    pass


class FakeAmdSmi:
    """The calls ``_amdsmi`` makes, each answering from ``answers`` or raising what is there."""

    AmdSmiClkType = SimpleNamespace(GFX="GFX")

    def __init__(self, answers: dict[str, Any], *, init_error: bool = False) -> None:
        self.answers = answers
        self.init_error = init_error
        self.calls: list[str] = []

    def _answer(self, name: str) -> Any:
        self.calls.append(name)
        answer = self.answers[name]
        if isinstance(answer, Exception):
            raise answer
        return answer

    def amdsmi_init(self) -> None:
        self.calls.append("init")
        if self.init_error:
            raise AmdSmiLibraryException("AMDSMI_STATUS_DRIVER_NOT_LOADED")

    def amdsmi_shut_down(self) -> None:
        self.calls.append("shut_down")

    def amdsmi_get_processor_handles(self) -> list[str]:
        return self._answer("handles")

    def amdsmi_get_gpu_device_bdf(self, handle: str) -> str:
        bdf = self._answer("bdf")[handle]
        if isinstance(bdf, Exception):
            raise bdf
        return bdf

    def amdsmi_get_clock_info(self, handle: str, clock: str) -> dict[str, Any]:
        assert clock == "GFX"
        return self._answer("clock")

    def amdsmi_get_gpu_metrics_info(self, handle: str) -> dict[str, Any]:
        return self._answer("metrics")

    def amdsmi_get_power_cap_info(self, handle: str) -> dict[str, Any]:
        return self._answer("power_cap")

    def amdsmi_get_gpu_total_ecc_count(self, handle: str) -> dict[str, Any]:
        return self._answer("ecc")

    def amdsmi_get_violation_status(self, handle: str) -> dict[str, Any]:
        return self._answer("violations")


MI300X = {
    "clock": {"clk": 1300, "max_clk": 2100, "clk_locked": False},
    "metrics": {
        "temperature_hotspot": 61,
        "current_socket_power": 712,
        "average_socket_power": "N/A",
        "current_uclk": 1300,
        "throttle_status": "N/A",
    },
    "power_cap": {"power_cap": 750_000_000},  # microwatts
    "ecc": {"uncorrectable_count": 0},
    "violations": {"active_ppt_pwr": True, "active_socket_thrm": False},
}


def test_telemetry_of_a_power_capped_mi300x() -> None:
    read = read_telemetry(FakeAmdSmi(MI300X), "gpu0")
    assert read == {
        "clocks_mhz": {"sm": 1300.0, "gfx_max": 2100.0, "mem": 1300.0},
        "temperature_c": 61.0,
        "power_w": 712.0,
        "power_limit_w": 750.0,
        "ecc_errors": 0,
        "throttle_reasons": ("amd_ppt_power",),
        "error": None,
    }


def test_telemetry_of_newer_metrics_averages_the_per_xcc_clocks() -> None:
    answers = {
        **MI300X,
        "clock": {"clk": "N/A", "max_clk": 2100},
        "metrics": {**MI300X["metrics"], "current_gfxclks": [1200, 1400, "N/A", 0]},
    }
    assert read_telemetry(FakeAmdSmi(answers), "gpu0")["clocks_mhz"]["sm"] == 1300.0


def test_telemetry_of_an_older_gpu_reads_average_power_and_throttle_status() -> None:
    answers = {
        **MI300X,
        "metrics": {
            "current_socket_power": "N/A",
            "average_socket_power": 290,
            "throttle_status": 1,
        },
        "violations": AmdSmiLibraryException("AMDSMI_STATUS_NOT_SUPPORTED"),
    }
    read = read_telemetry(FakeAmdSmi(answers), "gpu0")
    assert read["power_w"] == 290.0
    assert read["throttle_reasons"] == ("amd_throttle_status",)
    assert read["error"] is None  # the violation status is optional


def test_a_failing_call_leaves_its_figures_empty_and_names_the_first_error() -> None:
    answers = {
        **MI300X,
        "power_cap": AmdSmiLibraryException("AMDSMI_STATUS_NOT_SUPPORTED"),
        "ecc": AmdSmiLibraryException(""),
    }
    read = read_telemetry(FakeAmdSmi(answers), "gpu0")
    assert (read["power_limit_w"], read["ecc_errors"]) == (None, None)
    assert read["power_w"] == 712.0
    assert read["error"] == (
        "amdsmi_get_power_cap_info: AmdSmiLibraryException: AMDSMI_STATUS_NOT_SUPPORTED"
    )


def test_a_session_shuts_down_and_an_init_failure_says_why() -> None:
    fake = FakeAmdSmi({})
    with open_amdsmi(fake) as (amdsmi, why):
        assert (amdsmi, why) == (fake, None)
    assert fake.calls == ["init", "shut_down"]
    broken = FakeAmdSmi({}, init_error=True)
    with open_amdsmi(broken) as (amdsmi, why):
        assert amdsmi is None
        assert why == "amdsmi_init failed (AmdSmiLibraryException: AMDSMI_STATUS_DRIVER_NOT_LOADED)"
    assert broken.calls == ["init"]


def test_a_loader_that_fails_is_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> Any:
        raise OSError("libamd_smi.so: cannot open shared object file")

    monkeypatch.setattr(_amdsmi, "amdsmi_loader", missing)
    with open_amdsmi() as (amdsmi, why):
        assert amdsmi is None
        assert (
            why
            == "amdsmi could not be loaded (OSError: libamd_smi.so: cannot open shared object file)"
        )


def test_handles_carry_their_pci_address_or_none() -> None:
    fake = FakeAmdSmi(
        {
            "handles": ["h0", "h1"],
            "bdf": {"h0": " 0000:0C:00.0 ", "h1": AmdSmiLibraryException("no bdf")},
        }
    )
    assert gpu_handles(fake) == [("h0", "0000:0c:00.0"), ("h1", None)]


HANDLES = [("h0", "0000:0c:00.0"), ("h1", "0000:1c:00.0")]


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ({"bdf": "0000:1C:00.0"}, "h1"),  # by PCI address, case-blind
        ({"bdf": "0000:99:00.0"}, None),  # an address AMD SMI does not list
        ({"smi_index": 1}, "h1"),  # amd-smi's own index
        ({"smi_index": 5}, None),
        ({"position": 1}, "h1"),  # same count, nothing hidden: by position
        ({"position": 1, "hidden": True}, None),  # a *_VISIBLE_DEVICES may reorder
        ({"position": 0, "seen": 1}, None),  # this process sees fewer than AMD SMI lists
    ],
)
def test_pick_handle(how: dict[str, Any], expected: str | None) -> None:
    args = {"bdf": None, "smi_index": None, "position": 0, "seen": 2, "hidden": False, **how}
    picked = pick_handle(HANDLES, **args)
    assert (picked[0] if picked else None) == expected


def test_narrowed_by_any_visible_devices_variable() -> None:
    assert not narrowed({"PATH": "/usr/bin"})
    for name in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
        assert narrowed({name: "0"})


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (712, 712.0),
        ("1300", 1300.0),
        ("N/A", None),
        (None, None),
        (True, None),
        (-1, None),
        (float("nan"), None),
        (float("inf"), None),
        ([1], None),
    ],
)
def test_as_number(value: Any, expected: float | None) -> None:
    assert as_number(value) == expected


def test_throttle_names_read_per_partition_flags_and_unreadable_ones() -> None:
    assert throttle_names({"active_hbm_thrm": [0, 1], "active_vr_thrm": "N/A"}, 1) == (
        "amd_hbm_thermal",
    )
    # every flag unreadable: throttle_status answers
    assert throttle_names({"active_ppt_pwr": "N/A"}, 0) == ()
    assert throttle_names({"active_ppt_pwr": "N/A"}, 1) == ("amd_throttle_status",)


def test_describe_error() -> None:
    assert describe_error(AmdSmiLibraryException(" busy ")) == "AmdSmiLibraryException: busy"
    assert describe_error(AmdSmiLibraryException()) == "AmdSmiLibraryException"
