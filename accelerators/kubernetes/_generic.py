"""Any cluster: the vendor's extended resource and toleration, no node selection.

* ``nvidia.com/gpu``, ``amd.com/gpu``, ``google.com/tpu``, ``aws.amazon.com/neuron``,
  ``habana.ai/gaudi`` or ``gpu.intel.com/i915`` by vendor and device class
  (``resource_name`` overrides it).
* A MIG partition becomes the device plugin's mixed-strategy resource
  ``nvidia.com/mig-<profile>``, which names the slice by itself.
* Anything that needs node labels (a TPU topology, a memory request, a fractional count)
  is refused: pick a platform with labels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from accelerators.kubernetes import _options
from accelerators.kubernetes._devices import device_resource, taint_key
from accelerators.kubernetes._fragment import Placement
from accelerators.kubernetes._nvidia import mig_resource
from accelerators.kubernetes._platform import Platform
from accelerators.kubernetes._tolerations import toleration

if TYPE_CHECKING:
    from accelerators.spec import AcceleratorSpec

__all__ = ["Generic"]


class Generic(Platform):
    """Resource and toleration only.

    :param resource_name: the extended resource to request instead of the vendor default.
    """

    name = "generic"
    summary = "Any cluster: the vendor's extended resource and toleration, no node selection"
    options = ("resource_name",)

    def configure(self, *, resource_name: str | None = None, **_: Any) -> None:
        self.resource_name = _options.text(self.name, "resource_name", resource_name)

    def place(self, spec: AcceleratorSpec) -> Placement:
        acc = spec.accelerator
        if acc is None:
            raise self.fail(
                spec,
                "a memory request needs node labels to select GPUs by memory; use "
                "platform 'nvidia' or 'karpenter' (memory labels) or 'gke' (catalog GPUs)",
            )
        if spec.tpu_topology is not None:
            raise self.fail(spec, "a TPU topology is selected with node labels; use platform 'gke'")
        resource = acc.k8s_resource or device_resource(acc.vendor, acc.device_class)
        if spec.mig_profile is not None:
            resource = mig_resource(spec.mig_profile.profile)
        resource = self.resource_name or resource
        if resource is None:  # pragma: no cover - every catalog vendor/class has one
            raise self.fail(spec, "no device plugin resource is known; pass resource_name=")
        count = self.whole_count(spec)
        return Placement(
            resources={resource: count}, tolerations=(toleration(taint_key(resource)),)
        )
