"""Intel GPU device plugin: ``gpu.intel.com/i915`` (legacy KMD) or ``gpu.intel.com/xe``.

The resource and its toleration, and for a named GPU the NFD product label
``gpu.intel.com/product`` (``Max_1550``; catalog ``names.intel``) as a required ``In``, so a
Max 1550 pod does not land on a Flex node. Source: intel/intel-device-plugins-for-kubernetes
``cmd/gpu_plugin/README.md`` and its NFD rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from accelerators.errors import PlacementError
from accelerators.kubernetes._fragment import Placement, Requirement
from accelerators.kubernetes._platform import Platform
from accelerators.kubernetes._tolerations import toleration

if TYPE_CHECKING:
    from accelerators.spec import AcceleratorSpec

__all__ = ["Intel"]

_DRIVERS = ("i915", "xe")


class Intel(Platform):
    """Intel GPU device plugin resource.

    :param driver: the kernel driver the nodes use, ``"i915"`` (default) or ``"xe"``
        (Battlemage, Lunar Lake and newer).
    """

    name = "intel"
    summary = "Intel GPU device plugin: gpu.intel.com/i915 or gpu.intel.com/xe"
    options = ("driver",)
    labels: ClassVar[Mapping[str, str]] = {"product": "gpu.intel.com/product"}

    def configure(self, *, driver: str = "i915", **_: Any) -> None:
        if driver not in _DRIVERS:
            raise PlacementError(f"Unknown Intel GPU driver {driver!r}: expected 'i915' or 'xe'")
        self.resource = f"gpu.intel.com/{driver}"

    def place(self, spec: AcceleratorSpec) -> Placement:
        acc = spec.accelerator
        if acc is None or (acc.vendor, acc.device_class) != ("intel", "gpu"):
            what = acc.name if acc is not None else "a memory request"
            hint = (
                " (Gaudi uses platform 'gaudi')"
                if acc is not None and acc.device_class == "hpu"
                else ""
            )
            raise self.fail(
                spec, f"the Intel GPU device plugin hosts Intel GPUs; {what} is not one{hint}"
            )
        candidates = [a for a in spec.candidates if (a.vendor, a.device_class) == ("intel", "gpu")]
        values = self.label_values_for(candidates, lambda a: a.names.intel)
        requirements = (Requirement(self.key("product"), "In", values),) if values else ()
        return Placement(
            resources={self.resource: self.whole_count(spec, "GPUs")},
            requirements=requirements,
            tolerations=(toleration(self.resource),),
        )
