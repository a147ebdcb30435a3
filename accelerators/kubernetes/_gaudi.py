"""Intel Gaudi (Habana) device plugin: ``habana.ai/gaudi``.

Resource and toleration only: the Habana device plugin publishes no standard node label
naming the Gaudi generation. Source: Habana docs, "Device Plugin for Kubernetes".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelerators.kubernetes._fragment import Placement
from accelerators.kubernetes._platform import Platform
from accelerators.kubernetes._tolerations import toleration

if TYPE_CHECKING:
    from accelerators.spec import AcceleratorSpec

__all__ = ["Gaudi"]


class Gaudi(Platform):
    """Intel Gaudi device plugin resource."""

    name = "gaudi"
    summary = "Intel Gaudi device plugin: habana.ai/gaudi"

    def place(self, spec: AcceleratorSpec) -> Placement:
        acc = spec.accelerator
        if acc is None or acc.device_class != "hpu":
            what = acc.name if acc is not None else "a memory request"
            raise self.fail(
                spec, f"the Gaudi device plugin hosts Intel Gaudi HPUs; {what} is not one"
            )
        return Placement(
            resources={"habana.ai/gaudi": self.whole_count(spec, "Gaudi devices")},
            tolerations=(toleration("habana.ai/gaudi"),),
        )
