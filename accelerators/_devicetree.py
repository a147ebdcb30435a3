"""An NVIDIA Jetson's device-tree ``compatible`` string that names its board
(``/proc/device-tree/compatible``, as board-detection libraries match it): ``nvidia,jetson-nano``
is a Jetson Nano. In a spec, ``,`` joins alternatives (dstack's ``A10,A10G``), and the string
would read as a choice of any NVIDIA device or a Jetson Nano, which the first alternative
already holds; it is read as the vendor and the name. A vendor after the comma keeps the
choice of vendors (``nvidia,amd``).

>>> device_tree("nvidia,jetson-nano")
'nvidia jetson-nano'
>>> device_tree("nvidia,amd")
'nvidia,amd'
>>> device_tree("A10,A10G")
'A10,A10G'
"""

from __future__ import annotations

import re

__all__ = ["device_tree"]

#: ``nvidia,NAME``: a compatible string (lower case, no spaces, one comma).
_NAMED = re.compile(r"(\s*nvidia),([a-z][a-z0-9-]*)\s*\Z")


def device_tree(text: str) -> str:
    """``text`` with the comma of a device-tree string naming a board made a space (same
    length, so positions in messages stay those given); else ``text`` unchanged."""
    named = _NAMED.match(text)
    if named is None:
        return text
    from accelerators._vendors import vendor_names

    if named.group(2) in vendor_names():
        return text
    return f"{named.group(1)} {text[named.end(1) + 1 :]}"
