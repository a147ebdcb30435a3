"""Compute Engine's machine type with the accelerators attached to it, as Google Cloud's tools
and the platforms on it write one VM's shape: ``n1-highmem-4:nvidia-tesla-t4:1`` (an N1
machine of 4 vCPUs and 26 GB with one T4; NVIDIA Brev's instance types). The machine type
says the host's vCPUs and memory, nothing of the accelerators; the rest is a GKE accelerator
name and its count, which the spec grammar reads.

>>> gce_machine("n1-highmem-4:nvidia-tesla-t4:1")
'             nvidia-tesla-t4:1'
>>> gce_machine("n1-highmem-4")  # a machine type alone: left to the grammar (and refused)
'n1-highmem-4'
"""

from __future__ import annotations

import re

__all__ = ["gce_machine"]

#: A Compute Engine machine type (series, family, vCPUs: ``n1-standard-8``, ``n1-ultramem-40``,
#: ``a2-highgpu-1g``), then ``:``, when an accelerator and its count follow (``:NAME:COUNT``).
_MACHINE = re.compile(
    r"\s*(?:n1|n2|n2d|n4|e2|c2|c2d|c3|c3d|c4|m1|m2|m3|a2|a3|a4|g2|g4)-"
    r"(?:standard|highmem|highcpu|megamem|ultramem|highgpu|megagpu|ultragpu|edgegpu)-[0-9]{1,3}g?"
    r":(?=[a-z][a-z0-9-]*:[0-9]+\s*\Z)",
    re.I,
)


def gce_machine(text: str) -> str:
    """``text`` with a leading machine type blanked (same length, so positions in messages stay
    those given) where an accelerator and its count follow it; else ``text`` unchanged."""
    found = _MACHINE.match(text)
    return text if found is None else " " * found.end() + text[found.end() :]
