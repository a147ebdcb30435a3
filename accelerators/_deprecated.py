"""Old names that keep working for one release, each with a :class:`DeprecationWarning`.

The warning names the new spelling and the release that drops the old one
(:data:`REMOVED_IN`); ``CHANGELOG.md`` lists every deprecated name under the issue that
renamed it, and the test of each checks the old spelling still gives the same answer.
The lowest layer of the core, with :mod:`accelerators.errors`: standard library only.
"""

from __future__ import annotations

import warnings

__all__ = ["REMOVED_IN", "renamed"]

#: The release that removes what is deprecated now.
REMOVED_IN = "0.2.0"


def renamed(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn that ``old`` is now ``new`` (``stacklevel`` 3: the caller of the function that
    warns, where the old spelling is written)."""
    warnings.warn(
        f"{old} is deprecated and will be removed in accelerators {REMOVED_IN}: use {new}",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
