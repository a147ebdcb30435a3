"""NVIDIA GPU Operator / device plugin with GPU Feature Discovery (GFD) labels.

* Whole GPU: ``nvidia.com/gpu`` plus ``nvidia.com/gpu.product`` ``In`` the GFD product
  names of every SKU the spec accepts (a bare ``A100`` allows SXM4 and PCIe).
* MIG, ``mig_strategy="mixed"`` (default): resource ``nvidia.com/mig-<profile>`` (``+``
  becomes ``.``) plus the parent's ``nvidia.com/gpu.product`` (profile names repeat across
  GPU models, so the resource alone could land on another model).
* MIG, ``mig_strategy="single"``: ``nvidia.com/gpu`` plus ``nvidia.com/gpu.product`` =
  ``<product>-MIG-<profile>``, built as GFD builds it (``sanitise`` drops ``+``).
* Fractional counts (time-slicing or MPS with ``renameByDefault``): one
  ``nvidia.com/gpu.shared`` on a node whose ``nvidia.com/gpu.replicas`` is at most
  ``floor(1/count)`` (``T4:0.5`` -> replicas < 3). ``rename_by_default=False`` keeps
  ``nvidia.com/gpu`` and matches the ``-SHARED`` product suffix instead.
* A shared slot (``T4@shared``, no share stated): the same shared resource or ``-SHARED``
  product, one per slot, with no ``replicas`` bound (that would invent a share).
* Memory requests: ``nvidia.com/gpu.memory`` ``Gt`` the threshold in MiB minus one.

Source: NVIDIA/k8s-device-plugin ``internal/lm/resource.go`` and ``mig-strategy.go``,
``internal/rm/rm.go`` (resource names); see docs/kubernetes.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from accelerators.errors import PlacementError
from accelerators.kubernetes import _options
from accelerators.kubernetes._devices import describe, mib_threshold
from accelerators.kubernetes._fragment import Placement, Requirement
from accelerators.kubernetes._platform import Platform
from accelerators.kubernetes._tolerations import toleration

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.spec import AcceleratorSpec

__all__ = ["MIG_STRATEGIES", "SHARING_STRATEGIES", "Nvidia", "gfd_sanitise", "mig_resource"]

MIG_STRATEGIES: tuple[str, ...] = ("mixed", "single")
#: Values of GFD's ``nvidia.com/gpu.sharing-strategy`` label.
SHARING_STRATEGIES: tuple[str, ...] = ("time-slicing", "mps")


def gfd_sanitise(text: str) -> str:
    """GFD's ``sanitise``: drop ``[^A-Za-z0-9-_. ]``, join whitespace runs with ``-``."""
    return "-".join(re.sub(r"[^A-Za-z0-9\-_. ]", "", text).split())


def mig_resource(profile: str) -> str:
    """The mixed-strategy resource of a MIG profile.

    ``1g.10gb+me`` -> ``nvidia.com/mig-1g.10gb.me`` (``internal/rm/rm.go``).
    """
    return "nvidia.com/mig-" + profile.replace("+", ".")


