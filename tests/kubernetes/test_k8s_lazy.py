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
def adapters():
    return sorted(m.rsplit(".", 1)[1] for m in sys.modules
                  if m.startswith("accelerators.kubernetes._") and m[24:] in {
                      "_gke", "_nvidia", "_karpenter", "_eks", "_flyte", "_amd", "_neuron",
                      "_gaudi", "_intel", "_generic"})
import accelerators.kubernetes as k8s
on_import = adapters()
k8s.to_pod_fragment("H100:8", platform="gke")
after_gke = adapters()
names = k8s.platforms()
for name in names:
    k8s.get_platform(name)
print(json.dumps({"on_import": on_import, "after_gke": after_gke, "all": adapters(),
                  "names": list(names)}))
"""


def test_adapters_are_imported_on_first_use() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _ADAPTERS], capture_output=True, text=True, check=True, timeout=120
    )
    out = json.loads(done.stdout)
    assert out["on_import"] == []
    assert out["after_gke"] == ["_gke"]
    assert len(out["all"]) == 10
    assert out["names"] == [
        "gke",
        "nvidia",
        "karpenter",
        "eks",
        "flyte",
        "amd",
        "neuron",
        "gaudi",
        "intel",
        "generic",
    ]


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


def test_lazy_public_names_resolve() -> None:
    from accelerators.kubernetes._checks import placement_problems
    from accelerators.kubernetes._models import FragmentModels, fragment_models, pod_model

    assert k8s.placement_problems is placement_problems
    assert k8s.FragmentModels is FragmentModels
    assert k8s.fragment_models is fragment_models
    assert k8s.pod_model is pod_model
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        k8s.nope  # noqa: B018
