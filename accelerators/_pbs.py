"""A PBS Professional chunk request, the value of ``qsub -l select=`` (alone, after ``-l`` or in
a job script's ``#PBS -l`` directive), read as a spec.

``select=2:ncpus=8:mem=64gb:ngpus=4:gpu_type=A100`` asks for 2 chunks (nodes' shares) of 8
CPUs, 64 GB and 4 GPUs each: 8 A100s. ``ngpus`` is PBS's GPU count per chunk; ``gpu_type`` is
the custom resource sites define for the GPU model (Imperial College's CX3 and HX1, NCAR's
Casper), a name for the catalog's names to resolve. ``ncpus``, ``mem``, ``mpiprocs``,
``ompthreads``, ``cpu_type``, ``host`` and ``vnode`` size or place the chunk's host, not its
GPUs, so they are read and left aside. A chunk that names no GPU model or no GPU count, a key
this does not read, or several kinds of chunk joined by ``+`` are refused by name, never
dropped.

Keys as documented in the PBS Professional User's Guide ("Requesting Resources": ``select``,
``ncpus``, ``mem``, ``mpiprocs``, ``ompthreads``, ``ngpus``, ``host``, ``vnode``) and by the
sites that define ``gpu_type``.

>>> read_select("select=2:ncpus=8:mem=64gb:ngpus=4:gpu_type=A100")
PbsRequest(name='A100', name_start=43, devices=8)
>>> read_select("#PBS -l select=1:ngpus=2:gpu_type=L40S").devices
2
"""

from __future__ import annotations

import re
from typing import NamedTuple, NoReturn

from accelerators._lsf import colon_pairs
from accelerators.errors import InvalidSpecError, SpecSyntaxError, with_caret

__all__ = ["PbsRequest", "looks_like_select", "read_select"]

#: Keys that size or place the chunk's host, not its GPUs.
_HOST = frozenset({"ncpus", "mem", "mpiprocs", "ompthreads", "cpu_type", "host", "vnode"})
#: ``select=N:``, as the value of ``-l`` or with it, as a job script's directive writes it
#: (``#PBS -l select=...``).
_START = re.compile(r"\s*(?:#PBS\s+)?(?:-l\s+)?select=([0-9]+)(?=:)")


class PbsRequest(NamedTuple):
    """What a PBS ``select=`` request asks for."""

    #: The ``gpu_type`` value: a name for the catalog's names to resolve.
    name: str
    #: Where the name starts in the text.
    name_start: int
    #: How many GPUs in all: the chunks times ``ngpus``.
    devices: int


def looks_like_select(text: str) -> bool:
    """Whether ``text`` is written as a PBS ``select=N:key=value...`` request."""
    return _START.match(text) is not None


def read_select(text: str) -> PbsRequest:
    """Read a PBS ``select=`` request; :class:`SpecSyntaxError` names what cannot be read."""
    start = _START.match(text)
    if start is None:
        _fail(text, "A PBS request starts with select=N:", (0, len(text)))
    if "+" in text:
        at = text.index("+")
        _fail(
            text,
            "Chunks of several kinds ('+') are several requests: write one spec each",
            (at, at + 1),
        )
    chunks = int(start[1])

    def known(key: str, where: tuple[int, int]) -> None:
        if key not in (*_HOST, "ngpus", "gpu_type"):
            _fail(text, f"{key}= is no PBS chunk resource this reads", where)

    pairs = colon_pairs(text, start.end() + 1, len(text.rstrip()), known)
    if "gpu_type" not in pairs:
        _fail(text, "A PBS request names its GPU with gpu_type=", (0, len(text)))
    if "ngpus" not in pairs:
        _fail(text, "A PBS request counts its GPUs with ngpus=", (0, len(text)))
    value, at = pairs["ngpus"]
    if not value.isdigit() or int(value) == 0 or chunks == 0:
        shown = value if value.isdigit() and chunks else f"select={chunks}, ngpus={value}"
        error = InvalidSpecError(f"PBS's select= and ngpus= are counts of one or more: {shown!r}")
        raise with_caret(error, text, (at, at + len(value)))
    name, name_start = pairs["gpu_type"]
    return PbsRequest(name, name_start, chunks * int(value))


def _fail(text: str, message: str, span: tuple[int, int]) -> NoReturn:
    raise SpecSyntaxError(message, source=text, span=span)
