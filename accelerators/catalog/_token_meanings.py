"""What each kind of piece of a name is before the token reader looks at its neighbours:
its first role (:data:`KIND_ROLE`) and the words ``explain`` prints for it
(:func:`first_meaning`). The reader (:mod:`._reader`) starts every token from these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelerators._vendors import VENDORS
from accelerators.catalog._narrow import capability

if TYPE_CHECKING:
    from accelerators.catalog._narrow import Token

__all__ = ["KIND_ROLE", "first_meaning"]

#: Roles the pieces' kinds have before their neighbours are looked at.
KIND_ROLE = {
    "vendor": "vendor",
    "line": "product line",
    "architecture": "architecture",
    "form": "form factor",
    "memory_sxm": "memory",
    "edition": "edition",
    "neutral": "same device",
    "interconnect": "interconnect",
    "memory_type": "memory type",
    "device": "device word",
    "cpu": "host figure",
    "host": "host figure",
    "count_key": "count marker",
    "sharing": "sharing",
    "partition": "partition",
    "noise": "noise",
    "rack": "noise",
    "size": "noise",
    "version": "noise",
    "chip": "chip",
    "compute_capability": "chip",
    "mig": "partition",
    "vcpu": "host figure",
    "x_count": "count",
    "cuda_version": "noise",
    "compute_units": "same device",
    "watts": "noise",
}


_VENDORS = {v.name: v.display for v in VENDORS}
#: What each group of noise words (data/name_words.toml [noise]) is.
_NOISE_MEANINGS = {
    "frameworks": "a framework",
    "sizes": "an instance size",
    "billing": "a billing term",
    "platforms": "a platform or system word",
    "prose": "product prose",
    "cpu_architectures": "a CPU architecture",
    "software_versions": "a software version: the build, not the device",
    "apis": "a graphics API",
    "makers": "a server maker or its server line",
    "partners": "a board partner or its retail line",
    "build": "how the board is built",
    "clouds": "a cloud: where the board runs",
    "keys": "a key of the path or enum the name is written in",
    "os": "an operating system",
    "precisions": "a number format",
    "performance": "a rate's unit",
    "serving": "a serving mode",
    "channels": "a release channel",
    "jobs": "what a CI job or benchmark does",
    "settings": "a setting of the board (its ECC)",
    "queues": "a scheduler queue or partition word",
    "regions": "a cloud's region or zone: where the machine runs",
    "revisions": "a board's or chip's revision (Rev. A): the same model",
    "dates": "a date: when the name was made",
}


def first_meaning(token: Token) -> str:
    """What a piece says before its neighbours are looked at (``explain`` prints it)."""
    piece = token.piece
    kind = piece.kind
    if kind in ("vendor", "line"):
        return _VENDORS.get(piece.value, piece.value)
    if kind in ("form", "edition"):
        return piece.value.upper() if kind == "form" else piece.value.title()
    if kind == "architecture":
        return piece.value.title()
    if kind == "noise":
        return _NOISE_MEANINGS.get(piece.value, "")
    if kind in ("vcpu",):
        return f"{piece.groups[0]} vCPUs"
    if kind == "x_count":
        token.number = float(piece.groups[0])
        return f"{piece.groups[0]} devices"
    if kind == "compute_capability":
        return f"compute capability {capability(piece.groups[0])}"
    if kind == "mig":
        return f"MIG profile {piece.value}"
    if kind == "rack":
        return "an NVLink domain (a rack's NVL72, a board's NVL4), not the NVL card"
    if kind == "size":
        return "an instance size"
    if kind == "version":
        return "a version"
    if kind == "cuda_version":
        return "a CUDA version"
    if kind == "watts":
        return f"{piece.groups[0]} W: the board's power"
    if kind == "compute_units":
        return f"{piece.groups[0]} compute units: a configuration of the chip"
    if kind == "memory_sxm":
        token.number = float(piece.groups[0])
        return f"{piece.groups[0]} GB, SXM"
    return ""
