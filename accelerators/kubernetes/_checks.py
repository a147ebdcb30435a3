"""Why a spec cannot run as one container on a platform, as sentences (for linters).

:func:`placement_problems` collects what :func:`accelerators.kubernetes.to_pod_fragment`
refuses (a partition the platform cannot select, a TPU slice whose chip count does not fit
a host, a fraction where nothing shares GPUs…), a count no node has
(:func:`~accelerators.kubernetes.node_count_problems`: on the platform's cloud when it has one,
GKE's machine types being GCP's; a pod asking for more stays pending forever), and what it
builds but no program can use: several MIG slices in one container. NVIDIA's MIG user guide
(CUDA device enumeration): "regardless of how many MIG devices are created (or made available
to a container), a single CUDA process can only enumerate a single MIG device".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from accelerators.errors import AcceleratorError

if TYPE_CHECKING:
    from accelerators.kubernetes._platform import Platform
    from accelerators.spec import SpecLike

__all__ = ["placement_problems"]


def placement_problems(
    spec: SpecLike, *, platform: str | Platform = "flyte", **options: Any
) -> tuple[str, ...]:
    """Every reason ``spec`` cannot run as one container on ``platform``; empty when it can.

    :param spec: an :class:`~accelerators.AcceleratorSpec`, spec text or constant.
    :param platform: a platform name or :class:`~accelerators.kubernetes.Platform`.
    :param options: platform options.
    :raises AcceleratorError: ``spec`` is not a valid spec (bad input is not a "problem").
    """
    from accelerators.kubernetes._place import _coerce, place, single_process_problems

    parsed = _coerce(spec)  # a bad spec raises: bad input is not a "problem"
    try:
        placed = place(parsed, platform, **options)
    except AcceleratorError as exc:  # an unknown platform or option, a bad option value
        return (*single_process_problems(parsed), str(exc))
    return (*placed.single_process_problems, *placed.problems)
