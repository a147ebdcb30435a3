"""Names a device reports (nvidia-smi, GPU Feature Discovery, ROCm), as the device writes them.

Part of the name resolution of :mod:`accelerators.catalog._names`. A device's own name pins
the board its convention implies: nvidia-smi's ``NVIDIA H200`` is the SXM card because the
NVL card says ``NVL``. That holds only for the name as a device writes it (letter case
included); written otherwise, by a person or another system, the name says what its words
say.
"""

from __future__ import annotations

from dataclasses import replace

from accelerators.catalog._spellings import DEVICE_REPORTED, Index, NameMatch, exact_key

__all__ = ["as_device_wrote", "device_reported"]


def device_reported(index: Index, text: str) -> NameMatch | None:
    """The SKU whose name a device reports (nvidia-smi, GFD, ROCm) is exactly ``text``."""
    spellings = index.exact[1].get(exact_key(text)) or []
    stripped = text.strip()
    reported = [s for s in spellings if s.source in DEVICE_REPORTED and s.text == stripped]
    skus = list(dict.fromkeys(s.accelerator for s in reported))
    return NameMatch(skus[0], True, None, None, reported[0].source) if len(skus) == 1 else None


def as_device_wrote(index: Index, text: str, found: NameMatch, named: str) -> NameMatch:
    """``found``, pinned by the name a device reports, as ``text`` writes it. nvidia-smi's
    "NVIDIA H200" is the SXM card because the NVL card says "NVL"; "NVidia H200", "nvidia_H200"
    or "4x NVIDIA H200" are not what a device printed, and such a name pins its board only
    where its words (those of ``named``) do: otherwise it reads as the family."""
    if found.source not in DEVICE_REPORTED:
        return found
    if device_reported(index, text) is not None:
        return found
    from accelerators.catalog._reader import read_left_open

    unpinned = replace(found, pinned=False)
    read_as = read_left_open(index, named, unpinned, lambda _: None)
    return read_as if read_as.family else found
