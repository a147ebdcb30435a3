"""Power cap, GFX clock limits, PCIe and XGMI state of AMD GPUs, read through AMD SMI.

The AMD side of :mod:`accelerators.bench.device._config`: the same record
(:class:`~accelerators.bench.report._config.DeviceConfigRecord`, ``source="amdsmi"``), judged by
the same :func:`~accelerators.bench.device._config.config_reasons`:

* ``power_limit_low``: ``power_cap`` below ``default_power_cap`` of
  ``amdsmi_get_power_cap_info`` (both in microwatts);
* ``clocks_locked``: the current soft maximum of the GFX clock (``curr_sclk_range.upper_bound``
  of ``amdsmi_get_gpu_od_volt_info``) below the board's limit (``sclk_freq_limits.upper_bound``);
  both in Hz, as rocm-smi's own ``rocm_smi.py`` divides them by 10^6 to print MHz. The
  ``clk_locked`` flag of ``amdsmi_get_clock_info(handle, AmdSmiClkType.GFX)`` is recorded and
  named (info) when no cap explains it;
* ``pcie_degraded``: ``pcie_metric.pcie_width`` below ``pcie_static.max_pcie_width`` of
  ``amdsmi_get_pcie_info``. The current speed (``pcie_speed``, MT/s) is recorded as a
  generation, not judged (an idle link slows down), and so is ``max_pcie_interface_version``
  ("maximum PCIe link generation", ROCm 7.1 and later); AMD SMI has no separate GPU maximum,
  so the slot-versus-GPU generation check stays NVIDIA's;
* ``xgmi_down``: ``amdsmi_get_gpu_xgmi_link_status`` (newer libraries; documented for ROCm 6.4)
  lists some links up
  (``"U"``) and others down (``"D"``); disabled links (``"X"``) and a GPU without XGMI are
  recorded, not judged.

Sources: https://github.com/ROCm/amdsmi/blob/amd-staging/py-interface/README.md (power cap,
clock, PCIe, od-volt and metrics calls and fields),
https://rocm.docs.amd.com/projects/amdsmi/en/latest/doxygen/docBin/html/group__tagXGMI.html and
https://rocm.docs.amd.com/projects/amdsmi/en/latest/doxygen/docBin/html/structamdsmi__xgmi__link__status__t.html
(XGMI link status),
https://rocm.docs.amd.com/projects/amdsmi/en/latest/doxygen/docBin/html/structamdsmi__power__cap__info__t.html
(power caps in uW on Linux),
https://rocm.docs.amd.com/projects/amdsmi/en/latest/doxygen/docBin/html/structamdsmi__pcie__info__t_1_1pcie__metric__.html
and https://rocm.docs.amd.com/projects/amdsmi/en/docs-7.1.1/doxygen/docBin/html/structamdsmi__pcie__info__t_1_1pcie__static__.html
(PCIe fields, current speed in MT/s).
The calls and keys were also checked in the ``amdsmi`` 7.0.2 wheel on PyPI, which has no
``max_pcie_interface_version`` yet. Every figure AMD SMI cannot give is recorded in
``unreadable`` with its error; nothing here raises into the benchmark.
"""

from __future__ import annotations

import os
from typing import Any

from accelerators.bench.device._context import Context, DeviceState
from accelerators.bench.report._config import DeviceConfigRecord
from accelerators.detect import _amdsmi
from accelerators.detect._amdsmi import as_number, describe_error

__all__ = ["amd_handle", "read_amd_config"]

#: PCIe transfer rate (MT/s, as ``pcie_speed`` gives it) -> generation.
_GENERATIONS = {2500: 1, 5000: 2, 8000: 3, 16000: 4, 32000: 5, 64000: 6}


def _mhz(value: Any) -> float | None:
    """An od-volt frequency in MHz: AMD SMI gives Hz (a value under 10^5 is taken as MHz)."""
    number = as_number(value)
    if not number:
        return None
    return number / 1e6 if number > 1e5 else number


def _generation(speed: Any) -> int | None:
    number = as_number(speed)
    return _GENERATIONS.get(int(number)) if number else None


