"""Google Kubernetes Engine: ``cloud.google.com/gke-*`` node labels, GPUs and Cloud TPUs.

* GPU: ``nvidia.com/gpu`` plus ``cloud.google.com/gke-accelerator`` (catalog ``names.gke``).
* MIG: still ``nvidia.com/gpu`` (one per partition) plus
  ``cloud.google.com/gke-gpu-partition-size``; only the profiles GKE's device plugin
  accepts (:data:`GKE_MIG_PROFILES`). Whole GPUs (``@whole``, or no partition on a GPU MIG
  can split) require the partition label to be absent, so they never land on a MIG pool.
* A shared slot (``T4@shared``): one ``nvidia.com/gpu`` on a node of the configured sharing
  strategy, with no ``max-shared-clients`` bound (that would invent a share).
* Fractional counts: one shared ``nvidia.com/gpu`` with
  ``cloud.google.com/gke-gpu-sharing-strategy`` and ``…/gke-max-shared-clients-per-gpu``
  (``T4:0.5`` -> 2 clients per GPU, ``T4:0.25`` -> 4).
* TPU: ``google.com/tpu`` (chips per pod) plus ``cloud.google.com/gke-tpu-accelerator``
  and ``cloud.google.com/gke-tpu-topology``.
* Memory requests (``80GB+``): ``In`` over the GKE labels of the matching catalog GPUs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from accelerators.errors import PlacementError
from accelerators.kubernetes._devices import describe, wants_whole_devices
from accelerators.kubernetes._fragment import Placement, Requirement
from accelerators.kubernetes._platform import Platform
from accelerators.kubernetes._tolerations import toleration

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator
    from accelerators.spec import AcceleratorSpec

__all__ = [
    "GKE_MIG_PROFILES",
    "GKE_SHARING_STRATEGIES",
    "TPU_MAX_CHIPS_PER_HOST",
    "Gke",
    "tpu_chips",
]

#: MIG partition sizes GKE's device plugin accepts, per ``cloud.google.com/gke-accelerator``
#: value. Source: GoogleCloudPlatform/container-engine-accelerators,
#: ``pkg/gpu/nvidia/mig/mig.go`` ``gpuPartitionSizeMaxCount`` (grouped by the file's own
#: comments; the plugin rejects every other size). ``4g.*`` of A100/H100 and the ``+me``
#: profiles are absent there, so GKE cannot offer them.
GKE_MIG_PROFILES: Mapping[str, tuple[str, ...]] = {
    "nvidia-tesla-a100": ("1g.5gb", "2g.10gb", "3g.20gb", "7g.40gb"),
    "nvidia-a100-80gb": ("1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb"),
    "nvidia-h100-80gb": ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "7g.80gb"),
    "nvidia-h200-141gb": ("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"),
    "nvidia-b200": ("1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"),
    "nvidia-gb200": ("1g.23gb", "1g.47gb", "2g.47gb", "3g.93gb", "4g.93gb", "7g.186gb"),
    "nvidia-rtx-pro-6000": ("1g.24gb", "2g.48gb", "4g.96gb"),
}

#: Chips on the largest single host of each TPU type, from the GKE machine types
#: ``ct4p-hightpu-4t``, ``ct5lp-hightpu-8t``, ``ct5p-hightpu-4t``, ``ct6e-standard-8t`` and
#: ``tpu7x-standard-4t`` (docs/kubernetes.md, "TPUs"). A slice with more chips spans hosts.
TPU_MAX_CHIPS_PER_HOST: Mapping[str, int] = {
    "tpu-v4-podslice": 4,
    "tpu-v5-lite-device": 8,
    "tpu-v5-lite-podslice": 8,
    "tpu-v5p-slice": 4,
    "tpu-v6e-slice": 8,
    "tpu7x": 4,
}

#: Chips per host in a multi-host slice: GKE builds v4, v5e, v5p, v6e and TPU7x multi-host
#: slices from 4-chip hosts (``ct5lp-hightpu-4t``, ``ct6e-standard-4t``, ...).
TPU_MULTI_HOST_CHIPS_PER_HOST = 4

#: Values of ``cloud.google.com/gke-gpu-sharing-strategy``.
GKE_SHARING_STRATEGIES: tuple[str, ...] = ("time-sharing", "mps")

#: GKE's limit on ``max-shared-clients-per-gpu``.
_MAX_SHARED_CLIENTS = 48


def tpu_chips(platform: Platform, spec: AcceleratorSpec, label: str) -> tuple[int, str]:
    """``(google.com/tpu chips per pod, topology)`` for a TPU spec.

    ``count`` is chips per pod. With a topology and the default count of 1 a single-host
    slice asks for all its chips (``V5E@2x4`` -> 8); a multi-host slice needs the chips per
    host as the count (``V5E@4x4:4``). Without a topology the count picks the single-host
    topology with that many chips (``V5E:4`` -> ``2x2``).

    :param platform: the platform placing the spec (for error messages).
    :param spec: a TPU spec without fallbacks.
    :param label: the TPU's GKE accelerator label value (for the per-host limit).
    """
    acc = spec.accelerator
    if acc is None:  # pragma: no cover - callers check
        raise platform.fail(spec, "a TPU request needs a named TPU")
    count = platform.whole_count(spec, "TPU chips")
    per_host = TPU_MAX_CHIPS_PER_HOST.get(label)
    topology = spec.tpu_topology
    if spec.unpartitioned:
        raise platform.fail(
            spec,
            "TPU nodes always carry a topology, so '@whole' cannot select any; name a "
            f"topology ({', '.join(acc.partitions)})",
        )
    if topology is not None:
        chips = topology.chips
        # The whole multi-host slice, as a slice name says it (``tpu-v5litepod-16``): one
        # pod per host, each with that host's chips.
        whole_slice = count == chips and per_host is not None and chips > per_host
        if whole_slice and chips % TPU_MULTI_HOST_CHIPS_PER_HOST == 0:
            return TPU_MULTI_HOST_CHIPS_PER_HOST, topology.topology
        if count == 1 and chips > 1:
            if per_host is None or chips <= per_host:
                return chips, topology.topology
            raise platform.fail(
                spec,
                f"a {topology.topology} slice has {chips} chips over several hosts and "
                "each host runs one pod; give the chips per host as the count, e.g. "
                f"{acc.model}@{topology.topology}:{min(4, per_host)}",
            )
        if chips % count or (per_host is not None and count > per_host):
            raise platform.fail(
                spec,
                f"{count} chips per pod does not fit a {topology.topology} slice of "
                f"{chips} chips" + (f" on hosts of at most {per_host} chips" if per_host else ""),
            )
        return count, topology.topology
    fits = [t.topology for t in acc.tpu_topologies if t.chips == count]
    if per_host is not None and count > per_host:
        fits = []
    if len(fits) == 1:
        return count, fits[0]
    choices = ", ".join(acc.partitions) or "(none in the catalog)"
    raise platform.fail(
        spec,
        f"GKE needs a TPU topology and {count} chip(s) "
        + ("match several: " + ", ".join(fits) if fits else "match no single-host slice")
        + f"; name one with '@', e.g. {acc.model}@{(fits or list(acc.partitions) or ['2x2'])[0]} "
        f"(topologies: {choices})",
    )


class Gke(Platform):
    """GKE node labels (Standard and Autopilot).

    :param sharing: GPU sharing strategy for fractional counts, ``"time-sharing"``
        (default) or ``"mps"``.
    """

    name = "gke"
    cloud = "gcp"
    summary = "GKE: cloud.google.com/gke-accelerator, MIG partition size, TPU topology, sharing"
    labels: ClassVar[Mapping[str, str]] = {
        "accelerator": "cloud.google.com/gke-accelerator",
        "partition": "cloud.google.com/gke-gpu-partition-size",
        "sharing_strategy": "cloud.google.com/gke-gpu-sharing-strategy",
        "max_shared_clients": "cloud.google.com/gke-max-shared-clients-per-gpu",
        "tpu_accelerator": "cloud.google.com/gke-tpu-accelerator",
        "tpu_topology": "cloud.google.com/gke-tpu-topology",
    }
    options = ("sharing",)
    places_shared = True

    def configure(self, *, sharing: str = "time-sharing", **_: Any) -> None:
        if sharing not in GKE_SHARING_STRATEGIES:
            raise PlacementError(
                f"Unknown GKE sharing strategy {sharing!r}: expected one of "
                f"{', '.join(GKE_SHARING_STRATEGIES)}"
            )
        self.sharing = sharing

    def place(self, spec: AcceleratorSpec) -> Placement:
        acc = spec.accelerator
        if acc is not None and acc.device_class == "tpu":
            return self._place_tpu(spec, acc)
        if acc is not None and (acc.vendor, acc.device_class) != ("nvidia", "gpu"):
            raise self.fail(
                spec,
                f"GKE offers NVIDIA GPUs and Cloud TPUs; {describe(acc)}. Use platform "
                + {"amd": "'amd'", "aws": "'neuron' or 'karpenter'"}.get(acc.vendor, "'generic'"),
            )
        if acc is None and spec.vendor not in (None, "nvidia"):
            raise self.fail(spec, "memory requests on GKE select NVIDIA GPUs; name the TPU")
        candidates = [a for a in spec.candidates if (a.vendor, a.device_class) == ("nvidia", "gpu")]
        values = self.label_values_for(candidates, lambda a: a.names.gke)
        if not values:
            offered = sorted({a.name for a in _gke_gpus()})
            what = acc.name if acc is not None else f"the GPUs matching {spec}"
            raise self.fail(
                spec,
                f"{what} has no GKE accelerator label (catalog names.gke); GKE offers "
                f"{', '.join(offered) or 'none in the catalog'}, or pass "
                "label_values={'<name>': '<gke-accelerator value>'}",
            )
        requirements = []
        profile = spec.mig_profile
        if profile is not None:
            supported = [v for v in values if profile.profile in GKE_MIG_PROFILES.get(v, ())]
            if not supported:
                offered_profiles = sorted({p for v in values for p in GKE_MIG_PROFILES.get(v, ())})
                raise self.fail(
                    spec,
                    f"GKE does not offer MIG partition {profile.profile!r} for "
                    f"{'/'.join(values)}; GKE offers "
                    + (
                        ", ".join(offered_profiles)
                        if offered_profiles
                        else "no MIG partitions for it"
                    )
                    + " (use platform 'nvidia' for other profiles)",
                )
            values = tuple(supported)
        requirements.append(Requirement(self.key("accelerator"), "In", values))
        if profile is not None:
            requirements.append(Requirement(self.key("partition"), "In", (profile.profile,)))
        elif wants_whole_devices(spec):
            requirements.append(Requirement(self.key("partition"), "DoesNotExist"))
        if spec.is_fractional:
            requirements += self._sharing(spec)
            count = 1
        elif spec.shared:  # no share stated: any node pool of this sharing strategy
            if spec.count != 1:
                raise self.fail(
                    spec,
                    "this platform places one shared slot per container (1 nvidia.com/gpu "
                    "on a time-sharing or MPS node); ask for 'X@shared' or whole GPUs",
                )
            requirements.append(Requirement(self.key("sharing_strategy"), "In", (self.sharing,)))
            count = 1
        else:
            count = int(spec.count)
        return Placement(
            resources={"nvidia.com/gpu": count},
            requirements=tuple(requirements),
            tolerations=(toleration("nvidia.com/gpu"),),
        )

    def _sharing(self, spec: AcceleratorSpec) -> list[Requirement]:
        fraction = float(spec.count)
        clients = math.floor(1 / fraction + 1e-9)
        if fraction > 1 or clients < 2:
            raise self.fail(
                spec,
                f"a shared GPU gives each of N clients 1/N of it; {spec.count} is not "
                "1/N of one GPU for any N >= 2 (use 0.5, 0.33, 0.25, … or a whole count)",
            )
        if clients > _MAX_SHARED_CLIENTS:
            raise self.fail(
                spec,
                f"{spec.count} of a GPU needs {clients} clients per GPU; GKE allows at "
                f"most {_MAX_SHARED_CLIENTS}",
            )
        return [
            Requirement(self.key("sharing_strategy"), "In", (self.sharing,)),
            Requirement(self.key("max_shared_clients"), "In", (str(clients),)),
        ]

    def _place_tpu(self, spec: AcceleratorSpec, acc: Accelerator) -> Placement:
        values = self.label_values_for(spec.candidates, lambda a: a.names.gke)
        if not values:
            raise self.fail(
                spec,
                f"{acc.name} has no GKE TPU accelerator label (catalog names.gke); pass "
                "label_values={'<name>': '<gke-tpu-accelerator value>'}",
            )
        chips, topology = tpu_chips(self, spec, values[0])
        return Placement(
            resources={"google.com/tpu": chips},
            requirements=(
                Requirement(self.key("tpu_accelerator"), "In", values),
                Requirement(self.key("tpu_topology"), "In", (topology,)),
            ),
            tolerations=(toleration("google.com/tpu"),),
        )


def _gke_gpus() -> tuple[Accelerator, ...]:
    from accelerators import catalog

    return tuple(a for a in catalog.all() if a.names.gke and a.device_class == "gpu")
