"""Which alternative of a spec the devices a gate benchmarked can serve.

A gate node checks one node; the tasks it guards may ask for more devices of the same kind, or
list alternatives of their own (``H100:8 | A100-80GB:8``). What the gate found picks among
*their* alternatives: the device kind and partition come from the gate's report, the count and
everything else from the task's own spec.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelerators.errors import AcceleratorError

if TYPE_CHECKING:
    from accelerators.bench.report._models import DeviceSummary
    from accelerators.spec import AcceleratorSpec, SpecLike

__all__ = ["alternative_on"]


def alternative_on(spec: SpecLike, device: DeviceSummary) -> AcceleratorSpec:
    """The first alternative of ``spec`` that ``device`` (what a gate benchmarked) can serve.

    >>> from accelerators.bench import DeviceSummary
    >>> found = DeviceSummary(kind="gpu", name="NVIDIA A100-SXM4-80GB",
    ...                       accelerator="A100-80GB-SXM", count=1)
    >>> str(alternative_on("H100:8 | A100-80GB:8", found))
    'A100-80GB:8'

    The device's catalog entry must be a candidate of the alternative, and its partition the
    alternative's: a MIG slice serves only that MIG profile, a whole device only an
    alternative without a partition (or ``@whole``). TPU topologies and shared slots cannot
    be seen on one host, so for those the device kind alone decides.

    :param spec: the task's spec (its count is kept: a 1-GPU gate picks ``H100:8``, never
        ``H100:1``).
    :param device: ``report.device`` of the gate's :class:`~accelerators.bench.BenchReport`.
    :raises AcceleratorError: no alternative of ``spec`` is that device (the message names
        both), or the gate identified no accelerator.
    """
    from accelerators.spec import AcceleratorSpec

    parsed = AcceleratorSpec.coerce(spec)
    if device.accelerator is None:
        raise AcceleratorError(
            f"The gate identified no accelerator ({device.count} x {device.name}), so it "
            f"cannot pick an alternative of {str(parsed)!r}"
        )
    for alternative in parsed.alternatives:
        names = {c.name for c in alternative.candidates}
        if device.accelerator in names and _partition_fits(alternative, device):
            return alternative
    shown = device.accelerator + (f" MIG {device.mig_profile}" if device.is_mig else "")
    raise AcceleratorError(
        f"The gate found {shown}, which is none of {str(parsed)!r}'s alternatives "
        f"({', '.join(str(a) for a in parsed.alternatives)}): the task would run on hardware "
        "it did not ask for. Gate the task's own spec (or one of its alternatives)"
    )


def _partition_fits(alternative: AcceleratorSpec, device: DeviceSummary) -> bool:
    if alternative.mig_profile is not None:
        return device.is_mig and device.mig_profile == alternative.partition
    if alternative.partition is not None or alternative.is_shared:
        return True  # a TPU topology or a shared slot: not visible from one host
    return not device.is_mig  # whole devices
