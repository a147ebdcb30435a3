"""What a count in a name counts, for :func:`accelerators.catalog._narrow.count_of`: a count
that may count racks, systems or machines rather than devices is refused, never read.

MLPerf's system names write how many of a system they ran: ``Carina (39x NVIDIA GB200 NVL72)``
is 39 racks, ``Eos-dfw (1024x NVIDIA HGX H100)`` 1024 boards of 8, ``32XE8545-4xA100-SXM4-40GB``
32 servers of 4; a cluster's name may give each machine's devices
(``Datacrunch-Instant-Cluster-8xB200``). Read as devices, each would be silently wrong.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelerators._text import quote

if TYPE_CHECKING:
    from collections.abc import Sequence

    from accelerators.catalog._segment import Piece

__all__ = ["count_scope"]

#: Platform words a count before them counts (``1024x NVIDIA HGX H100``: 1024 HGX boards).
_SYSTEMS = frozenset(("hgx", "dgx", "dgx1", "dgx2", "node", "nodes", "machine", "system"))
#: Words for a group of machines: a count beside one may be each machine's
#: (``Datacrunch-Instant-Cluster-8xB200``: a cluster of 8-B200 machines). Not a pool, whose
#: count in its name is the pool's devices (``a100-pool-x8``, tests/test_names.py).
_GROUPS = frozenset(("cluster", "clusters"))


def count_scope(pieces: Sequence[Piece], roles: Sequence[str], counts: Sequence[int]) -> str:
    """Why the counts at positions ``counts`` of a name's ``pieces`` (read in ``roles``) may
    not count devices, or '' where they do: one before the model of a rack's NVLink domain
    (``39x NVIDIA GB200 NVL72``), one in a cluster's name, one before a system word
    (``1024x NVIDIA HGX H100``)."""
    models = [i for i, role in enumerate(roles) if role == "model"]
    before = [i for i in counts if models and i < models[0]]
    if before and any(p.kind == "rack" for p in pieces):  # 39 racks of 72, or 39 GPUs?
        return "it gives a count beside a rack's NVLink domain: racks or devices?"
    for piece in pieces:
        said = piece.text.casefold()
        if piece.kind == "noise" and said in _GROUPS:
            return f"it gives a count in the name of a {said}: per machine or in all?"
    for i in counts:
        after = i + 1
        while after < len(pieces) and pieces[after].kind in ("vendor", "line"):
            after += 1
        if after < len(pieces) and pieces[after].kind == "noise":
            shown = pieces[after].text
            if shown.casefold() in _SYSTEMS:
                return f"its count comes before {quote(shown)}: {shown}s or devices?"
    return ""
