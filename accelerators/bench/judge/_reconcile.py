"""The devices the driver sees against the ones torch benchmarked, by UUID where both have one.

``accelerators.current()`` (NVML) may see eight GPUs while torch benchmarks two (a device
selection, ``CUDA_VISIBLE_DEVICES`` set after the probe, a torch build that sees fewer). A gate
that passes then proves nothing about the other six: the report names them, and fails when the
expected spec needs more devices than were benchmarked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from accelerators.bench.device._context import driver_record
from accelerators.bench.measure._backend import DeviceProps
from accelerators.bench.report._models import Reason, ReasonCode, Severity

if TYPE_CHECKING:
    from accelerators.detect import Detected
    from accelerators.spec import AcceleratorSpec

__all__ = ["reconcile_reasons"]


def _needed(spec: AcceleratorSpec | None, matched: str | None) -> int | None:
    if spec is None:
        return None
    alternatives = spec.alternatives
    chosen = next((a for a in alternatives if str(a) == matched), alternatives[0])
    return chosen.devices_needed


def reconcile_reasons(
    spec: AcceleratorSpec | None,
    matched: str | None,
    detected: Detected,
    benchmarked: Sequence[DeviceProps],
    *,
    selected: bool,
) -> list[Reason]:
    """Reasons for driver-visible accelerators that were not benchmarked.

    :param spec: the expectation (its matched alternative's count is what must be benchmarked).
    :param matched: the text of the alternative that matched, ``None`` when none did.
    :param detected: what the driver reported.
    :param benchmarked: the devices the backend measured.
    :param selected: whether the caller chose the devices (then the rest is only noted).
    """
    driver = [d for d in detected.devices if d.kind != "cpu"]
    if not driver or any(p.kind == "cpu" for p in benchmarked):
        return []
    if all(p.uuid for p in benchmarked) and all(d.extra.get("uuid") for d in driver):
        ran = [driver_record(detected, p) for p in benchmarked]
        missing = [d for d in driver if not any(d is r for r in ran)]
        names = [str(d.extra["uuid"]) for d in missing]
    else:  # no UUIDs on one side: only the counts can be compared
        missing = driver[len(benchmarked) :]
        names = [f"#{d.index}" for d in missing]
    if not missing:
        return []
    count = len(benchmarked)
    needed = _needed(spec, matched)
    said = f"{len(driver)} device(s) visible to the driver, {count} benchmarked"
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    if needed is not None and needed > count:
        return [
            Reason(
                code=ReasonCode.TOO_FEW_DEVICES,
                severity=Severity.FAIL,
                message=f"Expected {needed} device(s) benchmarked, {said}; not benchmarked: "
                f"{shown}",
                value=float(count),
                threshold=float(needed),
                unit="count",
            )
        ]
    return [
        Reason(
            code=ReasonCode.UNBENCHMARKED_DEVICES,
            severity=Severity.INFO if selected else Severity.WARN,
            message=f"{said}; this gate says nothing about {shown}",
            value=float(len(missing)),
            unit="count",
        )
    ]
