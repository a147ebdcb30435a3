"""AMD GPUs: a ROCm build of torch, else ``amd-smi``, else ``rocm-smi``.

Nothing runs unless the AMD kernel driver is there (``/dev/kfd`` or ``/sys/module/amdgpu``).
torch is used first only when it is already imported (or injected); the SMI tools report
the whole node, so their list is narrowed by ``ROCR_VISIBLE_DEVICES`` and then
``HIP_VISIBLE_DEVICES`` (or ``CUDA_VISIBLE_DEVICES``) when those hold plain indices.

Clocks, power, temperature, ECC and throttling come from AMD SMI's Python library
(:mod:`accelerators.detect._amdsmi`), each device tied to its AMD SMI handle by PCI address
(torch's ``pci_domain_id``/``pci_bus_id``/``pci_device_id`` device properties, which torch's own
``torch/numa/binding.py`` reads the same way), by ``amd-smi``'s GPU index, or by position when
AMD SMI lists exactly the devices this process sees and nothing narrows them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelerators.detect import _amdsmi
from accelerators.detect._base import (
    CommandRunner,
    DeviceInfo,
    Probe,
    as_int,
    load_torch,
    match_accelerator,
    run_command,
    to_text,
    torch_properties,
)

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = ["RocmProbe", "amd_name_candidates"]

_TIMEOUT_S = 20.0
_AMD_SMI = ("amd-smi", "static", "--asic", "--vram", "--json")
_ROCM_SMI = ("rocm-smi", "--showproductname", "--showmeminfo", "vram", "--json")
# PCI device ids of Instinct parts, used only when the market name matches nothing.
_DEVICE_IDS = {
    "0x738c": "MI100",
    "0x740c": "MI250X",
    "0x740f": "MI210",
    "0x74a1": "MI300X",
    "0x74b5": "MI300X",
    "0x74a5": "MI325X",
}
_UNITS = {
    "b": 1,
    "kb": 1 << 10,
    "mb": 1 << 20,
    "gb": 1 << 30,
    "kib": 1 << 10,
    "mib": 1 << 20,
    "gib": 1 << 30,
}


def amd_name_candidates(name: str, device_id: str | None = None) -> list[str]:
    """Spellings to look an AMD product name up by, most specific first.

    >>> amd_name_candidates("AMD Instinct MI300X VF", "0x74b5")
    ['AMD Instinct MI300X VF', 'AMD Instinct MI300X', 'Instinct MI300X', 'MI300X']

    :param name: market / product name as a tool printed it.
    :param device_id: PCI device id (``"0x74a1"``), a last resort.
    """
    out = [name]
    stem = re.sub(r"(\s+(VF|OAM|HF))+\s*$", "", name, flags=re.IGNORECASE)
    out += [stem, re.sub(r"^AMD\s+", "", stem, flags=re.IGNORECASE)]
    model = re.search(r"\bMI\d{2,3}[A-Z]?\b", stem, re.IGNORECASE)
    if model:
        out.append(model.group(0).upper())
    if device_id and device_id.lower() in _DEVICE_IDS:
        out.append(_DEVICE_IDS[device_id.lower()])
    return [c for c in dict.fromkeys(out) if c]


class RocmProbe(Probe):
    """AMD Instinct / Radeon GPUs.

    :param torch: a ``torch``-compatible module (ROCm build); see the module docstring.
    :param run: command runner (``run(argv, timeout) -> (returncode, stdout)``).
    :param env: environment for the ``*_VISIBLE_DEVICES`` variables; ``os.environ`` if ``None``.
    :param root: filesystem root for the driver check.
    :param catalog: entries to match names against instead of the packaged catalog.
    :param amdsmi: an ``amdsmi``-compatible module for telemetry; imported when ``None``
        (:data:`accelerators.detect._amdsmi.amdsmi_loader` replaces the import in tests).
    """

    name = "rocm"

    def __init__(
        self,
        *,
        torch: Any = None,
        run: CommandRunner = run_command,
        env: Mapping[str, str] | None = None,
        root: str = "/",
        catalog: Sequence[Accelerator] | None = None,
        amdsmi: Any = None,
    ) -> None:
        super().__init__()
        self._torch = torch
        self._run = run
        self._env = env
        self._root = root
        self._catalog = catalog
        self._amdsmi = amdsmi

    def _detect(self) -> tuple[DeviceInfo, ...] | None:
        torch = self._torch if self._torch is not None else sys.modules.get("torch")
        if _is_rocm(torch):
            return self._finish(self._from_torch(torch), "torch (ROCm)")
        if not any(Path(self._root, p).exists() for p in ("dev/kfd", "sys/module/amdgpu")):
            return self._absent("no AMD GPU driver (/dev/kfd) found")
        rows = self._from_amd_smi()
        tool = "amd-smi"
        if rows is None:
            rows, tool = self._from_rocm_smi(), "rocm-smi"
        if rows is not None:
            return self._finish(self._visible(rows), tool)
        if self._torch is None:
            torch = load_torch(driver_present=True)
            if _is_rocm(torch):
                return self._finish(self._from_torch(torch), "torch (ROCm)")
        return self._absent(
            "AMD driver present, but neither amd-smi, rocm-smi nor torch (ROCm) answered"
        )

    def _finish(self, rows: list[dict[str, Any]], tool: str) -> tuple[DeviceInfo, ...]:
        if not rows:
            self.reason = f"{tool} lists no AMD GPU visible to this process"
        devices = []
        for index, row in enumerate(rows):
            name = to_text(row.get("name") or "") or "AMD GPU"
            gfx = to_text(row.get("gfx") or "").split(":")[0] or None
            extra = {
                "tool": tool,
                **{k: to_text(row[k]) for k in ("device_id", "smi_index") if row.get(k)},
            }
            devices.append(
                DeviceInfo(
                    index=index,
                    kind="gpu",
                    vendor="amd",
                    raw_name=name,
                    accelerator=match_accelerator(
                        amd_name_candidates(name, row.get("device_id")),
                        vendor="amd",
                        device_class="gpu",
                        catalog=self._catalog,
                    ),
                    memory_bytes=as_int(row.get("memory")),
                    multiprocessors=as_int(row.get("cus")),
                    compute_capability=gfx,
                    l2_cache_bytes=as_int(row.get("l2")),
                    extra=extra,
                )
            )
        self._note_unmatched(devices, tool)
        return self._with_telemetry(devices, rows, tool) if devices else ()

    def _with_telemetry(
        self, devices: list[DeviceInfo], rows: list[dict[str, Any]], tool: str
    ) -> tuple[DeviceInfo, ...]:
        """``devices`` with AMD SMI's telemetry; why not in ``extra["telemetry_error"]``."""
        with _amdsmi.open_amdsmi(self._amdsmi) as (amdsmi, why):
            if amdsmi is None:
                return tuple(_note(d, why or "amdsmi unavailable") for d in devices)
            try:
                handles = _amdsmi.gpu_handles(amdsmi)
            except Exception as exc:
                why = f"amdsmi_get_processor_handles: {_amdsmi.describe_error(exc)}"
                return tuple(_note(d, why) for d in devices)
            out = []
            hidden = _amdsmi.narrowed(os.environ if self._env is None else self._env)
            for position, (device, row) in enumerate(zip(devices, rows, strict=True)):
                found = _amdsmi.pick_handle(
                    handles,
                    bdf=row.get("bdf"),
                    smi_index=as_int(row.get("smi_index")) if tool == "amd-smi" else None,
                    position=position,
                    seen=len(devices),
                    hidden=hidden,
                )
                if found is None:
                    out.append(_note(device, "no AMD SMI device matches it (PCI address or index)"))
                    continue
                handle, bdf = found
                read = _amdsmi.read_telemetry(amdsmi, handle)
                extra = dict(device.extra)
                if bdf:
                    extra["bdf"] = bdf
                if read["error"]:
                    extra["telemetry_error"] = read["error"]
                out.append(
                    dataclasses.replace(
                        device,
                        clocks_mhz=read["clocks_mhz"],
                        throttle_reasons=read["throttle_reasons"],
                        temperature_c=read["temperature_c"],
                        power_w=read["power_w"],
                        power_limit_w=read["power_limit_w"],
                        ecc_errors=read["ecc_errors"],
                        extra=extra,
                    )
                )
            return tuple(out)

    @staticmethod
    def _from_torch(torch: Any) -> list[dict[str, Any]]:
        return [
            {
                "name": p["name"] or p["gcnArchName"],
                "memory": p["total_memory"],
                "gfx": p["gcnArchName"],
                "cus": p["multi_processor_count"],
                "l2": p["L2_cache_size"],
                "bdf": _bdf(p["pci_domain_id"], p["pci_bus_id"], p["pci_device_id"]),
            }
            for p in torch_properties(torch)
        ]

    def _from_amd_smi(self) -> list[dict[str, Any]] | None:
        code, out = self._run(_AMD_SMI, _TIMEOUT_S)
        if code != 0 or not out.strip():
            return None
        data = json.loads(out)
        entries = data.get("gpu_data", [data]) if isinstance(data, dict) else data
        rows = []
        for position, entry in enumerate(entries):
            asic = entry.get("asic") or {}
            vram = entry.get("vram") or {}
            rows.append(
                {
                    "smi_index": entry.get("gpu", position),
                    "name": asic.get("market_name") or asic.get("asic_name"),
                    "device_id": asic.get("device_id"),
                    "cus": asic.get("num_compute_units"),
                    "gfx": asic.get("target_graphics_version"),
                    "memory": _bytes(vram.get("size", vram.get("vram_size"))),
                }
            )
        return rows

    def _from_rocm_smi(self) -> list[dict[str, Any]] | None:
        code, out = self._run(_ROCM_SMI, _TIMEOUT_S)
        if code != 0 or not out.strip():
            return None
        rows = []
        for card, fields in json.loads(out).items():
            if not card.lower().startswith("card") or not isinstance(fields, dict):
                continue
            lower = {k.lower(): v for k, v in fields.items()}
            rows.append(
                {
                    "smi_index": card[4:],
                    "name": lower.get("device name")
                    or lower.get("card series")
                    or lower.get("card model"),
                    "device_id": lower.get("device id") or lower.get("card model"),
                    "gfx": lower.get("gfx version"),
                    "memory": as_int(lower.get("vram total memory (b)")),
                }
            )
        return rows

    def _visible(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        env = os.environ if self._env is None else self._env
        for variable in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES|CUDA_VISIBLE_DEVICES"):
            value = next((env[v] for v in variable.split("|") if v in env), None)
            if value is None:
                continue
            tokens = [t.strip() for t in value.split(",")]
            if all(t.isdigit() for t in tokens if t):
                rows = [rows[int(t)] for t in tokens if t and int(t) < len(rows)]
        return rows


def _note(device: DeviceInfo, why: str) -> DeviceInfo:
    return dataclasses.replace(device, extra={**device.extra, "telemetry_error": why})


def _bdf(domain: Any, bus: Any, device: Any) -> str | None:
    """``"0000:0c:00.0"`` (AMD SMI's form) from torch's PCI ids; ``None`` if one is missing."""
    ids = [as_int(domain), as_int(bus), as_int(device)]
    if any(i is None for i in ids):
        return None
    return f"{ids[0]:04x}:{ids[1]:02x}:{ids[2]:02x}.0"


def _is_rocm(torch: Any) -> bool:
    return bool(
        torch is not None and getattr(torch.version, "hip", None) and torch.cuda.is_available()
    )


def _bytes(size: Any) -> int | None:
    """amd-smi sizes: ``{"value": 196592, "unit": "MB"}``, ``"196592 MB"`` or a number of MB."""
    if isinstance(size, dict):
        value, unit = size.get("value"), str(size.get("unit") or "MB")
    elif isinstance(size, str):
        match = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]*)\s*", size)
        if match is None:
            return None
        value, unit = match.group(1), match.group(2) or "MB"
    else:
        value, unit = size, "MB"
    scale = _UNITS.get(unit.lower())
    try:
        return int(float(value) * scale) if scale and value is not None else None
    except (TypeError, ValueError):
        return None
