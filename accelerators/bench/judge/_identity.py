"""Identity checks: do the visible devices match the expected spec (SKU, MIG, count)?

Each alternative of a spec (the spec, then its fallbacks) is tried in order; the first one
every visible device matches is the answer. The codes are listed in
:mod:`accelerators.bench.judge._verdict`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from accelerators.bench.report._models import Reason, ReasonCode, Severity

if TYPE_CHECKING:
    from accelerators.detect import Detected, DeviceInfo
    from accelerators.spec import AcceleratorSpec

__all__ = ["device_name", "identity_reasons"]


def device_name(device: DeviceInfo) -> str:
    acc = device.accelerator
    label = acc.name if acc is not None else repr(device.raw_name)
    if device.is_mig:
        label += f" MIG {device.mig_profile or '(unknown profile)'}"
    return f"device {device.index} ({label})"


def identity_reasons(
    spec: AcceleratorSpec | None, detected: Detected
) -> tuple[list[Reason], str | None]:
    """Compare what is visible with what ``spec`` asks for.

    Each alternative of ``spec`` (the spec, then its fallbacks) is tried in order; the first
    one every visible device matches is the answer. When none matches, the preferred
    alternative's problems are returned.

    :param spec: the expectation, or ``None`` to only describe what is there.
    :param detected: what :func:`accelerators.current` found.
    :return: the reasons and the text of the matching alternative (``None`` when none).
    """
    devices = [d for d in detected.devices if d.kind != "cpu"]
    if spec is None:
        reasons = []
        if not devices:
            reasons.append(
                Reason(
                    code=ReasonCode.NO_ACCELERATOR,
                    severity=Severity.INFO,
                    message="No accelerator is visible; the host CPU is benchmarked"
                    + (f" ({detected.reason})" if detected.reason else ""),
                )
            )
        for device in devices:
            if device.accelerator is None:
                reasons.append(
                    Reason(
                        code=ReasonCode.UNIDENTIFIED_DEVICE,
                        severity=Severity.WARN,
                        device_index=device.index,
                        message=f"{device_name(device)} is not in the catalog: no datasheet "
                        "figures to compare with, measured figures only",
                    )
                )
        return reasons, None
    alternatives = spec.alternatives
    first_problems: list[Reason] = []
    for position, alternative in enumerate(alternatives):
        problems, extra = _check_alternative(alternative, devices, detected)
        if not problems:
            reasons = list(extra)
            if position > 0:
                reasons.append(
                    Reason(
                        code=ReasonCode.FALLBACK_MATCHED,
                        severity=Severity.INFO,
                        message=f"Matched fallback {position} ({alternative}) of {spec}; "
                        f"the preferred {alternatives[0]} did not match",
                    )
                )
            return reasons, str(alternative)
        if position == 0:
            first_problems = problems
    if len(alternatives) > 1:
        others = ", ".join(str(a) for a in alternatives[1:])
        first_problems = [
            r.model_copy(update={"message": f"{r.message} (no fallback matched either: {others})"})
            for r in first_problems
        ]
    return first_problems, None


def _check_alternative(
    alternative: AcceleratorSpec, devices: Sequence[DeviceInfo], detected: Detected
) -> tuple[list[Reason], list[Reason]]:
    """(problems, informational reasons) of one alternative without fallbacks."""
    wanted = str(alternative)
    if not devices:
        why = f" ({detected.reason})" if detected.reason else ""
        return [
            Reason(
                code=ReasonCode.NO_ACCELERATOR,
                severity=Severity.FAIL,
                message=f"Expected {wanted}, but no accelerator is visible{why}",
            )
        ], []
    candidates = alternative.candidates
    names = {acc.name for acc in candidates}
    shown = ", ".join(sorted(names)) or "none in the catalog"
    acc = alternative.accelerator
    problems: list[Reason] = []
    matching = 0
    for device in devices:
        found: list[Reason] = []
        if device.accelerator is None:
            found.append(
                Reason(
                    code=ReasonCode.WRONG_ACCELERATOR,
                    severity=Severity.FAIL,
                    device_index=device.index,
                    message=f"{device_name(device)} is not in the catalog, so it cannot be "
                    f"confirmed as {wanted} (accepted: {shown})",
                )
            )
        elif device.accelerator.name not in names:
            found.append(
                Reason(
                    code=ReasonCode.WRONG_ACCELERATOR,
                    severity=Severity.FAIL,
                    device_index=device.index,
                    message=f"Expected {wanted} (accepted: {shown}), got {device_name(device)}",
                )
            )
        found.extend(_partition_problems(alternative, device))
        if not found:
            matching += 1
        problems.extend(found)
    needed = alternative.devices_needed
    if matching < needed:
        problems.append(
            Reason(
                code=ReasonCode.TOO_FEW_DEVICES,
                severity=Severity.FAIL,
                message=f"Expected {needed} device(s) matching {wanted}, found {matching} "
                f"of {len(devices)} visible",
                value=float(matching),
                threshold=float(needed),
                unit="count",
            )
        )
    extra: list[Reason] = []
    if not problems and len(devices) > needed and acc is not None:
        extra.append(
            Reason(
                code=ReasonCode.EXTRA_DEVICES,
                severity=Severity.INFO,
                message=f"{len(devices)} devices are visible, {needed} expected; all are "
                "benchmarked",
                value=float(len(devices)),
                threshold=float(needed),
                unit="count",
            )
        )
    return problems, extra


def _partition_problems(alternative: AcceleratorSpec, device: DeviceInfo) -> list[Reason]:
    acc = alternative.accelerator
    partition = alternative.partition
    if acc is not None and acc.device_class == "tpu":
        topology = device.extra.get("topology") if partition else None
        if partition and topology and topology != partition:
            return [
                Reason(
                    code=ReasonCode.WRONG_PARTITION,
                    severity=Severity.FAIL,
                    device_index=device.index,
                    message=f"Expected TPU topology {partition}, {device_name(device)} is in a "
                    f"{topology} slice",
                )
            ]
        return []
    if partition is None:
        if device.is_mig:
            return [
                Reason(
                    code=ReasonCode.MIG_SLICE,
                    severity=Severity.FAIL,
                    device_index=device.index,
                    message=f"Expected a whole {alternative}, got a MIG slice: "
                    f"{device_name(device)}",
                )
            ]
        return []
    if not device.is_mig:
        return [
            Reason(
                code=ReasonCode.WRONG_PARTITION,
                severity=Severity.FAIL,
                device_index=device.index,
                message=f"Expected MIG slice {partition}, got a whole GPU: {device_name(device)}",
            )
        ]
    if device.mig_profile != partition:
        return [
            Reason(
                code=ReasonCode.WRONG_PARTITION,
                severity=Severity.FAIL,
                device_index=device.index,
                message=f"Expected MIG profile {partition}, got {device_name(device)}",
            )
        ]
    return []
