"""Constants called as specs, as skyward's ``sky.accelerators.A100(count=4)``.

``accelerators.H100(count=8)`` is the spec ``H100:8``; ``accelerators.A100(memory="80GB")`` is
the 80 GB A100. With variant keywords the call is the family's factory, so it equals
``AcceleratorSpec.NVIDIA.A100(...)``. The constants themselves stay flytekit's (the parity
tests in ``tests/test_flytekit_parity.py`` run on the same objects).
"""

from __future__ import annotations

from typing import Any

import pytest

import accelerators
from accelerators import catalog
from accelerators.constants import Device, Partition
from accelerators.errors import AcceleratorError, UnknownPartitionError
from accelerators.spec import AcceleratorSpec

S = AcceleratorSpec
CONSTANTS = sorted({acc.constant for acc in catalog.all() if acc.constant})


@pytest.mark.parametrize(
    ("build", "factory", "canonical"),
    [
        (lambda: accelerators.H100(count=8), lambda: S.NVIDIA.H100(count=8), "H100-SXM:8"),
        (lambda: accelerators.A100(count=4), lambda: S.NVIDIA.A100(count=4), "A100-40GB:4"),
        (
            lambda: accelerators.A100(memory="80GB"),
            lambda: S.NVIDIA.A100(memory="80GB"),
            "A100-80GB",
        ),
        (
            lambda: accelerators.A100(memory="80GB", count=8),
            lambda: S.NVIDIA.A100(memory="80GB", count=8),
            "A100-80GB:8",
        ),
        (
            lambda: accelerators.H100(form_factor="NVL"),
            lambda: S.NVIDIA.H100(form_factor="NVL"),
            "H100-NVL!",
        ),
        (
            lambda: accelerators.A100_80GB(partition="1g.10gb"),
            lambda: S.NVIDIA.A100_80GB(partition="1g.10gb"),
            "A100-80GB@1g.10gb",
        ),
        (
            lambda: accelerators.A100(partition="whole"),
            lambda: S.NVIDIA.A100(partition="whole"),
            "A100-40GB@whole",
        ),
        (
            lambda: accelerators.V5E(topology="2x4"),
            lambda: S.Google.TPU("v5e", topology="2x4"),
            "TPU-V5E@2x4",
        ),
        (
            lambda: accelerators.TRAINIUM2(count=16),
            lambda: S.AWS.Trainium(version=2, count=16),
            "TRAINIUM2:16",
        ),
        (lambda: accelerators.MI300X(count=8), lambda: S.AMD.MI300X(count=8), "MI300X:8"),
    ],
)
def test_a_call_is_the_factory_call(build: Any, factory: Any, canonical: str) -> None:
    spec = build()
    assert isinstance(spec, AcceleratorSpec)
    assert spec == factory()
    assert str(spec) == canonical
    assert AcceleratorSpec.parse(canonical) == spec


@pytest.mark.parametrize("name", CONSTANTS)
def test_every_constant_called_is_its_to_spec(name: str) -> None:
    constant = getattr(accelerators, name)
    assert isinstance(constant, Device)
    assert constant(count=2) == constant.to_spec(2)
    assert constant() == constant.to_spec()


def test_a_constant_of_a_non_default_sku_keeps_it() -> None:
    spec = accelerators.V100_PCIE(count=2)
    assert str(spec) == "V100-16GB-PCIE!:2"
    assert spec.accelerator is not None
    assert spec.accelerator.name == "V100-16GB-PCIE"
    # a variant keyword goes to the family's factory, which may choose another SKU
    assert str(accelerators.V100_PCIE(memory="32GB")) == "V100-32GB"


def test_a_partition_called_is_its_to_spec() -> None:
    part = accelerators.A100.partition_1g_5gb
    assert isinstance(part, Partition)
    assert part(count=7) == AcceleratorSpec.parse("A100-40GB@1g.5gb:7")
    assert accelerators.A100.unpartitioned(count=2) == AcceleratorSpec.parse("A100-40GB@whole:2")


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (
            lambda: accelerators.A100(memory="90GB"),
            AcceleratorError,
            r"no '90GB' memory variant; valid: 40GB, 80GB",
        ),
        (
            lambda: accelerators.H100(partition="1g.5gb"),
            UnknownPartitionError,
            r"H100-SXM has no MIG profile '1g\.5gb'",
        ),
        (
            lambda: accelerators.H100(topology="2x4"),
            AcceleratorError,
            r"accelerators\.H100: topology= is for TPU slices",
        ),
        (
            lambda: accelerators.T4(exact="yes"),
            AcceleratorError,
            r"accelerators\.T4: exact must be True or False",
        ),
        (lambda: accelerators.T4(count=0), AcceleratorError, r"positive"),
        (lambda: accelerators.A100.partition_1g_5gb(count=-1), AcceleratorError, r"positive"),
    ],
)
def test_bad_calls_name_what_is_valid(build: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        build()


def test_airflow_style_rendering_returns_the_constant_itself() -> None:
    # Airflow renders a callable templated field by calling it with context= and jinja_env=
    # (airflow.sdk Templater._do_render_template_fields): a constant must survive that.
    assert accelerators.H100(context={}, jinja_env=None) is accelerators.H100
    part = accelerators.A100.partition_2g_10gb
    assert part(context={"ti": None}) is part
