"""What placing a spec at DAG parse time loads (Airflow parses every DAG file in a new process).

A DAG file that places ``H100:8`` on ``gke`` pays for every module it imports and for the
catalog it reads, in every parse. These checks run in a fresh interpreter, with a catalog cache
of their own: the first run stores the validated catalog, the second must read it back
without building any validator.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from accelerators.kubernetes import _dra, to_dra_fragment

ROOT = Path(__file__).resolve().parents[2]

_PLACE = """
import json, sys
from accelerators import AcceleratorSpec
from accelerators.catalog import _file, _schema
from accelerators.kubernetes import merge_fragment, to_pod_fragment
spec = AcceleratorSpec.parse("H100-SXM:8")
fragment = to_pod_fragment(spec, platform="gke")
merge_fragment({"spec": {"containers": [{"name": "base"}]}}, fragment)
print(json.dumps({
    "modules": sorted(m for m in sys.modules if m.startswith("accelerators")),
    "validators_built": sorted(
        name for module in (_schema, _file) for name in module.__all__
        if getattr(getattr(module, name), "__pydantic_complete__", None) is True
    ),
}))
"""

#: Modules a parse-time placement on one platform must not import.
NOT_NEEDED = (
    "accelerators._factories",  # AcceleratorSpec.NVIDIA... factories
    "accelerators.kubernetes._dra",  # DRA claims
    "accelerators.kubernetes._pinning",  # node pinning
    "accelerators.kubernetes._models",  # kubernetes.client models
    "accelerators.kubernetes._nvidia",  # the other platforms' adapters
    "accelerators.kubernetes._karpenter",
)


def _place(cache: Path) -> dict[str, list[str]]:
    env = dict(os.environ, ACCELERATORS_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", _PLACE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, list[str]] = json.loads(done.stdout)
    return result


def test_placing_a_spec_loads_only_what_it_needs(tmp_path: Path) -> None:
    first = _place(tmp_path / "cache")  # validates the catalog and stores it
    assert "CatalogFile" in first["validators_built"]
    second = _place(tmp_path / "cache")  # reads the stored, validated records
    assert second["validators_built"] == []
    assert "accelerators.kubernetes._gke" in second["modules"]
    assert "accelerators.catalog._trusted" in second["modules"]
    for module in NOT_NEEDED:
        assert module not in second["modules"], module


def test_every_module_not_needed_exists() -> None:
    """A renamed module would pass the check above without being checked."""
    for module in NOT_NEEDED:
        assert importlib.util.find_spec(module) is not None, f"{module}: renamed or removed?"


def test_dra_defaults_are_the_dra_module_s() -> None:
    """``to_dra_fragment`` spells its defaults out (so the module loads lazily): keep them equal."""
    import inspect

    parameters = inspect.signature(to_dra_fragment).parameters
    assert parameters["gpu_device_class"].default == _dra.DEFAULT_GPU_DEVICE_CLASS
    assert parameters["mig_device_class"].default == _dra.DEFAULT_MIG_DEVICE_CLASS
