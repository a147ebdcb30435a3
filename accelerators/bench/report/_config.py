"""Report records of the device-configuration checks and the sustained phase (issue 11).

Kept apart from :mod:`accelerators.bench.report._models` (which embeds them in ``DeviceReport``) so
that each stays small; they import nothing from the benchmark.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DeviceConfigRecord", "SustainedRecord"]

_MODEL = ConfigDict(extra="forbid", frozen=True)


class DeviceConfigRecord(BaseModel):
    """Power limit, clocks and links as NVML or AMD SMI reports them; ``None`` where unreadable.

    ``unreadable`` maps each figure that could not be read to why (not supported on this
    GPU, no permission, the library missing...). NVIDIA GPUs fill the ``app_sm_clock`` and
    ``nvlinks`` fields, AMD GPUs the ``gfx_clock`` and ``xgmi`` fields; the power and PCIe
    fields are common (AMD SMI's names in :mod:`accelerators.bench.device._amd_config`).
    """

    model_config = _MODEL

    source: Literal["nvml", "amdsmi"] | None = None
    """The library that was read (``None`` in reports written before AMD support: NVML)."""
    power_limit_w: float | None = None
    """The enforced power limit (``nvmlDeviceGetEnforcedPowerLimit``)."""
    default_power_limit_w: float | None = None
    """The board's default limit (``nvmlDeviceGetPowerManagementDefaultLimit``)."""
    app_sm_clock_mhz: float | None = None
    """Applications SM clock now set (``nvmlDeviceGetApplicationsClock``)."""
    default_app_sm_clock_mhz: float | None = None
    """Its default (``nvmlDeviceGetDefaultApplicationsClock``)."""
    max_sm_clock_mhz: float | None = None
    """Highest SM clock (``nvmlDeviceGetMaxClockInfo``)."""
    pcie_generation: int | None = None
    """Current link generation (idle links drop to a lower one to save power: not judged)."""
    pcie_max_generation: int | None = None
    """Highest generation the GPU reaches in this slot (``nvmlDeviceGetMaxPcieLinkGeneration``)."""
    pcie_gpu_max_generation: int | None = None
    """Highest generation the GPU supports (``nvmlDeviceGetGpuMaxPcieLinkGeneration``)."""
    pcie_width: int | None = None
    pcie_max_width: int | None = None
    nvlinks_up: int | None = None
    """NVLink links active; ``None`` when the GPU has none or they cannot be read."""
    nvlinks_down: tuple[int, ...] = ()
    """Indices of NVLink links that are down."""
    gfx_clock_max_mhz: float | None = None
    """AMD: the highest GFX clock now allowed, the soft maximum (``curr_sclk_range``)."""
    gfx_clock_limit_mhz: float | None = None
    """AMD: the highest GFX clock the board allows (``sclk_freq_limits``)."""
    gfx_clock_locked: bool | None = None
    """AMD: ``clk_locked`` of ``amdsmi_get_clock_info`` for the GFX clock."""
    xgmi_links_up: int | None = None
    """AMD: XGMI links up; ``None`` when the GPU has none or they cannot be read."""
    xgmi_links_down: tuple[int, ...] = ()
    """AMD: indices of XGMI links that are down."""
    unreadable: dict[str, str] = Field(default_factory=dict)


class SustainedRecord(BaseModel):
    """A few seconds of back-to-back GEMMs on the best bf16/fp16/fp32 shape, against the burst.

    ``ratio`` is the rate of the last quarter of the run over the burst (search) median; a
    ratio below the threshold with thermal or power clock-event reasons is
    ``thermal_throttle``, without them ``sustained_drop``.
    """

    model_config = _MODEL

    dtype: str
    shape: str
    seconds: float
    calls: int
    burst_tflops: float
    sustained_tflops: float
    first_tflops: float
    last_tflops: float
    ratio: float
    threshold: float
    sm_clock_first_mhz: float | None = None
    sm_clock_last_mhz: float | None = None
    reasons_seen: tuple[str, ...] = ()
