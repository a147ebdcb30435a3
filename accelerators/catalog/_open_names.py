"""Open names: a bare name that systems give to different models of one family.

The catalog's ``[[open_names]]`` (``A100``, ``H100``, ``P100``) list such names with the
models each stands for; the name index (:mod:`accelerators.catalog._spellings`) holds them in
``Index.open``. A match on one of them reads as the family (:func:`read_open`), and the text
of a spec of one model whose own name is an open name adds the model's memory, so that it
reads back as that model alone (:func:`memory_to_name_one_model`: ``P100:16GB``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelerators._text import format_number
from accelerators.catalog import _store
from accelerators.catalog._spellings import Index, NameMatch, Spelling, exact_key

if TYPE_CHECKING:
    from accelerators.catalog._file import CatalogFile
    from accelerators.catalog._schema import Accelerator

__all__ = ["memory_to_name_one_model", "open_keys", "read_open"]


def read_open(index: Index, spellings: list[Spelling], found: NameMatch) -> NameMatch:
    """A bare name systems give to different models of one family (catalog
    ``[[open_names]]``: ``A100``) does not determine the model: it reads as the family, the
    catalog's own model name too where it is that name (``P100``: the 16 GB card's model,
    and the name of the 12 GB card as well; see :func:`memory_to_name_one_model`)."""
    if found.pinned or found.count is not None or not index.open:
        return found
    for spelling in spellings:
        members = index.open.get(exact_key(spelling.text), ())
        if found.accelerator.model in {acc.model for acc in members}:
            # an open name's own spelling ("Instinct MI300") keeps saying so: no entry's
            source = "open-name" if found.source == "open-name" else "open"
            return NameMatch(members[0], False, None, None, source, family=members[1:])
    return found


def memory_to_name_one_model(name: str, acc: Accelerator) -> str:
    """``:16GB`` where ``name``, a catalog model's or SKU's own name, is also an open name
    (``P100`` is the 16 GB card's model and the name of the 12 GB card too; ``GTX-1060``),
    so that the text of a spec names this model alone (``P100:16GB``); else nothing (a
    memory next to a name that says it says nothing more)."""
    if exact_key(name) not in open_keys():
        return ""
    return f":{format_number(acc.memory_gb)}GB"


_keys: list[tuple[CatalogFile, frozenset[str]]] = []


def open_keys() -> frozenset[str]:
    """The exact keys of every open name and its spellings in the loaded catalog: the keys of
    the name index's ``Index.open``, read off the file so that the text of a spec never builds
    the whole index in a process that resolves no name."""
    loaded = _store.LOADED.file()
    cached = _keys[0] if _keys else None
    if cached is not None and cached[0] is loaded:
        return cached[1]
    keys = frozenset(
        exact_key(text) for name in loaded.open_names for text in (name.name, *name.spellings)
    )
    _keys[:] = [(loaded, keys)]
    return keys
