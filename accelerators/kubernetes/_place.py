"""Place a spec into a task's pod: the one path from a spec and the user's layers to the pod.

A task's pod is built from layers: a pod template (``base``: a pod template file, a template
dict, Flyte's ``pod_template``), the task's own placement (``arguments``: an operator's
``node_selector``, ``tolerations``, ``affinity``, ``container_resources``; an executor's
``pod_override``) and the accelerator's fragment. :func:`place` composes them, in this order:

1. **placement**: the platform places the spec, once (:meth:`Platform.fragment
   <accelerators.kubernetes.Platform.fragment>`), the fragment validated;
2. **reconcile**: ``arguments`` over ``base``
   (:func:`~accelerators.kubernetes.reconcile_placement`): what the template had under the
   arguments is kept;
3. **requests <= limits** of every container of the layered pod, each request and limit
   named by the layer that gives it;
4. **node count**: counts no node has (:func:`~accelerators.kubernetes.node_count_problems`);
5. **conflicts**: a selector, affinity or device resource of the layers that no node can meet
   together with the spec (:func:`~accelerators.kubernetes.placement_conflicts`), naming the
   layer that says it;
6. **apply**: the fragment merged in (:func:`~accelerators.kubernetes.merge_fragment`; another
   value on a key the fragment sets is refused there), and the result's requests checked.

It returns a :class:`PlacedPod`: the pod, or, when something is wrong, every problem found
(a step whose input is already wrong is skipped: no merge after a conflict). Bad input (a
malformed pod, an unknown platform or option, a bad spec) raises instead: it is not a problem
of the placement. The Airflow provider's operator, decorator and ``executor_config`` and the
Flyte plugin's ``task_args`` all place through it.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from accelerators.errors import AcceleratorError, PlacementError

if TYPE_CHECKING:
    from accelerators.kubernetes._fragment import PodFragment
    from accelerators.kubernetes._platform import Platform
    from accelerators.spec import AcceleratorSpec, SpecLike

__all__ = ["LeftOutWarning", "PlacedPod", "place", "single_process_problems"]

_REQUESTS_ADVICE = (
    "The API server rejects a pod whose requests exceed its limits: raise the limit (limits in "
    "the same argument as the request) or lower the request"
)


def _coerce(spec: SpecLike) -> AcceleratorSpec:
    """The one conversion of what a caller gave into a spec (:meth:`AcceleratorSpec.coerce`)."""
    from accelerators.spec import AcceleratorSpec

    return AcceleratorSpec.coerce(spec)


class LeftOutWarning(UserWarning):
    """Some alternatives of a spec cannot run where it is placed; the pod runs on the others
    (:attr:`PlacedPod.left_out` says which and why)."""


@dataclass(frozen=True)
class PlacedPod:
    """What :func:`place` found: the pod, or the problems that keep it from being built.

    :param spec: the spec, parsed.
    :param platform: the configured platform that placed it.
    :param fragment: the accelerator's pod fragment (``{}`` when the platform cannot place
        the spec: then the reason is the only problem).
    :param pod: the layers with the fragment merged in, a camelCase dict: a PodSpec when
        ``arguments`` (else ``base``) is one, else a Pod (a one-container Pod when neither is
        given); ``None`` when there are problems.
    :param problems: one sentence per problem, in the order of the steps.
    """

    spec: AcceleratorSpec
    platform: Platform
    fragment: PodFragment
    pod: dict[str, Any] | None
    problems: tuple[str, ...]
    #: Alternatives that need more devices than any node has while others fit: left out.
    crowded: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the pod was built (no problems)."""
        return not self.problems

    def check(self, lead: str = "") -> dict[str, Any]:
        """The pod; :class:`~accelerators.PlacementError` listing every problem if there are any.

        :param lead: text put before the problems in the message.
        """
        if self.problems or self.pod is None:
            raise PlacementError(lead + "; ".join(self.problems))
        return self.pod

    def conflicts(
        self, pod: Any, *, source: str = "the pod", own_keys: bool = True
    ) -> tuple[str, ...]:
        """:func:`~accelerators.kubernetes.placement_conflicts` of another ``pod`` with this
        spec as placed, without placing it again (for a caller that merges the fragment its
        own way: ``own_keys`` also judges the keys the platform sets)."""
        from accelerators.kubernetes import _conflicts

        if not self.fragment:
            return ()
        return _conflicts.conflicts(
            self.spec,
            _conflicts.pod_spec_of(pod),
            self.platform,
            self.fragment,
            source=source,
            own_keys=own_keys,
        )

    @property
    def left_out(self) -> tuple[str, ...]:
        """Why each alternative the platform has no placement for was left out of the pod
        (:meth:`Platform.left_out <accelerators.kubernetes.Platform.left_out>`): the spec
        accepts any of its alternatives, so the pod runs on the others (``V100`` on GKE:
        the 16 GB card; GKE has no label for the 32 GB one), or that asks for more devices
        than any node has while the others fit (``H100:8``: no node has 8 H100 NVL cards).
        Not among :attr:`problems`."""
        return (self.platform.left_out(self.spec) if self.fragment else ()) + self.crowded

    def warn_left_out(self, lead: str = "", stacklevel: int = 2) -> None:
        """Warn (:class:`LeftOutWarning`) when :attr:`left_out` is not empty: what the user
        wrote narrows where it is placed, and that is said, not silent."""
        left = self.left_out  # each read places the alternatives again
        if left:
            warnings.warn(LeftOutWarning(lead + "; ".join(left)), stacklevel=stacklevel + 1)

    @property
    def single_process_problems(self) -> tuple[str, ...]:
        """What the pod can hold but one CUDA process cannot use: several MIG slices in one
        container (NVIDIA's MIG user guide: "a single CUDA process can only enumerate a
        single MIG device"). Not among :attr:`problems`: a container may run a process per
        slice; the Flyte plugin and the linters refuse it."""
        return single_process_problems(self.spec)


