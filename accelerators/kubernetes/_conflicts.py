"""Placements that contradict the spec: a user's selector, affinity or resource no node can meet.

A pod that asks for ``H100:8`` and selects ``node.kubernetes.io/instance-type: a2-highgpu-8g``
(a GCP machine type with eight A100s) validates and never schedules; so does one whose sidecar
asks for ``amd.com/gpu``. The merge (:mod:`._merge`) refuses two values on one key; this module
reads what a user's value *means*, on every platform:

* **instance types** (``node.kubernetes.io/instance-type``, and its ``beta.`` form): the
  instance table (``accelerators/data/instances.toml``) says which accelerator each machine type
  carries and how many; a type of another cloud than the platform's is no node of it either;
* **accelerator labels** of any platform (``cloud.google.com/gke-accelerator``,
  ``nvidia.com/gpu.product``, ``karpenter.k8s.aws/instance-gpu-name``, ``amd.com/gpu.product-name``,
  ``k8s.amazonaws.com/accelerator``...): compared with what that platform would require for the
  spec. A value no catalog entry has (a site's own label value) is not judged;
* **node-pool labels** that fix the hardware: MIG partition sizes (``...gpu-partition-size``),
  TPU topologies, and device counts (``cloud.google.com/gke-accelerator-count``,
  ``karpenter.k8s.aws/instance-gpu-count``, ``nvidia.com/gpu.count``). Pool *names*
  (``cloud.google.com/gke-nodepool``) say nothing about hardware and are not judged;
* **extended resources**: a device resource of any container that the spec does not request
  (``amd.com/gpu`` next to an H100, ``nvidia.com/mig-1g.10gb`` next to whole GPUs): the pod would
  need a node with both.

A pod is refused when every required node-affinity term (each ANDed with the ``nodeSelector``)
contradicts every alternative of the spec; one term or alternative that can run is enough.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from accelerators.errors import PlacementError
from accelerators.kubernetes._contradictions import contradiction
from accelerators.kubernetes._devices import is_device_resource
from accelerators.kubernetes._podcheck import REQUIRED, NodeRequirement, check_pod_shape

if TYPE_CHECKING:
    from accelerators.kubernetes._platform import Platform
    from accelerators.spec import AcceleratorSpec, SpecLike

__all__ = ["check_placement_conflicts", "placement_conflicts"]


def placement_conflicts(
    spec: SpecLike,
    pod: Any,
    *,
    platform: str | Platform,
    source: str = "the pod",
    own_keys: bool = True,
    **options: Any,
) -> tuple[str, ...]:
    """Every way ``pod``'s own placement contradicts ``spec`` on ``platform``, as sentences
    naming both sides; empty when some node could host both.

    :param spec: an :class:`~accelerators.AcceleratorSpec`, spec text or constant.
    :param pod: a Pod, PodTemplateSpec, PodSpec or workload, as a camelCase dict or a
        ``kubernetes.client`` model: the user's selectors, affinity and resources.
    :param platform: a platform name or :class:`~accelerators.kubernetes.Platform`.
    :param source: how the messages name ``pod`` (``"pod_template_file 'gpu.yaml'"``).
    :param own_keys: also judge the labels ``platform`` itself sets for the spec;
        ``False`` where the pod is then merged with the spec (:func:`merge_fragment` refuses
        another value on them, naming both).
    :param options: platform options.
    :raises AcceleratorError: the spec or the pod is malformed, or the platform cannot place
        the spec (:func:`~accelerators.kubernetes.to_pod_fragment`).
    """
    from accelerators.kubernetes import _placing
    from accelerators.spec import AcceleratorSpec

    parsed = AcceleratorSpec.coerce(spec)
    configured = _placing(platform, options)
    fragment = configured.fragment(parsed)
    return conflicts(
        parsed, pod_spec_of(pod), configured, fragment, source=source, own_keys=own_keys
    )


def check_placement_conflicts(
    spec: SpecLike,
    pod: Any,
    *,
    platform: str | Platform,
    source: str = "the pod",
    own_keys: bool = True,
    **options: Any,
) -> None:
    """Raise :class:`~accelerators.PlacementError` listing :func:`placement_conflicts`."""
    found = placement_conflicts(
        spec, pod, platform=platform, source=source, own_keys=own_keys, **options
    )
    if found:
        raise PlacementError("; ".join(found))


def conflicts(
    spec: AcceleratorSpec,
    pod_spec: Mapping[str, Any],
    platform: Platform,
    fragment: Mapping[str, Any],
    *,
    source: str,
    own_keys: bool = True,
) -> tuple[str, ...]:
    """:func:`placement_conflicts` for a parsed spec, a pod spec dict and the fragment the
    configured ``platform`` made for it (what :func:`~accelerators.kubernetes.apply_to_pod`
    has at hand). ``own_keys=False`` leaves the keys the platform sets for the spec to the
    merge, which refuses another value on them itself."""
    wanted = set((fragment.get("resources") or {}).get("limits") or {})
    found = [f"{source}: {p}" for p in _resource_conflicts(spec, pod_spec, wanted, platform)]
    node = _node_conflicts(spec, _terms(pod_spec), platform, own_keys=own_keys)
    if node:
        found.append(f"{source}: {node}")
    return tuple(found)


def refuse(
    spec: AcceleratorSpec, pod: Any, platform: Platform, fragment: Mapping[str, Any]
) -> None:
    """Raise :class:`PlacementError` for :func:`conflicts` of ``pod`` about to be merged with
    ``fragment`` (:func:`~accelerators.kubernetes.apply_to_pod`): the keys the platform sets
    are left to the merge, which names both values itself."""
    found = conflicts(spec, pod_spec_of(pod), platform, fragment, source="the pod", own_keys=False)
    if found:
        raise PlacementError("; ".join(found))


# -- the pod --------------------------------------------------------------------------------
def pod_spec_of(pod: Any) -> Mapping[str, Any]:
    """The pod spec inside ``pod`` (a dict or ``kubernetes.client`` model), as a dict."""
    from accelerators.kubernetes._merge import _pod_spec
    from accelerators.kubernetes._models import as_mapping

    pod = as_mapping(pod, "a pod, pod template or pod spec")
    spec, path = _pod_spec(dict(pod), "pod")
    check_pod_shape(spec, path)  # a malformed part is our error, naming its path
    return spec


Origin = tuple[str, NodeRequirement]  # ("nodeSelector", requirement)


def _terms(spec: Mapping[str, Any]) -> Iterator[list[Origin]]:
    """The pod's required node-selection terms, each with the ``nodeSelector`` ANDed in, read
    one at a time (a check that finds a term that can run stops there)."""
    selector: list[Origin] = [
        ("nodeSelector", NodeRequirement(str(k), "In", (str(v),)))
        for k, v in (spec.get("nodeSelector") or {}).items()
    ]
    node = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(REQUIRED) or {}
    terms = node.get("nodeSelectorTerms") or []
    if not terms:
        if selector:
            yield selector
        return
    for i, term in enumerate(terms):
        where = "required node affinity" + (f" (term {i + 1})" if len(terms) > 1 else "")
        yield selector + [
            (where, NodeRequirement.read(expr, f"{where}.matchExpressions[{j}]"))
            for j, expr in enumerate(term.get("matchExpressions") or [])
        ]


def _resource_conflicts(
    spec: AcceleratorSpec, pod_spec: Mapping[str, Any], wanted: set[str], platform: Platform
) -> list[str]:
    asked = ", ".join(sorted(wanted)) or "a DRA claim"
    found = []
    for key in ("initContainers", "containers"):
        for container in pod_spec.get(key) or ():
            resources = container.get("resources") or {}
            for section in ("limits", "requests"):
                for name, value in (resources.get(section) or {}).items():
                    if name in wanted or not is_device_resource(name) or str(value) in ("0", ""):
                        continue
                    found.append(
                        f"container {container.get('name')!r} {section} {name}: {value}, but "
                        f"{str(spec)!r} is requested as {asked} on platform {platform.name!r}: "
                        "the pod would need a node with both. Remove that resource, or ask for "
                        "the accelerator it names"
                    )
                    break  # one message per resource, not one per section
    return found


# -- node requirements ----------------------------------------------------------------------
def _node_conflicts(
    spec: AcceleratorSpec, terms: Iterable[list[Origin]], platform: Platform, *, own_keys: bool
) -> str:
    """A sentence when no term can host any alternative; empty when one can (or none is
    required)."""
    # the alternatives the platform places: one it has no label for is not in the pod
    alternatives = platform.placeable(spec) if spec.fallbacks else (spec,)
    reasons: dict[str, None] = {}  # ordered, each once (terms share the nodeSelector)
    for term in terms:
        for alt in alternatives:
            why = [r for origin in term if (r := contradiction(alt, *origin, platform, own_keys))]
            if not why:
                return ""  # this term can run this alternative
            lead = f"for {str(alt)!r}: " if len(alternatives) > 1 else ""
            reasons[lead + "; ".join(dict.fromkeys(why))] = None
    if not reasons:
        return ""  # no node requirement at all
    lines = list(reasons)[:4]
    more = f" (and {len(reasons) - 4} more)" if len(reasons) > 4 else ""
    return (
        f"no node it selects can host {str(spec)!r}: {'; '.join(lines)}{more}. Remove the "
        "selection, or ask for the accelerator it selects"
    )
