"""accelerators: one catalog, one spec grammar and one benchmark gate for GPU pipelines.

>>> import accelerators
>>> spec = accelerators.AcceleratorSpec.parse("H100:8")
>>> spec.accelerator.name, spec.count
('H100-SXM', 8)
>>> accelerators.A100.partition_2g_10gb
<Partition A100-40GB@2g.10gb>

Importing the package is cheap: every public name below is loaded on first access
(PEP 562), so Airflow's DAG parser and Flyte's serializer pay only for what they use.
"""

from __future__ import annotations

import sys

# Not `from typing import TYPE_CHECKING`: importing typing costs ~20 ms in a fresh
# interpreter, most of the import budget. Type checkers treat this name as true.
TYPE_CHECKING = False

__version__ = "0.1.0"

# name -> module that defines it; constants are added lazily from the catalog.
_LAZY: dict[str, str] = {
    "AcceleratorError": "accelerators.errors",
    "CatalogDataError": "accelerators.errors",
    "PlacementError": "accelerators.errors",
    "SpecSyntaxError": "accelerators.errors",
    "UnknownAcceleratorError": "accelerators.errors",
    "UnknownPartitionError": "accelerators.errors",
    "AcceleratorSpec": "accelerators.spec",
    "SpecLike": "accelerators.spec",
    "AcceleratorGateError": "accelerators.bench",
    "current": "accelerators.detect",
    "current_accelerator": "accelerators.detect",
    "Detected": "accelerators.detect",
    "catalog": "accelerators.catalog",
    "kinds": "accelerators.kinds",
    "is_nvidia": "accelerators.kinds",
    "is_amd": "accelerators.kinds",
    "is_intel": "accelerators.kinds",
    "is_tpu": "accelerators.kinds",
    "is_trainium": "accelerators.kinds",
    "is_inferentia": "accelerators.kinds",
    "is_neuron": "accelerators.kinds",
    "is_gaudi": "accelerators.kinds",
    "is_gpu": "accelerators.kinds",
}

if TYPE_CHECKING:
    from typing import Any

    from accelerators import catalog as catalog
    from accelerators import kinds as kinds
    from accelerators.bench import AcceleratorGateError as AcceleratorGateError
    from accelerators.detect import Detected as Detected
    from accelerators.detect import current as current
    from accelerators.detect import current_accelerator as current_accelerator
    from accelerators.errors import AcceleratorError as AcceleratorError
    from accelerators.errors import CatalogDataError as CatalogDataError
    from accelerators.errors import PlacementError as PlacementError
    from accelerators.errors import SpecSyntaxError as SpecSyntaxError
    from accelerators.errors import UnknownAcceleratorError as UnknownAcceleratorError
    from accelerators.errors import UnknownPartitionError as UnknownPartitionError
    from accelerators.kinds import is_amd as is_amd
    from accelerators.kinds import is_gaudi as is_gaudi
    from accelerators.kinds import is_gpu as is_gpu
    from accelerators.kinds import is_inferentia as is_inferentia
    from accelerators.kinds import is_intel as is_intel
    from accelerators.kinds import is_neuron as is_neuron
    from accelerators.kinds import is_nvidia as is_nvidia
    from accelerators.kinds import is_tpu as is_tpu
    from accelerators.kinds import is_trainium as is_trainium
    from accelerators.spec import AcceleratorSpec as AcceleratorSpec
    from accelerators.spec import SpecLike as SpecLike


def _import(module_name: str) -> Any:
    __import__(module_name)
    return sys.modules[module_name]


def _is_constant_name(name: str) -> bool:
    return name.isupper() or (name[:1].isupper() and "_" in name)


def _public_names() -> list[str]:
    """``__all__``: the API names above, then every catalog constant (``A100``, ``H100``...)."""
    constants = _import("accelerators.constants")
    return [*_LAZY, *(name for name in constants.__all__ if _is_constant_name(name))]


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if name == "__all__":
        # Computed on first use, like the constants it lists: they come from the catalog's data
        # file, so a static list here would repeat the data. `from accelerators import *` and
        # dir() read it; tests/test_public_api.py checks that every name resolves.
        value: Any = _public_names()
    elif module_name is not None:
        module = _import(module_name)
        value = module if module_name.endswith("." + name) else getattr(module, name)
    elif _is_constant_name(name):
        constants = _import("accelerators.constants")
        try:
            value = getattr(constants, name)
        except AttributeError:
            raise AttributeError(_no_attribute(name)) from None
    else:
        raise AttributeError(_no_attribute(name))
    globals()[name] = value
    return value


def _no_attribute(name: str) -> str:
    """``module 'accelerators' has no attribute 'H10O'; did you mean 'H100'?``"""
    message = f"module 'accelerators' has no attribute {name!r}"
    if name.startswith("_"):
        # Dunder probes, and `from accelerators import _datafiles`: the import system asks
        # for a private submodule here before importing it, so no hints (they would import
        # the constants, ~20 ms, for nothing).
        return message
    constants = _import("accelerators.constants")
    known = [*_LAZY, *(n for n in constants.__all__ if _is_constant_name(n))]
    from accelerators.errors import close_matches

    hints = close_matches(name, known)
    return message + (f"; did you mean {' or '.join(repr(h) for h in hints)}?" if hints else "")


def __dir__() -> list[str]:
    names = set(globals()) | set(_LAZY)
    try:
        constants = _import("accelerators.constants")
        names |= set(getattr(constants, "__all__", ()))
    except ImportError:  # pragma: no cover - constants module missing in a broken install
        pass
    return sorted(names)
