"""The platform registry imports each adapter on first use (every fragment is unchanged:
the golden and matrix tests check them for every platform)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import accelerators.kubernetes as k8s
from accelerators.errors import AcceleratorError
from accelerators.kubernetes import Placement, Platform, get_platform, platforms, register_platform

_ADAPTERS = """
import json, sys
def loaded():
    return sorted(m for m in sys.modules if m.startswith("accelerators.kubernetes."))
import accelerators.kubernetes as k8s
on_import = loaded()
k8s.to_pod_fragment("H100-SXM:8", platform="gke")
after_gke = loaded()
names = k8s.platforms()
homes = {name: type(k8s.get_platform(name)).__module__ for name in names}
print(json.dumps({"on_import": on_import, "after_gke": after_gke, "homes": homes}))
"""


def test_adapters_are_imported_on_first_use() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _ADAPTERS], capture_output=True, text=True, check=True, timeout=120
    )
    out = json.loads(done.stdout)
    homes: dict[str, str] = out["homes"]
    adapters = set(homes.values())
    assert len(adapters) == len(homes)  # one module per platform
    assert adapters.isdisjoint(out["on_import"])
    assert adapters & set(out["after_gke"]) == {homes["gke"]}


def test_every_builtin_name_gives_its_class() -> None:
    for name in platforms():
        assert type(get_platform(name)).name == name


def test_a_builtin_name_is_taken_before_its_adapter_is_imported() -> None:
    class FakeGke(Platform):
        name = "gke"
        summary = "not GKE"

        def place(self, spec: object) -> Placement:
            raise NotImplementedError

    saved = k8s._REGISTRY.pop("gke", None)
    try:
        with pytest.raises(AcceleratorError, match="already registered"):
            register_platform(FakeGke)
    finally:
        if saved is not None:
            k8s._REGISTRY["gke"] = saved
    assert type(get_platform("gke")).__name__ == "Gke"


def test_unknown_platform_still_lists_every_platform_and_a_close_match() -> None:
    with pytest.raises(AcceleratorError) as info:
        get_platform("karpentr")
    message = str(info.value)
    assert "did you mean 'karpenter'" in message
    assert all(name in message for name in platforms())


def test_an_unknown_name_is_an_attribute_error() -> None:
    # Each public name resolves to its module's object: tests/test_lazy.py, for every table.
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        k8s.nope  # noqa: B018
