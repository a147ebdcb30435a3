"""What packages built on the core may use beyond its accelerator API: the Flyte plugin, the
Airflow provider, or a team's own package.

* :func:`lazy_exports`: a package's public names in one table, each imported on first use
  (PEP 562), with close matches for a misspelt name, as the core's own packages do.

These names follow the core's version scheme: a plugin that requires ``accelerators>=0.1,<0.2``
may rely on them within that range. Importing this module imports only the standard library's
``sys`` besides the ``accelerators`` package itself.
"""

from __future__ import annotations

from accelerators._lazy import lazy_exports

__all__ = ["lazy_exports"]
