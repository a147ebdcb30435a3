"""NVIDIA vGPU type names: ``A100D-16C``, ``GRID T4-1Q``, ``nvidia.com/GRID_A10-4Q``, and the
MIG-backed ``A100-1-5C`` and ``H100XM-1-10CME``.

>>> from accelerators.catalog._names import resolve_name
>>> found = resolve_name("A100D-16C")
>>> found.accelerator.name, found.count
('A100-80GB-PCIE', 0.2)
>>> found = resolve_name("H100XM-1-10CME")
>>> found.accelerator.name, found.count, found.partition
('H100-SXM', 1, '1g.10gb+me')

NVIDIA names a vGPU type ``<board>-<framebuffer GB><series>``: the series letter is C (compute),
Q (virtual workstation), B (virtual PC) or A (virtual applications). A MIG-backed type puts the
GPU instance's slices between the two (``A100-1-5C`` runs in a ``1g.5gb`` instance), and ``ME``
after the series adds the media extension (``+me``). NVIDIA's own tools and the hypervisors
that expose the types keep those names, behind a ``GRID`` or ``NVIDIA`` word or a Kubernetes
resource prefix.

The board part is the catalog's ``[[vgpu_boards]]`` table where NVIDIA's code is not a
catalog name of that board (``A100D`` is the A100 PCIe 80GB, ``H100XM`` the H100 SXM5 80GB) or
where the plain name means another board in vGPU types (``A100`` is the PCIe 40GB card,
``H100`` the PCIe 80GB card); any other board is looked up as an ordinary name and must be one
SKU or model that NVIDIA's vGPU software runs on (a data-centre or professional board). A
time-sliced type is one of the ``N`` of its size the board holds (``A100D-16C``: 16 GB of
80, one of 5, 0.2 of the GPU; at most 32 per GPU); the whole framebuffer is one GPU. A
MIG-backed type is one instance of that MIG profile.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from accelerators._text import format_number, quote
from accelerators.catalog import _store
from accelerators.catalog._spellings import NameMatch
from accelerators.errors import UnknownAcceleratorError

if TYPE_CHECKING:
    from accelerators.catalog._reading import TokenReading
    from accelerators.catalog._schema import Accelerator

__all__ = [
    "MOST_B_SERIES_GB",
    "consumer_card",
    "no_nvidia_vgpu",
    "profile_share",
    "read_vgpu_type",
    "vgpu_tokens",
]

#: ``[nvidia.com/][NVIDIA ][GRID ]<board>-[<slices>-]<GB><series>[ME]``.
_TYPE = re.compile(
    r"(?P<domain>[a-z0-9.\-]+\.com/)?(?P<vendor>nvidia[\s_\-]+)?(?P<line>grid[\s_\-]+)?"
    r"(?P<board>[a-z0-9][a-z0-9 _\-]*?)-(?:(?P<slices>[1-7])-)?"
    r"(?P<size>[0-9]{1,3})(?P<series>[abcq])(?P<me>me)?",
    re.IGNORECASE,
)
#: A profile name rounds its framebuffer (NVIDIA's H100XM-80C holds 81 GB, H200-141C 144 GB):
#: a size within this share of the board's memory is the whole board.
_WHOLE = 0.98
#: The most time-sliced vGPUs one GPU holds: NVIDIA's vgpu-device-manager config gives 32
#: A40-1Q to the 48 GB A40 (catalog source ``nvidia-vgpu-device-manager-config``).
_MOST_PER_GPU = 32
#: NVIDIA's B-series (virtual PC) profiles are small: 0 to 3 GB in the corpora (M60-0B,
#: T4-2B4, L40S-3B); a "26b" beside a model is a model size (mistral.rs' "b200_26b").
MOST_B_SERIES_GB = 4
#: The framebuffer of a profile NVIDIA's vGPU type tables name ``0Q`` or ``0B`` (M60-0Q,
#: K2's K200): 512 MB, one of 16 on an 8 GB M60 GPU (the Citrix and OpenStack corpora's rows).
_ZERO_GB = 0.5


#: The last catalog file read and its board codes (a catalog reload makes a new file).
_BOARDS: tuple[object, dict[str, tuple[str, str]]] = (None, {})


def _boards() -> dict[str, tuple[str, str]]:
    """The catalog's vGPU board codes, case-folded, to (board, SKU or "")."""
    global _BOARDS
    file = _store.LOADED.file()
    if _BOARDS[0] is not file:
        _BOARDS = (file, {b.code.casefold(): (b.board, b.sku) for b in file.vgpu_boards})
    return _BOARDS[1]


def consumer_card(acc: Accelerator) -> bool:
    """A GeForce or Radeon RX card (the catalog's consumer form factors)."""
    return "consumer" in acc.form_factor.casefold()


def no_nvidia_vgpu(acc: Accelerator) -> bool:
    """A board NVIDIA's vGPU software does not run on: another vendor's (an AMD MI210's SR-IOV
    profile ``mi210-4c`` is no C-series vGPU) or a consumer card (a GeForce's ``2080Ti-4C``)."""
    return acc.vendor != "nvidia" or consumer_card(acc)


