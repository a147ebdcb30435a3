"""What a user's node requirement means for one alternative of a spec, in a sentence.

:func:`contradiction` reads one requirement (``key operator values``, from a ``nodeSelector`` or
a required node-affinity term) against one alternative (a spec without fallbacks) on the
configured platform, and says how no node can meet both, or returns ``None``:

* an instance type: the instance table's accelerator and count, and the platform's cloud;
* a device count label: fewer devices than the alternative needs on one node;
* a label the platform itself sets for the alternative: unsatisfiable together with it;
* a label another platform sets to name accelerators (its values mapped back to catalog
  entries by placing one device of every entry): only values some entry has are judged;
* any other label a platform sets (partition sizes, topologies): as that platform places it.

Used by :mod:`._conflicts`; see there for what a pod as a whole is refused for.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from accelerators.errors import AcceleratorError
from accelerators.kubernetes._podcheck import NodeRequirement, unsatisfiable

if TYPE_CHECKING:
    from accelerators.catalog._instances import Instance
    from accelerators.kubernetes._platform import Platform
    from accelerators.spec import AcceleratorSpec

__all__ = ["COUNT_KEYS", "FAMILY_KEYS", "INSTANCE_TYPE_KEYS", "contradiction"]

#: Node labels whose value is the node's instance (machine) type.
INSTANCE_TYPE_KEYS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
#: Node labels whose value is an instance family: key -> (cloud, what follows the family in a
#: type's name). Karpenter's ``p4d`` is ``p4d.24xlarge``; GKE's ``a2`` is ``a2-highgpu-8g``.
FAMILY_KEYS = {
    "karpenter.k8s.aws/instance-family": ("aws", "."),
    "cloud.google.com/machine-family": ("gcp", "-"),
}
#: Node labels whose value is how many devices the node has.
COUNT_KEYS = (
    "cloud.google.com/gke-accelerator-count",
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-accelerator-count",
    "nvidia.com/gpu.count",
)
_SUFFIXES = ("-SHARED",)  # GPU Operator product suffixes that do not change the GPU


def contradiction(
    alt: AcceleratorSpec, where: str, req: NodeRequirement, platform: Platform, own_keys: bool
) -> str | None:
    """How ``req`` (found at ``where``: ``nodeSelector``, ``required node affinity``) and
    ``alt`` on ``platform`` exclude every node, or ``None``. ``own_keys=False`` leaves the
    keys the platform sets for ``alt`` to the merge."""
    if req.key in INSTANCE_TYPE_KEYS:
        return _instance_contradiction(alt, where, req, platform)
    if req.key in FAMILY_KEYS:
        return _family_contradiction(alt, where, req, platform)
    if req.key in COUNT_KEYS:
        return _count_contradiction(alt, where, req)
    own = _requirements(platform, alt, req.key)
    if own is not None:
        if not own_keys:
            return None  # the merge refuses another value on this key, in its own words
        return _label_contradiction(alt, where, req, own, f"on platform {platform.name!r}")
    if _value_skus(req.key):
        return _identity_contradiction(alt, where, req)
    # A key that names no accelerator (a partition size, a topology): as its platforms place it.
    said = None
    for owner in _owners(req.key):
        theirs = _requirements(owner, alt, req.key)
        if theirs is None:
            continue  # that platform does not constrain the key for this alternative
        said = _label_contradiction(
            alt, where, req, theirs, f"as platform {owner.name!r} places it"
        )
        if said is None:
            return None
    return said


def _identity_contradiction(alt: AcceleratorSpec, where: str, req: NodeRequirement) -> str | None:
    """An accelerator label whose values all name catalog entries, none of them the spec's."""
    if req.operator != "In":
        return None
    known = _value_skus(req.key)
    skus = [known.get(_plain(v)) for v in req.values]
    if any(s is None for s in skus):
        return None  # a value no catalog entry has on that platform: a site's own
    selected = {sku for found in skus if found for sku in found}
    wanted = {acc.name for acc in alt.candidates}
    if selected & wanted:
        return None
    from accelerators import catalog

    models = _models(catalog.get(name) for name in sorted(selected))
    return (
        f"{where} {req} selects nodes with {models}, but {str(alt)!r} needs "
        f"{_models(alt.candidates)}"
    )


