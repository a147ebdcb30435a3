"""Whether a TPU name's size says its unit.

Google's names of the generations that count TensorCores (v2 to v4, and v5p: two a chip) write
the generation apart from ``TPU`` (``v4-8``, ``tpu-v4-8``, ``tpu_v4_8``, ``TPU v3-8``), and so do
the tools that copy them (SkyPilot, TorchX, Marin, AXLearn). A generation glued to ``TPU``
(``TPUv4_4096``) is another system's spelling, whose unit the name does not say: an ML-systems
simulator's ``TPUv4_4096`` is a pod of 4096 chips, Google's ``v4-4096`` 2048 chips.

>>> units_unclear("TPUv4_4096", 2), units_unclear("tpu_v4_4096", 2), units_unclear("TPUv6e-4", 1)
(True, False, False)
"""

from __future__ import annotations

import re

__all__ = ["UNCLEAR", "units_unclear"]

_GLUED = re.compile(r"(?<![a-z0-9])tpuv[0-9]", re.I)
#: Why such a name is refused, and what to write.
UNCLEAR = (
    "the generation is glued to 'TPU', as Google's names never write it, so the size may count "
    "chips or TensorCores (Google's names of this generation count TensorCores, two a chip): "
    "write Google's name ('v4-4096' is 4096 TensorCores) or the chips ('TPU-V4:2048')"
)


def units_unclear(text: str, cores_per_chip: int) -> bool:
    """Whether the size in the TPU name ``text`` may count chips or TensorCores: the
    generation counts TensorCores (``cores_per_chip`` over 1) and is glued to ``TPU``."""
    return cores_per_chip > 1 and _GLUED.search(text) is not None
