"""Golden manifests for a representative set of specs and platforms.

Each case renders :func:`accelerators.kubernetes.build_manifests` as YAML and compares it
with ``tests/golden/kubernetes/<name>.yaml``. After an intended change, regenerate with::

    UPDATE_GOLDEN=1 python -m pytest tests/kubernetes/test_k8s_golden.py

and review the diff. Every golden file is also validated with kubernetes-validate.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from accelerators.kubernetes import build_manifests

yaml = pytest.importorskip("yaml", reason="PyYAML is not installed")

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "golden" / "kubernetes"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

# name -> (spec, platform, options)
CASES: dict[str, tuple[Any, str, dict[str, Any]]] = {
    "h100x8-gke": ("H100-SXM:8", "gke", {}),
    "h100x8-nvidia": ("H100-SXM:8", "nvidia", {}),
    "h100x8-karpenter": ("H100-SXM:8", "karpenter", {}),
    "h100x8-flyte": ("H100-SXM:8", "flyte", {}),
    "h100x8-eks": ("H100-SXM:8", "eks", {}),
    "h100x8-nvidia-runtime-class": ("H100-SXM:8", "nvidia", {"runtime_class_name": "nvidia"}),
    "a100-1g5gb-gke": ("A100@1g.5gb", "gke", {}),
    "a100-1g5gb-nvidia-single": ("A100@1g.5gb", "nvidia", {"mig_strategy": "single"}),
    "a100-1g5gb-nvidia-mixed": ("A100@1g.5gb", "nvidia", {"mig_strategy": "mixed"}),
    "a100-1g5gb-flyte": ("A100@1g.5gb", "flyte", {}),
    "a100-whole-flyte": ("A100-40GB@whole", "flyte", {}),
    "a100-whole-gke": ("A100-40GB@whole", "gke", {}),
    "h100-1g10gb-me-nvidia-mixed": ("H100-SXM!@1g.10gb+me", "nvidia", {}),
    "v5e-2x4-gke": ("V5E@2x4", "gke", {}),
    "v5p-2x2x2-flyte": ("V5P@2x2x2:4", "flyte", {}),
    "mi300x-8-amd": ("MI300X:8", "amd", {}),
    "trainium2-neuron": ("TRAINIUM2:16", "neuron", {}),
    "trainium2-neuroncore": ("TRAINIUM2:2", "neuron", {"unit": "core"}),
    "trainium2-karpenter": ("TRAINIUM2:16", "karpenter", {}),
    "gaudi3-gaudi": ("GAUDI3:8", "gaudi", {}),
    "fallback-h100-h200-a100-gke": (["H100-SXM:8", "H200-SXM:8", "A100-80GB:8"], "gke", {}),
    "fallback-h100-h200-a100-nvidia": (["H100-SXM:8", "H200-SXM:8", "A100-80GB:8"], "nvidia", {}),
    "fallback-mig-gke": (["A100@1g.5gb", "A100-80GB@1g.10gb"], "gke", {}),
    "t4-half-gke": ("T4:0.5", "gke", {}),
    "t4-half-nvidia": ("T4:0.5", "nvidia", {}),
    "mem-80gb-plus-nvidia": ("80GB+", "nvidia", {}),
    "mem-80gb-plus-karpenter": ("80GB+", "karpenter", {}),
    "mem-80gb-plus-gke": ("80GB+", "gke", {}),
    "h100x8-dra": ("H100-SXM:8", "nvidia", {"dra": True}),
    "a100-1g5gb-dra": ("A100@1g.5gb:2", "nvidia", {"dra": True}),
    "fallback-dra": (["H100-SXM:8", "A100-80GB:8"], "nvidia", {"dra": True}),
}


def render(manifests: list[dict[str, Any]]) -> str:
    text: str = yaml.safe_dump_all(manifests, sort_keys=False, width=1000)
    return text


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str, k8s_validate: Callable[..., None]) -> None:
    spec, platform, options = CASES[name]
    manifests = build_manifests(spec, platform=platform, name=name, **options)
    text = render(manifests)
    path = GOLDEN_DIR / f"{name}.yaml"
    if UPDATE:
        GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing; run with UPDATE_GOLDEN=1 to create it"
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                text.splitlines(keepends=True),
                fromfile=str(path),
                tofile="generated",
            )
        )
        pytest.fail(f"{name} differs from its golden file (UPDATE_GOLDEN=1 to accept):\n{diff}")
    for manifest in yaml.safe_load_all(expected):
        versions = ("1.34", "1.37") if options.get("dra") else ("1.30", "1.37")
        k8s_validate(manifest, versions)


def test_no_stray_golden_files() -> None:
    on_disk = {p.stem for p in GOLDEN_DIR.glob("*.yaml")}
    assert on_disk == set(CASES), "golden files without a case (or cases without a file)"
