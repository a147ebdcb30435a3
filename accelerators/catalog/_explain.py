"""How a name is read, token by token: :func:`explain_name` (behind ``AcceleratorSpec.explain``
and ``accelerators parse --explain``).

>>> from accelerators.catalog._explain import explain_name
>>> print(explain_name("gpu-a100-large-2x"))  # doctest: +NORMALIZE_WHITESPACE
'gpu-a100-large-2x': token reader
  gpu    device word
  a100   model        A100-40GB / A100-80GB
  large  noise        an instance size
  2x     count        2 devices
  = A100-40GB:2 | A100-80GB:2

It resolves the name as :func:`~accelerators.catalog._names.resolve_name` does and says which
step read it: a catalog spelling (with a count or a MIG profile read off it), an instance type,
or the token reader, whose roles it shows for every token. A refused name gets the same
tokens, the ones the reader could not place marked ``unplaced`` or ``variant``, and the reason.
"""

from __future__ import annotations

import contextlib
import re

from accelerators._text import MIG_PROFILE_PATTERN, format_number
from accelerators.catalog._names import resolve_name
from accelerators.catalog._open_names import memory_to_name_one_model
from accelerators.catalog._reading import NameReading, TokenReading
from accelerators.catalog._spellings import NameMatch, current_index
from accelerators.errors import AcceleratorError

__all__ = ["explain_name", "match_text"]

_COUNT_BEFORE = re.compile(r"\s*([0-9]{1,9}(?:\.[0-9]{1,9})?)\s*x\s*", re.IGNORECASE)
_COUNT_AFTER = re.compile(r"\s*x\s*([0-9]{1,9})\s*\Z", re.IGNORECASE)
_MIG_AFTER = re.compile(rf"[\s_\-]+mig[\s_\-]+({MIG_PROFILE_PATTERN})\Z", re.IGNORECASE)
#: How each kind of spelling is called.
_SOURCES = {
    "name": "the catalog's SKU name",
    "model": "the catalog's model name",
    "constant": "the catalog's constant",
    "alias": "a catalog alias",
    "nvml": "the name nvidia-smi reports",
    "gfd": "GPU Feature Discovery's label",
    "rocm": "the name ROCm reports",
    "gke": "GKE's label",
    "karpenter": "Karpenter's label",
    "eks": "the EKS label",
    "flyte": "flytekit's device",
    "flyte2": "Flyte 2's device",
    "ray": "Ray's accelerator type",
    "skypilot": "SkyPilot's name",
    "modal": "Modal's GPU type",
    "hf": "a Hugging Face flavor",
    "intel": "the Intel GPU plugin's label",
    "other": "a name seen in the wild",
    "open": "a name systems give to different models of one family",
    "open-name": "the catalog's name of a series or family of several models",
}


def match_text(match: NameMatch) -> str:
    """The spec text a match reads as (``H100-SXM!:8``, ``A100-40GB:2 | A100-80GB:2``)."""
    first = match.accelerator.name if match.pinned else match.accelerator.model
    texts = [(first, match.accelerator), *((acc.model, acc) for acc in match.family)]
    partition = "" if match.partition is None else f"@{match.partition}"
    count = ""
    if match.count is not None and match.count != 1:
        count = f":{format_number(match.count)}"
    return " | ".join(
        f"{text}{'!' if match.pinned and acc is match.accelerator else ''}{partition}"
        f"{memory_to_name_one_model(text, acc)}{count}"
        for text, acc in texts
    )


def explain_name(text: str) -> NameReading:
    """How ``text`` reads as an accelerator name, or why it is refused (never raises for a
    string: the refusal is in the result)."""
    try:
        match = resolve_name(text)
    except AcceleratorError as exc:
        tokens = _reader_tokens(text)
        refusal = str(exc).splitlines()[0]
        suggestions = tuple(getattr(exc, "suggestions", ()) or ())
        method = "token reader" if tokens else "no reading"
        return NameReading(text, method, tokens, None, refusal, suggestions)
    if match.source == "reader":
        return NameReading(text, "token reader", _reader_tokens(text), match_text(match))
    if match.source == "vgpu":
        from accelerators.catalog._vgpu import vgpu_tokens

        return NameReading(text, "vGPU type", vgpu_tokens(text, match), match_text(match))
    if match.source == "generation":
        from accelerators.catalog._generations import generation_tokens

        return NameReading(text, "generation", generation_tokens(text, match), match_text(match))
    if match.source == "instance":
        token = TokenReading(text, 0, len(text), "instance type", match_text(match))
        return NameReading(text, "instance type", (token,), match_text(match))
    return NameReading(text, "catalog spelling", _spelling_tokens(text, match), match_text(match))


def _reader_tokens(text: str) -> tuple[TokenReading, ...]:
    from accelerators.catalog._reader import read

    trace: list[TokenReading] = []
    with contextlib.suppress(AcceleratorError):  # a refusal's tokens are in the trace
        read(current_index(), text.strip(), trace=trace)
    offset = len(text) - len(text.lstrip())
    return tuple(
        TokenReading(t.text, t.start + offset, t.end + offset, t.role, t.meaning) for t in trace
    )


def _spelling_tokens(text: str, match: NameMatch) -> tuple[TokenReading, ...]:
    """The spelling the name is, with a count or MIG profile the tiers read off it."""
    tokens: list[TokenReading] = []
    start, end = len(text) - len(text.lstrip()), len(text.rstrip())
    before = _COUNT_BEFORE.match(text, start)
    if match.count is not None and before is not None:
        tokens.append(
            TokenReading(before[0].strip(), start, before.end(), "count", f"{before[1]} devices")
        )
        start = before.end()
    after = _COUNT_AFTER.search(text, start, end)
    tail: list[TokenReading] = []
    if match.count is not None and after is not None and not tokens:
        tail.append(
            TokenReading(after[0].strip(), after.start(), end, "count", f"{after[1]} devices")
        )
        end = after.start()
    mig = _MIG_AFTER.search(text, start, end)
    if match.partition is not None and mig is not None:
        word = text.lower().index("mig", mig.start(), mig.start(1))
        profile = TokenReading(mig[1], mig.start(1), end, "partition", f"MIG profile {mig[1]}")
        tail[:0] = [TokenReading(text[word : word + 3], word, word + 3, "partition"), profile]
        end = mig.start()
    while start < end and not text[start].isalnum():  # the separators around a count
        start += 1
    while end > start and not text[end - 1].isalnum() and text[end - 1] not in ")]":
        end -= 1
    acc = match.accelerator
    how = _SOURCES.get(match.source, match.source)
    meaning = f"{how} of {acc.name}" if match.pinned else f"{how} of the {acc.model} model"
    if match.source in ("open", "open-name"):
        meaning = f"{how} ({', '.join(a.model for a in (acc, *match.family))})"
    tokens.append(TokenReading(text[start:end], start, end, "catalog spelling", meaning))
    return tuple(tokens + tail)
