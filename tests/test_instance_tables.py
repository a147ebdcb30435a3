"""The instance tables are generated from stored sources; the shipped table must be what the
generator makes of them (``scripts/instance_tables/generate.py``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from accelerators import AcceleratorSpec
from accelerators.catalog import _instances

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "instance_tables_generate", ROOT / "scripts" / "instance_tables" / "generate.py"
)
assert _spec is not None
assert _spec.loader is not None
generate: Any = importlib.util.module_from_spec(_spec)
sys.modules["instance_tables_generate"] = generate  # dataclasses look their module up there
_spec.loader.exec_module(generate)


def test_the_shipped_table_is_what_the_generator_makes() -> None:
    shipped = (ROOT / "accelerators" / "data" / "instances.toml").read_text(encoding="utf-8")
    assert shipped == generate.render(), (
        "instances.toml and its sources disagree: run python scripts/instance_tables/generate.py"
    )
    assert generate.main(["--check"]) == 0


def test_the_generator_reads_its_sources() -> None:
    sources = generate.load()
    skus = sources["azure-skus"]
    fewer = skus.__class__(**{**skus.__dict__, "rows": skus.rows[1:]})
    assert generate.render({**sources, "azure-skus": fewer}) != generate.render(sources)
    # a Karpenter row for a new GPU instance becomes a row of the table
    karpenter = sources["aws-karpenter-docs"]
    newer = karpenter.__class__(
        **{
            **karpenter.__dict__,
            "rows": (*karpenter.rows, ("p9.48xlarge", "b200", "8", "183359", "-", "-")),
        }
    )
    text = generate.render({**sources, "aws-karpenter-docs": newer})
    assert 'name = "p9.48xlarge"\naccelerator = "B200"\ncount = 8' in text


def test_a_source_without_a_date_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.tsv").write_text("# title: t\n# url: https://example.org\nname\n", "utf-8")
    with pytest.raises(SystemExit, match="retrieved"):
        generate.load(tmp_path)


def test_every_row_has_a_dated_source_with_an_address() -> None:
    sources = _instances.instance_sources()
    rows = _instances.instances()
    assert len(rows) >= 400
    for row in rows:
        source = sources[row.source]
        assert source.url, row.name
        assert source.url.startswith("https://"), row.name
        assert source.retrieved.year >= 2026, row.name
    # every source file keeps its address and date
    for source in generate.load().values():
        assert source.url.startswith("https://")
        assert source.retrieved


def test_gpu_type_ids_are_not_machine_types() -> None:
    # RunPod's gpuTypeId and Vast.ai's gpu_name name one device model rented 1..N at a time:
    # their count is that one device, never the size of a node
    for row in _instances.instances():
        expected = "device" if row.cloud in ("runpod", "vastai") else "machine"
        assert row.unit == expected, (row.cloud, row.name)
    [a40] = [r for r in _instances.instances("runpod") if r.name == "NVIDIA A40"]
    assert (a40.count, a40.unit) == (1, "device")
    assert _instances.get_instance("p4d.24xlarge").unit == "machine"  # type: ignore[union-attr]


def test_every_cloud_the_issue_names_is_in_the_table() -> None:
    clouds = {row.cloud for row in _instances.instances()}
    assert clouds == set(_instances.CLOUDS)
    by_cloud = {cloud: len(_instances.instances(cloud)) for cloud in clouds}
    assert by_cloud["aws"] >= 90  # every accelerated EC2 type Karpenter and the EC2 data list
    assert by_cloud["sagemaker"] >= 70
    assert by_cloud["azure"] >= 40


@pytest.mark.parametrize(
    ("name", "spec"),
    [
        ("g6f.large", "L4:0.125"),  # fractional GPUs are counts below 1
        ("g6f.4xlarge", "L4:0.5"),
        ("Standard_NV18ads_A10_v5", "A10:0.5"),
        ("Standard_NV4as_v4", "MI25:0.125"),
        ("p3dn.24xlarge", "V100-32GB:8"),
        ("p6-b300.48xlarge", "B300:8"),
        ("dl1.24xlarge", "GAUDI1:8"),
        ("dl2q.24xlarge", "AI100:8"),
        ("g4ad.16xlarge", "V520:4"),
        ("ml.g4dn.xlarge", "T4"),
        ("ml.p4de.24xlarge", "A100-80GB:8"),
        ("Standard_NC4as_T4_v3", "T4"),
        ("Standard_NC6s_v3", "V100-16GB-PCIE!"),
        ("Standard_ND128isr_NDR_GB200_v6", "GB200:4"),
        ("a2-ultragpu-4g", "A100-80GB:4"),
        ("a4x-highgpu-4g", "GB200:4"),
        ("g2-standard-24", "L4:2"),
        ("g2-standard-32", "L4"),
        ("tpu7x-standard-4t", "TPU-V7@2x2x1:4"),
        ("BM.GPU.H100.8", "H100-SXM:8"),
        ("BM.GPU4.8", "A100-40GB:8"),
        ("VM.GPU.A10.1", "A10"),
        ("gpu_8x_h100_sxm5", "H100-SXM:8"),
        ("H100-SXM-8-80G", "H100-SXM:8"),
        ("GPU+", "QUADRO-M4000"),
        ("A100x8", "A100-40GB:8"),  # Paperspace's; Hugging Face's a100x8 is 8 A100 80GB
        ("a100x8", "A100-80GB:8"),
    ],
)
def test_instance_names_read_as_their_hardware(name: str, spec: str) -> None:
    assert AcceleratorSpec.parse(name) == AcceleratorSpec.parse(spec)


def test_a_name_two_clouds_share_in_another_case_is_refused() -> None:
    from accelerators.errors import UnknownAcceleratorError

    with pytest.raises(UnknownAcceleratorError, match=r"ambiguous.*paperspace.*A100x8.*a100x8"):
        AcceleratorSpec.parse("A100X8")
