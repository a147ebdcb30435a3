"""Counts no node has: ``H100:16`` on GKE, where the largest H100 machine type has 8.

A pod gets its devices from one node, so an alternative that asks for more than the largest
node we know can never be scheduled: the pod stays Pending. On platforms whose nodes are one
cloud's machine types (``Platform.cloud``: GKE's are GCP's; Karpenter's, EKS's and the Neuron
device plugin's are EC2's), the sourced instance table (:func:`accelerators.catalog.largest_node`)
says how many devices that cloud's largest node has. Other platforms (the GPU Operator, Flyte,
AMD's device plugin...) are judged against the largest machine type of any cloud the table
covers (``H100:99`` fits nowhere). An on-premises server larger than every cloud's (NVIDIA's
DGX-2 had 16 V100s) is not in the table: such counts are refused too, and the message says
what the table knows. Nothing is refused where the table lists no machine type with the
accelerator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelerators.errors import PlacementError

if TYPE_CHECKING:
    from accelerators.catalog import NodeSize
    from accelerators.kubernetes._platform import Platform
    from accelerators.spec import AcceleratorSpec, SpecLike

__all__ = ["check_node_count", "node_count_problems"]


def _largest(alternative: AcceleratorSpec, cloud: str | None) -> NodeSize | None:
    """The largest node of ``cloud`` with an SKU the alternative accepts (kept per model, or
    per SKU for an exact one: every spec of a DAG file asks the same few)."""
    acc = alternative.accelerator
    key = (acc.name if alternative.exact else acc.model, alternative.exact, cloud)  # type: ignore[union-attr]
    if key not in _LARGEST:
        from accelerators.catalog import largest_node

        sizes = [largest_node(sku, cloud=cloud) for sku in alternative.candidates]
        known = [size for size in sizes if size is not None]
        # A cloud's table lists all its machine types: an SKU missing there does not exist on
        # that cloud. Elsewhere an SKU the table lacks may come in larger nodes: judged only
        # when every SKU is known.
        complete = known and (cloud is not None or len(known) == len(sizes))
        _LARGEST[key] = max(known, key=lambda size: size.devices) if complete else None
    return _LARGEST[key]


_LARGEST: dict[tuple[str, bool, str | None], NodeSize | None] = {}


def _problem(alternative: AcceleratorSpec, platform: str, cloud: str | None) -> str | None:
    acc = alternative.accelerator
    if acc is None or alternative.is_shared or alternative.tpu_topology is not None:
        return None  # a memory or vendor request, a share of one device, a TPU host slice
    largest = _largest(alternative, cloud)
    if largest is None:
        return None
    capacity, unit = largest.devices, f"{acc.model} devices"
    profile = alternative.mig_profile
    if profile is not None:
        capacity *= profile.max_instances
        unit = f"{profile.profile} slices ({largest.devices} x {profile.max_instances} per GPU)"
    if alternative.devices_needed <= capacity:
        return None
    where = f"{cloud.upper()} machine type" if cloud else "machine type of any cloud"
    return (
        f"{str(alternative)!r} on {platform}: no node has {alternative.devices_needed}; the "
        f"largest {where} with {acc.model} that we know, {largest.instance} "
        f"({largest.cloud}), has {capacity} {unit} (accelerators/data/instances.toml). A pod "
        f"gets its devices from one node: ask for at most {capacity} per pod and spread the "
        "work over several pods"
    )


def node_count_problems(spec: SpecLike, *, platform: str | Platform) -> tuple[str, ...]:
    """A sentence for each alternative of ``spec`` that asks for more devices than any node
    of ``platform``'s cloud has; empty when every alternative fits (or nothing is known).

    :param spec: an :class:`~accelerators.AcceleratorSpec`, spec text or constant.
    :param platform: a platform name or :class:`~accelerators.kubernetes.Platform`.
    """
    from accelerators.kubernetes import get_platform
    from accelerators.spec import AcceleratorSpec

    parsed = AcceleratorSpec.coerce(spec)
    resolved = get_platform(platform)
    name, cloud = resolved.name, resolved.cloud
    # A spec without fallbacks is its own only alternative (``alternatives`` copies it).
    alternatives = parsed.alternatives if parsed.fallbacks else (parsed,)
    found = (_problem(a, name, cloud) for a in alternatives)
    return tuple(p for p in found if p is not None)


def check_node_count(spec: SpecLike, *, platform: str | Platform) -> None:
    """Raise :class:`~accelerators.PlacementError` for the counts no node has
    (:func:`node_count_problems`)."""
    problems = node_count_problems(spec, platform=platform)
    if problems:
        raise PlacementError("; ".join(problems))