def profile_share(size_gb: float, acc: Accelerator) -> float | None:
    """The share of ``acc`` that a time-sliced vGPU profile of ``size_gb`` GB is: one of the
    ``N`` such profiles the board holds, ``1/N``, 1 for the whole framebuffer; None when the
    board has no such profile (it is larger than the board's memory, or not above zero).

    ``N`` is how many times the profile fits in the board's memory (profile names round their
    size: H100L-23C is one of 4 on the 94 GB H100 NVL), at most :data:`_MOST_PER_GPU`."""
    memory = acc.device_memory_gb
    if size_gb <= 0 or not memory or size_gb > memory / _WHOLE:
        return None
    if size_gb >= memory * _WHOLE:
        return 1.0
    return 1 / min(int(memory / size_gb / _WHOLE), _MOST_PER_GPU)


def read_vgpu_type(text: str, lookup: Callable[[str], NameMatch | None]) -> NameMatch | None:
    """``text`` read as an NVIDIA vGPU type name, or None when it is not one.

    :param lookup: resolves a board that is no code to a catalog entry (an ordinary name).
    :raises UnknownAcceleratorError: a vGPU type of a board the catalog does not carry, or one
        the board cannot have.
    """
    m = _TYPE.fullmatch(text.strip())
    if m is None or (m["me"] and not m["slices"]):
        return None
    if m["series"].lower() == "b" and int(m["size"]) > MOST_B_SERIES_GB:
        return None  # B-series (virtual PC) profiles are small: "b200-26b" is no vGPU
    code = m["board"]
    known = _boards().get(code.casefold())
    if known is not None:
        board, sku = known
        if not sku:
            raise UnknownAcceleratorError(
                f"Cannot read accelerator name {quote(text)}: it is an NVIDIA vGPU type of the "
                f"{board}, a board the catalog does not carry",
                name=text,
            )
        found = lookup(sku)
        if found is not None and found.source in (
            "open",
            "open-name",
        ):  # NVIDIA's code names one SKU
            found = NameMatch(found.accelerator, True, None, None, "vgpu")
    else:
        board, found = code, lookup(code)
    if found is None or found.count is not None or found.family or found.partition:
        return None  # no one board: the token reader reads it or says why not
    acc = found.accelerator
    pinned = known is not None or found.pinned
    if no_nvidia_vgpu(acc):
        return None  # vGPU runs on data-centre and professional boards ("2080Ti-4C" is not one)
    # NVIDIA's smallest profiles are named 0 GB and hold 512 MB (M60-0Q, M60-0B)
    size = float(m["size"]) or (_ZERO_GB if m["series"].lower() in "qb" else 0.0)
    if m["slices"]:
        profile = f"{m['slices']}g.{m['size']}gb" + ("+me" if m["me"] else "")
        if profile not in acc.partitions and known is None and not acc.partitions:
            return None  # no MIG on this board: "t4-1-8c" is no MIG-backed type
        if profile not in acc.partitions:
            raise UnknownAcceleratorError(
                f"Cannot read accelerator name {quote(text)}: it is a MIG-backed NVIDIA vGPU "
                f"type, and {acc.name} has no MIG profile {profile}",
                name=text,
                suggestions=acc.partitions,
            )
        return NameMatch(acc, pinned, 1, profile, "vgpu")
    share = profile_share(size, acc)
    if share is None and known is None:
        return None  # Ori's "l40s-112c" is 112 host cores: the token reader places them
    if share is None:
        raise UnknownAcceleratorError(
            f"Cannot read accelerator name {quote(text)}: a {format_number(size)} GB vGPU "
            f"profile is no share of one {board} ({format_number(acc.device_memory_gb)} GB)",
            name=text,
        )
    return NameMatch(acc, pinned, 1 if share == 1.0 else share, None, "vgpu")


_SERIES = {"c": "compute", "q": "virtual workstation", "b": "virtual PC", "a": "virtual apps"}


def vgpu_tokens(text: str, found: NameMatch) -> tuple[TokenReading, ...]:
    """``text``'s parts as :func:`read_vgpu_type` read them (for ``--explain``)."""
    from accelerators.catalog._reading import TokenReading

    m = _TYPE.fullmatch(text.strip())
    if m is None:
        return ()
    offset = len(text) - len(text.lstrip())
    known = _boards().get(m["board"].casefold())
    board = f"NVIDIA's code for the {known[0]}" if known else "a catalog name"
    parts = [
        ("domain", "noise", "a Kubernetes resource's domain"),
        ("vendor", "vendor", "NVIDIA"),
        ("line", "product line", "NVIDIA GRID, the vGPU software's line"),
        ("board", "vgpu board", f"{board}: {found.accelerator.name}"),
        ("slices", "partition", f"MIG-backed: a GPU instance of {m['slices']} slices"),
    ]
    size = f"{m['size']}{m['series']}"
    if found.partition:
        said = f"MIG profile {found.partition}"
    elif found.count in (None, 1):
        said = "the whole framebuffer: one GPU"
    else:
        said = f"one of {round(1 / float(found.count))} per GPU"
    gb = m["size"] if m["size"].strip("0") else "0.5"
    meaning = f"a {gb} GB {_SERIES[m['series'].lower()]} profile ({said})"
    tokens = [
        TokenReading(m[group].strip(" _-"), m.start(group) + offset, m.end(group) + offset, r, w)
        for group, r, w in parts
        if m[group]
    ]
    start = m.start("size") + offset
    tokens.append(TokenReading(size, start, start + len(size), "vgpu profile", meaning))
    if m["me"]:
        start = m.start("me") + offset
        tokens.append(
            TokenReading(m["me"], start, start + 2, "partition", "+me: the media extension")
        )
    return tuple(tokens)
