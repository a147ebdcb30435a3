"""``accelerators.detect._base``: the probe contract (a failing probe never breaks detection), the
records, the command runner."""

from __future__ import annotations

import sys

import pytest
from detect_fakes import (
    CATALOG,
    H100,
    FakeNvml,
    h100s,
    nvml_probe,
)

from accelerators.detect import Detected, DeviceInfo, Probe, current
from accelerators.detect._nvidia import (
    NvmlProbe,
)


class Boom(Probe):
    name = "boom"

    def _detect(self) -> tuple[DeviceInfo, ...] | None:
        raise RuntimeError("driver exploded")


class RudeProbe(Probe):
    """Breaks the contract: ``detect`` itself raises."""

    name = "rude"

    def detect(self) -> tuple[DeviceInfo, ...] | None:
        raise OSError("no contract here")

    def _detect(self) -> tuple[DeviceInfo, ...] | None:  # pragma: no cover - never called
        return None


def test_a_raising_probe_does_not_break_detection() -> None:
    boom = Boom()
    assert boom.detect() is None
    assert boom.failed
    assert boom.reason == "boom probe failed: RuntimeError: driver exploded"
    # a later probe still answers
    found = current(probes=[Boom(), RudeProbe(), nvml_probe(h100s(1))])
    assert (found.kind, found.accelerator) == ("gpu", H100)
    # with nobody answering, the answer is "unknown", not "cpu"
    unknown = current(probes=[RudeProbe(), Boom()])
    assert (unknown.kind, unknown.source, unknown.accelerator, unknown.devices) == (
        "unknown",
        "rude",
        None,
        (),
    )
    assert unknown.reason is not None
    assert "OSError: no contract here" in unknown.reason
    assert "RuntimeError: driver exploded" in unknown.reason
    assert unknown.to_spec() is None


def test_probe_that_raises_inside_an_sdk_call() -> None:
    class Exploding(FakeNvml):
        def nvmlDeviceGetCount(self) -> int:
            raise MemoryError("boom")

    probe = NvmlProbe(nvml=Exploding(h100s()), env={}, catalog=CATALOG)
    assert probe.detect() is None
    assert probe.failed
    assert probe.reason == "nvml probe failed: MemoryError: boom"


def test_records_are_frozen_and_hashable() -> None:
    devices = nvml_probe(h100s(1)).detect()
    assert devices is not None
    device = devices[0]
    with pytest.raises(TypeError):
        device.extra["uuid"] = "x"  # type: ignore[index]
    with pytest.raises(AttributeError):
        device.index = 3  # type: ignore[misc]
    found = current(probes=[nvml_probe(h100s(1))])
    assert isinstance(hash(found), int)
    assert isinstance(found, Detected)


def test_run_command_never_raises() -> None:
    from accelerators.detect._base import run_command

    assert run_command([sys.executable, "-c", "print('ok')"], 30) == (0, "ok\n")
    assert run_command(["accelerators-no-such-tool"], 5) == (127, "")
    assert run_command([sys.executable, "-c", "import time; time.sleep(5)"], 0.5) == (124, "")
