"""AMD GPU telemetry through AMD SMI's Python library (``amdsmi``), read the way NVML is read.

:class:`~accelerators.detect._rocm.RocmProbe` lists the devices; this module adds what NVML gives
for NVIDIA GPUs: the GFX clock (``clocks_mhz["sm"]``: it drives the compute units as the SM clock
drives NVIDIA's SMs, so the benchmark folds both alike) and its maximum, the hotspot temperature,
the socket power and power cap, the uncorrectable ECC count and the active throttling causes.

``amdsmi`` is imported only when an AMD GPU is there, and :data:`amdsmi_loader` replaces the
import in tests.

The maximum is kept as ``clocks_mhz["gfx_max"]``, not ``"sm_max"``, so ``clocks_low`` (a clock
under load below 70 % of its maximum) does not judge AMD GPUs: a healthy MI300X runs a dense
GEMM at its power cap well below its 2100 MHz peak (AMD's "Measuring Max-Achievable FLOPs, Part
2" reports median clocks of 1115-1230 MHz), which that rule would call slow every time. A capped
clock is judged from the configuration instead (``clocks_locked``), and power capping from the
violation status. Source:
https://rocm.blogs.amd.com/software-tools-optimization/measuring-max-achievable-flops-part2/README.html

Calls, fields and units, as AMD documents them:

* ``amdsmi_init`` / ``amdsmi_shut_down`` / ``amdsmi_get_processor_handles`` /
  ``amdsmi_get_gpu_device_bdf`` (``"0000:0c:00.0"``); errors are ``AmdSmiException``
  subclasses. https://github.com/ROCm/amdsmi/blob/amd-staging/py-interface/README.md
* ``amdsmi_get_clock_info(handle, AmdSmiClkType.GFX)``: ``clk``, ``max_clk`` (MHz),
  ``clk_locked``; unsupported members come back as ``"N/A"``. (same README)
* ``amdsmi_get_gpu_metrics_info``: ``temperature_hotspot`` (C), ``current_socket_power``
  (W, MI300 and later), ``average_socket_power`` (W, MI200 and earlier), ``throttle_status``,
  ``current_uclk`` (MHz). (same README, "amdsmi_get_gpu_metrics_info")
* ``amdsmi_get_power_cap_info``: ``power_cap`` in microwatts on Linux.
  https://rocm.docs.amd.com/projects/amdsmi/en/latest/doxygen/docBin/html/structamdsmi__power__cap__info__t.html
* Throttling: on Instinct MI300 and newer ``amdsmi_get_violation_status`` gives
  ``active_ppt_pwr`` (PVIOL), ``active_socket_thrm`` (TVIOL), ``active_prochot_thrm``,
  ``active_vr_thrm``, ``active_hbm_thrm``, ``active_gfx_clk_below_host_limit``; on MI100/MI200
  only ``throttle_status`` of the metrics says "throttled now".
  https://rocm.docs.amd.com/projects/amdsmi/en/develop/conceptual/gpu-violations.html and
  https://rocm.docs.amd.com/projects/amdsmi/en/docs-6.4.1/doxygen/docBin/html/structamdsmi__violation__status__t.html
* ``amdsmi_get_gpu_total_ecc_count``: ``uncorrectable_count``. (same README)

Every call and key above was also checked in the ``amdsmi`` 7.0.2 wheel on PyPI
(``amdsmi_interface.py``). Nothing here raises: a figure that cannot be read is left ``None``
and the first error is kept in ``extra["telemetry_error"]``, which the benchmark quotes.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = [
    "THROTTLE_NAMES",
    "amdsmi_loader",
    "as_number",
    "describe_error",
    "gpu_handles",
    "load_amdsmi",
    "narrowed",
    "open_amdsmi",
    "pick_handle",
    "read_telemetry",
    "throttle_names",
]

#: Returns an ``amdsmi``-compatible module; ``None`` imports ``amdsmi``. Tests put a fake here.
amdsmi_loader: Callable[[], Any] | None = None

#: ``amdsmi_get_violation_status`` flag -> the clock-event reason name the benchmark reports.
#: Each name says "power" or "thermal", which the sustained phase reads as a hardware cause.
THROTTLE_NAMES: Mapping[str, str] = {
    "active_ppt_pwr": "amd_ppt_power",
    "active_socket_thrm": "amd_socket_thermal",
    "active_prochot_thrm": "amd_prochot_thermal",
    "active_vr_thrm": "amd_vr_thermal",
    "active_hbm_thrm": "amd_hbm_thermal",
    "active_gfx_clk_below_host_limit": "amd_gfx_clk_below_host_limit",
}
#: One AMD SMI session at a time: the telemetry thread and the phases read concurrently, and
#: one thread's ``amdsmi_shut_down`` must not end another's session mid-call.
_SESSION = threading.Lock()
#: Reported when only the metrics' ``throttle_status`` (MI100/MI200, Radeon) says "throttled".
_THROTTLED = "amd_throttle_status"


def describe_error(exc: BaseException) -> str:
    """``"AmdSmiLibraryException: ..."``, or the class name alone when the message is empty."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def load_amdsmi() -> tuple[Any | None, str | None]:
    """``(module, None)``, or ``(None, why)`` when the library cannot be imported."""
    if amdsmi_loader is not None:
        try:
            return amdsmi_loader(), None
        except Exception as exc:  # a test's loader standing in for a failed import
            return None, f"amdsmi could not be loaded ({describe_error(exc)})"
    try:
        return importlib.import_module("amdsmi"), None
    except ImportError:
        return None, "the amdsmi Python library (ROCm's AMD SMI) is not installed"
    except Exception as exc:  # the package is there but its libamd_smi.so is not
        return None, f"amdsmi could not be loaded ({describe_error(exc)})"


