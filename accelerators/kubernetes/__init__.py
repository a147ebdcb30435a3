"""Kubernetes pod fragments for accelerator specs: resources, node selection, tolerations.

>>> from accelerators import AcceleratorSpec
>>> from accelerators.kubernetes import to_pod_fragment
>>> spec = AcceleratorSpec(accelerator="T4", count=2)
>>> fragment = to_pod_fragment(spec, platform="gke")
>>> fragment["resources"]["limits"], fragment["nodeSelector"]
({'nvidia.com/gpu': '2'}, {'cloud.google.com/gke-accelerator': 'nvidia-tesla-t4'})

Everything is plain camelCase dicts; :func:`apply_to_pod` merges a fragment into a pod,
pod template or pod spec (dicts, or ``kubernetes.client`` models with the ``[k8s]``
extra) without losing what it had. Platforms (:func:`platforms`): ``gke``, ``nvidia``,
``karpenter``, ``eks``, ``flyte``, ``amd``, ``neuron``, ``gaudi``, ``intel``, ``generic``.
See ``docs/kubernetes.md`` for what each emits and its options.

:func:`place` is what a task's pod needs: the spec placed once into the layers the user
wrote (a pod template, the task's own arguments), with every check (requests within limits,
counts no node has, selectors that contradict the spec) and the fragment applied; it returns
a :class:`PlacedPod` (the pod, or every problem). The Airflow provider and the Flyte plugin
place through it.

Public names: building blocks :class:`Platform`, :class:`Placement`, :class:`Requirement`,
:class:`PodFragment`, :class:`DraFragment`, :class:`FragmentModels`; placing into a task's pod
:func:`place`, :class:`PlacedPod`, :class:`LeftOutWarning`; functions :func:`to_pod_fragment`,
:func:`to_dra_fragment`,
:func:`apply_to_pod`, :func:`merge_fragment`, :func:`reconcile_placement`, :func:`build_pod`,
:func:`build_manifests`, :func:`validate_fragment`, :func:`validate_claim_template`,
:func:`get_platform`, :func:`platform_name`, :func:`platforms`, :func:`register_platform`,
:func:`fragment_models`, :func:`pod_model`; defaults :data:`DEFAULT_IMAGE`,
:data:`DEFAULT_COMMAND`; node pinning :func:`pin_to_node`, :func:`node_name_env`; linting
:func:`placement_problems`; a user's selector, affinity or device resource that contradicts
the spec :func:`placement_conflicts`, :func:`check_placement_conflicts`,
:func:`is_device_resource`; the whole-GPU rule :func:`wants_whole_devices`;
``requests <= limits`` :func:`check_resources`, :func:`resource_problems`; counts no node has
:func:`check_node_count`, :func:`node_count_problems`; a task pinned behind a gate
:func:`guard_problems`; what a pod spec that replaces another loses of it
:func:`dropped_settings`.

Importing this module imports neither ``kubernetes`` nor ``pydantic``, and no platform
adapter: each is imported the first time its platform is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from accelerators._lazy import lazy_exports
from accelerators.errors import AcceleratorError, PlacementError, close_matches
from accelerators.kubernetes._devices import wants_whole_devices as wants_whole_devices
from accelerators.kubernetes._fragment import Placement as Placement
from accelerators.kubernetes._fragment import PodFragment as PodFragment
from accelerators.kubernetes._fragment import Requirement as Requirement
from accelerators.kubernetes._merge import merge_fragment as merge_fragment
from accelerators.kubernetes._merge import reconcile_placement as reconcile_placement
from accelerators.kubernetes._platform import Platform as Platform
from accelerators.kubernetes._validate import validate_claim_template as validate_claim_template
from accelerators.kubernetes._validate import validate_fragment as validate_fragment

# The public names: this module's own, then those of submodules imported on first access
# (PEP 562). Type checkers read the same imports below.
__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "._models": "FragmentModels fragment_models pod_model",
        "._checks": "placement_problems",
        "._dra": "DraFragment",
        "._pinning": "node_name_env pin_to_node",
        "._resources": "check_resources resource_problems",
        "._node_count": "check_node_count node_count_problems",
        "._gate_fit": "guard_problems",
        "._conflicts": "check_placement_conflicts placement_conflicts",
        "._devices": "is_device_resource",
        "._kept": "dropped_settings",
        "._place": "LeftOutWarning PlacedPod place",
        "._manifests": "DEFAULT_COMMAND DEFAULT_IMAGE build_manifests build_pod",
    },
    own="Placement Platform PodFragment Requirement apply_to_pod get_platform merge_fragment "
    "platform_name platforms reconcile_placement register_platform "
    "to_dra_fragment to_pod_fragment validate_claim_template validate_fragment "
    "wants_whole_devices",
)

if TYPE_CHECKING:
    from accelerators.kubernetes._checks import placement_problems as placement_problems
    from accelerators.kubernetes._conflicts import (
        check_placement_conflicts as check_placement_conflicts,
    )
    from accelerators.kubernetes._conflicts import placement_conflicts as placement_conflicts
    from accelerators.kubernetes._devices import is_device_resource as is_device_resource
    from accelerators.kubernetes._dra import DraFragment as DraFragment
    from accelerators.kubernetes._gate_fit import guard_problems as guard_problems
    from accelerators.kubernetes._kept import dropped_settings as dropped_settings
    from accelerators.kubernetes._manifests import DEFAULT_COMMAND as DEFAULT_COMMAND
    from accelerators.kubernetes._manifests import DEFAULT_IMAGE as DEFAULT_IMAGE
    from accelerators.kubernetes._manifests import build_manifests as build_manifests
    from accelerators.kubernetes._manifests import build_pod as build_pod
    from accelerators.kubernetes._models import FragmentModels as FragmentModels
    from accelerators.kubernetes._models import fragment_models as fragment_models
    from accelerators.kubernetes._models import pod_model as pod_model
    from accelerators.kubernetes._node_count import check_node_count as check_node_count
    from accelerators.kubernetes._node_count import node_count_problems as node_count_problems
    from accelerators.kubernetes._pinning import node_name_env as node_name_env
    from accelerators.kubernetes._pinning import pin_to_node as pin_to_node
    from accelerators.kubernetes._place import LeftOutWarning as LeftOutWarning
    from accelerators.kubernetes._place import PlacedPod as PlacedPod
    from accelerators.kubernetes._place import place as place
    from accelerators.kubernetes._resources import check_resources as check_resources
    from accelerators.kubernetes._resources import resource_problems as resource_problems
    from accelerators.spec import SpecLike

T = TypeVar("T")

#: The built-in platforms, in registration order: name -> (module, class). Each adapter is
#: imported the first time its platform is asked for, so a DAG file that places specs on one
#: platform does not pay for the other nine (Airflow's DAG processor parses every file in a
#: fresh process).
_BUILTIN: dict[str, tuple[str, str]] = {
    "gke": ("accelerators.kubernetes._gke", "Gke"),
    "nvidia": ("accelerators.kubernetes._nvidia", "Nvidia"),
    "karpenter": ("accelerators.kubernetes._karpenter", "Karpenter"),
    "eks": ("accelerators.kubernetes._eks", "Eks"),
    "flyte": ("accelerators.kubernetes._flyte", "Flyte"),
    "amd": ("accelerators.kubernetes._amd", "Amd"),
    "neuron": ("accelerators.kubernetes._neuron", "Neuron"),
    "gaudi": ("accelerators.kubernetes._gaudi", "Gaudi"),
    "intel": ("accelerators.kubernetes._intel", "Intel"),
    "generic": ("accelerators.kubernetes._generic", "Generic"),
}
#: Platform classes loaded so far (built-in ones on first use) and registered ones.
_REGISTRY: dict[str, type[Platform]] = {}

_DRA_OPTIONS = ("claim_name", "claim_template_name", "gpu_device_class", "mig_device_class")


def platforms() -> tuple[str, ...]:
    """Names of the registered platforms, in registration order (built-in ones first)."""
    return (*_BUILTIN, *(name for name in _REGISTRY if name not in _BUILTIN))


def _platform_class(name: str) -> type[Platform] | None:
    """The class registered as ``name``, importing a built-in adapter on first use."""
    cls = _REGISTRY.get(name)
    if cls is None and name in _BUILTIN:
        module, attribute = _BUILTIN[name]
        cls = getattr(importlib.import_module(module), attribute)
        _REGISTRY[name] = cls
    return cls


def register_platform(cls: type[Platform]) -> type[Platform]:
    """Add a :class:`Platform` subclass to the registry under ``cls.name`` (a decorator).

    :param cls: the platform class; its ``name`` must not be taken.
    """
    if not (isinstance(cls, type) and issubclass(cls, Platform)):  # type: ignore[redundant-expr]
        raise AcceleratorError(f"Expected a Platform subclass, got {cls!r}")
    taken = _platform_class(cls.name)
    if taken is not None and taken is not cls:
        raise AcceleratorError(f"Platform name {cls.name!r} is already registered")
    _REGISTRY[cls.name] = cls
    return cls


def get_platform(platform: str | Platform, **options: Any) -> Platform:
    """The platform called ``platform``, configured with ``options``.

    :param platform: a registered name (see :func:`platforms`) or a :class:`Platform`.
    :param options: platform options (common: ``labels``, ``label_values``,
        ``tolerations``, ``runtime_class_name``; see ``docs/kubernetes.md``).
    :raises PlacementError: no platform has that name, or an option is unknown to it or of a
        value it cannot read.
    """
    if isinstance(platform, Platform):
        if options:
            raise PlacementError(
                f"Options {sorted(options)} were given with a configured platform "
                f"{platform!r}; pass them to its constructor instead"
            )
        return platform
    cls = _platform_class(platform_name(platform))
    if cls is None:  # pragma: no cover - platform_name() refused what is not registered
        raise PlacementError(f"Unknown platform {platform!r}")
    return cls(**options)


def platform_name(platform: object, *, among: Sequence[str] | None = None) -> str:
    """The registered platform that ``platform`` names (case and blanks ignored).

    >>> platform_name(" GKE ")
    'gke'

    :param platform: what the user wrote.
    :param among: the platforms this caller accepts (default: every registered one).
    :raises PlacementError: it names none of them; the message lists them, with the
        closest as a did-you-mean.
    """
    known = tuple(among) if among is not None else platforms()
    name = platform.strip().lower() if isinstance(platform, str) else None
    if name is not None and name in known and _platform_class(name) is not None:
        return name
    hints = close_matches(str(platform), known)
    hint = f"; did you mean {hints[0]!r}?" if hints else ""
    raise PlacementError(f"Unknown platform {platform!r}: expected one of {', '.join(known)}{hint}")


def to_pod_fragment(spec: SpecLike, *, platform: str | Platform, **options: Any) -> PodFragment:
    """The pod fragment that places ``spec`` on ``platform``.

    :param spec: an :class:`~accelerators.AcceleratorSpec`, a spec string or a constant.
    :param platform: a platform name or :class:`Platform` instance.
    :param options: platform options.
    :returns: ``resources`` (for the container; limits equal to requests), and for the
        pod ``nodeSelector`` and/or ``affinity``, ``tolerations`` and, where asked,
        ``runtimeClassName``.
    :raises PlacementError: the platform cannot place the spec, is not registered, or does
        not take or cannot read an option.
    """
    from accelerators.spec import AcceleratorSpec

    parsed = AcceleratorSpec.coerce(spec)
    fragment = _placing(platform, options).fragment(parsed)
    validate_fragment(fragment)
    return fragment


#: One unconfigured instance per platform class, for :func:`to_pod_fragment`: a platform
#: without options holds nothing but its class's defaults, and placing reads it only.
_UNCONFIGURED: dict[type[Platform], Platform] = {}


def _placing(platform: str | Platform, options: dict[str, Any]) -> Platform:
    """:func:`get_platform`, reusing the unconfigured instance of a platform named alone.

    A DAG file places a spec per task; the DAG processor's children are forked from a
    process that ``preload()`` made create these instances, so the children only read them.
    """
    if options or not isinstance(platform, str):
        return get_platform(platform, **options)
    cls = _platform_class(platform.strip().lower())
    found = _UNCONFIGURED.get(cls) if cls is not None else None
    if found is None:
        found = get_platform(platform)
        _UNCONFIGURED[type(found)] = found
    return found


def to_dra_fragment(
    spec: SpecLike,
    *,
    claim_template_name: str = "accelerators-gpu",
    claim_name: str = "gpu",
    gpu_device_class: str = "gpu.nvidia.com",  # _dra.DEFAULT_GPU_DEVICE_CLASS (a test checks)
    mig_device_class: str = "mig.nvidia.com",  # _dra.DEFAULT_MIG_DEVICE_CLASS
    platform: str | Platform | None = None,
    **options: Any,
) -> DraFragment:
    """The DRA (``resource.k8s.io/v1``) claim template and pod fragment for ``spec``.

    Node labels play no part with DRA: the claim's CEL selectors pick the devices. A
    ``platform`` only contributes its ``tolerations`` and ``runtime_class_name`` options.

    :param spec: an NVIDIA GPU spec (MIG, memory requests and fallbacks included).
    :param claim_template_name: the ResourceClaimTemplate's name.
    :param claim_name: the claim's name in the pod.
    :param gpu_device_class: DeviceClass for whole GPUs (GPU Operator: ``gpu.nvidia.com``).
    :param mig_device_class: DeviceClass for MIG devices (``mig.nvidia.com``).
    :param platform: optional platform whose common options apply.
    :param options: platform options.
    """
    from accelerators.kubernetes._dra import dra_fragment  # DRA: imported when used
    from accelerators.spec import AcceleratorSpec

    parsed = AcceleratorSpec.coerce(spec)
    configured = get_platform(platform or "generic", **options)
    result = dra_fragment(
        parsed,
        template_name=claim_template_name,
        claim_name=claim_name,
        gpu_device_class=gpu_device_class,
        mig_device_class=mig_device_class,
        tolerations=configured.extra_tolerations,
        runtime_class_name=configured.runtime_class_name,
    )
    validate_fragment(result.pod)
    validate_claim_template(result.claim_template)
    return result


def apply_to_pod(
    pod: T,
    spec: SpecLike,
    *,
    platform: str | Platform,
    container: str | None = None,
    dra: bool = False,
    **options: Any,
) -> T:
    """Merge the fragment for ``spec`` into a copy of ``pod`` (see :func:`merge_fragment`).

    :param pod: a Pod / PodTemplateSpec / PodSpec dict or ``kubernetes.client`` model; the
        same type comes back and the input is not changed.
    :param spec: the accelerator spec.
    :param platform: a platform name or :class:`Platform`.
    :param container: the container that gets the resources (default: the first).
    :param dra: use DRA claims instead of device-plugin resources; create the claim
        template from :func:`to_dra_fragment` with the same arguments.
    :param options: platform options (and, with ``dra``, :func:`to_dra_fragment`'s).
    :raises PlacementError: the spec cannot be placed, conflicts with the pod (a value on the
        same key, or a selector, affinity or device resource no node can meet together with
        the spec: :func:`placement_conflicts`), or a container of the result requests more of
        a resource than its limit (:func:`check_resources`).
    """
    from accelerators.kubernetes import _conflicts
    from accelerators.spec import AcceleratorSpec

    parsed = AcceleratorSpec.coerce(spec)
    if dra:
        fragment: PodFragment = to_dra_fragment(parsed, platform=platform, **options).pod
        own = {k: v for k, v in options.items() if k not in _DRA_OPTIONS}
        configured = _placing(platform or "generic", own)
    else:
        configured = _placing(platform, options)
        fragment = configured.fragment(parsed)
        validate_fragment(fragment)
    _conflicts.refuse(parsed, pod, configured, fragment)
    merged = merge_fragment(pod, fragment, container=container)
    from accelerators.kubernetes._resources import check_resources

    check_resources(merged)
    return merged
