"""Start-up overhead: what a job pays before its first step and for its first checkpoint.

A plan that counts only the training steps lets an 8-GPU node win a one-minute job: the node
still has to be provisioned, the image pulled, the model loaded and the result saved, and an
instance is paid from boot. Each option therefore carries a :class:`Startup`, counted in its
hours and its cost. The default depends on the kind of offer (:data:`OFFERS`):

* **cloud node** (``aws``, ``gcp``, ``azure``: an instance rented as a new Kubernetes node):
  provisioning 5 min, about what a pod that needs a new node waits for Karpenter to launch
  it, join it and start the pod (a practitioner's report, news.ycombinator.com item
  44053826: "~5 minutes"; an estimate); image pull 5 min, the p95 pull time of a 3 GB
  (compressed) ML image measured with kubelet's ``pull_image`` metrics (knechtions.com,
  "Decreasing Container Image Pull Times", 2026: "just under 5min"); NGC's PyTorch image is
  larger, so this is a floor;
* **Hugging Face job** (``hf``): no published figure; the cloud node's are assumed
  (unconfirmed);
* **share of your node** (an inventory): no provisioning (the node runs); 1 min for the pod
  to start on it with its image cached (the same report: "~1 minute" on an existing node).

For every kind, the **model load** downloads and loads the base weights in the training
dtype at :data:`LOAD_GB_PER_S` (Llama-3.1-8B-Instruct, 16.1 GB, on an L40S: downloaded in
61 s and loaded in 33 s, tensorfuse.io "Reducing GPU cold start"), each instance in parallel;
the **first checkpoint** writes the trainable state (trained weights and optimizer state) at
:data:`CHECKPOINT_GB_PER_S` per instance (a gp3 volume at 1,000 MiB/s, its long-time maximum:
EC2 ``CreateVolume`` API reference; NVIDIA's Run:ai Model Streamer benchmark reached it,
Llama 3 8B read from such a volume in 14.34 s), the instances writing their shards at once.

``plan(startup_min=...)`` (``--startup-min``) replaces the model with your own measured
start-up, the same for every option (``0``: none).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from accelerators.sizing._memory import DTYPE_BYTES, MemoryEstimate
from accelerators.sizing._model import SizingError

__all__ = [
    "CHECKPOINT_GB_PER_S",
    "LOAD_GB_PER_S",
    "OFFERS",
    "Offer",
    "Startup",
    "check_startup_min",
    "startup_of",
]

#: Model download and load: 16.06 GB of Llama-3.1-8B-Instruct in 61 s + 33 s on an L40S
#: (tensorfuse.io, "Reducing GPU cold start", the uncached run).
LOAD_GB_PER_S = 16.06 / (61 + 33)
#: Checkpoint writes per instance: a gp3 volume at 1,000 MiB/s (EC2 CreateVolume API).
CHECKPOINT_GB_PER_S = 1000 * 2**20 / 1e9


@dataclass(frozen=True, slots=True)
class Offer:
    """The fixed part of a start-up for one kind of offer, with its source."""

    name: str
    provision_min: float
    image_min: float
    source: str
    confidence: str
    """``estimate`` (a practitioner's figure) or ``unconfirmed`` (assumed from another kind)."""


_NODE_SOURCE = (
    "provisioning ~5 min for a pod that needs a new node (news.ycombinator.com item 44053826); "
    "image pull ~5 min, p95 of a 3 GB ML image (knechtions.com, 2026)"
)
#: The default start-up of each kind of offer (see the module docstring).
OFFERS: dict[str, Offer] = {
    "cloud node": Offer("cloud node", 5.0, 5.0, _NODE_SOURCE, "estimate"),
    "hf job": Offer(
        "hf job", 5.0, 5.0, "no published figure: a cloud node's assumed", "unconfirmed"
    ),
    "node share": Offer(
        "node share",
        0.0,
        1.0,
        "the node runs; a pod starts on it in ~1 min (news.ycombinator.com item 44053826)",
        "estimate",
    ),
}


@dataclass(frozen=True, slots=True)
class Startup:
    """Time an option spends before its first step and on its first checkpoint.

    ``parts`` are ``(what, seconds)``: provisioning, image pull, model load, checkpoint; or one
    ``("given", seconds)`` when the plan was given a start-up (``startup_min``).
    """

    offer: str
    parts: tuple[tuple[str, float], ...]
    source: str
    confidence: str

    @property
    def seconds(self) -> float:
        return sum(s for _, s in self.parts)

    @property
    def hours(self) -> float:
        return self.seconds / 3600

    @property
    def minutes(self) -> float:
        return self.seconds / 60

    def text(self) -> str:
        """``"11.7 min (provision 5, image 5, load 1.4, checkpoint 0.3; cloud node)"``."""
        parts = ", ".join(f"{name} {s / 60:.2g}" for name, s in self.parts)
        return f"{self.minutes:.3g} min ({parts}; {self.offer})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "minutes": round(self.minutes, 3),
            "parts_min": {name: round(s / 60, 3) for name, s in self.parts},
            "offer": self.offer,
            "source": self.source,
            "confidence": self.confidence,
        }


def check_startup_min(value: object) -> float | None:
    """``None`` (the default per offer) or a finite number of minutes >= 0.

    :raises SizingError: anything else, named.
    """
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
    ):
        raise SizingError(
            f"Expected startup_min to be minutes >= 0 (0: no start-up) or None (the default "
            f"per kind of offer), got {value!r}"
        )
    return float(value)


def startup_of(
    ownership: str,
    cloud: str | None,
    instances: int,
    memory: MemoryEstimate,
    *,
    given_min: float | None = None,
) -> Startup:
    """The start-up of an option (``ownership`` ``rent`` or ``own``) on ``instances`` instances.

    :param memory: the job's memory estimate: the base weights (its parameters in its dtype)
        are loaded, the trainable state (gradients' size of weights plus optimizer state) is
        checkpointed.
    :param given_min: the plan's ``startup_min``: replaces the model when not ``None``.
    """
    if given_min is not None:
        return Startup("given", (("given", given_min * 60),), "startup_min", "given")
    offer = OFFERS[
        "node share" if ownership == "own" else "hf job" if cloud == "hf" else "cloud node"
    ]
    weights_gb = memory.params * DTYPE_BYTES.get(memory.dtype, 2.0) / 1e9
    state_gb = memory.gradients_gb + memory.optimizer_gb
    parts = (
        ("provision", offer.provision_min * 60),
        ("image", offer.image_min * 60),
        ("load", weights_gb / LOAD_GB_PER_S),
        ("checkpoint", state_gb / (CHECKPOINT_GB_PER_S * max(instances, 1))),
    )
    source = (
        f"{offer.source}; load {LOAD_GB_PER_S:.2f} GB/s (tensorfuse.io); checkpoint "
        f"{CHECKPOINT_GB_PER_S:.2f} GB/s per instance (gp3 at 1,000 MiB/s)"
    )
    return Startup(offer.name, parts, source, offer.confidence)
