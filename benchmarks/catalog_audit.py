"""Audit of the catalog's figures: sources, confidence and the figures that must agree.

Prints the figures by confidence and by source kind, those without a URL, those from third
parties, and every finding of the consistency checks (see ``accelerators.catalog._audit``).
Exits 1 when there is a finding. The same report is ``accelerators catalog audit``.

Usage::

    python benchmarks/catalog_audit.py [--json] [--list third-party|unconfirmed|derived|no-url]
"""

from __future__ import annotations

import sys

from accelerators.catalog._audit import main

if __name__ == "__main__":
    sys.exit(main())