def _requirements(
    platform: Platform, alt: AcceleratorSpec, key: str
) -> list[NodeRequirement] | None:
    """What ``platform`` requires on ``key`` to place ``alt`` (None: nothing, or cannot place)."""
    found = _required_by(platform, alt).get(key)
    return list(found) if found else None


@functools.lru_cache(maxsize=512)
def _required_by(
    platform: Platform, alt: AcceleratorSpec
) -> dict[str, tuple[NodeRequirement, ...]]:
    """``platform``'s requirements for ``alt`` by key, once per pair (a pod with thousands of
    terms asks for the same few)."""
    try:
        placement = platform.place(alt)
    except AcceleratorError:
        return {}
    out: dict[str, list[NodeRequirement]] = {}
    for r in placement.requirements:
        out.setdefault(r.key, []).append(NodeRequirement(r.key, r.operator, tuple(r.values)))
    return {key: tuple(found) for key, found in out.items()}


def _label_contradiction(
    alt: AcceleratorSpec,
    where: str,
    req: NodeRequirement,
    needed: list[NodeRequirement],
    how: str,
) -> str | None:
    mine = NodeRequirement(req.key, req.operator, tuple(_plain(v) for v in req.values))
    theirs = [
        NodeRequirement(r.key, r.operator, tuple(_plain(v) for v in r.values)) for r in needed
    ]
    if unsatisfiable([mine, *theirs]) is None:
        return None
    return (
        f"{where} {req} contradicts {str(alt)!r}, which needs "
        f"{'; '.join(str(r) for r in needed)} ({how})"
    )


def _plain(value: str) -> str:
    """A label value without a suffix that keeps the device (GPU Operator's ``-SHARED``)."""
    for suffix in _SUFFIXES:
        if value.endswith(suffix):
            return value[: -len(suffix)]
    return value


@functools.cache
def _owners_by_key() -> dict[str, tuple[Platform, ...]]:
    from accelerators.kubernetes import _placing, platforms

    out: dict[str, list[Platform]] = {}
    for name in platforms():
        try:
            platform = _placing(name, {})
        except AcceleratorError:  # a registered platform that needs options
            continue
        for key in platform.label_keys.values():
            out.setdefault(key, []).append(platform)
    return {key: tuple(found) for key, found in out.items()}


def _owners(key: str) -> tuple[Platform, ...]:
    return _owners_by_key().get(key, ())


@functools.cache
def _value_skus(key: str) -> dict[str, frozenset[str]]:
    """Label value -> the catalog entries (SKU names) the platforms owning ``key`` give that
    value: one device of each entry, placed by each owner; built once per key. Empty for a
    key that names no accelerator."""
    from accelerators import catalog
    from accelerators.spec import AcceleratorSpec

    if not _owners(key):  # a site's own key (``pool``): no platform gives it a value
        return {}
    out: dict[str, set[str]] = {}
    for acc in catalog.all():
        alone = AcceleratorSpec(accelerator=acc, exact=True)
        for owner in _owners(key):
            for req in _requirements(owner, alone, key) or ():
                if req.operator == "In":
                    for value in req.values:
                        out.setdefault(_plain(value), set()).add(acc.name)
    return {value: frozenset(names) for value, names in out.items()}


def _count_contradiction(alt: AcceleratorSpec, where: str, req: NodeRequirement) -> str | None:
    if not _whole(alt):
        return None
    needed = alt.devices_needed
    counts = [_integer(v) for v in req.values]
    if req.operator == "In" and counts and all(c is not None and c < needed for c in counts):
        has = f"{', '.join(req.values)} devices"
    elif req.operator == "Lt" and counts and counts[0] is not None and counts[0] - 1 < needed:
        has = f"fewer than {req.values[0]} devices"
    else:
        return None
    return f"{where} {req} selects nodes with {has}, but {str(alt)!r} needs {needed} on one node"


