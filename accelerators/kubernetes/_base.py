"""The :class:`Platform` ABC, the fragment types and the rules every platform shares.

A platform turns one alternative of an :class:`~accelerators.AcceleratorSpec` (a spec
without fallbacks) into a :class:`Placement`: the extended resources to request, the node
requirements and the tolerations. :meth:`Platform.fragment` then combines the placements
of all alternatives into one camelCase pod fragment (see ``docs/kubernetes.md``).

This module imports only the standard library and :mod:`accelerators.errors`.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

from accelerators.errors import PlacementError, close_matches
from accelerators.kubernetes import _options

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.spec import AcceleratorSpec

__all__ = [
    "COMMON_OPTIONS",
    "Placement",
    "Platform",
    "PodFragment",
    "Requirement",
    "describe",
    "device_resource",
    "mib_threshold",
    "normalise_toleration",
    "taint_key",
    "toleration",
    "wants_whole_devices",
]

#: Options every platform accepts (documented in ``docs/kubernetes.md``).
COMMON_OPTIONS: tuple[str, ...] = ("labels", "label_values", "tolerations", "runtime_class_name")

#: ``preferredDuringScheduling`` weights for the 1st, 2nd, … alternative of a fallback chain.
_WEIGHTS: tuple[int, ...] = (100, 50, 25, 12, 6, 3)


class PodFragment(TypedDict, total=False):
    """The pod-spec pieces a spec needs, in Kubernetes camelCase.

    ``resources`` belongs to the target container; everything else to the pod spec.
    """

    resources: dict[str, Any]
    nodeSelector: dict[str, str]
    affinity: dict[str, Any]
    tolerations: list[dict[str, Any]]
    runtimeClassName: str
    resourceClaims: list[dict[str, str]]


@dataclass(frozen=True)
class Requirement:
    """One ``nodeSelectorRequirement`` (``key``, ``operator``, ``values``)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        return out


@dataclass(frozen=True)
class Placement:
    """How one alternative lands on one platform, before rendering.

    :param resources: extended resource name -> whole count, for the target container.
    :param requirements: node requirements, ANDed.
    :param tolerations: tolerations the alternative needs (plain camelCase dicts).
    :param affinity_only: render single-value ``In`` requirements as node affinity, never
        as ``nodeSelector`` (Flyte does this).
    """

    resources: Mapping[str, int]
    requirements: tuple[Requirement, ...] = ()
    tolerations: tuple[Mapping[str, Any], ...] = ()
    affinity_only: bool = False


def toleration(
    key: str, operator: str = "Exists", value: str | None = None, effect: str | None = "NoSchedule"
) -> dict[str, Any]:
    """A toleration dict with keys in Kubernetes order, ``None`` fields left out."""
    out: dict[str, Any] = {"key": key, "operator": operator}
    if value is not None:
        out["value"] = value
    if effect is not None:
        out["effect"] = effect
    return out


def normalise_toleration(value: Any) -> dict[str, Any]:
    """Accept a camelCase dict or a ``kubernetes.client.V1Toleration``; return a dict.

    :param value: the toleration as the user gave it.
    :raises PlacementError: for anything else (a platform cannot read it).
    """
    if isinstance(value, Mapping):
        data = dict(value)
    elif callable(getattr(value, "to_dict", None)):
        data = value.to_dict()
    else:
        raise PlacementError(
            f"Expected a toleration as a dict or V1Toleration, got {type(value).__name__}: "
            f"{value!r}"
        )
    if "toleration_seconds" in data:
        data["tolerationSeconds"] = data.pop("toleration_seconds")
    order = ("key", "operator", "value", "effect", "tolerationSeconds")
    out = {k: data[k] for k in order if data.get(k) is not None}
    out.update({k: v for k, v in data.items() if k not in order and v is not None})
    return out


# -- vendor conventions ------------------------------------------------------------------
_DEVICE_RESOURCES: dict[tuple[str, str], str] = {
    ("nvidia", "gpu"): "nvidia.com/gpu",
    ("amd", "gpu"): "amd.com/gpu",
    ("intel", "gpu"): "gpu.intel.com/i915",
    ("google", "tpu"): "google.com/tpu",
    ("aws", "neuron"): "aws.amazon.com/neuron",
    ("intel", "hpu"): "habana.ai/gaudi",
    # Ascend device plugin (mind-cluster): one resource for the Ascend 910 family
    ("huawei", "npu"): "huawei.com/Ascend910",
    # Qualcomm's Cloud AI device plugin: one resource per AI 100 SoC
    ("qualcomm", "npu"): "qualcomm.com/qaic",
}


