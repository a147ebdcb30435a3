"""Google TPUs, from the environment GKE and TPU VMs set.

``TPU_ACCELERATOR_TYPE`` (``"v5litepod-8"``) names the generation and slice size;
``TPU_CHIPS_PER_HOST_BOUNDS`` (``"2,4,1"``) gives the chips of this host, ``TPU_WORKER_HOSTNAMES``
or ``TPU_HOST_BOUNDS`` the hosts of the slice, ``TPU_TOPOLOGY`` (``"2x4"``) its shape.

``/dev/accel*`` alone is *not* a TPU: other drivers (Intel NPUs, Habana, some NVIDIA
consumer setups) create accel nodes too; Ray shipped that false positive (ray#45302). The
nodes are counted only when a TPU variable is also set. The GCE metadata server is not asked:
detection makes no network calls.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from accelerators.detect._base import DeviceInfo, Probe, match_accelerator

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = ["TPU_ENV_SIGNALS", "TpuProbe", "tpu_name_candidates"]

#: Variables whose presence means "this process runs on a TPU host".
TPU_ENV_SIGNALS = (
    "TPU_ACCELERATOR_TYPE",
    "TPU_WORKER_HOSTNAMES",
    "TPU_CHIPS_PER_HOST_BOUNDS",
    "TPU_HOST_BOUNDS",
    "TPU_TOPOLOGY",
)
_TYPE = re.compile(r"^(?:tpu-?)?(?P<gen>v\d+[a-z]*|tpu\d+[a-z]*)-(?P<size>\d+)$", re.IGNORECASE)
# Generations whose accelerator-type suffix counts TensorCores (2 per chip), not chips.
_CORES_PER_CHIP = {"v2": 2, "v3": 2, "v4": 2, "v5p": 2}
# Other names of a generation: Cloud TPU calls v5e "v5litepod", GKE "tpu-v5-lite-podslice".
_GENERATION_ALIASES = {
    "v5litepod": ("v5e", "v5lite"),
    "v5lite": ("v5e", "v5litepod"),
    "v5e": ("v5litepod",),
    "v6e": ("trillium",),
}


def tpu_name_candidates(accelerator_type: str) -> list[str]:
    """Spellings to look a TPU accelerator type up by, most specific first.

    >>> tpu_name_candidates("v5litepod-8")[:4]
    ['v5litepod-8', 'tpu-v5litepod-8', 'TPU-V5LITEPOD', 'v5litepod']

    :param accelerator_type: a ``TPU_ACCELERATOR_TYPE`` value.
    """
    out = [accelerator_type, f"tpu-{accelerator_type}"]
    match = _TYPE.match(accelerator_type.strip())
    if match:
        gen = match.group("gen").lower()
        for name in (gen, *_GENERATION_ALIASES.get(gen, ())):
            out += [f"TPU-{name.upper()}", name, f"tpu-{name}", f"TPU {name}"]
    return list(dict.fromkeys(out))


class TpuProbe(Probe):
    """TPU chips of this host.

    :param env: environment to read; ``os.environ`` when ``None``.
    :param dev_root: where device nodes live (``accel*`` is counted there).
    :param catalog: entries to match names against instead of the packaged catalog.
    """

    name = "tpu-env"

    def __init__(
        self,
        *,
        env: Mapping[str, str] | None = None,
        dev_root: str = "/dev",
        catalog: Sequence[Accelerator] | None = None,
    ) -> None:
        super().__init__()
        self._env = env
        self._dev_root = dev_root
        self._catalog = catalog

    def _detect(self) -> tuple[DeviceInfo, ...] | None:
        env = os.environ if self._env is None else self._env
        signals = [name for name in TPU_ENV_SIGNALS if env.get(name, "").strip()]
        nodes = sorted(p.name for p in Path(self._dev_root).glob("accel[0-9]*"))
        if not signals:
            if nodes:
                return self._absent(
                    f"{len(nodes)} /dev/accel* node(s) but no TPU environment variable; "
                    "not taken as a TPU"
                )
            return self._absent("no TPU environment variable (TPU_ACCELERATOR_TYPE...)")
        acc_type = env.get("TPU_ACCELERATOR_TYPE", "").strip()
        hosts = _hosts(env)
        chips = _product(env.get("TPU_CHIPS_PER_HOST_BOUNDS")) or len(nodes) or None
        match = _TYPE.match(acc_type)
        if chips is None and match:
            gen, size = match.group("gen").lower(), int(match.group("size"))
            chips = max(1, size // _CORES_PER_CHIP.get(gen, 1) // (hosts or 1))
        accelerator = None
        if acc_type:
            accelerator = match_accelerator(
                tpu_name_candidates(acc_type),
                vendor="google",
                device_class="tpu",
                catalog=self._catalog,
            )
            if accelerator is None:
                self.reason = f"TPU_ACCELERATOR_TYPE is {acc_type!r}, which is not in the catalog"
        else:
            self.reason = (
                f"TPU environment found ({', '.join(signals)}) but TPU_ACCELERATOR_TYPE is not set"
            )
        extra = {
            "accelerator_type": acc_type,
            "topology": env.get("TPU_TOPOLOGY", "").strip(),
            "worker_id": env.get("TPU_WORKER_ID", "").strip(),
            "hosts": str(hosts) if hosts else "",
            "chips_counted_by": "TPU_CHIPS_PER_HOST_BOUNDS"
            if _product(env.get("TPU_CHIPS_PER_HOST_BOUNDS"))
            else ("/dev/accel*" if nodes else "TPU_ACCELERATOR_TYPE"),
        }
        return tuple(
            DeviceInfo(
                index=i,
                kind="tpu",
                vendor="google",
                raw_name=acc_type or "TPU",
                accelerator=accelerator,
                memory_bytes=None,
                extra={k: v for k, v in extra.items() if v},
            )
            for i in range(chips or 1)
        )


def _product(bounds: str | None) -> int | None:
    """``"2,2,1"`` -> 4; ``None`` for a missing or malformed value."""
    parts = [p.strip() for p in (bounds or "").split(",") if p.strip()]
    if not parts or not all(p.isdigit() for p in parts):
        return None
    return math.prod(int(p) for p in parts) or None


def _hosts(env: Mapping[str, str]) -> int | None:
    names = [h for h in env.get("TPU_WORKER_HOSTNAMES", "").split(",") if h.strip()]
    return len(names) or _product(env.get("TPU_HOST_BOUNDS"))
