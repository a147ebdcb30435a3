"""Public surface of ``accelerators.kubernetes``: registry, options, imports, ``__all__``."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import subprocess
import sys
from typing import Any

import pytest

import accelerators.kubernetes as k8s
from accelerators.errors import AcceleratorError, PlacementError
from accelerators.kubernetes import (
    Placement,
    Platform,
    Requirement,
    build_pod,
    get_platform,
    platforms,
    register_platform,
    to_pod_fragment,
)
from accelerators.spec import AcceleratorSpec


def test_all_names_resolve_and_star_import_works() -> None:
    for name in k8s.__all__:
        assert getattr(k8s, name) is not None, name
    namespace: dict[str, Any] = {}
    exec("from accelerators.kubernetes import *", namespace)
    assert set(k8s.__all__) <= set(namespace)
    assert dir(k8s) == list(k8s.__all__)
    doc = k8s.__doc__ or ""
    missing = [name for name in k8s.__all__ if f"`{name}`" not in doc]
    assert missing == [], "public names the module docstring does not list"


def test_registry_lists_every_platform() -> None:
    """Every platform class the package defines is registered, once (not a copy of the list)."""
    defined: set[str] = set()
    for found in pkgutil.walk_packages(k8s.__path__, prefix=f"{k8s.__name__}."):
        module = importlib.import_module(found.name)
        defined |= {
            value.name
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, Platform)
            and value.__module__ == module.__name__
            and not inspect.isabstract(value)
        }
    assert defined, "no platform class found"
    assert sorted(platforms()) == sorted(defined)
    for name in platforms():
        platform = get_platform(name)
        assert isinstance(platform, Platform)
        assert platform.name == name
        assert platform.summary


def test_every_platform_module_documents_itself() -> None:
    for name in platforms():
        module = sys.modules[type(get_platform(name)).__module__]
        assert module.__doc__, module.__name__
        assert len(module.__doc__.splitlines()) >= 2, module.__name__
        assert module.__all__, module.__name__


def test_unknown_platform_suggests() -> None:
    with pytest.raises(AcceleratorError) as info:
        to_pod_fragment("T4", platform="nvida")
    assert str(info.value) == (
        "Unknown platform 'nvida': expected one of gke, nvidia, karpenter, eks, flyte, amd, "
        "neuron, gaudi, intel, generic; did you mean 'nvidia'?"
    )


def test_configured_platform_instance() -> None:
    platform = get_platform("nvidia", mig_strategy="single")
    fragment = to_pod_fragment("A100@1g.5gb", platform=platform)
    assert fragment["resources"]["limits"] == {"nvidia.com/gpu": "1"}
    with pytest.raises(AcceleratorError, match="pass them to its constructor"):
        to_pod_fragment("T4", platform=platform, mig_strategy="mixed")


def test_register_a_custom_platform() -> None:
    class Coreweave(Platform):
        name = "coreweave-test"
        summary = "test platform"
        labels = {"gpu": "gpu.nvidia.com/class"}  # noqa: RUF012

        def place(self, spec: AcceleratorSpec) -> Placement:
            assert spec.accelerator is not None
            return Placement(
                resources={"nvidia.com/gpu": int(spec.count)},
                requirements=(Requirement(self.key("gpu"), "In", (spec.accelerator.model,)),),
            )

    register_platform(Coreweave)
    try:
        assert platforms()[-1] == "coreweave-test"  # after the built-in ones
        fragment = to_pod_fragment("H100-SXM:8", platform="coreweave-test")
        assert fragment["nodeSelector"] == {"gpu.nvidia.com/class": "H100-SXM"}
        with pytest.raises(AcceleratorError, match="already registered"):
            register_platform(type("Other", (Coreweave,), {}))
    finally:
        k8s._REGISTRY.pop("coreweave-test")
    with pytest.raises(AcceleratorError, match="Expected a Platform subclass"):
        register_platform(dict)  # type: ignore[arg-type]


def test_spec_objects_strings_and_lists_are_accepted() -> None:
    spec = AcceleratorSpec(accelerator="T4", count=2)
    assert to_pod_fragment(spec, platform="gke") == to_pod_fragment("T4:2", platform="gke")
    assert to_pod_fragment(["T4", "L4"], platform="gke") == to_pod_fragment(
        "T4 | L4", platform="gke"
    )


def test_limits_equal_requests_as_integer_strings() -> None:
    for name in ("gke", "nvidia", "karpenter", "flyte", "eks", "generic"):
        resources = to_pod_fragment("H100-SXM:8", platform=name)["resources"]
        assert resources["limits"] == resources["requests"] == {"nvidia.com/gpu": "8"}


def test_fragment_is_fresh_each_call() -> None:
    first = to_pod_fragment("T4", platform="gke")
    first["tolerations"].append({"key": "x", "operator": "Exists"})
    assert to_pod_fragment("T4", platform="gke")["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]


def test_extra_tolerations_follow_the_platforms() -> None:
    fragment = to_pod_fragment(
        "T4",
        platform="gke",
        tolerations=[{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}],
    )
    assert [t["key"] for t in fragment["tolerations"]] == ["nvidia.com/gpu", "sku"]
    with pytest.raises(AcceleratorError, match="Expected a toleration as a dict or V1Toleration"):
        to_pod_fragment("T4", platform="gke", tolerations=["sku"])


def test_build_pod_shape() -> None:
    pod = build_pod("T4", platform="gke", name="t4", image="cuda:12", command=["nvidia-smi"])
    assert pod["apiVersion"] == "v1"
    assert pod["kind"] == "Pod"
    assert pod["metadata"] == {"name": "t4"}
    assert pod["spec"]["restartPolicy"] == "Never"
    assert pod["spec"]["containers"][0] == {
        "name": "main",
        "image": "cuda:12",
        "command": ["nvidia-smi"],
        "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}},
    }


def test_build_pod_rejects_bad_names() -> None:
    with pytest.raises(AcceleratorError, match="Pod name 'GPU_pod' is not valid"):
        build_pod("T4", platform="gke", name="GPU_pod")
    with pytest.raises(AcceleratorError, match="Expected a container image name"):
        build_pod("T4", platform="gke", image=" ")


def test_placement_error_is_an_accelerator_error() -> None:
    with pytest.raises(AcceleratorError):
        to_pod_fragment("MI300X", platform="gke")
    assert issubclass(PlacementError, ValueError)


def test_import_pulls_in_neither_kubernetes_nor_pydantic() -> None:
    code = (
        "import sys, json, accelerators.kubernetes\n"
        "heavy = ('kubernetes', 'pydantic', 'yaml', 'typer')\n"
        "print(json.dumps([m for m in heavy if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []
