"""Power limit, application clocks, PCIe and NVLink state of NVIDIA GPUs, read through NVML;
AMD GPUs are read through AMD SMI (:mod:`accelerators.bench.device._amd_config`) into the same
record.

The common causes of a slow GPU that DCGM's diagnostics catch and a GEMM rate alone only hints
at, each a named WARN reason with its figures:

* ``power_limit_low``: the enforced power limit below the board's default
  (``nvmlDeviceGetEnforcedPowerLimit`` vs ``nvmlDeviceGetPowerManagementDefaultLimit``);
* ``clocks_locked``: the applications SM clock set below its default
  (``nvmlDeviceGetApplicationsClock`` vs ``nvmlDeviceGetDefaultApplicationsClock``). NVML has
  no getter for clocks locked with ``nvidia-smi -lgc``; those show under load as a low SM
  clock (``clocks_low``, from the telemetry);
* ``pcie_degraded``: the link trained narrower than its maximum width, or the slot caps the
  generation below the GPU's (``nvmlDeviceGetMaxPcieLinkGeneration`` <
  ``nvmlDeviceGetGpuMaxPcieLinkGeneration``). The *current* generation is recorded, not judged:
  an idle link (and a GEMM leaves PCIe idle) drops to a lower one to save power;
* ``nvlink_down``: some NVLink links active and others down (``nvmlDeviceGetNvLinkState`` per
  link). A GPU with no active link at all (a PCIe card without a bridge) is recorded, not judged.

On AMD GPUs the same codes come from the power cap, a soft maximum GFX clock below the board's
limit (``clocks_locked``), the PCIe width, and ``xgmi_down`` for XGMI links.

Every figure NVML cannot give is recorded with the reason (``unreadable``) and one info reason
``config_unavailable`` says so; nothing here raises into the benchmark.
"""

from __future__ import annotations

import contextlib
import importlib
import warnings
from collections.abc import Callable
from typing import Any

from accelerators.bench.device._context import Context, DeviceState
from accelerators.bench.report._config import DeviceConfigRecord
from accelerators.bench.report._models import Reason, ReasonCode, Severity

__all__ = ["check_device_config", "config_reasons", "nvml_loader", "read_config"]

#: Returns a ``pynvml``-compatible module; ``None`` imports ``pynvml``. Tests put a fake here.
nvml_loader: Callable[[], Any] | None = None
#: A limit or clock this far below its default is judged (rounding in NVML's figures aside).
_TOLERANCE = 0.98
#: NVML_CLOCK_SM.
_CLOCK_SM = 1
#: NVML_NVLINK_MAX_LINKS (18 on Hopper and Blackwell).
_MAX_LINKS = 18