def device_resource(vendor: str, device_class: str) -> str | None:
    """The device plugin's extended resource for a whole device, or ``None`` if unknown."""
    found = _DEVICE_RESOURCES.get((vendor, device_class))
    if found is None and device_class == "hpu":
        return "habana.ai/gaudi"
    return found


def wants_whole_devices(spec: AcceleratorSpec) -> bool:
    """Whether ``spec`` asks for whole devices of an accelerator that MIG can split.

    ``@whole``, or no partition at all on a device with MIG profiles: a spec without a
    partition means whole devices (the benchmark gate fails a MIG slice for it,
    ``mig_slice``), so a platform that labels MIG nodes must keep such a pod off them
    (``<partition label> DoesNotExist``). A shared slot or a fraction is not a whole device.

    :param spec: one alternative (no fallbacks).
    """
    if spec.unpartitioned:
        return True
    if spec.partition is not None or spec.is_shared:
        return False
    return any(acc.mig_profiles for acc in spec.candidates)


def taint_key(resource: str) -> str:
    """The conventional taint key for an extended resource (MIG and shared ones included)."""
    if resource.startswith("nvidia.com/"):
        return "nvidia.com/gpu"
    if resource.startswith("amd.com/"):
        return "amd.com/gpu"
    if resource.startswith("aws.amazon.com/neuron"):
        return "aws.amazon.com/neuron"
    return resource


_VENDOR_WORDS = {
    "nvidia": "an NVIDIA",
    "amd": "an AMD",
    "intel": "an Intel",
    "google": "a Google",
    "aws": "an AWS",
    "huawei": "a Huawei",
    "qualcomm": "a Qualcomm",
}
_CLASS_WORDS = {
    "gpu": "GPU",
    "tpu": "TPU",
    "neuron": "Neuron device",
    "hpu": "Gaudi HPU",
    "npu": "Ascend NPU",
}


def describe(acc: Accelerator) -> str:
    """``"H100-SXM is an NVIDIA GPU"``, for error messages."""
    vendor = _VENDOR_WORDS.get(acc.vendor, f"a {acc.vendor}")
    return f"{acc.name} is {vendor} {_CLASS_WORDS.get(acc.device_class, acc.device_class)}"


def mib_threshold(gb: float) -> int:
    """Decimal GB -> whole MiB (``gb·10⁹ / 2²⁰``, rounded down): the node-label unit.

    Decimal GB is what datasheets and EC2 ``MemoryInfo.SizeInMiB`` use (a 24 GB L4 is
    22888 MiB on Karpenter), so a datasheet-sized device clears its own threshold.
    """
    return math.floor(gb * 1e9 / 2**20)


