"""``AcceleratorSpec.NVIDIA`` and its siblings (:class:`VendorAttribute`), kept apart from
:mod:`accelerators.spec` so that module stays about the spec itself."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from accelerators._factories import VendorFactories

#: The spec class a vendor attribute is read from (:class:`accelerators.AcceleratorSpec`).
S = TypeVar("S")

__all__ = ["VendorAttribute"]


class VendorAttribute:
    """``AcceleratorSpec.NVIDIA`` and its siblings: the vendor's factories, bound to the class
    they are read from, which builds itself from the fields they return.
    :mod:`accelerators._factories` is imported the first time one is read, not with this
    module: parsing a spec does not need it."""

    def __init__(self, vendor: str) -> None:
        self.vendor = vendor

    def __get__(self, instance: object, owner: type[S]) -> VendorFactories[S]:
        from accelerators._factories import VendorFactories

        return VendorFactories(self.vendor, owner)
