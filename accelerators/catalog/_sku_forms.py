"""The form-factor words of a catalog entry, for the token reader's narrowing: a name's
``SXM`` (or ``SXM5``), ``PCIe``, ``OAM`` or ``WS`` is compared with the words of each entry's
name, aliases and form factor."""

from __future__ import annotations

from typing import TYPE_CHECKING

from accelerators.catalog._modelwords import words_of

if TYPE_CHECKING:
    from accelerators.catalog._schema import Accelerator

__all__ = ["SKU_FORM", "of_forms", "sku_words"]

#: Words of a SKU's name that a form-factor word is compared with (SXM5 is SXM).
SKU_FORM = {
    **{f"sxm{n}": "sxm" for n in range(2, 7)},
    "oam2": "oam",
    "pci": "pcie",
    "ws": "workstation",
}


def sku_words(acc: Accelerator, *, strong: bool = False) -> set[str]:
    """The form words of ``acc``: its name's and aliases', and (unless ``strong``) its form
    factor's."""
    found: set[str] = set()
    for text in (acc.name, *acc.aliases, *(() if strong else (acc.form_factor,))):
        found |= {SKU_FORM.get(w, w) for w in words_of(text)}
    return found


def of_forms(candidates: list[Accelerator], wanted: set[str]) -> list[Accelerator]:
    """The candidates of the ``wanted`` forms: those whose name says them where some do (an
    ``H100-SXM`` over the SXM5 ``H100-MEGA``), else those whose form factor does; maybe none."""
    fitting = [a for a in candidates if wanted <= sku_words(a)]
    strong = [a for a in fitting if wanted <= sku_words(a, strong=True)]
    return strong or fitting