def read_amd_config(amdsmi: Any, handle: Any) -> DeviceConfigRecord:
    """Every figure of :class:`DeviceConfigRecord` AMD SMI gives for ``handle``."""
    unreadable: dict[str, str] = {}

    def get(keys: tuple[str, ...], function: str, *args: Any) -> dict[str, Any]:
        try:
            found = getattr(amdsmi, function)(handle, *args)
        except Exception as exc:  # AmdSmiLibraryException (not supported...), an old library
            for key in keys:
                unreadable[key] = f"{function}: {describe_error(exc)}"
            return {}
        return found if isinstance(found, dict) else {}

    def field(key: str, function: str, value: Any) -> Any:
        if value is None or value == "N/A":
            unreadable.setdefault(key, f"{function}: N/A")
            return None
        return value

    cap = get(("power_limit", "default_power_limit"), "amdsmi_get_power_cap_info")
    limit = as_number(field("power_limit", "amdsmi_get_power_cap_info", cap.get("power_cap")))
    default = as_number(
        field("default_power_limit", "amdsmi_get_power_cap_info", cap.get("default_power_cap"))
    )
    gfx_type = getattr(getattr(amdsmi, "AmdSmiClkType", None), "GFX", None)
    clock = get(("max_gfx_clock",), "amdsmi_get_clock_info", gfx_type)
    locked = clock.get("clk_locked")
    od = get(("gfx_clock_max", "gfx_clock_limit"), "amdsmi_get_gpu_od_volt_info")
    soft = _mhz(
        field(
            "gfx_clock_max",
            "amdsmi_get_gpu_od_volt_info",
            (od.get("curr_sclk_range") or {}).get("upper_bound") if od else None,
        )
    )
    board = _mhz(
        field(
            "gfx_clock_limit",
            "amdsmi_get_gpu_od_volt_info",
            (od.get("sclk_freq_limits") or {}).get("upper_bound") if od else None,
        )
    )
    pcie = get(("pcie_width", "pcie_max_width"), "amdsmi_get_pcie_info")
    static, metric = pcie.get("pcie_static") or {}, pcie.get("pcie_metric") or {}
    width = as_number(field("pcie_width", "amdsmi_get_pcie_info", metric.get("pcie_width")))
    max_width = as_number(
        field("pcie_max_width", "amdsmi_get_pcie_info", static.get("max_pcie_width"))
    )
    top = as_number(static.get("max_pcie_interface_version"))  # ROCm 7.1 and later
    up, down = _xgmi(amdsmi, handle, unreadable)
    return DeviceConfigRecord(
        source="amdsmi",
        power_limit_w=limit / 1e6 if limit else None,  # microwatts
        default_power_limit_w=default / 1e6 if default else None,
        max_sm_clock_mhz=as_number(clock.get("max_clk")),
        gfx_clock_max_mhz=soft,
        gfx_clock_limit_mhz=board,
        gfx_clock_locked=locked if isinstance(locked, bool) else None,
        pcie_generation=_generation(metric.get("pcie_speed")),
        pcie_max_generation=int(top) if top else None,
        pcie_width=int(width) if width else None,
        pcie_max_width=int(max_width) if max_width else None,
        xgmi_links_up=up,
        xgmi_links_down=down,
        unreadable=unreadable,
    )


def _xgmi(
    amdsmi: Any, handle: Any, unreadable: dict[str, str]
) -> tuple[int | None, tuple[int, ...]]:
    """``(links up, indices down)``; ``(None, ())`` for no XGMI or an unreadable status."""
    try:
        status = amdsmi.amdsmi_get_gpu_xgmi_link_status(handle)
    except Exception as exc:  # no XGMI (a PCIe card), a library before ROCm 6.4
        unreadable["xgmi"] = f"amdsmi_get_gpu_xgmi_link_status: {describe_error(exc)}"
        return None, ()
    links = list((status or {}).get("status") or ())
    total = as_number((status or {}).get("total_links"))
    if total is not None:
        links = links[: int(total)]
    states = [str(s).strip().upper() for s in links]
    up = sum(1 for s in states if s == "U")
    if not up:
        return (0 if states else None), ()
    return up, tuple(i for i, s in enumerate(states) if s == "D")


def amd_handle(amdsmi: Any, ctx: Context, state: DeviceState) -> Any:
    """The AMD SMI handle of a benchmarked device; raises ``LookupError`` when it can't be told."""
    extra = state.identity.extra or {}
    index = extra.get("smi_index") if extra.get("tool") == "amd-smi" else None
    seen = sum(1 for d in ctx.detected.devices if d.vendor == "amd" and d.kind == "gpu")
    found = _amdsmi.pick_handle(
        _amdsmi.gpu_handles(amdsmi),
        bdf=extra.get("bdf"),
        smi_index=int(index) if index is not None and str(index).isdigit() else None,
        position=state.props.index,
        seen=seen,
        hidden=_amdsmi.narrowed(os.environ),
    )
    if found is None:
        raise LookupError(
            "no AMD SMI device matches it by PCI address, amd-smi index or position "
            "(a *_VISIBLE_DEVICES variable hides the order)"
        )
    return found[0]


def check_amd_config(ctx: Context, state: DeviceState) -> tuple[DeviceConfigRecord | None, str]:
    """``(record, "")``, or ``(None, why)`` when AMD SMI cannot be opened or has no handle."""
    with _amdsmi.open_amdsmi() as (amdsmi, why):
        if amdsmi is None:
            return None, why or "amdsmi unavailable"
        try:
            handle = amd_handle(amdsmi, ctx, state)
        except Exception as exc:
            return None, f"no AMD SMI handle ({describe_error(exc)})"
        return read_amd_config(amdsmi, handle), ""