@contextlib.contextmanager
def open_amdsmi(module: Any = None) -> Iterator[tuple[Any | None, str | None]]:
    """``amdsmi_init`` on entry, ``amdsmi_shut_down`` on exit; yields ``(module, why not)``.

    :param module: an ``amdsmi``-compatible module; :func:`load_amdsmi` when ``None``.
    """
    amdsmi, why = (module, None) if module is not None else load_amdsmi()
    if amdsmi is None:
        yield None, why
        return
    with _SESSION:
        try:
            amdsmi.amdsmi_init()
        except Exception as exc:
            yield None, f"amdsmi_init failed ({describe_error(exc)})"
            return
        try:
            yield amdsmi, None
        finally:
            with contextlib.suppress(Exception):  # nothing to do about a failed shut-down
                amdsmi.amdsmi_shut_down()


def gpu_handles(amdsmi: Any) -> list[tuple[Any, str | None]]:
    """Every GPU handle with its BDF (lower case; ``None`` where unreadable), in AMD SMI order."""
    out: list[tuple[Any, str | None]] = []
    for handle in amdsmi.amdsmi_get_processor_handles():
        try:
            bdf: str | None = str(amdsmi.amdsmi_get_gpu_device_bdf(handle)).strip().lower()
        except Exception:
            bdf = None
        out.append((handle, bdf))
    return out


def narrowed(env: Mapping[str, str]) -> bool:
    """Whether a ``*_VISIBLE_DEVICES`` variable may reorder or hide GPUs from this process."""
    return any(
        v in env for v in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES")
    )


def pick_handle(
    handles: list[tuple[Any, str | None]],
    *,
    bdf: str | None,
    smi_index: int | None,
    position: int,
    seen: int,
    hidden: bool,
) -> tuple[Any, str | None] | None:
    """The AMD SMI handle of one device this process sees, ``None`` when it cannot be told.

    By PCI address when known; else by ``amd-smi``'s GPU index (``smi_index``: AMD SMI's handle
    order); else by ``position``, but only when AMD SMI lists exactly the ``seen`` devices and
    no ``*_VISIBLE_DEVICES`` variable (``hidden``) reorders them.
    """
    if bdf:
        return next((h for h in handles if h[1] == bdf.lower()), None)
    if smi_index is not None:
        return handles[smi_index] if 0 <= smi_index < len(handles) else None
    if hidden or len(handles) != seen or not 0 <= position < len(handles):
        return None
    return handles[position]


