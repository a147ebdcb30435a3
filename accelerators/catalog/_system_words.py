"""Words of the system around a device, in names its system gives one device each.

A source whose names stand for one device each (``denotes="device"``, the default, or
``"board"``) writes its own words around the model: a benchmark's workload (``A100_solver``),
a test suite's flag (``MI300_ARCH``), a build's platform (``RTX3070_windows``). There a name
that states no count is one device, so such a word counts nothing; what it could hide is
another *device*: a variant (``RTX A2000 Embedded``, ``M5 Ultra``), another product
(``Jetson Nano Orin``), a chip or part number (``RX 580 2048SP``, ``AGX Thor T4000``), a
share of the device (Baidu's ``cgpu``), a word that says there are several
(``h100-distributed``), or a typo of a word the reader knows. An unknown word is read as the
system's only when it can be none of those:

* it stands apart (a separator or a case change on both sides), letters only, three or more;
* it is no word of any catalog name, alias or other system's name of a device;
* it is no variant word nor a word for several (``name_words.toml``'s ``[not_system]``), holds
  no device word (``cgpu``) and is not two known words run together (``trtllm``);
* it is no typo of a word that says something about the device (``SXMM``, ``Tesal``, ``xsm``:
  one edit from such a word of four letters or more, or three letters swapped about).

Where a source's names stand for nodes or for several kinds (``denotes="node"``, ``"mixed"``)
an unknown word may name the machine, and how many devices it holds is the system's to say:
there it is read only beside a count the name states.

>>> from accelerators.catalog._names import resolve_name
>>> found = resolve_name("A100-80GB_solver_results")
>>> found.accelerator.model, found.count
('A100-80GB', None)
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from accelerators.catalog._words import vocabulary

if TYPE_CHECKING:
    from collections.abc import Iterator

    from accelerators.catalog._narrow import Read, Token

__all__ = [
    "MAY_NAME_A_MACHINE",
    "denoted",
    "device_names",
    "host_word",
    "mixed_names",
    "names_denoting",
    "system_own_word",
]

#: Why such a word is refused where names may be nodes (``denotes="node"`` or ``"mixed"``).
MAY_NAME_A_MACHINE = (
    "is not a word it can place: where names may be nodes, a system's own word may name a "
    "machine of several devices (read as one device each: denotes='device')"
)

#: What the names being read stand for (``denotes``: ``device``, ``board``, ``node`` or
#: ``mixed``): set by ``AcceleratorSpec.parse(..., denotes=...)`` for one parse; names are
#: devices by default.
_DENOTES: ContextVar[str] = ContextVar("accelerators_names_denote", default="device")

#: Device words for a processor, which start a cluster's host and partition names as well as a
#: cloud's instance types (``gpu-a40-1``, ``gpu_h200``, ``GPU-L40S-1``).
_PROCESSOR_WORDS = frozenset({"gpu", "gpus", "npu", "xpu", "tpu", "tpus", "apu", "apus"})

#: Device words a share or kind of device is glued to (``cgpu``, ``vgpu``, ``egpu``).
_DEVICE_PART = re.compile(r"gpu|tpu|npu|xpu|ipu|dpu|apu")
_LETTERS = re.compile(r"[a-z]{3,}")
#: The shortest word whose one-letter change is read as a typo of a known word.
_TYPO = 4


def denoted() -> str:
    """What the names being read stand for (``denotes``), ``"device"`` outside a parse."""
    return _DENOTES.get()


def device_names() -> bool:
    """Whether the names being read stand for one device each, or one board as sold."""
    return _DENOTES.get() in ("device", "board")


def mixed_names() -> bool:
    """Whether the names being read are a list of several kinds (``denotes="mixed"``):
    devices, boards, and machines or partitions named for their devices."""
    return _DENOTES.get() == "mixed"


def host_word(token: Token) -> bool:
    """Whether ``token`` is a processor's word (``gpu``) in a list of several kinds, where it
    may start a cluster's host or partition name (``gpu-a40-1``, ``gpu_h200``) as well as a
    cloud's instance type or a scheduler's device type: the name alone does not say which."""
    piece = token.piece
    return mixed_names() and piece.kind == "device" and piece.value in _PROCESSOR_WORDS


@contextmanager
def names_denoting(denotes: str) -> Iterator[None]:
    """Read the names of the ``with`` block as ``denotes`` says they stand for."""
    token = _DENOTES.set(denotes)
    try:
        yield
    finally:
        _DENOTES.reset(token)


def system_own_word(state: Read, token: Token) -> bool:
    """Whether ``token``, a word the vocabulary does not know, could be its system's own word:
    one that names no other device (see the module's docstring). It is read so only where the
    source's names are one device each (:func:`device_names`)."""
    piece = token.piece
    at = state.tokens.index(token)
    after = state.tokens[at + 1].piece if at + 1 < len(state.tokens) else None
    if (piece.glued and not piece.camel) or (after is not None and after.glued and not after.camel):
        return False
    word = piece.value
    if word in vocabulary().not_system:
        token.refusal = "could name a variant, another product or several devices: never set aside"
        return False
    if not _LETTERS.fullmatch(word) or _DEVICE_PART.search(word):
        return False
    if word in state.words.named or _two_words(word):
        return False
    return not _near_known(word, state.words.named)


def _two_words(word: str) -> bool:
    """Whether ``word`` is two known words run together (TensorRT-LLM's ``trtllm``): glued,
    they are a name of the system's own that may hide a count (its runners hold 4 GPUs)."""
    vocab = vocabulary()
    return any(
        vocab.get(word[:i]) is not None and vocab.get(word[i:]) is not None
        for i in range(2, len(word) - 1)
    )


def _near_known(word: str, named: set[str]) -> bool:
    """Whether ``word`` could be a typo of a word that says something about the device (a
    catalog name's word, a vendor, line, form or architecture word; a typo of a noise word is
    harmless): of four letters or more, one edit from such a word of four or more; of three,
    two of its letters swapped (``xsm``: SXM)."""
    for other in (*vocabulary().telling, *named):
        if other == word or abs(len(other) - len(word)) > 1:
            continue
        if len(word) >= _TYPO and len(other) >= _TYPO and _one_edit(word, other):
            return True
        swapped = len(word) == len(other) == _TYPO - 1 and sorted(word) == sorted(other)
        if swapped and _one_edit(word, other):  # "xsm": two letters of "sxm" swapped
            return True
    return False


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one letter added, dropped or changed, or two
    neighbouring letters swapped."""
    if len(a) > len(b):
        a, b = b, a
    if len(a) < len(b):
        return any(b[:i] + b[i + 1 :] == a for i in range(len(b)))
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    if len(diff) == 1:
        return True
    return (
        len(diff) == 2
        and diff[1] == diff[0] + 1
        and a[diff[0]] == b[diff[1]]
        and (a[diff[1]] == b[diff[0]])
    )
