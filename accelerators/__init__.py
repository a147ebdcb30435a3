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

from accelerators._lazy import LazyExports

# Not `from typing import TYPE_CHECKING`: importing typing costs ~20 ms in a fresh
# interpreter, most of the import budget. Type checkers treat this name as true.
TYPE_CHECKING = False

__version__ = "0.1.0"

# The public API: where each name lives, imported on first access. Catalog constants
# (``accelerators.H100``) are added lazily from the catalog. Type checkers read the imports
# below.
_EXPORTS = LazyExports(
    __name__,
    {
        "accelerators.errors": "AcceleratorError CatalogDataError CountNotStatedError "
        "InvalidSpecError PlacementError SpecSyntaxError UnknownAcceleratorError "
        "UnknownPartitionError",
        "accelerators.spec": "AcceleratorSpec SpecLike",
        "accelerators.bench": "AcceleratorGateError",
        "accelerators.detect": "current Detected",
        ".": "catalog kinds",
        "accelerators.kinds": "is_nvidia is_amd is_intel is_google is_qualcomm is_ascend is_gpu "
        "is_tpu is_neuron is_npu is_gaudi is_trainium is_inferentia is_cambricon is_hygon "
        "is_iluvatar is_metax is_moore_threads is_biren is_tenstorrent is_furiosa is_apple",
    },
)

#: Old names kept importable until 0.2.0 (CHANGELOG.md), outside ``__all__`` and ``dir()``.
_DEPRECATED = {"current_accelerator": "accelerators.detect"}

if TYPE_CHECKING:
    from typing import Any

    from accelerators import catalog as catalog
    from accelerators import kinds as kinds
    from accelerators.bench import AcceleratorGateError as AcceleratorGateError
    from accelerators.detect import Detected as Detected
    from accelerators.detect import current as current
    from accelerators.errors import AcceleratorError as AcceleratorError
    from accelerators.errors import CatalogDataError as CatalogDataError
    from accelerators.errors import CountNotStatedError as CountNotStatedError
    from accelerators.errors import InvalidSpecError as InvalidSpecError
    from accelerators.errors import PlacementError as PlacementError
    from accelerators.errors import SpecSyntaxError as SpecSyntaxError
    from accelerators.errors import UnknownAcceleratorError as UnknownAcceleratorError
    from accelerators.errors import UnknownPartitionError as UnknownPartitionError
    from accelerators.kinds import is_amd as is_amd
    from accelerators.kinds import is_apple as is_apple
    from accelerators.kinds import is_ascend as is_ascend
    from accelerators.kinds import is_biren as is_biren
    from accelerators.kinds import is_cambricon as is_cambricon
    from accelerators.kinds import is_furiosa as is_furiosa
    from accelerators.kinds import is_gaudi as is_gaudi
    from accelerators.kinds import is_google as is_google
    from accelerators.kinds import is_gpu as is_gpu
    from accelerators.kinds import is_hygon as is_hygon
    from accelerators.kinds import is_iluvatar as is_iluvatar
    from accelerators.kinds import is_inferentia as is_inferentia
    from accelerators.kinds import is_intel as is_intel
    from accelerators.kinds import is_metax as is_metax
    from accelerators.kinds import is_moore_threads as is_moore_threads
    from accelerators.kinds import is_neuron as is_neuron
    from accelerators.kinds import is_npu as is_npu
    from accelerators.kinds import is_nvidia as is_nvidia
    from accelerators.kinds import is_qualcomm as is_qualcomm
    from accelerators.kinds import is_tenstorrent as is_tenstorrent
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
    return [*_EXPORTS.names, *(name for name in constants.__all__ if _is_constant_name(name))]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS.where:
        return _EXPORTS.load(name)
    if name in _DEPRECATED:  # importable, not listed: each warns when called
        value: Any = getattr(_import(_DEPRECATED[name]), name)
        globals()[name] = value
        return value
    if name == "__all__":
        # Computed on first use, like the constants it lists: they come from the catalog's data
        # file, so a static list here would repeat the data. `from accelerators import *` and
        # dir() read it; tests/test_public_api.py checks that every name resolves.
        value = _public_names()
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

    def constants() -> list[str]:
        module = _import("accelerators.constants")
        return [n for n in module.__all__ if _is_constant_name(n)]

    return _EXPORTS.no_attribute(name, constants)


def __dir__() -> list[str]:
    names = set(globals()) | set(_EXPORTS.names)
    try:
        constants = _import("accelerators.constants")
        names |= set(getattr(constants, "__all__", ()))
    except ImportError:  # pragma: no cover - constants module missing in a broken install
        pass
    return sorted(names)
