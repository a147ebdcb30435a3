"""hatchling build hook: the editable wheel of ``accelerators`` maps the package alone.

hatchling writes an editable wheel's ``.pth`` with the folders of ``dev-mode-dirs``; the
repository root there would make every folder of the root importable (dags, scripts, docs,
benchmarks, plugins, tests). ``dev-mode-dirs`` names ``scripts/editable`` instead, which holds
only the finder module, and this hook adds the ``.pth`` that imports it at start-up
(``scripts/editable/_accelerators_finder.py`` says how it finds the package). Regular wheels
are untouched. ``tests/test_editable.py`` installs the editable wheel and checks what imports.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PTH = "_accelerators_finder.pth"


class EditableFinderHook(BuildHookInterface):  # type: ignore[type-arg]
    """Adds ``_accelerators_finder.pth`` to editable wheels."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version != "editable":
            return
        pth = Path(self.root) / "scripts" / "editable" / PTH
        # An editable build takes its forced files from here alone (hatchling's rule).
        build_data["force_include_editable"][str(pth)] = PTH
