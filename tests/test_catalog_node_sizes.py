"""``catalog.largest_node``: the most devices of one accelerator on one node, from the sourced
instance table, per cloud or anywhere, and ``None`` where the table knows no node."""

from __future__ import annotations

import pytest

from accelerators import AcceleratorError, UnknownAcceleratorError, catalog
from accelerators.catalog import NodeSize, largest_node
from accelerators.catalog._instances import instances


def test_h100_nodes_have_eight_devices_everywhere() -> None:
    assert largest_node("H100-SXM") == NodeSize(8, "p5.48xlarge", "aws")
    # on a tie the table's first row: the generated table lists GCP's machine types by name
    assert largest_node("H100-SXM", cloud="gcp") == NodeSize(8, "a3-edgegpu-8g", "gcp")
    assert largest_node("H100-SXM", cloud="azure") == NodeSize(
        8, "Standard_ND96isr_H100_v5", "azure"
    )


def test_a100_40gb_has_a_sixteen_gpu_machine_on_gcp_only() -> None:
    assert largest_node("A100-40GB", cloud="gcp") == NodeSize(16, "a2-megagpu-16g", "gcp")
    assert largest_node("A100-40GB", cloud="aws") == NodeSize(8, "p4d.24xlarge", "aws")
    assert largest_node("A100-40GB").devices == 16


def test_skus_are_told_apart_and_names_resolve_like_catalog_get() -> None:
    mega = largest_node("H100-MEGA")
    assert mega == NodeSize(8, "a3-megagpu-8g", "gcp")
    nvl = largest_node("H100-NVL")
    assert nvl == NodeSize(2, "Standard_NC80adis_H100_v5", "azure")
    # a GKE label and the catalog entry itself give the same answer as the model name
    assert largest_node("nvidia-h100-80gb") == largest_node(catalog.get("H100-SXM"))
    assert largest_node("mi300x") == NodeSize(8, "Standard_ND96isr_MI300X_v5", "azure")


def test_tpu_hosts_count_chips() -> None:
    assert largest_node("V5P", cloud="gcp") == NodeSize(4, "ct5p-hightpu-4t", "gcp")
    assert largest_node("TRAINIUM2") == NodeSize(16, "trn2.48xlarge", "aws")


def test_unknown_where_the_table_has_no_row() -> None:
    assert largest_node("MAX-1550") is None  # no instance row: no known largest node
    assert largest_node("MI300X", cloud="gcp") is None


def test_only_machine_types_are_node_sizes() -> None:
    # RunPod's and Vast.ai's ids are GPU types rented by the device: no node size anywhere
    assert largest_node("A40", cloud="runpod") is None
    assert largest_node("A40") is None
    # a small cloud's line-up bounds its own cloud only
    assert largest_node("GH200-96GB", cloud="lambda") == NodeSize(1, "gpu_1x_gh200", "lambda")
    assert largest_node("GH200-96GB") is None
    # OCI's shapes count anywhere: its BM.GPU.A10.4 is the largest A10 node the table has
    assert largest_node("A10") == NodeSize(4, "BM.GPU.A10.4", "oci")
    # fractions of a device are no node either
    assert largest_node("A10", cloud="azure").devices >= 1  # type: ignore[union-attr]


def test_every_answer_is_a_row_of_the_table_and_the_maximum_of_its_rows() -> None:
    rows = [
        r
        for r in instances()
        if r.unit == "machine" and r.cloud in ("aws", "gcp", "azure", "oci", "hf")
    ]
    for acc in catalog.all():
        size = largest_node(acc)
        mine = [r for r in rows if _entry(r.accelerator) == acc.name]
        if not mine:
            assert size is None
            continue
        assert size is not None
        assert size.devices == max(r.count for r in mine)
        assert any(r.name == size.instance and r.cloud == size.cloud for r in mine)


def _entry(name: str) -> str | None:
    try:
        return catalog.get(name).name
    except AcceleratorError:
        return None


def test_bad_input_names_the_input() -> None:
    with pytest.raises(UnknownAcceleratorError, match="H10O"):
        largest_node("H10O")
    with pytest.raises(AcceleratorError, match=r"Unknown cloud 'gpc'.*did you mean 'gcp'"):
        largest_node("H100-SXM", cloud="gpc")
    with pytest.raises(UnknownAcceleratorError):
        largest_node(42)  # type: ignore[arg-type]
