"""``accelerators.detect._gaudi``: ``hl-smi`` and the Habana SDK."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from detect_fakes import (
    CATALOG,
    GAUDI2,
    FakeRunner,
    MiB,
    head,
)

from accelerators.detect import current
from accelerators.detect._gaudi import GaudiProbe, gaudi_name_candidates


@pytest.fixture
def habana_root(tmp_path: Path) -> Path:
    (tmp_path / "sys" / "module" / "habanalabs").mkdir(parents=True)
    return tmp_path


def test_gaudi_from_hl_smi(habana_root: Path) -> None:
    csv = "".join(f"{i}, HL-225, 98304 MiB\n" for i in range(8))
    runner = FakeRunner({"hl-smi": (0, csv)})
    found = current(probes=[GaudiProbe(run=runner, root=str(habana_root), catalog=CATALOG)])
    assert head(found) == ("hpu", "habana", 8, GAUDI2)
    assert found.devices[0].memory_bytes == 98304 * MiB
    assert found.devices[0].vendor == "intel"
    assert runner.calls == [("hl-smi", "-Q", "index,name,memory.total", "-f", "csv,noheader")]


def test_gaudi_from_the_sdk() -> None:
    hpu = SimpleNamespace(
        is_available=lambda: True, device_count=lambda: 8, get_device_name=lambda: "GAUDI2"
    )
    found = current(probes=[GaudiProbe(hpu=hpu, run=FakeRunner({}), catalog=CATALOG)])
    assert (found.kind, found.count, found.accelerator, found.raw_name) == (
        "hpu",
        8,
        GAUDI2,
        "GAUDI2",
    )


def test_gaudi_without_the_driver_runs_nothing(tmp_path: Path) -> None:
    runner = FakeRunner({"hl-smi": (0, "0, HL-225, 98304 MiB\n")})
    probe = GaudiProbe(run=runner, root=str(tmp_path), catalog=CATALOG)
    assert probe.detect() is None
    assert runner.calls == []


def test_gaudi_name_candidates() -> None:
    assert gaudi_name_candidates("HL-325L")[:2] == ["HL-325L", "Gaudi3"]
    assert gaudi_name_candidates("GAUDI")[:2] == ["GAUDI", "Gaudi"]
