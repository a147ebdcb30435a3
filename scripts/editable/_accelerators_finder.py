"""An editable install of ``accelerators`` maps the package alone, from this checkout.

hatchling's editable wheel (``pip install -e .``, ``scripts/bootstrap``) puts this folder on
``sys.path`` and adds ``_accelerators_finder.pth``, whose ``import`` line runs this module at
start-up (``scripts/editable_hook.py``). It appends a finder for the one name ``accelerators``
to ``sys.meta_path``, resolved in the repository root, so that the root's other folders (dags,
scripts, docs, benchmarks, plugins, tests) are not importable from anywhere, as they were when
the editable install put the whole root on ``sys.path``. It imports nothing that start-up has
not loaded already (no ``importlib``, no ``typing``): every process in the venv runs it.
"""

import os
import sys

# Not `from typing import TYPE_CHECKING`: typing is not loaded at start-up, and need not be.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

#: The repository root: this file is scripts/editable/_accelerators_finder.py.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: The path-based finder Python starts with (importlib.machinery.PathFinder), without importing
#: importlib.
_PATH_FINDER = next(f for f in sys.meta_path if getattr(f, "__name__", "") == "PathFinder")


class EditableFinder:
    """Finds the packages in :attr:`names` in :data:`ROOT`, and nothing else."""

    names = frozenset({"accelerators"})

    @classmethod
    def find_spec(
        cls,
        fullname: str,
        path: "Sequence[str] | None" = None,
        target: "ModuleType | None" = None,
    ) -> "ModuleSpec | None":
        """The spec of ``fullname`` in the repository root when it is one of :attr:`names`."""
        if fullname not in cls.names:
            return None
        spec: ModuleSpec | None = _PATH_FINDER.find_spec(fullname, [ROOT])
        return spec


if EditableFinder not in sys.meta_path:
    sys.meta_path.append(EditableFinder)  # type: ignore[arg-type]