def single_process_problems(spec: AcceleratorSpec) -> tuple[str, ...]:
    """:attr:`PlacedPod.single_process_problems` of ``spec`` (no placement needed)."""
    return tuple(
        f"{str(alternative)!r} asks for {alternative.count} MIG slices in one container, "
        "but a CUDA process can use only one MIG device (NVIDIA MIG user guide); run one "
        "container per slice (a map task) or ask for whole GPUs"
        for alternative in spec.alternatives
        if alternative.mig_profile is not None and alternative.count > 1
    )


def place(
    spec: SpecLike,
    platform: str | Platform,
    *,
    base: Any = None,
    arguments: Any = None,
    container: str | None = None,
    base_source: str = "the pod template",
    arguments_source: str = "the pod",
    resources_source: str | None = None,
    **options: Any,
) -> PlacedPod:
    """Place ``spec`` on ``platform`` into a pod of ``base`` under ``arguments`` (module
    docstring for the steps).

    >>> from accelerators.kubernetes import place
    >>> template = {"spec": {"containers": [{"name": "main"}],
    ...                      "tolerations": [{"key": "spot", "operator": "Exists"}]}}
    >>> placed = place("L4", "gke", base=template, arguments={"spec": {"containers": [
    ...     {"name": "main", "resources": {"limits": {"memory": "16Gi"}}}]}})
    >>> pod = placed.check()
    >>> pod["spec"]["nodeSelector"], pod["spec"]["containers"][0]["resources"]["limits"]
    ({'cloud.google.com/gke-accelerator': 'nvidia-l4'}, {'memory': '16Gi', 'nvidia.com/gpu': '1'})
    >>> [t["key"] for t in pod["spec"]["tolerations"]]
    ['spot', 'nvidia.com/gpu']
    >>> place("H100-SXM:16", "gke").problems  # doctest: +ELLIPSIS
    ("'H100-SXM:16' on gke: no node has 16; the largest GCP machine type with H100-SXM ...",)

    :param spec: an :class:`~accelerators.AcceleratorSpec`, spec text or constant.
    :param platform: a platform name or a configured :class:`~accelerators.kubernetes.Platform`.
    :param base: the pod template the pod is built from (a Pod or PodSpec, a camelCase dict
        or a ``kubernetes.client`` model), if any: the lowest layer.
    :param arguments: the task's own placement over it, as a Pod or PodSpec, if any.
    :param container: the main container (by name; default the first): it gets the device.
    :param base_source: how messages name ``base`` (``"pod_template_file 'gpu.yaml'"``).
    :param arguments_source: how messages name ``arguments`` (``"the operator's arguments"``).
    :param resources_source: how a request or limit of the main container that ``arguments``
        gives is named (``"container_resources"``); ``None``: the requests check reads as
        :func:`~accelerators.kubernetes.check_resources`, naming no layer.
    :param options: platform options (``docs/kubernetes.md``).
    :returns: a :class:`PlacedPod`; :meth:`PlacedPod.check` gives the pod or raises
        :class:`~accelerators.PlacementError` with every problem.
    :raises AcceleratorError: a bad spec, an unknown platform or option, a malformed pod.
    """
    from accelerators.kubernetes import _placing, validate_fragment

    parsed = _coerce(spec)
    configured = _placing(platform, options)
    try:
        fragment = configured.fragment(parsed)  # the one placement
        validate_fragment(fragment)
    except AcceleratorError as exc:
        return PlacedPod(parsed, configured, {}, None, (str(exc),))
    lower, upper = _as_pod(base, "base"), _as_pod(arguments, "arguments")
    if lower is None and upper is None:  # nothing of the user's to judge or keep
        alone, crowded = _node_counts(parsed, configured)
        pod = None if alone else _fragment_pod(fragment, container)
        return PlacedPod(parsed, configured, fragment, pod, alone, crowded)
    problems: list[str] = []
    layered = _layered(lower, upper, container, problems)
    if layered is not None:
        problems += _requests(layered, upper, container, base_source, resources_source)
    counts, crowded = _node_counts(parsed, configured)
    problems += counts
    if layered is not None:
        layers = ((upper, arguments_source), (lower, base_source))
        problems += _conflicts(parsed, layered, layers, configured, fragment)
    if problems or layered is None:
        return PlacedPod(parsed, configured, fragment, None, tuple(problems), crowded)
    merged, late = _applied(layered, fragment, container)
    shape = arguments if arguments is not None else base
    if merged is not None and _is_pod_spec(shape):  # a PodSpec in, a PodSpec out
        merged = merged["spec"]
    return PlacedPod(parsed, configured, fragment, merged, late, crowded)


