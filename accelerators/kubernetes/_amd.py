"""AMD GPU device plugin and node labeller (ROCm/k8s-device-plugin).

* Resource ``amd.com/gpu`` (the default ``single`` resource naming strategy).
* ``amd.com/gpu.product-name`` ``In`` the catalog's ``names.rocm`` values written as the
  node labeller writes them: spaces become ``_`` and parentheses are dropped
  (``AMD Instinct MI300X OAM`` -> ``AMD_Instinct_MI300X_OAM``; older labellers wrote
  ``Instinct_MI300X``, which the catalog lists as it is).
* Memory requests: ``In`` over the product names of the matching AMD GPUs (the
  ``amd.com/gpu.vram`` label holds strings such as ``192G``, which ``Gt`` cannot compare).
* MIG partitions and TPU topologies do not exist here.

Source: ROCm/k8s-device-plugin ``cmd/k8s-node-labeller/main.go`` (``product-name``
generator: ``strings.NewReplacer(" ", "_", "(", "", ")", "")``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from accelerators.kubernetes._devices import describe
from accelerators.kubernetes._fragment import Placement, Requirement
from accelerators.kubernetes._platform import Platform
from accelerators.kubernetes._tolerations import toleration

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.spec import AcceleratorSpec

__all__ = ["Amd", "product_label"]

_LABEL_VALUE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")


class Amd(Platform):
    """AMD ROCm device plugin + node labeller."""

    name = "amd"
    summary = "AMD ROCm device plugin: amd.com/gpu + amd.com/gpu.product-name"
    labels: ClassVar[Mapping[str, str]] = {"product": "amd.com/gpu.product-name"}

    def place(self, spec: AcceleratorSpec) -> Placement:
        acc = spec.accelerator
        if acc is not None and (acc.vendor, acc.device_class) != ("amd", "gpu"):
            raise self.fail(
                spec,
                f"the AMD device plugin hosts AMD GPUs; {describe(acc)}"
                + (
                    f" (MIG partition {spec.partition!r} is NVIDIA-only; use platform 'nvidia' "
                    "or 'gke')"
                    if spec.mig_profile is not None
                    else ""
                ),
            )
        if acc is None and spec.vendor not in (None, "amd"):
            raise self.fail(spec, f"the AMD device plugin hosts AMD GPUs, not {spec.vendor}")
        candidates = [a for a in spec.candidates if (a.vendor, a.device_class) == ("amd", "gpu")]
        values = self.label_values_for(candidates, _product_names)
        if not values:
            what = acc.name if acc is not None else f"an AMD GPU matching {spec}"
            raise self.fail(
                spec,
                f"no amd.com/gpu.product-name value (catalog names.rocm) is known for "
                f"{what}; pass label_values={{'<name>': '<product-name label value>'}}",
            )
        return Placement(
            resources={"amd.com/gpu": self.whole_count(spec, "GPUs")},
            requirements=(Requirement(self.key("product"), "In", values),),
            tolerations=(toleration("amd.com/gpu"),),
        )


def product_label(name: str) -> str:
    """A product name as the node labeller writes it.

    ``AMD Instinct MI300X`` -> ``AMD_Instinct_MI300X``.
    """
    return name.strip().replace(" ", "_").replace("(", "").replace(")", "")


def _product_names(acc: Accelerator) -> tuple[str, ...]:
    labels = (product_label(n) for n in acc.names.rocm)
    return tuple(dict.fromkeys(v for v in labels if _LABEL_VALUE.match(v)))
