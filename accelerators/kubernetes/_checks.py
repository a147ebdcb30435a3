"""Why a spec cannot run as one container on a platform, as sentences (for linters).

:func:`placement_problems` collects what :func:`accelerators.kubernetes.to_pod_fragment`
refuses (a partition the platform cannot select, a TPU slice whose chip count does not fit
a host, a fraction where nothing shares GPUs…) and what it builds but no scheduler or
program can use:

* several MIG slices in one container. NVIDIA's MIG user guide (CUDA device enumeration):
  "regardless of how many MIG devices are created (or made available to a container), a
  single CUDA process can only enumerate a single MIG device";
* more devices in one pod than any node we know has (:func:`accelerators.catalog.largest_node`,
  on the platform's cloud when it has one: GKE's machine types are GCP's): such a pod stays
  pending forever.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from accelerators._text import format_number
from accelerators.errors import AcceleratorError

if TYPE_CHECKING:
    from accelerators.kubernetes._base import Platform
    from accelerators.spec import AcceleratorSpec

__all__ = ["placement_problems"]


def placement_problems(
    spec: Any, *, platform: str | Platform = "flyte", **options: Any
) -> tuple[str, ...]:
    """Every reason ``spec`` cannot run as one container on ``platform``; empty when it can.

    :param spec: an :class:`~accelerators.AcceleratorSpec`, spec text or constant.
    :param platform: a platform name or :class:`~accelerators.kubernetes.Platform`.
    :param options: platform options.
    :raises AcceleratorError: ``spec`` is not a valid spec (bad input is not a "problem").
    """
    from accelerators.kubernetes import _as_spec, to_pod_fragment

    parsed = _as_spec(spec)
    problems: list[str] = []
    for alternative in parsed.alternatives:
        if alternative.mig_profile is not None and alternative.count > 1:
            problems.append(
                f"{str(alternative)!r} asks for {alternative.count} MIG slices in one "
                "container, but a CUDA process can use only one MIG device (NVIDIA MIG user "
                "guide); run one container per slice (a map task) or ask for whole GPUs"
            )
        problem = _node_size_problem(alternative, platform)
        if problem:
            problems.append(problem)
    try:
        to_pod_fragment(parsed, platform=platform, **options)
    except AcceleratorError as exc:
        problems.append(str(exc))
    return tuple(problems)


def _node_size_problem(spec: AcceleratorSpec, platform: str | Platform) -> str:
    """Why no node we know can give one pod ``spec.count`` devices, or ``""``.

    Whole devices only (a MIG slice, a share or a TPU topology is checked elsewhere), and
    only when every SKU the spec accepts has a known largest node: an SKU the instance table
    lacks may come in larger nodes.
    """
    from accelerators import catalog
    from accelerators.kubernetes import get_platform

    acc = spec.accelerator
    if acc is None or spec.partition is not None or spec.is_shared or acc.device_class == "tpu":
        return ""
    cloud = get_platform(platform).cloud
    sizes = [catalog.largest_node(entry, cloud=cloud) for entry in spec.candidates]
    known = [s for s in sizes if s is not None]
    if not known or len(known) < len(sizes):
        return ""
    largest = max(known, key=lambda s: s.devices)
    if spec.count <= largest.devices:
        return ""
    where = f"on {cloud}" if cloud else "anywhere"
    return (
        f"{str(spec)!r} asks for {format_number(spec.count)} devices in one pod, but the "
        f"largest {acc.model} node we know {where} has {largest.devices} ({largest.instance}, "
        f"{largest.cloud}; accelerators/data/instances.toml), so the pod could never be "
        f"scheduled; ask for at most {largest.devices} per pod and spread the job over pods"
    )
