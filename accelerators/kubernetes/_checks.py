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
    from accelerators.kubernetes import _as_spec, to_pod_fragment
    from accelerators.kubernetes._node_count import node_count_problems

    parsed = _as_spec(spec)
    problems: list[str] = []
    for alternative in parsed.alternatives:
        if alternative.mig_profile is not None and alternative.count > 1:
            problems.append(
                f"{str(alternative)!r} asks for {alternative.count} MIG slices in one "
                "container, but a CUDA process can use only one MIG device (NVIDIA MIG user "
                "guide); run one container per slice (a map task) or ask for whole GPUs"
            )
    try:
        to_pod_fragment(parsed, platform=platform, **options)
    except AcceleratorError as exc:
        problems.append(str(exc))
    else:
        problems.extend(node_count_problems(parsed, platform=platform))
    return tuple(problems)
