"""Karpenter on AWS: ``karpenter.k8s.aws/instance-*`` well-known labels.

* GPU: the vendor resource (``nvidia.com/gpu``, ``amd.com/gpu``) plus
  ``karpenter.k8s.aws/instance-gpu-name`` ``In`` the catalog ``names.karpenter`` values.
* Neuron: ``aws.amazon.com/neuron`` plus ``karpenter.k8s.aws/instance-accelerator-name``;
  the same label names dl2q's Qualcomm AI 100 (``qualcomm-ai100``, ``qualcomm.com/qaic``).
* Memory requests: ``karpenter.k8s.aws/instance-gpu-memory`` (MiB per GPU) ``Gt`` the
  threshold minus one.
* Where EC2 gives SKUs of different memory one GPU name (``a100`` is both the 40 GB p4d and
  the 80 GB p4de), ``instance-gpu-memory`` bounds pick the right one.
* The GPU count needs no ``instance-gpu-count`` requirement: Karpenter already picks
  instance types whose capacity covers the pod's resource requests.

Source: aws/karpenter-provider-aws ``pkg/apis/v1/labels.go`` and
``pkg/providers/instancetype/types.go``; see docs/kubernetes.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from accelerators.kubernetes._devices import device_resource, mib_threshold, taint_key
from accelerators.kubernetes._fragment import Placement, Requirement
from accelerators.kubernetes._platform import Platform
from accelerators.kubernetes._tolerations import toleration

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.spec import AcceleratorSpec

__all__ = ["Karpenter"]


class Karpenter(Platform):
    """Karpenter's AWS instance-type labels."""

    name = "karpenter"
    cloud = "aws"
    summary = "Karpenter (AWS): instance-gpu-name / instance-accelerator-name, instance-gpu-memory"
    labels: ClassVar[Mapping[str, str]] = {
        "gpu_name": "karpenter.k8s.aws/instance-gpu-name",
        "gpu_memory": "karpenter.k8s.aws/instance-gpu-memory",
        "accelerator_name": "karpenter.k8s.aws/instance-accelerator-name",
    }

    def place(self, spec: AcceleratorSpec) -> Placement:
        acc = spec.accelerator
        if acc is None:
            return self._place_memory(spec)
        if acc.device_class == "tpu":
            raise self.fail(spec, f"{acc.name} is a Cloud TPU; use platform 'gke'")
        if spec.partition is not None:
            raise self.fail(
                spec,
                f"Karpenter has no label for MIG partitions, so {spec.partition!r} cannot "
                "be selected; use platform 'nvidia' (GPU Operator MIG) or 'gke'",
            )
        values = self.label_values_for(spec.candidates, lambda a: a.names.karpenter)
        resource = acc.k8s_resource or device_resource(acc.vendor, acc.device_class)
        if not values or resource is None:
            known = _karpenter_names()
            raise self.fail(
                spec,
                f"{acc.name} is not offered by any EC2 instance type Karpenter knows "
                f"(catalog names.karpenter is empty); Karpenter knows {', '.join(known) or 'none'}",
            )
        role = "gpu_name" if acc.device_class == "gpu" else "accelerator_name"
        count = self.whole_count(spec)
        requirements = [Requirement(self.key(role), "In", values)]
        if acc.device_class == "gpu":
            requirements += self._memory_bounds(spec.candidates, values)
        return Placement(
            resources={resource: count},
            requirements=tuple(requirements),
            tolerations=(toleration(taint_key(resource)),),
        )

    def _memory_bounds(
        self, candidates: Sequence[Accelerator], values: Sequence[str]
    ) -> list[Requirement]:
        """``instance-gpu-memory`` bounds when a GPU name covers SKUs of other sizes.

        EC2 names the 40 GB and 80 GB A100 both ``a100`` (p4d, p4de); without a memory
        bound ``A100-80GB`` could land on a p4d. Lower bound: the smallest accepted SKU's
        memory; upper bound: the next larger SKU sharing the name.
        """
        from accelerators import catalog

        accepted = {a.name for a in candidates}
        sizes = [a.device_memory_gb for a in candidates]
        others = [
            a.device_memory_gb
            for a in catalog.all()
            if a.names.karpenter in values and a.name not in accepted and a.device_class == "gpu"
        ]
        bounds: list[Requirement] = []
        if any(m < min(sizes) for m in others):
            threshold = mib_threshold(min(sizes)) - 1
            bounds.append(Requirement(self.key("gpu_memory"), "Gt", (str(threshold),)))
        larger = [m for m in others if m > max(sizes)]
        if larger:
            threshold = mib_threshold(min(larger))
            bounds.append(Requirement(self.key("gpu_memory"), "Lt", (str(threshold),)))
        return bounds

    def _place_memory(self, spec: AcceleratorSpec) -> Placement:
        memory = spec.memory
        if memory is None or spec.vendor not in (None, "nvidia", "amd"):
            raise self.fail(
                spec,
                "Karpenter labels GPU memory only (instance-gpu-memory); name the "
                "accelerator for other devices",
            )
        resource = "amd.com/gpu" if spec.vendor == "amd" else "nvidia.com/gpu"
        count = self.whole_count(spec, "GPUs")
        if memory.at_least:
            requirement = Requirement(
                self.key("gpu_memory"), "Gt", (str(mib_threshold(memory.gb) - 1),)
            )
        else:
            vendor = spec.vendor or "nvidia"
            matching = [
                a for a in spec.candidates if a.vendor == vendor and a.device_class == "gpu"
            ]
            values = self.label_values_for(matching, lambda a: a.names.karpenter)
            if not values:
                raise self.fail(
                    spec,
                    f"no {vendor} GPU with exactly {memory} has a Karpenter name; ask "
                    f"for at least that much ('{memory}+')",
                )
            requirement = Requirement(self.key("gpu_name"), "In", values)
        return Placement(
            resources={resource: count},
            requirements=(requirement,),
            tolerations=(toleration(taint_key(resource)),),
        )


def _karpenter_names() -> list[str]:
    from accelerators import catalog

    return [a.name for a in catalog.all() if a.names.karpenter]