# -- the steps ------------------------------------------------------------------------------
def _node_counts(
    spec: AcceleratorSpec, platform: Platform
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Counts no node has (:func:`~accelerators.kubernetes.node_count_problems`): problems
    when every placed alternative has one, else none, and the crowded ones said apart (any
    alternative satisfies the spec: ``H100:8`` runs on 8 SXM or PCIe cards, though no node
    has 8 H100 NVL)."""
    from accelerators.kubernetes._node_count import node_count_problems

    alternatives = platform.placeable(spec) if spec.fallbacks else (spec,)
    found = [node_count_problems(alt, platform=platform) for alt in alternatives]
    crowded = [p for problems in found for p in problems]
    if all(found):
        return tuple(crowded), ()
    return (), tuple(crowded)


def _is_pod_spec(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, Mapping):
        return "containers" in value
    return type(value).__name__ == "V1PodSpec"


def _as_pod(value: Any, what: str) -> dict[str, Any] | None:
    """``value`` (a Pod or PodSpec, dict or model) as a Pod dict; ``None`` for nothing."""
    from accelerators.kubernetes._models import as_mapping

    if value is None:
        return None
    pod = dict(as_mapping(value, f"place()'s {what} as a Pod or PodSpec"))
    return {"spec": pod} if "containers" in pod else pod


def _fragment_pod(fragment: PodFragment, container: str | None) -> dict[str, Any]:
    """The fragment in a Pod of one container (``container``, else ``main``): what merging it
    into an empty pod gives, without the merge."""
    from accelerators.kubernetes._merge import fragment_spec

    spec = fragment_spec(copy.deepcopy(dict(fragment)))
    spec["containers"] = [{"name": container or "main", **spec.get("containers", [{}])[0]}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": spec}


def _layered(
    lower: dict[str, Any] | None,
    upper: dict[str, Any] | None,
    container: str | None,
    problems: list[str],
) -> dict[str, Any] | None:
    """``upper`` over ``lower`` (one of them at least is given)."""
    from accelerators.kubernetes._merge import reconcile_placement

    if upper is None or lower is None:
        return dict(upper if upper is not None else lower)  # type: ignore[arg-type]
    try:
        return reconcile_placement(lower, upper, container=container)
    except PlacementError as exc:  # the two layers select no node together
        problems.append(str(exc))
        return None


def _main(pod: Mapping[str, Any] | None, container: str | None) -> Mapping[str, Any]:
    containers = ((pod or {}).get("spec") or {}).get("containers") or []
    found = next((c for c in containers if c.get("name") == container), None)
    return found or (containers[0] if containers and container is None else {})


def _requests(
    pod: Mapping[str, Any],
    upper: Mapping[str, Any] | None,
    container: str | None,
    base_source: str,
    resources_source: str | None,
) -> list[str]:
    """Requests above limits in the layered pod, each value named by the layer it comes from."""
    from accelerators.kubernetes._resources import invalid_pod, resource_problems

    found = resource_problems(pod)
    if not found:
        return []
    if resources_source is None:
        return [invalid_pod(found)]
    main = _main(pod, container).get("name")
    own = dict(_main(upper, container).get("resources") or {})

    def origin(section: str, resource: str, name: str) -> str:
        given = own.get(section) or {}
        return resources_source if name == main and resource in given else base_source

    lines = [
        f"container {p.container!r} requests {p.resource} {p.request} "
        f"({origin('requests', p.resource, p.container)}) above its limit {p.limit} "
        f"({origin('limits', p.resource, p.container)})"
        for p in found
    ]
    return [f"{'; '.join(lines)}. {_REQUESTS_ADVICE}"]


def _conflicts(
    spec: AcceleratorSpec,
    pod: Mapping[str, Any],
    layers: tuple[tuple[Mapping[str, Any] | None, str], ...],
    platform: Platform,
    fragment: PodFragment,
) -> list[str]:
    """The layers' conflicts with the spec: those of the one layer that says it alone, else
    of the layers together. The keys the platform sets are the merge's (it names both)."""
    from accelerators.kubernetes._conflicts import conflicts, pod_spec_of

    together = " and ".join(name for layer, name in layers if layer) or "the pod"
    found = conflicts(spec, pod_spec_of(pod), platform, fragment, source=together, own_keys=False)
    if not found:
        return []
    for layer, name in layers:
        if layer:
            alone = conflicts(
                spec, pod_spec_of(layer), platform, fragment, source=name, own_keys=False
            )
            if alone:
                return list(alone)
    return list(found)


def _applied(
    pod: dict[str, Any], fragment: PodFragment, container: str | None
) -> tuple[dict[str, Any] | None, tuple[str, ...]]:
    """The fragment merged into ``pod``, or why it cannot be."""
    from accelerators.kubernetes._merge import merge_fragment
    from accelerators.kubernetes._resources import invalid_pod, resource_problems

    try:
        merged = merge_fragment(pod, fragment, container=container)
    except PlacementError as exc:
        return None, (str(exc),)
    late = resource_problems(merged)
    if late:
        return None, (invalid_pod(late),)
    return merged, ()
