"""The public types: the catalog's records by public names, and ``SpecLike`` for any spec."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import accelerators
from accelerators import AcceleratorSpec, catalog, constants
from accelerators.kubernetes import to_pod_fragment

ROOT = Path(__file__).resolve().parent.parent


def test_the_catalog_exports_the_types_its_lookups_return() -> None:
    h100 = catalog.get("H100-SXM")
    assert isinstance(h100, catalog.Accelerator)
    assert h100.mig_profiles
    assert all(isinstance(p, catalog.MigProfile) for p in h100.mig_profiles)
    tpu = catalog.get("TPU v5e")
    assert tpu.tpu_topologies
    assert all(isinstance(t, catalog.TpuTopology) for t in tpu.tpu_topologies)
    assert all(isinstance(s, catalog.Source) for s in catalog.sources().values())
    for name in ("Accelerator", "MigProfile", "TpuTopology", "Figure", "Source"):
        assert name in catalog.__all__, name
        assert name in dir(catalog), name
        home = "_schema" if name == "Accelerator" else "_records"  # the entry; its records
        assert getattr(catalog, name).__module__ == f"accelerators.catalog.{home}"
    with pytest.raises(AttributeError, match="has no attribute 'Accelerators'"):
        catalog.Accelerators  # noqa: B018


def test_importing_the_catalog_reads_no_data_and_imports_no_pydantic() -> None:
    code = textwrap.dedent(
        """
        import sys
        import accelerators.catalog
        loaded = sorted(m for m in sys.modules if m.startswith(("accelerators", "pydantic")))
        print(loaded)
        accelerators.catalog.Accelerator
        print("pydantic" in sys.modules)
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    loaded, after = run.stdout.splitlines()
    assert loaded == str(
        [
            "accelerators",
            "accelerators._datafiles",
            "accelerators._lazy",
            "accelerators.catalog",
            "accelerators.catalog._node_sizes",
            "accelerators.catalog._store",
            "accelerators.errors",
        ]
    )
    assert after == "True"  # the record classes come with pydantic, on first access


def test_spec_like_values_are_what_coerce_reads() -> None:
    values: list[accelerators.SpecLike] = [
        "H100-SXM:8",
        AcceleratorSpec.parse("L4"),
        constants.H100,
        constants.A100.partition_2g_10gb,
        [constants.H100, "A100-80GB"],
    ]
    for value in values:
        assert isinstance(AcceleratorSpec.coerce(value), AcceleratorSpec)
        assert to_pod_fragment(value, platform="nvidia")["resources"]


def test_mypy_accepts_every_kind_of_spec_and_refuses_others(tmp_path: Path) -> None:
    api = pytest.importorskip("mypy.api")
    snippet = tmp_path / "snippet.py"
    snippet.write_text(
        textwrap.dedent(
            """
            from accelerators import AcceleratorSpec, SpecLike
            from accelerators.catalog import Accelerator, get
            from accelerators.constants import Device, Partition, constant_for
            from accelerators.kubernetes import to_pod_fragment

            def place(device: Device, partition: Partition) -> None:
                for spec in ("H100-SXM:8", AcceleratorSpec.parse("L4"), device, partition):
                    to_pod_fragment(spec, platform="gke")
                to_pod_fragment([device, partition, "A100"], platform="gke")
                to_pod_fragment(constant_for("H100-SXM"), platform="gke")

            entry: Accelerator = get("H100-SXM")
            wrong: SpecLike = 3
            text_only = AcceleratorSpec.parse(entry)
            """
        )
    )
    out, err, status = api.run(
        ["--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(snippet)]
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == 2, out + err
    assert "snippet.py:14: error: Incompatible types in assignment" in errors[0], out
    assert 'snippet.py:15: error: Argument 1 to "parse"' in errors[1], out
    assert status == 1