# -- the ABC -----------------------------------------------------------------------------
class Platform(ABC):
    """One Kubernetes flavour: which resource names, node labels and tolerations it uses.

    Subclasses set :attr:`name`, :attr:`summary`, :attr:`labels` (label role -> default
    key) and :attr:`options` (platform-specific option names), implement :meth:`place`,
    and may override :meth:`configure` to read their options.

    :param labels: label role -> key, overriding the defaults in :attr:`labels`.
    :param label_values: catalog name, model or alias -> label value(s), overriding the
        catalog's names for this platform's primary label.
    :param tolerations: extra tolerations, added after the platform's own.
    :param runtime_class_name: ``spec.runtimeClassName`` to set (e.g. ``"nvidia"``).
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    labels: ClassVar[Mapping[str, str]] = {}
    options: ClassVar[tuple[str, ...]] = ()
    #: Whether :meth:`place` handles a shared slot (``T4@shared``): GPU sharing it can select.
    places_shared: ClassVar[bool] = False
    #: The cloud whose machine types make this platform's nodes (``instances.toml``'s
    #: ``cloud``), or ``None`` for a platform that runs anywhere.
    cloud: ClassVar[str | None] = None

    def __init__(
        self,
        *,
        labels: Mapping[str, str] | None = None,
        label_values: Mapping[str, str | Sequence[str]] | None = None,
        tolerations: Iterable[Any] | None = None,
        runtime_class_name: str | None = None,
        **options: Any,
    ) -> None:
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            valid = sorted({*COMMON_OPTIONS, *self.options})
            hints = close_matches(unknown[0], valid)
            hint = f"; did you mean {hints[0]!r}?" if hints else ""
            raise PlacementError(
                f"Unknown option {unknown[0]!r} for platform {self.name!r}: valid options "
                f"are {', '.join(valid)}{hint}"
            )
        roles = _options.label_keys(self.name, labels)
        bad_roles = sorted(set(roles) - set(self.labels))
        if bad_roles:
            raise PlacementError(
                f"Unknown label role {bad_roles[0]!r} for platform {self.name!r}: its roles "
                f"are {', '.join(sorted(self.labels)) or '(none)'}"
            )
        self.label_keys: dict[str, str] = {**self.labels, **roles}
        self.value_overrides = _options.label_values(self.name, label_values)
        self.extra_tolerations = tuple(
            normalise_toleration(t)
            for t in _options.sequence(self.name, "tolerations", tolerations)
        )
        self.runtime_class_name = _options.text(self.name, "runtime_class_name", runtime_class_name)
        self.configure(**options)

    def configure(self, **options: Any) -> None:  # noqa: B027 - optional hook
        """Read platform-specific options (already checked against :attr:`options`)."""

    def __repr__(self) -> str:
        return f"<Platform {self.name}>"

    @abstractmethod
    def place(self, spec: AcceleratorSpec) -> Placement:
        """Place one alternative (a spec without fallbacks) or raise :class:`PlacementError`.

        :param spec: the alternative to place.
        """

    # -- helpers for subclasses -------------------------------------------------------
    def key(self, role: str) -> str:
        """The label key for ``role``, after the user's overrides."""
        return self.label_keys[role]

    def fail(self, spec: AcceleratorSpec, reason: str) -> PlacementError:
        """A :class:`PlacementError` naming the spec and this platform."""
        return PlacementError(f"Cannot place {str(spec)!r} on platform {self.name!r}: {reason}")

    def label_values_for(
        self,
        accelerators: Iterable[Accelerator],
        names: Callable[[Accelerator], Iterable[str | None] | str | None],
    ) -> tuple[str, ...]:
        """Label values for ``accelerators``: the user's overrides, else ``names(acc)``.

        Duplicates and missing names are dropped; order is kept (preferred SKU first).
        """
        out: list[str] = []
        for acc in accelerators:
            found = next(
                (
                    self.value_overrides[key.casefold()]
                    for key in (acc.name, acc.model, *acc.aliases)
                    if key.casefold() in self.value_overrides
                ),
                None,
            )
            if found is not None:
                out.extend(found)
                continue
            raw = names(acc)
            if isinstance(raw, str):
                out.append(raw)
            elif raw is not None:
                out.extend(v for v in raw if v)
        return tuple(dict.fromkeys(out))

    def candidates_and_resource(
        self, spec: AcceleratorSpec, *, gpus_only: bool = False
    ) -> tuple[list[Accelerator], str | None]:
        """The SKUs ``spec`` accepts and the extended resource they are requested as.

        A memory or vendor request (no named accelerator) keeps the candidates of its vendor
        (NVIDIA when none is given), and only GPUs when ``gpus_only``.
        """
        acc = spec.accelerator
        if acc is not None:
            return list(spec.candidates), device_resource(acc.vendor, acc.device_class)
        vendor = spec.vendor or "nvidia"
        candidates = [
            a
            for a in spec.candidates
            if a.vendor == vendor and (not gpus_only or a.device_class == "gpu")
        ]
        device_class = "gpu" if gpus_only or not candidates else candidates[0].device_class
        return candidates, device_resource(vendor, device_class)

    def whole_count(self, spec: AcceleratorSpec, what: str = "devices") -> int:
        """``spec.count`` as an int, or a :class:`PlacementError` for a fraction."""
        if spec.is_fractional:
            raise self.fail(
                spec,
                f"a fractional count ({spec.count}) needs GPU sharing, which this platform "
                f"cannot express; ask for whole {what}, or use platform 'gke' (time-sharing "
                "or MPS) or 'nvidia' (GPU Operator time-slicing or MPS)",
            )
        return int(spec.count)

    # -- composition ----------------------------------------------------------------------
    def fragment(self, spec: AcceleratorSpec) -> PodFragment:
        """The pod fragment for ``spec`` and all its fallbacks (not yet validated)."""
        alternatives = spec.alternatives
        for alt in alternatives:
            if alt.shared and not self.places_shared:
                raise self.fail(
                    alt,
                    "a shared GPU slot ('@shared') needs GPU sharing, which this platform "
                    "cannot select; use platform 'nvidia' (GPU Operator time-slicing or MPS: "
                    "nvidia.com/gpu.shared or the -SHARED product) or 'gke' (time-sharing or MPS)",
                )
        placements = [self.place(alt) for alt in alternatives]
        first = placements[0]
        for alt, placement in zip(alternatives[1:], placements[1:], strict=True):
            if dict(placement.resources) != dict(first.resources):
                raise PlacementError(
                    f"Cannot place {str(spec)!r} on platform {self.name!r} as one pod: "
                    f"{str(alternatives[0])!r} requests {_show(first.resources)} but the "
                    f"fallback {str(alt)!r} requests {_show(placement.resources)}, and a pod "
                    "has one fixed resource request. Build one pod per alternative, or use "
                    "fallbacks with the same count and resource name"
                    + (
                        " (mig_strategy='single' gives every MIG profile the resource "
                        "nvidia.com/gpu)"
                        if self.name == "nvidia"
                        else ""
                    )
                )
        out: PodFragment = {
            "resources": {
                "limits": {k: str(v) for k, v in first.resources.items()},
                "requests": {k: str(v) for k, v in first.resources.items()},
            }
        }
        if len(placements) == 1:
            selector: dict[str, str] = {}
            rest: list[Requirement] = []
            for req in first.requirements:
                single = req.operator == "In" and len(req.values) == 1
                if single and not first.affinity_only and req.key not in selector:
                    selector[req.key] = req.values[0]
                else:
                    rest.append(req)
            if selector:
                out["nodeSelector"] = selector
            if rest:
                out["affinity"] = _node_affinity([tuple(rest)], [])
        else:
            out_affinity = _fallback_affinity([p.requirements for p in placements])
            if out_affinity:
                out["affinity"] = out_affinity
        tolerations: list[dict[str, Any]] = []
        for item in [t for p in placements for t in p.tolerations] + list(self.extra_tolerations):
            if dict(item) not in tolerations:
                tolerations.append(dict(item))
        out["tolerations"] = tolerations
        if self.runtime_class_name:
            out["runtimeClassName"] = self.runtime_class_name
        return out


