"""What a count in a name counts, for :func:`accelerators.catalog._narrow.count_of`: a count
in the name of a cluster may be each machine's, so it is refused, never read as devices
(``Datacrunch-Instant-Cluster-8xB200``: a cluster of 8-B200 machines). Counts of racks and
systems (``39x NVIDIA GB200 NVL72``, ``1024x NVIDIA HGX H100``) leave the count to the spec
(:mod:`accelerators.catalog._system_counts`). A TPU pod or slice named without its size
counts no one chip either (:func:`unsized_pod`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelerators._text import quote

if TYPE_CHECKING:
    from collections.abc import Sequence

    from accelerators.catalog._segment import Piece

__all__ = ["count_scope", "unsized_pod"]

#: Words for a group of machines: a count beside one may be each machine's. Not a pool, whose
#: count in its name is the pool's devices (``a100-pool-x8``, tests/test_names.py).
_GROUPS = frozenset(("cluster", "clusters"))
#: TPU slice words (the vocabulary's partition words but "mig").
_POD_WORDS = frozenset(("pod", "pods", "podslice", "slice"))


def count_scope(pieces: Sequence[Piece]) -> str:
    """Why a count in a name of these ``pieces`` may not count devices, or '' where it does:
    the name is a cluster's."""
    for piece in pieces:
        said = piece.text.casefold()
        # a "Cluster" glued to a name is that name's (MLPerf's "32xMI355X-PollaraCluster-...",
        # a system named for its network), not a word saying the count may be per machine
        if piece.kind == "noise" and said in _GROUPS and not piece.glued:
            return f"it gives a count in the name of a {said}: per machine or in all?"
    return ""


def unsized_pod(pieces: Sequence[Piece], devices: bool) -> str:
    """Why a name with a TPU pod or slice word but no size, topology or count is refused, or ''
    where it is not: in a list of devices the word names the device's type (GKE's
    ``tpu-v4-podslice``, Vertex AI's ``TPU_V4_POD``); elsewhere it may be the whole pod (a
    book's ``TPU v5e pod`` is 256 chips), never one chip. ``devices``: whether the names being
    read are devices (:func:`._system_words.device_names`)."""
    if devices:
        return ""
    for piece in pieces:
        if piece.kind == "partition" and piece.value in _POD_WORDS:
            return f"{quote(piece.text)}: a pod or slice of how many chips? (give its size)"
    return ""
