"""Shared set-up: the templates in ``dags/`` are importable as top-level modules.

No flytekit import here: ``test_flyte2.py`` also runs where only the Flyte 2 SDK is installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DAGS = ROOT / "dags"

if str(DAGS) not in sys.path:
    sys.path.insert(0, str(DAGS))