class Nvidia(Platform):
    """GPU Operator / device plugin + GPU Feature Discovery.

    :param mig_strategy: the device plugin's ``migStrategy``, ``"mixed"`` (default) or
        ``"single"``.
    :param sharing: require this ``nvidia.com/gpu.sharing-strategy`` for fractional counts
        (``"time-slicing"`` or ``"mps"``); default: either.
    :param rename_by_default: the sharing config's ``renameByDefault`` (default ``True``:
        shared GPUs are ``nvidia.com/gpu.shared``).
    """

    name = "nvidia"
    summary = "NVIDIA GPU Operator + GFD: nvidia.com/gpu.product, MIG single/mixed, sharing"
    labels: ClassVar[Mapping[str, str]] = {
        "product": "nvidia.com/gpu.product",
        "memory": "nvidia.com/gpu.memory",
    }
    options = ("mig_strategy", "sharing", "rename_by_default")
    places_shared = True

    def configure(
        self,
        *,
        mig_strategy: str = "mixed",
        sharing: str | None = None,
        rename_by_default: bool = True,
        **_: Any,
    ) -> None:
        if mig_strategy not in MIG_STRATEGIES:
            raise PlacementError(
                f"Unknown mig_strategy {mig_strategy!r}: expected 'mixed' (resource "
                "nvidia.com/mig-<profile>) or 'single' (nvidia.com/gpu on "
                "<product>-MIG-<profile> nodes)"
            )
        if sharing is not None and sharing not in SHARING_STRATEGIES:
            raise PlacementError(
                f"Unknown sharing strategy {sharing!r}: expected one of "
                f"{', '.join(SHARING_STRATEGIES)}"
            )
        self.mig_strategy = mig_strategy
        self.sharing = sharing
        self.rename_by_default = _options.flag(self.name, "rename_by_default", rename_by_default)

    def place(self, spec: AcceleratorSpec) -> Placement:
        acc = spec.accelerator
        if acc is not None and (acc.vendor, acc.device_class) != ("nvidia", "gpu"):
            raise self.fail(
                spec,
                f"the NVIDIA GPU Operator hosts NVIDIA GPUs; {describe(acc)}"
                + (" (use platform 'gke' for TPUs)" if acc.device_class == "tpu" else ""),
            )
        if acc is None:
            return self._place_memory(spec)
        candidates = [a for a in spec.candidates if a.vendor == "nvidia"]
        products = self.label_values_for(candidates, _gfd_products)
        if not products:
            raise self.fail(
                spec,
                f"no GPU Feature Discovery product name (catalog names.gfd) is known for "
                f"{acc.name}; pass label_values={{{acc.name!r}: '<nvidia.com/gpu.product value>'}}",
            )
        profile = spec.mig_profile
        shared = spec.is_shared
        base = "nvidia.com/gpu"
        if profile is not None and self.mig_strategy == "mixed":
            base = mig_resource(profile.profile)
        elif profile is not None:
            products = tuple(f"{p}-MIG-{gfd_sanitise(profile.profile)}" for p in products)
        requirements: list[Requirement] = []
        resource = base
        if shared:
            if self.rename_by_default:
                resource = base + ".shared"
            elif profile is None or self.mig_strategy == "single":
                products = tuple(f"{p}-SHARED" for p in products)
            if spec.is_fractional:  # the share is stated: bound the replicas per GPU
                replicas = self._replicas(spec)
                requirements.append(Requirement(base + ".replicas", "Lt", (str(replicas + 1),)))
            if self.sharing is not None:
                requirements.append(Requirement(base + ".sharing-strategy", "In", (self.sharing,)))
        requirements.insert(0, Requirement(self.key("product"), "In", products))
        count = 1 if spec.is_fractional else int(spec.count)
        return Placement(
            resources={resource: count},
            requirements=tuple(requirements),
            tolerations=(toleration("nvidia.com/gpu"),),
        )

    def _replicas(self, spec: AcceleratorSpec) -> int:
        clients = math.floor(1 / float(spec.count) + 1e-9)
        if clients < 2:
            raise self.fail(
                spec,
                f"a shared GPU gives each of N replicas 1/N of it; {spec.count} is not "
                "1/N of one GPU for any N >= 2 (use 0.5, 0.33, 0.25, … or a whole count)",
            )
        return clients

    def _place_memory(self, spec: AcceleratorSpec) -> Placement:
        memory = spec.memory
        if spec.vendor not in (None, "nvidia") or memory is None:
            raise self.fail(spec, "the NVIDIA platform hosts NVIDIA GPUs only")
        count = self.whole_count(spec, "GPUs")
        if memory.at_least:
            threshold = mib_threshold(memory.gb)
            requirement = Requirement(self.key("memory"), "Gt", (str(threshold - 1),))
        else:
            candidates = [
                a for a in spec.candidates if (a.vendor, a.device_class) == ("nvidia", "gpu")
            ]
            products = self.label_values_for(candidates, _gfd_products)
            if not products:
                raise self.fail(
                    spec,
                    f"no NVIDIA GPU in the catalog has exactly {memory} with a known GFD "
                    f"product name; ask for at least that much ('{memory}+')",
                )
            requirement = Requirement(self.key("product"), "In", products)
        return Placement(
            resources={"nvidia.com/gpu": count},
            requirements=(requirement,),
            tolerations=(toleration("nvidia.com/gpu"),),
        )


def _gfd_products(acc: Accelerator) -> tuple[str, ...]:
    return acc.names.gfd
