"""Audit of the catalog's figures: sources, confidence and the figures that must agree.

Prints the figures by confidence and by source kind, those without a URL, those from third
parties, and every finding of the consistency checks (see ``accelerators.catalog._audit``).
Exits 1 when there is a finding. The same report is ``accelerators catalog audit``.

Usage::

    python benchmarks/catalog_audit.py [--json] [--list third-party|unconfirmed|derived|no-url]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))  # runs from a checkout without installing the package
    from accelerators.catalog._audit import main as audit_main

    return audit_main(argv)


if __name__ == "__main__":
    sys.exit(main())
