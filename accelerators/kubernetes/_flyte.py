"""What flytepropeller emits for a task's accelerator, with its default configuration.

flytepropeller's ``ApplyGPUNodeSelectors`` (``pod_helper.go``) adds, with the defaults
``gpu-device-node-label: k8s.amazonaws.com/accelerator`` and
``gpu-partition-size-node-label: k8s.amazonaws.com/gpu-partition-size``:

* required node affinity ``<device label> In [<device>]`` — one device string, the one the
  task's ``GPUAccelerator`` carries (``H100`` is ``nvidia-h100`` alone, never its other
  SKUs) — and a toleration ``{key: <device label>, operator: Equal, value: <device>,
  effect: NoSchedule}``;
* for a partition, ``<partition label> In [<profile>]`` and the matching ``Equal``
  toleration; the resource stays ``nvidia.com/gpu`` (MIG slices exposed as whole GPUs);
* for ``@whole`` (``unpartitioned``), ``<partition label> DoesNotExist`` (or the configured
  ``unpartitioned_requirement``) and only a configured ``unpartitioned_toleration``; a spec
  without a partition on a device MIG can split means whole devices too
  (:func:`~accelerators.kubernetes.wants_whole_devices`), as the Flyte plugin sends it
  (``unpartitioned: true``), so it gets the same requirement;
* no ``<resource> Exists`` toleration: propeller adds one only for resources listed in
  ``add-tolerations-for-extended-resources`` (option ``extended_resource_tolerations``).

Non-NVIDIA devices follow Flyte 2's default device classes: TPUs use ``google.com/tpu``
and the ``cloud.google.com/gke-tpu-accelerator`` / ``gke-tpu-topology`` labels; Neuron,
AMD and Gaudi use their resource with the device label. Device strings come from
:func:`accelerators.constants.flyte_device` (flytekit's ``device`` where flytekit has one).
A memory or vendor request, or a fallback chain, is this package's extension: one
``In`` value per accepted device. Source: flyteorg/flyte
``flyteplugins/go/tasks/pluginmachinery/flytek8s/pod_helper.go`` and ``config/config.go``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from accelerators import catalog
from accelerators.constants import flyte_device
from accelerators.kubernetes import _options
from accelerators.kubernetes._devices import wants_whole_devices
from accelerators.kubernetes._fragment import Placement, Requirement
from accelerators.kubernetes._gke import tpu_chips
from accelerators.kubernetes._platform import Platform
from accelerators.kubernetes._tolerations import normalise_toleration, toleration

if TYPE_CHECKING:
    from accelerators.spec import AcceleratorSpec

__all__ = ["Flyte"]

_LABEL_VALUE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")


class Flyte(Platform):
    """flytepropeller's node affinity and tolerations for ``GPUAccelerator``.

    :param unpartitioned_requirement: propeller's ``gpu-unpartitioned-node-selector-requirement``
        (a ``nodeSelectorRequirement`` dict) used for ``@whole`` instead of
        ``<partition label> DoesNotExist``.
    :param unpartitioned_toleration: propeller's ``gpu-unpartitioned-toleration``.
    :param extended_resource_tolerations: add ``{key: <resource>, operator: Exists,
        effect: NoSchedule}`` for the device resource, as propeller's
        ``add-tolerations-for-extended-resources`` does for the resources it lists.
    """

    name = "flyte"
    summary = "flytepropeller defaults: k8s.amazonaws.com/accelerator + gpu-partition-size affinity"
    labels: ClassVar[Mapping[str, str]] = {
        "device": "k8s.amazonaws.com/accelerator",
        "partition": "k8s.amazonaws.com/gpu-partition-size",
        "tpu_device": "cloud.google.com/gke-tpu-accelerator",
        "tpu_partition": "cloud.google.com/gke-tpu-topology",
    }
    options = (
        "unpartitioned_requirement",
        "unpartitioned_toleration",
        "extended_resource_tolerations",
    )

    def configure(
        self,
        *,
        unpartitioned_requirement: Mapping[str, Any] | None = None,
        unpartitioned_toleration: Any = None,
        extended_resource_tolerations: bool = False,
        **_: Any,
    ) -> None:
        self.extended_resource_tolerations = _options.flag(
            self.name, "extended_resource_tolerations", extended_resource_tolerations
        )
        self.unpartitioned_requirement = (
            Requirement(
                *_options.requirement(
                    self.name, "unpartitioned_requirement", unpartitioned_requirement
                )
            )
            if unpartitioned_requirement is not None
            else None
        )
        self.unpartitioned_toleration = (
            normalise_toleration(unpartitioned_toleration) if unpartitioned_toleration else None
        )

    def place(self, spec: AcceleratorSpec) -> Placement:
        acc = spec.accelerator
        tpu = acc is not None and acc.device_class == "tpu"
        device_key = self.key("tpu_device" if tpu else "device")
        partition_key = self.key("tpu_partition" if tpu else "partition")
        if tpu and acc is not None and not acc.names.gke and not acc.names.flyte:
            raise self.fail(
                spec,
                f"{acc.name} has no GKE TPU node label (catalog names.gke): GKE offers no "
                "node pool of it (Cloud TPU VMs only), so no Flyte node can be labelled for it",
            )
        candidates, resource = self.candidates_and_resource(spec, gpus_only=True)
        if acc is not None:
            # The one device string the task's GPUAccelerator carries: the constant's.
            candidates = [acc if spec.exact else catalog.by_model(acc.model)[0]]
        devices = self.label_values_for(candidates, flyte_device)
        if not devices or resource is None:
            what = acc.name if acc is not None else f"the GPUs matching {spec}"
            raise self.fail(
                spec,
                f"no Flyte device string or device resource is known for {what}; name "
                "the accelerator, or pass label_values={'<name>': '<device string>'} with "
                "the value your Flyte nodes are labelled with",
            )
        requirements = [Requirement(device_key, "In", devices)]
        tolerations = [toleration(device_key, "Equal", d) for d in devices]
        if tpu:
            count, topology = tpu_chips(self, spec, devices[0])
            requirements.append(Requirement(partition_key, "In", (topology,)))
            tolerations.append(toleration(partition_key, "Equal", topology))
        else:
            count = self.whole_count(spec)
            if spec.partition is not None:
                if not _LABEL_VALUE.match(spec.partition):
                    raise self.fail(
                        spec,
                        f"MIG profile {spec.partition!r} is not a valid node label value "
                        "('+' is not allowed), so no node can carry it in "
                        f"{partition_key}; use platform 'nvidia' (resource "
                        "nvidia.com/mig-<profile>)",
                    )
                requirements.append(Requirement(partition_key, "In", (spec.partition,)))
                tolerations.append(toleration(partition_key, "Equal", spec.partition))
            elif wants_whole_devices(spec):
                requirements.append(
                    self.unpartitioned_requirement or Requirement(partition_key, "DoesNotExist")
                )
                if self.unpartitioned_toleration:
                    tolerations.append(self.unpartitioned_toleration)
        if self.extended_resource_tolerations:
            tolerations.append(toleration(resource))
        return Placement(
            resources={resource: count},
            requirements=tuple(requirements),
            tolerations=tuple(tolerations),
            affinity_only=True,
        )
