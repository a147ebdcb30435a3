"""AWS Trainium / Inferentia, from the Neuron driver's sysfs tree, else ``neuron-ls``.

The driver publishes one directory per device, ``/sys/devices/virtual/neuron_device/neuron<N>/``,
with ``core_count`` and ``info/architecture/{device_name,instance_type,arch_type}``
(``"Trainium2"``, ``"Trn2"``, ``"NDv4"``). ``neuron-ls --json-output`` is the fallback where
that tree is not mounted. Devices are reported for the whole node: the Neuron runtime narrows
them per process by cores (``NEURON_RT_VISIBLE_CORES``), not by device.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelerators.detect._base import (
    CommandRunner,
    DeviceInfo,
    Probe,
    as_int,
    match_accelerator,
    read_text,
    run_command,
    to_text,
)

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = ["NeuronProbe", "neuron_name_candidates"]

_NEURON_LS = ("neuron-ls", "--json-output")
_TIMEOUT_S = 20.0
# Device names the driver reports -> EC2 family codes.
_FAMILIES = {
    "inferentia": "inf1",
    "inferentia1": "inf1",
    "inferentia2": "inf2",
    "trainium": "trn1",
    "trainium1": "trn1",
    "trainium2": "trn2",
    "trainium3": "trn3",
}


def neuron_name_candidates(*names: str | None) -> list[str]:
    """Spellings to look a Neuron device up by, most specific first.

    >>> neuron_name_candidates("Trainium2", "Trn2")
    ['Trainium2', 'trn2', 'Trn2', 'AWS Trainium2']

    :param names: device name, instance type… as the driver or ``neuron-ls`` printed them.
    """
    out: list[str] = []
    for name in names:
        if not name:
            continue
        out.append(name)
        family = _FAMILIES.get(name.casefold().replace(" ", ""))
        if family:
            out.append(family)
    out += [f"AWS {n}" for n in out if n.casefold() in _FAMILIES]
    return list(dict.fromkeys(out))


class NeuronProbe(Probe):
    """Neuron devices of this node.

    :param sysfs_root: where sysfs is mounted (a fixture tree in tests).
    :param run: command runner (``run(argv, timeout) -> (returncode, stdout)``).
    :param catalog: entries to match names against instead of the packaged catalog.
    """

    name = "neuron-sysfs"

    def __init__(
        self,
        *,
        sysfs_root: str = "/sys",
        run: CommandRunner = run_command,
        catalog: Sequence[Accelerator] | None = None,
    ) -> None:
        super().__init__()
        self._sysfs_root = sysfs_root
        self._run = run
        self._catalog = catalog

    def _detect(self) -> tuple[DeviceInfo, ...] | None:
        base = Path(self._sysfs_root, "devices", "virtual", "neuron_device")
        dirs = sorted(base.glob("neuron[0-9]*"), key=lambda p: int(re.sub(r"\D", "", p.name) or 0))
        if dirs:
            rows = [self._sysfs_row(d) for d in dirs]
        else:
            code, out = self._run(_NEURON_LS, _TIMEOUT_S)
            if code != 0 or not out.strip():
                return self._absent("no Neuron device (no neuron_device sysfs tree, no neuron-ls)")
            self.source = "neuron-ls"
            rows = [_ls_row(entry) for entry in json.loads(out) if isinstance(entry, dict)]
        devices = []
        for index, row in enumerate(rows):
            raw = row.pop("device_name") or row.get("instance_type") or "Neuron device"
            names = neuron_name_candidates(raw, row.get("instance_type"))
            devices.append(
                DeviceInfo(
                    index=index,
                    kind="neuron",
                    vendor="aws",
                    raw_name=raw,
                    accelerator=match_accelerator(
                        names, vendor="aws", device_class="neuron", catalog=self._catalog
                    ),
                    memory_bytes=as_int(row.pop("memory", None)),
                    ecc_errors=as_int(row.pop("ecc", None)),
                    extra={k: str(v) for k, v in row.items() if v not in (None, "")},
                )
            )
        self._note_unmatched(devices, self.source)
        return tuple(devices)

    @staticmethod
    def _sysfs_row(device: Path) -> dict[str, Any]:
        arch = device / "info" / "architecture"
        cores = read_text(device / "core_count") or str(len(list(device.glob("neuron_core[0-9]*"))))
        ecc = [
            _counter(device / "stats" / "hardware" / n)
            for n in ("mem_ecc_uncorrected", "sram_ecc_uncorrected")
        ]
        known = [e for e in ecc if e is not None]
        return {
            "device_name": read_text(arch / "device_name") or read_text(arch / "device_type"),
            "instance_type": read_text(arch / "instance_type"),
            "arch_type": read_text(arch / "arch_type"),
            "neuron_cores": cores if cores != "0" else None,
            "serial_number": read_text(device / "info" / "serial_number"),
            "ecc": sum(known) if known else None,
            "sysfs": device.name,
        }


def _ls_row(entry: dict[str, Any]) -> dict[str, Any]:
    name = entry.get("neuron_device_type") or entry.get("device_type") or entry.get("arch")
    return {
        "device_name": to_text(name) if name else None,
        "instance_type": entry.get("instance_type"),
        "neuron_cores": entry.get("nc_count"),
        "memory": entry.get("memory_size"),
        "bdf": entry.get("bdf"),
    }


def _counter(path: Path) -> int | None:
    """A sysfs counter: a file holding a number, or a directory with a ``total`` file."""
    return as_int(read_text(path / "total" if path.is_dir() else path))
