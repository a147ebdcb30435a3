"""EKS node groups labelled by hand with ``k8s.amazonaws.com/accelerator``.

The label is the Cluster Autoscaler's AWS ``GPULabel``; EKS does not set it, users do
(node-group labels), and values vary between clusters. The value defaults to the catalog's
``names.eks`` and is meant to be overridden with ``label_values``; the key with
``labels={"accelerator": ...}``.

* Whole devices only: the vendor resource plus ``k8s.amazonaws.com/accelerator`` ``In``.
* Memory requests: ``In`` over the ``names.eks`` of the matching catalog entries.
* MIG partitions: not expressible (no standard partition label); use ``nvidia`` or ``flyte``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from accelerators.kubernetes._devices import taint_key
from accelerators.kubernetes._fragment import Placement, Requirement
from accelerators.kubernetes._platform import Platform
from accelerators.kubernetes._tolerations import toleration

if TYPE_CHECKING:
    from accelerators.spec import AcceleratorSpec

__all__ = ["Eks"]


class Eks(Platform):
    """User-applied ``k8s.amazonaws.com/accelerator`` node label."""

    name = "eks"
    cloud = "aws"
    summary = "EKS / Cluster Autoscaler: user-applied k8s.amazonaws.com/accelerator label"
    labels: ClassVar[Mapping[str, str]] = {"accelerator": "k8s.amazonaws.com/accelerator"}

    def place(self, spec: AcceleratorSpec) -> Placement:
        acc = spec.accelerator
        if acc is not None and acc.device_class == "tpu":
            raise self.fail(spec, f"{acc.name} is a Cloud TPU; use platform 'gke'")
        if spec.partition is not None:
            raise self.fail(
                spec,
                f"EKS has no standard MIG partition label, so {spec.partition!r} cannot "
                "be selected; use platform 'nvidia' (GPU Operator MIG) or 'flyte' "
                "(k8s.amazonaws.com/gpu-partition-size)",
            )
        candidates, resource = self.candidates_and_resource(spec)
        values = self.label_values_for(candidates, lambda a: a.names.eks)
        if not values or resource is None:
            what = acc.name if acc is not None else f"the accelerators matching {spec}"
            raise self.fail(
                spec,
                f"no k8s.amazonaws.com/accelerator value (catalog names.eks) is known for "
                f"{what}; the label is set by hand on node groups, so pass "
                "label_values={'<name>': '<your label value>'}",
            )
        count = self.whole_count(spec)
        return Placement(
            resources={resource: count},
            requirements=(Requirement(self.key("accelerator"), "In", values),),
            tolerations=(toleration(taint_key(resource)),),
        )