def _show(resources: Mapping[str, int]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in resources.items()) or "no resources"


def _node_affinity(
    required: Sequence[tuple[Requirement, ...]],
    preferred: Sequence[tuple[int, tuple[Requirement, ...]]],
) -> dict[str, Any]:
    node: dict[str, Any] = {}
    if required:
        node["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [
                {"matchExpressions": [r.to_dict() for r in term]} for term in required
            ]
        }
    if preferred:
        node["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": weight, "preference": {"matchExpressions": [r.to_dict() for r in term]}}
            for weight, term in preferred
        ]
    return {"nodeAffinity": node} if node else {}


def _fallback_affinity(terms: Sequence[tuple[Requirement, ...]]) -> dict[str, Any]:
    """Required: every alternative allowed; preferred: earlier alternatives weigh more.

    When the alternatives differ only in the values of one ``In`` requirement the
    required part is one term with the values united (``In [a, b, c]``); otherwise it is
    one term per alternative (terms are ORed). An alternative with no requirements allows
    every node, so then nothing is required.
    """
    preferred = [
        (_WEIGHTS[i] if i < len(_WEIGHTS) else 1, term) for i, term in enumerate(terms) if term
    ]
    distinct = list(dict.fromkeys(terms))
    if len(distinct) == 1:
        # Same node requirements for every alternative: nothing to prefer.
        return _node_affinity([distinct[0]] if distinct[0] else [], [])
    if any(not term for term in terms):
        return _node_affinity([], preferred)
    return _node_affinity(_merge_terms(distinct), preferred)


def _merge_terms(terms: Sequence[tuple[Requirement, ...]]) -> list[tuple[Requirement, ...]]:
    shapes = {tuple((r.key, r.operator) for r in term) for term in terms}
    if len(shapes) == 1:
        shape = next(iter(shapes))
        columns = list(zip(*terms, strict=True))
        differing = [i for i, column in enumerate(columns) if len(set(column)) > 1]
        if len(differing) == 1 and shape[differing[0]][1] == "In":
            i = differing[0]
            values = tuple(dict.fromkeys(v for req in columns[i] for v in req.values))
            merged = list(terms[0])
            merged[i] = Requirement(merged[i].key, "In", values)
            return [tuple(merged)]
    return list(terms)