def _why(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _load() -> tuple[Any | None, str | None]:
    if nvml_loader is not None:
        return nvml_loader(), None
    try:
        with warnings.catch_warnings():  # the old "pynvml" wrapper warns on import
            warnings.simplefilter("ignore")
            return importlib.import_module("pynvml"), None
    except ImportError:
        return None, "pynvml (nvidia-ml-py) is not installed"


def read_config(nvml: Any, handle: Any) -> DeviceConfigRecord:
    """Every figure of :class:`DeviceConfigRecord` NVML gives for ``handle``."""
    unreadable: dict[str, str] = {}

    def get(key: str, function: str, *args: Any) -> Any:
        try:
            return getattr(nvml, function)(handle, *args)
        except Exception as exc:  # NVMLError_NotSupported, NoPermission, a missing function
            unreadable[key] = f"{function}: {_why(exc)}"
            return None

    def watts(value: Any) -> float | None:
        return None if value is None else float(value) / 1000.0  # NVML gives milliwatts

    def number(value: Any) -> float | None:
        return None if value is None else float(value)

    def integer(value: Any) -> int | None:
        return None if value is None else int(value)

    sm = getattr(nvml, "NVML_CLOCK_SM", _CLOCK_SM)
    up: int | None = None
    down: list[int] = []
    for link in range(int(getattr(nvml, "NVML_NVLINK_MAX_LINKS", _MAX_LINKS))):
        try:
            state = nvml.nvmlDeviceGetNvLinkState(handle, link)
        except Exception as exc:  # past the last link, or no NVLink at all
            if link == 0:
                unreadable["nvlink"] = f"nvmlDeviceGetNvLinkState: {_why(exc)}"
            break
        up = (up or 0) + (1 if int(state) else 0)
        if not int(state):
            down.append(link)
    return DeviceConfigRecord(
        source="nvml",
        power_limit_w=watts(get("power_limit", "nvmlDeviceGetEnforcedPowerLimit")),
        default_power_limit_w=watts(
            get("default_power_limit", "nvmlDeviceGetPowerManagementDefaultLimit")
        ),
        app_sm_clock_mhz=number(get("app_sm_clock", "nvmlDeviceGetApplicationsClock", sm)),
        default_app_sm_clock_mhz=number(
            get("default_app_sm_clock", "nvmlDeviceGetDefaultApplicationsClock", sm)
        ),
        max_sm_clock_mhz=number(get("max_sm_clock", "nvmlDeviceGetMaxClockInfo", sm)),
        pcie_generation=integer(get("pcie_generation", "nvmlDeviceGetCurrPcieLinkGeneration")),
        pcie_max_generation=integer(
            get("pcie_max_generation", "nvmlDeviceGetMaxPcieLinkGeneration")
        ),
        pcie_gpu_max_generation=integer(
            get("pcie_gpu_max_generation", "nvmlDeviceGetGpuMaxPcieLinkGeneration")
        ),
        pcie_width=integer(get("pcie_width", "nvmlDeviceGetCurrPcieLinkWidth")),
        pcie_max_width=integer(get("pcie_max_width", "nvmlDeviceGetMaxPcieLinkWidth")),
        nvlinks_up=up,
        nvlinks_down=tuple(down) if up else (),
        unreadable=unreadable,
    )


def _reason(index: int, code: ReasonCode, severity: Severity, metric: str, text: str) -> Reason:
    return Reason(
        code=code,
        severity=severity,
        device_index=index,
        metric=metric,
        message=f"device {index}: {text}",
    )


def config_reasons(config: DeviceConfigRecord, index: int) -> list[Reason]:
    """The WARN reasons a configuration gives (and one info reason for what is unreadable)."""
    out: list[Reason] = []
    warn = Severity.WARN
    limit, default = config.power_limit_w, config.default_power_limit_w
    if limit is not None and default and limit < default * _TOLERANCE:
        out.append(
            _reason(
                index,
                ReasonCode.POWER_LIMIT_LOW,
                warn,
                "config.power_limit",
                f"power limit {limit:g} W is below the board default {default:g} W "
                f"({limit / default:.0%}): the GPU cannot reach its datasheet rate",
            )
        )
    app, app_default = config.app_sm_clock_mhz, config.default_app_sm_clock_mhz
    if app is not None and app_default and app < app_default * _TOLERANCE:
        top = f", max {config.max_sm_clock_mhz:g} MHz" if config.max_sm_clock_mhz else ""
        out.append(
            _reason(
                index,
                ReasonCode.CLOCKS_LOCKED,
                warn,
                "config.clocks",
                f"applications SM clock set to {app:g} MHz, below its default "
                f"{app_default:g} MHz{top}",
            )
        )
    out += _gfx_clock_reasons(config, index)
    width, max_width = config.pcie_width, config.pcie_max_width
    if width is not None and max_width and width < max_width:
        out.append(
            _reason(
                index,
                ReasonCode.PCIE_DEGRADED,
                warn,
                "config.pcie",
                f"PCIe link runs at x{width} of x{max_width}: host transfers get "
                f"{width / max_width:.0%} of their bandwidth (reseat the card or check the riser)",
            )
        )
    slot, gpu = config.pcie_max_generation, config.pcie_gpu_max_generation
    if slot is not None and gpu is not None and slot < gpu:
        out.append(
            _reason(
                index,
                ReasonCode.PCIE_DEGRADED,
                warn,
                "config.pcie",
                f"PCIe link can reach Gen{slot} only, the GPU supports Gen{gpu}: the slot, "
                "riser or BIOS setting limits it",
            )
        )
    fabrics = (
        ("NVLink", ReasonCode.NVLINK_DOWN, config.nvlinks_up, config.nvlinks_down),
        ("XGMI", ReasonCode.XGMI_DOWN, config.xgmi_links_up, config.xgmi_links_down),
    )
    for fabric, code, up, down in fabrics:
        if up and down:  # some links up, others down (a card with none up is not judged)
            links = ", ".join(str(i) for i in down)
            out.append(
                _reason(
                    index,
                    code,
                    warn,
                    f"config.{fabric.lower()}",
                    f"{fabric} link(s) {links} down, {up} up: peer-to-peer and collective "
                    "bandwidth is cut",
                )
            )
    judged = {k: v for k, v in config.unreadable.items() if k not in ("nvlink", "xgmi")}
    if judged:
        listed = "; ".join(f"{k} ({v})" for k, v in sorted(judged.items()))
        out.append(
            _reason(
                index,
                ReasonCode.CONFIG_UNAVAILABLE,
                Severity.INFO,
                "config",
                f"not read, so not judged: {listed}",
            )
        )
    return out


def _gfx_clock_reasons(config: DeviceConfigRecord, index: int) -> list[Reason]:
    """AMD: a soft maximum GFX clock under the board's limit; a lock with no cap, as info."""
    soft, board = config.gfx_clock_max_mhz, config.gfx_clock_limit_mhz
    if soft is not None and board and soft < board * _TOLERANCE:
        return [
            _reason(
                index,
                ReasonCode.CLOCKS_LOCKED,
                Severity.WARN,
                "config.clocks",
                f"GFX clock capped at {soft:g} MHz, below its {board:g} MHz limit (a soft "
                "maximum SCLK was set)",
            )
        ]
    if config.gfx_clock_locked:
        return [
            _reason(
                index,
                ReasonCode.CLOCKS_LOCKED,
                Severity.INFO,
                "config.clocks",
                "GFX clock reported locked (AMD SMI clk_locked) without a cap below its limit",
            )
        ]
    return []


def _handle(nvml: Any, state: DeviceState) -> Any:
    """The NVML handle of the device's GPU (a MIG slice's parent: power and links are its)."""
    extra = state.identity.extra or {}
    uuid = extra.get("uuid")
    if uuid:
        handle = nvml.nvmlDeviceGetHandleByUUID(uuid)
    else:
        index = extra.get("nvml_index")
        handle = nvml.nvmlDeviceGetHandleByIndex(
            int(index) if index is not None else state.props.index
        )
    if state.identity.is_mig and hasattr(nvml, "nvmlDeviceGetDeviceHandleFromMigDeviceHandle"):
        with contextlib.suppress(Exception):  # a full-GPU handle already: keep it
            handle = nvml.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(handle)
    return handle


def check_device_config(ctx: Context, state: DeviceState) -> None:
    """Read one GPU's configuration into ``state.config`` and add its reasons.

    Runs on NVIDIA GPUs (the ``cuda`` backend) through NVML and on AMD GPUs (the ``rocm``
    backend) through AMD SMI, and wherever a test installed :data:`nvml_loader` or
    :data:`accelerators.detect._amdsmi.amdsmi_loader`; elsewhere it does nothing.
    """
    if ctx.is_cpu:
        return
    if state.identity.vendor == "amd" or ctx.backend.kind == "rocm":
        from accelerators.detect import _amdsmi

        if ctx.backend.kind == "rocm" or _amdsmi.amdsmi_loader is not None:
            _check_amd(ctx, state)
        return
    if ctx.backend.kind != "cuda" and nvml_loader is None:
        return
    _check_nvidia(ctx, state)


def _unavailable(state: DeviceState, why: str) -> None:
    index = state.props.index
    state.reasons.append(
        _reason(
            index,
            ReasonCode.CONFIG_UNAVAILABLE,
            Severity.INFO,
            "config",
            f"power limit, clocks and links not read: {why}",
        )
    )


def _check_amd(ctx: Context, state: DeviceState) -> None:
    from accelerators.bench.device._amd_config import check_amd_config

    config, why = check_amd_config(ctx, state)
    if config is None:
        _unavailable(state, why)
        return
    state.config = config
    state.reasons += config_reasons(config, state.props.index)


def _check_nvidia(ctx: Context, state: DeviceState) -> None:
    nvml, missing = _load()
    if nvml is None:
        _unavailable(state, missing or "pynvml unavailable")
        return
    try:
        nvml.nvmlInit()
    except Exception as exc:
        _unavailable(state, f"nvmlInit failed ({_why(exc)})")
        return
    try:
        try:
            handle = _handle(nvml, state)
        except Exception as exc:
            _unavailable(state, f"no NVML handle ({_why(exc)})")
            return
        config = read_config(nvml, handle)
    finally:
        with contextlib.suppress(Exception):
            nvml.nvmlShutdown()
    state.config = config
    state.reasons += config_reasons(config, state.props.index)
