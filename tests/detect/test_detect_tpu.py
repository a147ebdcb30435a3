"""``accelerators.detect._tpu``: the TPU VM's environment and ``/dev/accel*``."""

from __future__ import annotations

from pathlib import Path

import pytest
from detect_fakes import (
    CATALOG,
    V5E,
    V5E_ENV,
    head,
)

from accelerators.detect import current
from accelerators.detect._tpu import TpuProbe, tpu_name_candidates


def test_tpu_from_the_environment(tmp_path: Path) -> None:
    found = current(probes=[TpuProbe(env=V5E_ENV, dev_root=str(tmp_path), catalog=CATALOG)])
    assert head(found) == ("tpu", "tpu-env", 8, V5E)
    assert found.devices[0].extra["topology"] == "2x4"
    assert found.memory_gb == 16.0  # from the catalog: TPUs report no memory here
    assert str(found.to_spec()) == "TPU-V5E@2x4:8"


@pytest.mark.parametrize(
    ("accelerator_type", "hosts", "chips"),
    [("v5litepod-8", "", 8), ("v4-8", "", 4), ("v5p-16", "a,b", 4), ("v6e-16", "a,b,c,d", 4)],
)
def test_tpu_chip_count_without_host_bounds(
    tmp_path: Path, accelerator_type: str, hosts: str, chips: int
) -> None:
    env = {"TPU_ACCELERATOR_TYPE": accelerator_type, "TPU_WORKER_HOSTNAMES": hosts}
    devices = TpuProbe(env=env, dev_root=str(tmp_path), catalog=CATALOG).detect()
    assert devices is not None
    assert len(devices) == chips


def test_dev_accel_without_a_tpu_variable_is_not_a_tpu(tmp_path: Path) -> None:
    # GIVEN accel nodes (e.g. a consumer-GPU or NPU host) and no TPU variable
    for name in ("accel0", "accel1"):
        (tmp_path / name).touch()
    probe = TpuProbe(env={"PATH": "/usr/bin"}, dev_root=str(tmp_path), catalog=CATALOG)
    found = current(probes=[probe])
    # THEN the probe stays out, and says why
    assert probe.detect() is None
    assert probe.reason is not None
    assert "/dev/accel*" in probe.reason
    assert found.kind == "cpu"


def test_dev_accel_counts_chips_when_a_tpu_variable_is_set(tmp_path: Path) -> None:
    for n in range(4):
        (tmp_path / f"accel{n}").touch()
    env = {"TPU_ACCELERATOR_TYPE": "v5litepod-16", "TPU_WORKER_HOSTNAMES": "a,b,c,d"}
    devices = TpuProbe(env=env, dev_root=str(tmp_path), catalog=CATALOG).detect()
    assert devices is not None
    assert len(devices) == 4
    assert devices[0].extra["chips_counted_by"] == "/dev/accel*"


def test_tpu_not_in_the_catalog_or_without_a_type(tmp_path: Path) -> None:
    unknown = current(probes=[TpuProbe(env={"TPU_ACCELERATOR_TYPE": "v99-8"}, catalog=CATALOG)])
    assert (unknown.kind, unknown.accelerator) == ("tpu", None)
    assert unknown.reason == "TPU_ACCELERATOR_TYPE is 'v99-8', which is not in the catalog"
    untyped = current(probes=[TpuProbe(env={"TPU_WORKER_HOSTNAMES": "a"}, catalog=CATALOG)])
    assert untyped.kind == "tpu"
    assert untyped.reason is not None
    assert "TPU_ACCELERATOR_TYPE is not set" in untyped.reason


def test_tpu_name_candidates() -> None:
    assert tpu_name_candidates("v5litepod-8")[:6] == [
        "v5litepod-8",
        "tpu-v5litepod-8",
        "TPU-V5LITEPOD",
        "v5litepod",
        "tpu-v5litepod",
        "TPU v5litepod",
    ]
    assert "TPU-V5E" in tpu_name_candidates("v5litepod-8")
