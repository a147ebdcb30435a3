"""Dynamic Resource Allocation (``resource.k8s.io/v1``, Kubernetes 1.34+), opt-in.

One ``ResourceClaimTemplate`` with one device request, plus the pod's
``spec.resourceClaims`` and the container's ``resources.claims``:

* whole GPUs: DeviceClass ``gpu.nvidia.com`` and a CEL selector on ``productName``
  (the NVML names of every SKU the spec accepts);
* MIG: DeviceClass ``mig.nvidia.com`` and a selector on ``profile`` and the parent's
  ``productName``;
* memory requests (``80GB+``): a selector on the ``memory`` capacity;
* fallbacks: a prioritized list (``firstAvailable``), tried in order.

Attribute names are those of the NVIDIA DRA driver (NVIDIA/k8s-dra-driver-gpu,
``cmd/gpu-kubelet-plugin/deviceinfo.go``); DeviceClass names are the GPU Operator's and
can be changed with ``gpu_device_class`` / ``mig_device_class``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from accelerators.errors import PlacementError
from accelerators.kubernetes._devices import describe
from accelerators.kubernetes._fragment import PodFragment
from accelerators.kubernetes._tolerations import normalise_toleration, toleration

if TYPE_CHECKING:
    from collections.abc import Iterable

    from accelerators.spec import AcceleratorSpec

__all__ = ["DEFAULT_GPU_DEVICE_CLASS", "DEFAULT_MIG_DEVICE_CLASS", "DraFragment", "dra_fragment"]

DEFAULT_GPU_DEVICE_CLASS = "gpu.nvidia.com"
DEFAULT_MIG_DEVICE_CLASS = "mig.nvidia.com"
_DRIVER = "gpu.nvidia.com"


@dataclass(frozen=True)
class DraFragment:
    """A DRA pod fragment and the ``ResourceClaimTemplate`` it refers to.

    :param pod: ``resourceClaims``, ``resources.claims``, tolerations (and
        ``runtimeClassName``) to merge into a pod.
    :param claim_template: the ``resource.k8s.io/v1`` ``ResourceClaimTemplate`` manifest,
        to create before the pod.
    """

    pod: PodFragment
    claim_template: dict[str, Any]


def _cel_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _cel_list(values: Iterable[str]) -> str:
    return "[" + ", ".join(_cel_string(v) for v in values) + "]"


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return (slug or "device")[:50].strip("-")


def _subrequest(spec: AcceleratorSpec, gpu_class: str, mig_class: str) -> dict[str, Any]:
    acc = spec.accelerator
    if acc is not None and (acc.vendor, acc.device_class) != ("nvidia", "gpu"):
        raise PlacementError(
            f"Cannot express {str(spec)!r} with DRA: only NVIDIA GPUs (NVIDIA DRA driver, "
            f"DeviceClasses {gpu_class}/{mig_class}) are supported; "
            f"{describe(acc)}. Use the device-plugin output (dra=False)"
        )
    if spec.is_shared:
        what = "a fractional count" if spec.is_fractional else "a shared slot"
        raise PlacementError(
            f"Cannot express {str(spec)!r} with DRA: {what} is GPU sharing, which "
            "DRA configures on the claim, not in the request; ask for a whole count or use "
            "dra=False with platform 'gke' or 'nvidia'"
        )
    if acc is None and spec.vendor not in (None, "nvidia"):
        raise PlacementError(
            f"Cannot express {str(spec)!r} with DRA: only NVIDIA GPUs are supported"
        )
    attrs = f"device.attributes[{_cel_string(_DRIVER)}]"
    selectors: list[str] = []
    profile = spec.mig_profile
    if acc is None and spec.memory is not None and spec.memory.at_least:
        gb = spec.memory.gb
        quantity = f"{int(gb)}G" if float(gb).is_integer() else str(int(gb * 1e9))
        selectors.append(
            f"device.capacity[{_cel_string(_DRIVER)}].memory.compareTo(quantity('{quantity}')) >= 0"
        )
    else:
        candidates = [a for a in spec.candidates if (a.vendor, a.device_class) == ("nvidia", "gpu")]
        names = tuple(dict.fromkeys(n for a in candidates for n in a.names.nvml))
        if not names:
            what = acc.name if acc is not None else f"the GPUs matching {spec}"
            raise PlacementError(
                f"Cannot express {str(spec)!r} with DRA: no NVML product name (catalog "
                f"names.nvml) is known for {what}, so no productName selector can be written"
            )
        if profile is not None:
            selectors.append(f"{attrs}.profile == {_cel_string(profile.profile)}")
        selectors.append(
            f"{attrs}.productName == {_cel_string(names[0])}"
            if len(names) == 1
            else f"{attrs}.productName in {_cel_list(names)}"
        )
    return {
        "deviceClassName": mig_class if profile is not None else gpu_class,
        "count": int(spec.count),
        "selectors": [{"cel": {"expression": " && ".join(selectors)}}],
    }


def dra_fragment(
    spec: AcceleratorSpec,
    *,
    template_name: str,
    claim_name: str = "gpu",
    gpu_device_class: str = DEFAULT_GPU_DEVICE_CLASS,
    mig_device_class: str = DEFAULT_MIG_DEVICE_CLASS,
    tolerations: Iterable[Any] = (),
    runtime_class_name: str | None = None,
) -> DraFragment:
    """Build the DRA claim template and pod fragment for ``spec`` (see module docstring).

    :param spec: the accelerator spec, fallbacks included.
    :param template_name: ``metadata.name`` of the ResourceClaimTemplate.
    :param claim_name: the claim's name in the pod and the request's name.
    :param gpu_device_class: DeviceClass for whole GPUs.
    :param mig_device_class: DeviceClass for MIG devices.
    :param tolerations: extra tolerations for the pod.
    :param runtime_class_name: ``spec.runtimeClassName`` to set.
    """
    alternatives = spec.alternatives
    subs = [_subrequest(alt, gpu_device_class, mig_device_class) for alt in alternatives]
    request: dict[str, Any] = {"name": claim_name}
    if len(subs) == 1:
        request["exactly"] = subs[0]
    else:
        used: set[str] = set()
        first_available = []
        for alt, sub in zip(alternatives, subs, strict=True):
            base = _slug(str(alt.with_count(1)))
            name, n = base, 2
            while name in used:
                name, n = f"{base}-{n}", n + 1
            used.add(name)
            first_available.append({"name": name, **sub})
        request["firstAvailable"] = first_available
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": template_name},
        "spec": {"spec": {"devices": {"requests": [request]}}},
    }
    pod: PodFragment = {
        "resources": {"claims": [{"name": claim_name}]},
        "resourceClaims": [{"name": claim_name, "resourceClaimTemplateName": template_name}],
        "tolerations": [toleration("nvidia.com/gpu")],
    }
    for item in tolerations:
        extra = normalise_toleration(item)
        if extra not in pod["tolerations"]:
            pod["tolerations"].append(extra)
    if runtime_class_name:
        pod["runtimeClassName"] = runtime_class_name
    return DraFragment(pod=pod, claim_template=template)