def as_number(value: Any) -> float | None:
    """A finite, non-negative number, or ``None`` for ``"N/A"``, ``None`` and the like."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number >= 0 and number == number and number != float("inf") else None


def _active(value: Any) -> bool:
    """A violation flag: ``True``/``1``, or a per-partition list with any set (``"N/A"``: no)."""
    if isinstance(value, list | tuple):
        return any(_active(v) for v in value)
    if isinstance(value, bool):
        return value
    number = as_number(value)
    return bool(number)


def throttle_names(violations: Mapping[str, Any] | None, throttle_status: Any) -> tuple[str, ...]:
    """Active throttling causes: the violation flags when readable, else ``throttle_status``.

    >>> throttle_names({"active_ppt_pwr": True, "active_socket_thrm": False}, "N/A")
    ('amd_ppt_power',)
    >>> throttle_names(None, 1)
    ('amd_throttle_status',)
    """
    if violations is not None:
        readable = [k for k in THROTTLE_NAMES if violations.get(k, "N/A") != "N/A"]
        if readable:
            return tuple(THROTTLE_NAMES[k] for k in readable if _active(violations[k]))
    return (_THROTTLED,) if _active(throttle_status) else ()


def read_telemetry(amdsmi: Any, handle: Any) -> dict[str, Any]:
    """The :class:`~accelerators.detect.DeviceInfo` telemetry fields AMD SMI gives for ``handle``.

    Keys: ``clocks_mhz``, ``temperature_c``, ``power_w``, ``power_limit_w``, ``ecc_errors``,
    ``throttle_reasons``, and ``error`` (the first call that failed, or ``None``).
    """
    errors: list[str] = []

    def call(function: str, *args: Any) -> Any:
        try:
            return getattr(amdsmi, function)(handle, *args)
        except Exception as exc:  # AmdSmiLibraryException (not supported...), an old library
            errors.append(f"{function}: {describe_error(exc)}")
            return None

    clocks: dict[str, float] = {}
    gfx_type = getattr(getattr(amdsmi, "AmdSmiClkType", None), "GFX", None)
    gfx = call("amdsmi_get_clock_info", gfx_type) if gfx_type is not None else None
    metrics = call("amdsmi_get_gpu_metrics_info") or {}
    for key, value in (
        ("sm", (gfx or {}).get("clk")),
        ("gfx_max", (gfx or {}).get("max_clk")),
        ("mem", metrics.get("current_uclk")),
    ):
        number = as_number(value)
        if number:
            clocks[key] = number
    if "sm" not in clocks:  # gpu_metrics 1.4+: one clock per XCC, the scalar "N/A"
        per_xcc = [as_number(v) for v in metrics.get("current_gfxclks") or ()]
        valid = [v for v in per_xcc if v]
        if valid:
            clocks["sm"] = sum(valid) / len(valid)
    power = as_number(metrics.get("current_socket_power"))
    if power is None:
        power = as_number(metrics.get("average_socket_power"))
    cap = as_number((call("amdsmi_get_power_cap_info") or {}).get("power_cap"))
    ecc = as_number((call("amdsmi_get_gpu_total_ecc_count") or {}).get("uncorrectable_count"))
    violations = None
    if hasattr(amdsmi, "amdsmi_get_violation_status"):  # ROCm 6.3 and later
        try:
            violations = amdsmi.amdsmi_get_violation_status(handle)
        except Exception:  # MI100/MI200 and Radeon: not supported, throttle_status answers
            violations = None
    return {
        "clocks_mhz": clocks,
        "temperature_c": as_number(metrics.get("temperature_hotspot")),
        "power_w": power,
        "power_limit_w": cap / 1e6 if cap else None,  # microwatts
        "ecc_errors": int(ecc) if ecc is not None else None,
        "throttle_reasons": throttle_names(violations, metrics.get("throttle_status")),
        "error": errors[0] if errors else None,
    }
