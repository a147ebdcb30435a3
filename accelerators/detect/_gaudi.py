"""Intel Gaudi HPUs: ``habana_frameworks`` if already imported, else ``hl-smi``, else the SDK.

Nothing runs unless the ``habanalabs`` kernel driver is loaded (``/sys/module/habanalabs``)
or the SDK module is injected. ``hl-smi`` prints module names (``HL-225`` is a Gaudi 2
mezzanine card), the SDK prints generations (``GAUDI2``); both are matched.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelerators.detect._base import (
    CommandRunner,
    DeviceInfo,
    Probe,
    match_accelerator,
    run_command,
    to_text,
)

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = ["GaudiProbe", "gaudi_name_candidates"]

_HL_SMI = ("hl-smi", "-Q", "index,name,memory.total", "-f", "csv,noheader")
_TIMEOUT_S = 20.0
_SDK_MODULE = "habana_frameworks.torch.hpu"
# hl-smi module names -> generation (HL-205: Gaudi; HL-225: Gaudi 2; HL-3xx: Gaudi 3 OAM/PCIe).
_MODULES = (
    (re.compile(r"^HL-?20\d", re.I), "Gaudi"),
    (re.compile(r"^HL-?22\d", re.I), "Gaudi2"),
    (re.compile(r"^HL-?3\d\d", re.I), "Gaudi3"),
)
_UNITS = {"mib": 1 << 20, "mb": 1 << 20, "gib": 1 << 30, "gb": 1 << 30, "kib": 1 << 10, "b": 1}


def gaudi_name_candidates(name: str) -> list[str]:
    """Spellings to look a Gaudi device name up by, most specific first.

    >>> gaudi_name_candidates("GAUDI2")
    ['GAUDI2', 'Gaudi2', 'Gaudi 2', 'Intel Gaudi 2', 'Intel-Gaudi2']
    >>> gaudi_name_candidates("HL-225")[:2]
    ['HL-225', 'Gaudi2']

    :param name: ``hthpu.get_device_name()`` or an ``hl-smi`` module name.
    """
    out = [name]
    generation = next((gen for pattern, gen in _MODULES if pattern.match(name)), None)
    if generation is None:
        match = re.fullmatch(r"\s*(?:intel[\s-]*)?gaudi[\s-]*(\d*)\s*", name, re.IGNORECASE)
        generation = f"Gaudi{match.group(1)}" if match else None
    if generation:
        number = generation.removeprefix("Gaudi")
        out += [
            generation,
            f"Gaudi {number}".strip(),
            f"Intel Gaudi {number}".strip(),
            f"Intel-{generation}",
        ]
    return list(dict.fromkeys(out))


class GaudiProbe(Probe):
    """Gaudi devices of this node.

    :param hpu: a ``habana_frameworks.torch.hpu``-compatible module; see the module docstring.
    :param run: command runner (``run(argv, timeout) -> (returncode, stdout)``).
    :param root: filesystem root for the driver check.
    :param catalog: entries to match names against instead of the packaged catalog.
    """

    name = "habana"

    def __init__(
        self,
        *,
        hpu: Any = None,
        run: CommandRunner = run_command,
        root: str = "/",
        catalog: Sequence[Accelerator] | None = None,
    ) -> None:
        super().__init__()
        self._hpu = hpu
        self._run = run
        self._root = root
        self._catalog = catalog

    def _detect(self) -> tuple[DeviceInfo, ...] | None:
        hpu = self._hpu if self._hpu is not None else sys.modules.get(_SDK_MODULE)
        if hpu is None and not Path(self._root, "sys", "module", "habanalabs").exists():
            return self._absent("no Habana driver (habanalabs) loaded")
        rows: list[tuple[str, int | None]] | None = None
        if hpu is None:
            rows = self._from_hl_smi()
            if rows is None and importlib.util.find_spec("habana_frameworks") is not None:
                hpu = importlib.import_module(_SDK_MODULE)
        if rows is None:
            if hpu is None:
                return self._absent(
                    "habanalabs is loaded but neither hl-smi nor habana_frameworks answered"
                )
            if not hpu.is_available():
                return self._absent("habana_frameworks reports no available HPU")
            name = to_text(hpu.get_device_name())
            rows = [(name, None)] * int(hpu.device_count())
        devices = tuple(
            DeviceInfo(
                index=index,
                kind="hpu",
                vendor="intel",
                raw_name=name,
                accelerator=match_accelerator(
                    gaudi_name_candidates(name),
                    vendor="intel",
                    device_class="hpu",
                    catalog=self._catalog,
                ),
                memory_bytes=memory,
            )
            for index, (name, memory) in enumerate(rows)
        )
        self._note_unmatched(devices, "hl-smi" if hpu is None else "habana_frameworks")
        return devices

    def _from_hl_smi(self) -> list[tuple[str, int | None]] | None:
        code, out = self._run(_HL_SMI, _TIMEOUT_S)
        if code != 0 or not out.strip():
            return None
        rows = []
        for line in out.splitlines():
            parts = [p.strip() for p in line.split(",")]
            if len(parts) >= 2 and parts[0].isdigit():
                rows.append((parts[1], _bytes(parts[2]) if len(parts) > 2 else None))
        return rows


def _bytes(text: str) -> int | None:
    """``"98304 MiB"`` -> bytes (hl-smi's unit is MiB when none is printed)."""
    match = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]*)\s*", text)
    if match is None:
        return None
    scale = _UNITS.get((match.group(2) or "MiB").lower())
    return int(float(match.group(1)) * scale) if scale else None