def _whole(alt: AcceleratorSpec) -> bool:
    return (
        alt.accelerator is not None
        and alt.mig_profile is None
        and alt.tpu_topology is None
        and not alt.is_shared
    )


def _integer(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


# -- instance types -------------------------------------------------------------------------
def _instance_contradiction(
    alt: AcceleratorSpec, where: str, req: NodeRequirement, platform: Platform
) -> str | None:
    if req.operator != "In":
        return None
    said = []
    for value in req.values:
        rows = _rows(value)
        if not rows:
            return None  # a type the table does not list (a CPU type, a new one): not judged
        problems = [_row_problem(alt, row, platform) for row in rows]
        if any(p is None for p in problems):
            return None
        said.append("; ".join(p for p in problems if p))
    return f"{where} {req}: {'; '.join(said)} (accelerators/data/instances.toml)"


def _family_contradiction(
    alt: AcceleratorSpec, where: str, req: NodeRequirement, platform: Platform
) -> str | None:
    """An instance family none of whose machine types in the table can host ``alt`` (a family
    the table does not list, such as GKE's ``n1``, is not judged)."""
    if req.operator != "In":
        return None
    cloud, separator = FAMILY_KEYS[req.key]
    said = []
    for value in req.values:
        prefix = f"{value.strip().lower()}{separator}"
        rows = [r for r in _cloud_rows(cloud) if r.name.lower().startswith(prefix)]
        if not rows:
            return None
        problems = [_row_problem(alt, row, platform) for row in rows]
        if any(p is None for p in problems):
            return None
        shown = ", ".join(f"{row.name} ({_carries(row)})" for row in rows[:4])
        more = f" and {len(rows) - 4} more" if len(rows) > 4 else ""
        said.append(f"family {value}: {shown}{more}")
    needs = f"{alt.devices_needed} x {_models(alt.candidates)} on one node"
    return (
        f"{where} {req} selects {'; '.join(said)}, none with {needs} as {str(alt)!r} needs "
        "(accelerators/data/instances.toml)"
    )


@functools.cache
def _cloud_rows(cloud: str) -> tuple[Instance, ...]:
    from accelerators.catalog._instances import instances

    return tuple(row for row in instances(cloud) if row.unit == "machine")


def _rows(name: str) -> Sequence[Instance]:
    from accelerators.catalog._instances import instances_named

    return [row for row in instances_named(name) if row.unit == "machine"]


def _row_problem(alt: AcceleratorSpec, row: Instance, platform: Platform) -> str | None:
    what = (
        f"{row.name} is {_CLOUD_TYPES.get(row.cloud, f'a {row.cloud} type')} with {_carries(row)}"
    )
    if platform.cloud is not None and row.cloud != platform.cloud:
        kind = _CLOUD_TYPES.get(platform.cloud, f"a {platform.cloud} type").split(" ", 1)[1]
        return f"{what}, and platform {platform.name!r} has only {kind}s"
    entry = _entry(row.accelerator)
    if entry is None:
        return None  # an accelerator the catalog does not list yet
    if entry.name not in {acc.name for acc in alt.candidates}:
        return f"{what}, but {str(alt)!r} needs {_models(alt.candidates)}"
    capacity = float(row.count)
    profile = alt.mig_profile
    if profile is not None:
        capacity *= profile.max_instances
    needed = alt.devices_needed if alt.tpu_topology is None else 1
    if capacity < needed:
        return f"{what}, but {str(alt)!r} needs {needed} on one node"
    return None


#: How each cloud calls its node sizes, for the messages.
_CLOUD_TYPES = {
    "aws": "an AWS instance type",
    "gcp": "a GCP machine type",
    "azure": "an Azure VM size",
    "oci": "an OCI shape",
}


def _carries(row: Instance) -> str:
    device = row.accelerator + (f"@{row.partition}" if row.partition else "")
    return f"{row.count:g} x {device}"


def _entry(name: str) -> Any:
    from accelerators import catalog

    try:
        return catalog.get(name)
    except AcceleratorError:
        return None


def _models(candidates: Iterable[Any]) -> str:
    return " or ".join(dict.fromkeys(acc.model for acc in candidates)) or "another accelerator"
