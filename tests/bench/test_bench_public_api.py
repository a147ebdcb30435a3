"""The public surface of accelerators.bench and its import cost."""

from __future__ import annotations

import subprocess
import sys

import pytest

import accelerators.bench as bench
from accelerators.bench import PROFILES, Profile
from accelerators.bench.measure._profiles import get_profile
from accelerators.errors import AcceleratorError


def test_every_public_name_resolves() -> None:
    for name in bench.__all__:
        assert getattr(bench, name) is not None
    assert sorted(dir(bench)) == sorted(bench.__all__)
    namespace: dict[str, object] = {}
    exec("from accelerators.bench import *", namespace)
    assert set(bench.__all__) <= set(namespace)


def test_gate_error_is_an_accelerator_error() -> None:
    assert issubclass(bench.AcceleratorGateError, AcceleratorError)


def test_importing_the_package_imports_neither_torch_nor_matplotlib() -> None:
    code = (
        "import sys, accelerators.bench, accelerators.bench.testing;"
        "print(sorted(m for m in ('torch', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_importing_the_package_builds_no_pydantic_model() -> None:
    """``import accelerators.bench`` is lazy: Airflow's DAG parser pays for it on every parse."""
    code = (
        "import sys, accelerators.bench as b;"
        "print(sorted(m for m in ('pydantic', 'typing', 'torch', 'numpy') if m in sys.modules));"
        "b.Verdict;"
        "print('pydantic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "True"]


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = bench.nope  # type: ignore[attr-defined]


def test_profiles() -> None:
    quick = get_profile("quick")
    assert quick is PROFILES["quick"]
    assert get_profile(" Full ") is PROFILES["full"]
    assert get_profile(quick) is quick
    assert PROFILES["full"].gpu_warmup_s == 30.0  # mamf-finder's warm-up
    scaled = quick.scaled(0.5)
    assert scaled.cpu_gemm_budget_s == quick.cpu_gemm_budget_s / 2
    assert scaled.stream_llc_multiple == quick.stream_llc_multiple
    with pytest.raises(AcceleratorError, match="quick, standard, full"):
        get_profile("fast")
    with pytest.raises(AcceleratorError, match="final_fraction"):
        Profile(name="broken", final_fraction=1.5)
    with pytest.raises(AcceleratorError, match="positive"):
        quick.scaled(0)
