"""IBM Spectrum LSF's GPU request, the value of ``bsub -gpu``, read as a spec.

``num=4:mode=exclusive_process:gmodel=NVIDIAGeForceGTX1080Ti`` asks for 4 GPUs of one model.
The spec grammar has no ``=``, so a text with one is tried as such a request: ``key=value``
pairs joined by ``:``. ``gmodel`` is the GPU's name (nvidia-smi's product name with its blanks
removed, which the catalog's names resolve), ``num`` the count, ``gvendor`` the vendor (it must
agree). ``mode``, ``j_exclusive``, ``aff``, ``block``, ``gpack``, ``glink`` and ``gtile`` say how
the GPUs are scheduled and used (the compute mode, exclusivity, affinity), not which or how many,
so they are read and left aside. A key that would change what is asked for and that a spec cannot
carry (``gmem``, ``mig``, ``mps``, a per-task ``num``) is refused by name, never dropped.

Keys and values as documented at
https://www.ibm.com/docs/en/spectrum-lsf/10.1.0?topic=o-gpu (``bsub -gpu``).

>>> read_request("num=2:mode=exclusive_process:gmodel=NVIDIAH200")
LsfRequest(name='NVIDIAH200', name_start=36, num=2, vendor=None)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple, NoReturn

from accelerators.errors import InvalidSpecError, SpecSyntaxError, with_caret

__all__ = ["LsfRequest", "colon_pairs", "looks_like_request", "read_request"]

#: Keys that say how the GPUs are scheduled and used, not which or how many.
_SCHEDULING = {
    "mode": ("shared", "exclusive_process"),
    "j_exclusive": ("yes", "no"),
    "aff": ("yes", "no"),
    "block": ("yes", "no"),
    "gpack": ("yes", "no"),
    "glink": ("yes", "no"),
}
#: Keys a spec cannot carry, and why.
_REFUSED = {
    "gmem": "reserves GPU memory for the job, which a spec cannot say",
    "mig": "asks for a MIG instance by LSF's GI/CI sizes; write the MIG profile: 'A100@1g.10gb'",
    "mps": "shares the GPUs through MPS, which a spec cannot say",
    "gtile": "places the GPUs per socket, which a spec cannot say",
}
_PAIR = re.compile(r"([a-z_]+)=([^:=\s]+)")


class LsfRequest(NamedTuple):
    """What an LSF ``-gpu`` request asks for."""

    #: The ``gmodel`` value: a name for the catalog's names to resolve.
    name: str
    #: Where the name starts in the text.
    name_start: int
    #: The ``num`` value: how many GPUs.
    num: int | None
    #: The ``gvendor`` value, lower case.
    vendor: str | None


def looks_like_request(text: str) -> bool:
    """Whether ``text`` is written as ``key=value`` pairs (the grammar has no ``=``)."""
    return "=" in text and not any(c in text for c in "|,")


def read_request(text: str) -> LsfRequest:
    """Read an LSF ``-gpu`` request; :class:`SpecSyntaxError` names what cannot be read."""
    stripped = text.strip()
    offset = text.index(stripped[0]) if stripped else 0
    pairs = colon_pairs(text, offset, offset + len(stripped))
    for key, (value, start) in pairs.items():
        span = (start - len(key) - 1, start + len(value))
        if key in _REFUSED and not (key == "mps" and value == "no"):
            _fail(text, f"LSF's {key}= {_REFUSED[key]}", span)
        allowed = _SCHEDULING.get(key)
        if allowed is not None and value.lower() not in allowed:
            _fail(text, f"LSF's {key}= takes {' or '.join(allowed)}, not {value!r}", span)
        if key not in (*_SCHEDULING, *_REFUSED, "num", "gmodel", "gvendor"):
            _fail(text, f"{key}= is no LSF -gpu key this reads", span)
    if "gmodel" not in pairs:
        _fail(text, "An LSF -gpu request names its GPU with gmodel=", (0, len(text)))
    name, name_start = pairs["gmodel"]
    count = None
    if "num" in pairs:
        value, start = pairs["num"]
        where = (start, start + len(value))
        if value.isdigit() and int(value) == 0:  # a count out of range, as 'H100:0' is
            error = InvalidSpecError(f"LSF's num= is a count of one or more: {value!r}")
            raise with_caret(error, text, where)
        if not value.isdigit():
            why = "a per-task or per-host count" if "/" in value else "a count of one or more"
            _fail(text, f"LSF's num= is {why}: {value!r}", where)
        count = int(value)
    vendor = pairs["gvendor"][0].lower() if "gvendor" in pairs else None
    return LsfRequest(name, name_start, count, vendor)


def colon_pairs(
    text: str,
    start: int,
    end: int,
    check: Callable[[str, tuple[int, int]], None] | None = None,
) -> dict[str, tuple[str, int]]:
    """The ``key=value`` pairs joined by ``:`` in ``text[start:end]``, each value with where it
    starts in ``text`` (LSF's ``-gpu`` request, PBS's ``select=`` chunk); ``check`` sees each key
    and its pair's span as it is read. :class:`SpecSyntaxError` names a part that is no pair and
    a key given twice."""
    pairs: dict[str, tuple[str, int]] = {}
    position = start
    for part in text[start:end].split(":"):
        match = _PAIR.fullmatch(part)
        where = (position, position + len(part))
        if match is None:
            _fail(text, f"Expected key=value, got {part!r}", where)
        key, value = match[1], match[2]
        if key in pairs:
            _fail(text, f"{key}= is given twice", where)
        if check is not None:
            check(key, where)
        pairs[key] = (value, position + len(key) + 1)
        position += len(part) + 1
    return pairs


def _fail(text: str, message: str, span: tuple[int, int]) -> NoReturn:
    raise SpecSyntaxError(message, source=text, span=span)
