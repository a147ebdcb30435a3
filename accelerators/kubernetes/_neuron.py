"""AWS Neuron device plugin: Trainium and Inferentia.

* ``unit="device"`` (default): ``aws.amazon.com/neuron``, whole Neuron devices.
* ``unit="core"``: ``aws.amazon.com/neuroncore``, ``count`` devices' worth of NeuronCores
  (:data:`NEURON_CORES_PER_DEVICE`); a fraction of a device is allowed when it is a whole
  number of cores (``TRAINIUM1:0.5`` -> 1 core).
* The Neuron device plugin publishes no node label naming the chip, so this platform
  selects no nodes; combine it with ``karpenter`` (``instance-accelerator-name``) or a
  node pool of one kind when several Neuron generations share a cluster.

Source: AWS Neuron docs, "Kubernetes Neuron device plugin"; Karpenter instance-type table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from accelerators.errors import PlacementError
from accelerators.kubernetes._fragment import Placement
from accelerators.kubernetes._platform import Platform
from accelerators.kubernetes._tolerations import toleration

if TYPE_CHECKING:
    from accelerators.spec import AcceleratorSpec

__all__ = ["NEURON_CORES_PER_DEVICE", "Neuron"]

#: NeuronCores per Neuron device, keyed by Karpenter ``instance-accelerator-name``
#: (trn1.32xlarge: 16 devices / 32 cores; trn2.48xlarge: 16 / 128; inf2.xlarge: 1 / 2).
NEURON_CORES_PER_DEVICE: Mapping[str, int] = {"trainium": 2, "trainium2": 8, "inferentia2": 2}

#: NeuronCores per device of the Neuron devices Karpenter has no accelerator name for in the
#: catalog, by catalog model ("A Trainium3 device contains eight NeuronCore-v4 cores": the Neuron
#: documentation's trainium3.rst, the catalog's source aws-neuron-trainium3).
_CORES_BY_MODEL: Mapping[str, int] = {"TRAINIUM3": 8}

_UNITS = ("device", "core")


class Neuron(Platform):
    """AWS Neuron device plugin resources.

    :param unit: ``"device"`` (``aws.amazon.com/neuron``, default) or ``"core"``
        (``aws.amazon.com/neuroncore``).
    """

    name = "neuron"
    cloud = "aws"  # Trainium and Inferentia exist only as EC2 instances
    summary = "AWS Neuron device plugin: aws.amazon.com/neuron or aws.amazon.com/neuroncore"
    options = ("unit",)

    def configure(self, *, unit: str = "device", **_: Any) -> None:
        if unit not in _UNITS:
            raise PlacementError(f"Unknown Neuron unit {unit!r}: expected 'device' or 'core'")
        self.unit = unit

    def place(self, spec: AcceleratorSpec) -> Placement:
        acc = spec.accelerator
        if acc is None or acc.device_class != "neuron":
            what = acc.name if acc is not None else "a memory request"
            raise self.fail(
                spec,
                f"the Neuron device plugin hosts AWS Trainium and Inferentia; {what} is "
                "not a Neuron device" + (" (name the Neuron device)" if acc is None else ""),
            )
        if self.unit == "device":
            count = self.whole_count(spec, "Neuron devices (or unit='core')")
            resource = "aws.amazon.com/neuron"
        else:
            cores = NEURON_CORES_PER_DEVICE.get(acc.names.karpenter or "") or _CORES_BY_MODEL.get(
                acc.model
            )
            if cores is None:
                raise self.fail(
                    spec, f"the NeuronCores per {acc.name} device are not known; use unit='device'"
                )
            total = spec.count * cores
            if not float(total).is_integer():
                raise self.fail(
                    spec,
                    f"{spec.count} of a device is {total} NeuronCores; ask for a whole "
                    f"number of cores ({acc.name} has {cores} per device)",
                )
            count = int(total)
            resource = "aws.amazon.com/neuroncore"
        return Placement(
            resources={resource: count}, tolerations=(toleration("aws.amazon.com/neuron"),)
        )
